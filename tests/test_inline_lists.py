"""Rule "an inline list is read by item": a long sentence that runs a list inline ("...; (c) to
make ...; (d) to deliver ...") is read item by item, on a services agreement's duties and a
licence's restrictions, so that no item is lost to a plan's bound on a sentence's length."""

from __future__ import annotations

import pytest

from tools.after_the_end import after_the_end
from tools.citations import QuoteVerifier
from tools.structure.sentences import LIST_SENTENCE_CHARS, list_items, sentences_within

_FILLER = "and to keep such records as are reasonably required by applicable law and regulation"
SERVICES = (
    "CRO undertakes: (a) to perform the Services in accordance with the Protocol, "
    + _FILLER
    + "; (b) that all deliverables developed by CRO in the performance of Services shall be the property of "
    "Client, " + _FILLER + "; (c) to give Client all proper assistance to obtain patent or copyright "
    "protection, " + _FILLER + "; (d) to deliver to Client, upon termination or expiration of this "
    "Agreement, all materials which were provided to CRO under this Agreement; and (e) to notify Client of "
    "any conflict of interest, " + _FILLER + "."
)
LICENCE = (
    "The Licensee shall not: (i) sublicense the Software to any third party, " + _FILLER + "; (ii) "
    "modify, translate or create derivative works of the Software, " + _FILLER + "; (iii) remove any "
    "proprietary notice from the Software, "
    + _FILLER
    + "; (iv) copy the Software, "
    + _FILLER
    + "; or (v) use the Software after the expiry "
    "or termination of this Agreement, and upon termination the Licensee shall destroy every copy."
)


@pytest.mark.parametrize(("text", "items"), [(SERVICES, 5), (LICENCE, 5)])
def test_a_long_sentence_is_read_by_its_items(text: str, items: int) -> None:
    assert len(text) > LIST_SENTENCE_CHARS
    spans = list_items(text, (0, len(text)))
    assert len(spans) == items
    assert " ".join(text[a:b] for a, b in spans) == text  # every word kept, in order
    assert all(text[a:b] == text[a:b].strip() for a, b in spans)  # a span is its words (quotes verify)
    assert sentences_within(text, [(0, len(text))]) == spans
    verifier = QuoteVerifier(text)
    assert all(verifier.is_at(text[a:b], (a, b)) for a, b in spans)  # each item cites as it is


@pytest.mark.parametrize(
    ("text", "words"), [(SERVICES, "(d) to deliver to Client"), (LICENCE, "(v) use the")]
)
def test_an_item_on_what_follows_the_end_is_found(text: str, words: str) -> None:
    found = after_the_end(text, [(0, len(text))])
    assert len(found) == 1 and text[found[0][0] : found[0][1]].startswith(words)


def test_a_short_sentence_with_a_list_stays_whole() -> None:
    short = "The Buyer shall: (a) pay the Fees; (b) give notice; and (c) keep records."
    assert list_items(short, (0, len(short))) == [(0, len(short))]
