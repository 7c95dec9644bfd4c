"""Page images drawn in worker processes, each drawing within a CPU-time budget."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from clausewise.core.errors import TooCostlyToDraw
from clausewise.service.page_images import PageImages
from clausewise_lab.evals.abuse_families import slow_to_draw_pdf
from tools.rendering import page_png, text_to_pdf

GOVERNED = (
    "This Agreement is governed by the laws of England. Each party submits to the exclusive "
    "jurisdiction of the courts of London for any dispute arising out of this Agreement."
)


@pytest.fixture
def images():
    drawing = PageImages(processes=1, cpu_seconds=1.0, memory_mb=1536)
    yield drawing
    drawing.close()


def test_a_page_is_drawn_in_a_worker_as_it_would_be_drawn_here(images: PageImages, tmp_path: Path) -> None:
    for name, text in (("nda", Path("examples/mutual-nda.txt").read_text()), ("governed", GOVERNED * 40)):
        pdf = tmp_path / f"{name}.pdf"
        text_to_pdf(text, pdf)
        assert asyncio.run(images.png(pdf, 1, 1.0)) == page_png(pdf, 1, 1.0)


def test_a_page_slow_to_draw_is_refused_in_budget_and_the_next_page_is_drawn(
    images: PageImages, tmp_path: Path
) -> None:
    slow = tmp_path / "slow.pdf"
    slow.write_bytes(slow_to_draw_pdf())
    with pytest.raises(TooCostlyToDraw) as refused:
        asyncio.run(images.png(slow, 1, 1.5))
    assert "s of CPU time" in refused.value.message and refused.value.hint
    plain = tmp_path / "plain.pdf"
    text_to_pdf(GOVERNED, plain)
    assert asyncio.run(images.png(plain, 1, 1.0)) == page_png(plain, 1, 1.0)  # a new worker


def test_a_drawing_lost_with_another_pages_worker_is_drawn_again(images: PageImages, tmp_path: Path) -> None:
    """Two drawings share the one worker: the slow page ends it, the plain page queued behind is
    drawn in the next worker rather than refused with it."""
    slow, plain = tmp_path / "slow.pdf", tmp_path / "plain.pdf"
    slow.write_bytes(slow_to_draw_pdf())
    text_to_pdf(GOVERNED, plain)

    async def both() -> list[bytes | BaseException]:
        return await asyncio.gather(
            images.png(slow, 1, 1.5), images.png(plain, 1, 1.0), return_exceptions=True
        )

    refused, drawn = asyncio.run(both())
    assert isinstance(refused, TooCostlyToDraw)
    assert drawn == page_png(plain, 1, 1.0)
