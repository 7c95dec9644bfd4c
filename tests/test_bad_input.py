"""Bad input: a typed error naming the file and the fix, a non-zero exit code, nothing written."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from clausewise.cli.main import run
from clausewise.core.config import ParsingSettings
from clausewise.core.errors import (
    CorruptDocument,
    EmptyDocument,
    EncryptedDocument,
    FileTooLarge,
    InputError,
    UndecodableText,
    UnsupportedFileType,
)
from clausewise_lab.evals.abuse_families import word_file_with
from tools.parsing import parse_document


def _encrypted_pdf(path: Path) -> None:
    with pymupdf.open() as document:
        document.new_page().insert_text((72, 72), "Secret terms of the agreement.")
        document.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner", user_pw="s3cret")


def _bad_files(folder: Path) -> dict[str, tuple[Path, type[InputError], str]]:
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, tuple[Path, type[InputError], str]] = {}

    def make(name: str, data: bytes, error: type[InputError], fix: str) -> None:
        path = folder / name
        path.write_bytes(data)
        files[name] = (path, error, fix)

    make("empty.pdf", b"", EmptyDocument, "export the contract again")
    make("garbage.pdf", b"this is not a pdf at all" * 50, CorruptDocument, "re-export")
    make("truncated.pdf", b"%PDF-1.7\n1 0 obj << /Type /Catalog", CorruptDocument, "re-export")
    make(
        "legacy.doc", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 512, UnsupportedFileType, ".docx or PDF"
    )
    make("archive.zip", b"PK\x03\x04" + b"\x00" * 64, UnsupportedFileType, "extract")
    make("program.exe", b"MZ\x90\x00" + bytes(range(256)), UnsupportedFileType, "use PDF, DOCX")
    make("blank.txt", b"   \n\n  \t\n", EmptyDocument, "check the export")
    make("broken.docx", b"PK\x03\x04 not really a zip", CorruptDocument, "save it as .docx again")
    malformed = word_file_with(b"<w:p><w:r><w:t>unclosed</w:r></w:p>")  # not well-formed XML: was a 500
    make("malformed.docx", malformed, CorruptDocument, "save it as .docx again")
    encrypted = folder / "locked.pdf"
    _encrypted_pdf(encrypted)
    files["locked.pdf"] = (encrypted, EncryptedDocument, "remove the password")
    return files


def test_each_bad_file_raises_its_typed_error(tmp_path: Path) -> None:
    for name, (path, error, fix) in _bad_files(tmp_path / "bad").items():
        with pytest.raises(error) as raised:
            parse_document(path, ParsingSettings())
        message = str(raised.value)
        assert name in message, message
        assert fix in message, message


def test_size_and_page_limits(tmp_path: Path) -> None:
    with pytest.raises(FileTooLarge, match=r"parsing\.max-file-mb"):
        parse_document(Path("examples/mutual-nda.pdf"), ParsingSettings(max_file_mb=0.01))
    with pytest.raises(FileTooLarge, match="4 pages"):
        parse_document(Path("examples/mutual-nda.pdf"), ParsingSettings(max_pages=3))
    with pytest.raises(FileTooLarge, match=r"parsing\.max-chars"):
        parse_document(Path("examples/mutual-nda.txt"), ParsingSettings(max_chars=1000))


def test_cli_reports_one_line_per_bad_file_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files = _bad_files(tmp_path / "bad")
    data_dir = tmp_path / "store"
    with pytest.raises(SystemExit) as exited:
        run(["--data-dir", str(data_dir), "ingest", *(str(p) for p, _, _ in files.values())])
    assert exited.value.code == 3
    errors = capsys.readouterr().err
    for name in files:
        lines = [line for line in errors.splitlines() if name in line]
        assert lines and "Fix:" in lines[0], (name, errors)
    contracts = data_dir / "tenants" / "default" / "contracts"
    assert not contracts.exists() or not any((d / "CURRENT").exists() for d in contracts.iterdir())


def test_missing_file_and_wrong_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        run(["--data-dir", str(tmp_path), "ingest", str(tmp_path / "nope.pdf")])
    assert exited.value.code == 3
    assert "does not exist" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        run(["--data-dir", str(tmp_path), "tree", "never-ingested"])
    assert exited.value.code == 4
    assert "clausewise contracts list" in capsys.readouterr().err


FRENCH = (
    "CONTRAT DE SERVICES\n\n1. Objet. Les services décrits à l'Annexe A sont fournis par le Prestataire.\n\n"
    "2. Résiliation. Chaque partie peut résilier le contrat avec un préavis de trente jours.\n"
)


def cp1252_with_undefined_bytes() -> bytes:
    """A Windows-1252 file with two of the five bytes that code page leaves undefined."""
    data = FRENCH.encode("cp1252")
    return data.replace(b"A sont", b"A \x81sont", 1).replace(b"Chaque", b"\x9dChaque", 1)


def test_a_few_undefined_bytes_are_replaced_and_said_never_mojibake(tmp_path: Path) -> None:
    path = tmp_path / "contrat.txt"
    path.write_bytes(cp1252_with_undefined_bytes())
    document = parse_document(path, ParsingSettings())
    assert "décrits à l'Annexe" in document.text and "2. Résiliation" in document.text
    assert "\ufffdsont" in document.text and "ķ" not in document.text
    [warning] = document.warnings
    assert "2 byte(s)" in warning and "Windows-1252" in warning and "line(s) 3, 5" in warning
    # UTF-8 with one damaged byte: read as UTF-8, the byte replaced and said
    damaged = tmp_path / "damaged.txt"
    damaged.write_bytes(FRENCH.encode("utf-8").replace(b"Objet", b"Ob\xffjet"))
    document = parse_document(damaged, ParsingSettings())
    assert "décrits à l'Annexe" in document.text and "utf-8" in document.warnings[0]
    # clean files have no warning
    clean = tmp_path / "clean.txt"
    clean.write_bytes(FRENCH.encode("cp1252"))
    assert parse_document(clean, ParsingSettings()).warnings == []


def test_text_whose_bytes_mostly_cannot_be_decoded_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "junk.txt"
    path.write_bytes(b"Agreement " + b"\x81\x8d\x8f\x90\x9d" * 40)
    with pytest.raises(UndecodableText, match="200 of its 200 non-ASCII bytes") as refused:
        parse_document(path, ParsingSettings())
    assert "junk.txt" in str(refused.value) and "UTF-8" in refused.value.hint


def test_a_word_file_built_to_be_slow_or_huge_is_refused_before_it_costs_much(tmp_path: Path) -> None:
    """Hundreds of thousands of paragraphs, or XML that unpacks far past the file: refused on a
    time budget and on the unpacked size, each with the setting to raise."""
    from clausewise.core.errors import TooSlowToRead

    def padded(paragraph: bytes, count: int) -> Path:
        path = tmp_path / f"padded-{count}.docx"
        path.write_bytes(word_file_with(b"<w:p><w:r><w:t>x</w:t></w:r></w:p>" + paragraph * count))
        return path

    slow = padded(b"<w:p><w:r><w:t>x</w:t></w:r></w:p>", 30_000)
    with pytest.raises(TooSlowToRead, match=r"parsing\.max_parse_seconds"):
        parse_document(slow, ParsingSettings(max_parse_seconds=0.2))
    empty = padded(b"<w:p/>", 555_000)  # empty paragraphs are skipped without being read
    assert parse_document(empty, ParsingSettings()).text == "x"
    with pytest.raises(FileTooLarge, match=r"unpacks to .*parsing\.max_unpacked_mb"):
        parse_document(empty, ParsingSettings(max_unpacked_mb=1))
