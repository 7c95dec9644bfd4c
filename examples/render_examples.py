"""Regenerate the PDF and scanned-PDF copies of the example contracts from their text.

    python examples/render_examples.py

The text files are the source of truth; the PDFs are committed so that a fresh clone can run
the PDF and OCR paths without this step.
"""

from __future__ import annotations

from pathlib import Path

from tools.rendering import rasterize_pdf, text_to_pdf

HERE = Path(__file__).resolve().parent


def main() -> None:
    for name in ("mutual-nda", "services-agreement"):
        pages = text_to_pdf((HERE / f"{name}.txt").read_text(encoding="utf-8"), HERE / f"{name}.pdf")
        print(f"{name}.pdf: {pages} pages")
    scanned = rasterize_pdf(HERE / "mutual-nda.pdf", HERE / "mutual-nda-scanned.pdf", dpi=200)
    print(f"mutual-nda-scanned.pdf: {scanned} image-only pages")


if __name__ == "__main__":
    main()
