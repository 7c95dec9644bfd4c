"""What a Word file can do when it is opened, besides show its text, and how we take it out of the
files we hand back.

A redline is built on the contract's own Word file, so whatever that file carried would go back to
the lawyer with our name on it: macros (``vbaProject.bin``), ActiveX controls, a template fetched
from a remote address (``attachedTemplate``), images, subdocuments and links that point outside the
file (external relationships), fields that fetch text or pictures from elsewhere (``INCLUDETEXT``,
``INCLUDEPICTURE``, ``LINK``, ``DDE`` ...) and the setting that updates fields on opening. Each is
removed unless the user asks to keep it, and the removal is described in words; a fetching field
keeps the result Word last showed, as plain text, so the text reads the same.

Text that Word shows but that is not in the document's body (an ``altChunk``: a whole HTML or RTF
file Word renders in place; a ``subDoc``: a master document's part kept in another file) cannot be
read as the contract's text: :func:`hidden_content` names it, and the ingest refuses such a file.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from docx.opc.part import XmlPart
from docx.oxml.ns import qn

_R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
#: Relationship types whose parts run code when the file is opened or used.
_ACTIVE_TYPES = {
    "http://schemas.microsoft.com/office/2006/relationships/vbaProject": "macros (vbaProject.bin)",
    "http://schemas.microsoft.com/office/2006/relationships/keyMapCustomizations": "macro key bindings",
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/control": "ActiveX controls",
}
#: Field instructions that fetch content from outside the file when the field is updated.
FETCHING_FIELDS = frozenset(
    {"INCLUDETEXT", "INCLUDEPICTURE", "LINK", "DDE", "DDEAUTO", "IMPORT", "DATABASE", "RD", "HYPERLINK"}
)
#: Elements that exist only to point at an external relationship: removed with it.
_POINTERS = {qn("w:attachedTemplate"), qn("w:subDoc")}


def hidden_content(document: Any) -> list[str]:
    """The parts of the file Word shows as the document's text that are not in its body's runs:
    ``altChunk`` (named with its part) and ``subDoc`` (named with its target)."""
    found: list[str] = []
    part = document.part
    for chunk in part.element.iter(qn("w:altChunk")):
        rel = part.rels.get(chunk.get(qn("r:id"), ""))
        target = rel.target_ref if rel is not None else "a missing part"
        found.append(f"altChunk ({target}): text from another file that Word shows in place")
    for sub in part.element.iter(qn("w:subDoc")):
        rel = part.rels.get(sub.get(qn("r:id"), ""))
        target = rel.target_ref if rel is not None else "a missing file"
        found.append(f"subDoc ({target}): a subdocument kept in another file")
    return found


def _field_word(instruction: str) -> str:
    words = instruction.split()
    return words[0].upper() if words else ""


def _unwrap(element: Any) -> None:
    """Replace ``element`` by its children (a simple field by its result runs)."""
    for child in list(element):
        element.addprevious(child)
    element.getparent().remove(element)


def _drop(node: Any) -> None:
    """Remove a field character or instruction; its run goes too once it holds nothing else."""
    run = node.getparent()
    run.remove(node)
    if run.tag == qn("w:r") and all(child.tag == qn("w:rPr") for child in run):
        run.getparent().remove(run)


def _neutralise_fields(root: Any) -> int:
    """Turn every fetching field under ``root`` into the result it shows: a simple field is
    replaced by its runs; a complex field loses its begin, instruction, separator and end, so
    its result runs stay as plain text. Returns how many fields were turned."""
    turned = 0
    for simple in list(root.iter(qn("w:fldSimple"))):
        if _field_word(simple.get(qn("w:instr"), "")) in FETCHING_FIELDS:
            _unwrap(simple)
            turned += 1
    open_fields: list[dict[str, Any]] = []  # per open complex field: its code nodes and instruction
    for node in list(root.iter(qn("w:fldChar"), qn("w:instrText"))):
        if node.tag == qn("w:instrText"):
            if open_fields and not open_fields[-1]["separated"]:
                open_fields[-1]["nodes"].append(node)
                open_fields[-1]["instruction"] += node.text or ""
            continue
        kind = node.get(qn("w:fldCharType"))
        if kind == "begin":
            open_fields.append({"nodes": [node], "instruction": "", "separated": False})
        elif kind == "separate" and open_fields:
            open_fields[-1]["nodes"].append(node)
            open_fields[-1]["separated"] = True
        elif kind == "end" and open_fields:
            field = open_fields.pop()
            if _field_word(field["instruction"]) in FETCHING_FIELDS:
                for code in [*field["nodes"], node]:
                    _drop(code)
                turned += 1
    return turned


def strip_active_content(document: Any) -> list[str]:
    """Remove from ``document`` (python-docx's, changed in place) everything that can run or
    fetch when the file is opened (see the module); returns what went, in words (empty: none)."""
    removed: Counter[str] = Counter()
    package = document.part.package
    parts = [package, *package.iter_parts()]
    for part in parts:
        element = part.element if isinstance(part, XmlPart) else None
        for rel_id, rel in list(part.rels.items()):
            if rel.reltype in _ACTIVE_TYPES:
                removed[_ACTIVE_TYPES[rel.reltype]] += 1
            elif rel.is_external:
                removed[f"links to outside the file ({rel.reltype.rsplit('/', 1)[-1]})"] += 1
            else:
                continue
            if element is not None:
                for holder in element.xpath(f"//*[@*[namespace-uri()='{_R}' and .='{rel_id}']]"):
                    if holder.tag in _POINTERS or holder.tag == qn("w:control"):
                        holder.getparent().remove(holder)
                        continue
                    for name in [n for n in holder.attrib if n.startswith(f"{{{_R}}}")]:
                        if holder.get(name) == rel_id:
                            del holder.attrib[name]
            del part.rels[rel_id]
        if element is None:
            continue
        fields = _neutralise_fields(element)
        if fields:
            removed["fields that fetch content (their last results kept as text)"] += fields
        for setting in list(element.iter(qn("w:updateFields"))):
            setting.getparent().remove(setting)
            removed["the setting that updates fields on opening"] += 1
    return [f"{what} x{count}" if count > 1 else what for what, count in removed.items()]
