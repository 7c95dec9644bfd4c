"""Rule "a lead-in is quoted with what it leads to" (tools/decision/grounds.py), on real excerpts
of three CUAD development contracts (tune half) and on the two sample contracts, with sentences
that state their terms themselves as counter-examples."""

from __future__ import annotations

import pytest

from tools.decision.grounds import is_lead_in, with_what_it_leads_to

#: (excerpt, the announcing line, words the ground must then hold)
LEAD_INS = [
    pytest.param(
        "The Agent shall receive the following compensation for its services hereunder:\n\n"
        'a. The fee shall be equal to 5.2% of the "gross proceeds" received in the Offering '
        "attributable to the efforts of the Agent. At least 48 hours prior to each Closing, the "
        "Agent shall deliver a schedule.",
        "The Agent shall receive the following compensation for its services hereunder:",
        "5.2%",
        id="placement agency agreement: a colon lead-in, then its item",
    ),
    pytest.param(
        "1.       This agreement shall terminate:\n\n                  a.       Automatically if any "
        "public authority cancels or declines to renew the Agency's license or Certificate of "
        "Authority.\n",
        "1.       This agreement shall terminate:",
        "Automatically if any public authority cancels",
        id="agency agreement: a numbered lead-in, then its lettered item",
    ),
    pytest.param(
        "MINIMUM PAYMENT\n\n    ACCESS FEE    SECOND COMPONENT\n\nYear 1    $400,000    $300,000    "
        "$100,000    Year 2    $700,000    $300,000    $400,000",
        "MINIMUM PAYMENT",
        "$400,000",
        id="strategic alliance agreement: a heading, then its table",
    ),
]


@pytest.mark.parametrize(("excerpt", "line", "stated"), LEAD_INS)
def test_a_lead_in_is_quoted_with_what_it_leads_to(excerpt, line, stated):
    start = excerpt.index(line)
    span = with_what_it_leads_to(excerpt, (start, start + len(line)), limit=400)
    quoted = excerpt[span[0] : span[1]]
    assert quoted.startswith(line) and stated in quoted
    assert quoted == quoted.strip()  # a verified span: no whitespace at either end


@pytest.mark.parametrize(
    "sentence",
    [
        # a sentence that states terms, in capitals (a limitation clause) or not
        "IN NO EVENT SHALL EITHER PARTY BE LIABLE TO THE OTHER PARTY FOR ANY INCIDENTAL, "
        "CONSEQUENTIAL, INDIRECT, SPECIAL, OR PUNITIVE DAMAGES.",
        "LICENSEE may terminate this Agreement upon ninety (90) days written notice.",
        "(a) at the option of any party, upon 90 days' advance written notice to the other parties "
        "hereto; or",
        "Either party may terminate this Agreement at any time on prior written notice to the other.",
    ],
)
def test_a_sentence_that_states_its_terms_is_quoted_as_it_stands(sentence):
    text = f"{sentence}\n\nThe next clause says something else entirely."
    assert not is_lead_in(sentence)
    assert with_what_it_leads_to(text, (0, len(sentence)), limit=400) == (0, len(sentence))


def test_what_follows_is_cut_after_a_word_at_the_limit():
    line = "The Receiving Party shall:"
    text = line + "\n\n(a) " + "keep the information safe and " * 40 + "end."
    span = with_what_it_leads_to(text, (0, len(line)), limit=120)
    assert span[1] <= 120 and text[span[1] - 1] != " " and text[span[1]] == " "


def test_a_lead_in_at_the_end_of_the_text_stays_as_it_is():
    text = "The Parties agree as follows:"
    assert with_what_it_leads_to(text, (0, len(text)), limit=400) == (0, len(text))
