"""Rule "a subject's own sentences": an open question on liability, intellectual property,
disputes, notices, amendment or confidentiality is planned from the sections whose titles name its
subject and the sentences that state it; with rules "a page's running text is no clause" and "an
indemnity is no limit of liability". On the example NDA, services and supply agreements, and a
licence written here."""

from __future__ import annotations

import re

import pytest

from tests.helpers import example_text, example_tree
from tools.structure.tree_builder import build_tree
from tools.subject_plans import RUNNING, SENTENCES, subject_sentences
from tools.text_plans import ASubjectsOwnSentences, plan_for

DEMO = (
    "How long must the Receiving Party keep the other party's information confidential, "
    "and what exceptions apply?"
)


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("How is liability limited?", "liability"),
        ("What limits or exclusions of liability apply?", "liability"),
        ("Who owns the intellectual property?", "intellectual property"),
        ("Who owns the work product and IP under this agreement?", "intellectual property"),
        ("How are disputes resolved, and which law and courts apply?", "disputes"),
        ("How must notices be given?", "notices"),
        ("What are the notice requirements?", "notices"),
        ("How can this agreement be amended?", "amendment"),
        ("What must be kept confidential under this agreement?", "confidentiality"),
        (DEMO, "confidentiality"),
        ("Can this agreement be assigned?", "assignment"),  # composed only if no decider settles it
        ("Is either party's liability capped or excluded?", "liability"),
        (
            "Does the agreement provide that the Receiving Party may share Confidential Information?",
            None,
        ),
        ("What is the governing law?", None),  # one value: the value reader's
        ("What are the payment terms?", None),  # its own plan
        ("How can this agreement be terminated?", None),
    ],
)
def test_a_question_on_one_subject_is_recognised(question: str, subject: str | None) -> None:
    plan = plan_for(question)
    if subject is None:
        assert not isinstance(plan, ASubjectsOwnSentences)
    else:
        assert isinstance(plan, ASubjectsOwnSentences) and plan.subject.name == subject
        assert plan.question == question  # bound to it: its aspects are read from it


def _planned(contract: str, question: str, text: str | None = None) -> list[str]:
    text = text if text is not None else example_text(contract)
    plan = plan_for(question)
    assert isinstance(plan, ASubjectsOwnSentences)
    spans = plan.spans(text, example_tree(contract) if text == example_text(contract) else _tree(text))
    assert len(spans) <= SENTENCES and spans == sorted(spans)
    return [" ".join(text[a:b].split()) for a, b in spans]


def _tree(text: str):
    from clausewise.core.config import StructureSettings
    from tools.parsing.text import document_from_text

    return build_tree(document_from_text(text, "contract.txt"), StructureSettings())


@pytest.mark.parametrize(
    ("contract", "question", "expected", "not_expected"),
    [
        (
            "services-agreement",
            "How is liability limited?",
            ["total liability arising out of", "indirect or consequential loss"],
            [],
        ),
        (
            "supply-agreement",
            "What limits or exclusions of liability apply?",
            ["total liability arising out of", "indirect, special or consequential loss"],
            ["insurance"],
        ),
        (
            "mutual-nda",
            "How are disputes resolved, and which law and courts apply?",
            ["governed by the laws of England and Wales", "exclusive jurisdiction"],
            ["Notices"],
        ),
        (
            "supply-agreement",
            "Where and how would a dispute under this contract be decided?",
            ["governed by the laws of the State of California", "exclusive jurisdiction"],
            ["Notices"],
        ),
        (
            "mutual-nda",
            "How must notices be given?",
            ["Notices under this Agreement must be in writing"],
            ["Assignment"],
        ),
        (
            "services-agreement",
            "What are the notice requirements?",
            ["Notices must be in writing"],
            ["governed"],
        ),
        (
            "services-agreement",
            "How can this agreement be amended?",
            ["No change is binding unless it is agreed in writing"],
            ["entire agreement"],
        ),
        (
            "supply-agreement",
            "What is required to change the terms of this contract? How are changes agreed?",
            ["No amendment of this Agreement is effective unless it is in writing"],
            ["entire agreement"],
        ),
        (
            "services-agreement",
            "Who owns the intellectual property?",
            ["retains all intellectual property rights", "The Customer owns all Customer Data"],
            [],
        ),
    ],
)
def test_a_subjects_own_sentences_are_planned(
    contract: str, question: str, expected: list[str], not_expected: list[str]
) -> None:
    quotes = _planned(contract, question)
    assert all(any(words in quote for quote in quotes) for words in expected), quotes
    assert not any(words.lower() in quote.lower() for quote in quotes for words in not_expected), quotes


LICENCE = """SOFTWARE DEVELOPMENT AGREEMENT

1. Services. Developer shall develop the Software described in Exhibit A for Client at its own cost.

2. Fees. Client shall pay Developer the fees set out in Exhibit B within thirty (30) days of invoice.

3. Proprietary Rights

3.1 All deliverables and work product developed by Developer under this Agreement shall be the sole
and exclusive property of Client.

3.2 Developer hereby assigns to Client all right, title and interest in and to the Software,
including all patents and copyrights.

3.3 Developer shall execute any documents Client reasonably requests to register its rights.

4. Governing Law. This Agreement is governed by the laws of the State of Ohio.
"""


def test_ownership_is_planned_on_a_development_agreement() -> None:
    """The second contract for intellectual property: its "Proprietary Rights" section, whose title
    names the subject, and the sentences that say who owns what."""
    plan = plan_for("Who owns the work product and IP under this agreement?")
    assert isinstance(plan, ASubjectsOwnSentences)
    quotes = [" ".join(LICENCE[a:b].split()) for a, b in plan.spans(LICENCE, _tree(LICENCE))]
    assert any("sole and exclusive property of Client" in q for q in quotes)
    assert any("hereby assigns to Client all right, title and interest" in q for q in quotes)
    assert not any("fees" in q or "governed" in q or "its own cost" in q for q in quotes)


@pytest.mark.parametrize(
    ("contract", "question", "expected", "not_expected"),
    [
        (
            "mutual-nda",
            DEMO,
            [
                "survive the expiry or termination of this Agreement for three (3) years",
                "do not apply to information",
            ],
            [
                '"Confidential Information" means',
                "is independently developed",
            ],  # a definition; an item of the list
        ),
        (
            "services-agreement",
            "What are the confidentiality obligations, how long do they last, and what are the exceptions?",
            ["Each Party shall keep confidential all information of the other Party"],
            ["total liability"],
        ),
    ],
)
def test_a_question_on_some_aspects_gets_those(
    contract: str, question: str, expected: list[str], not_expected: list[str]
) -> None:
    """How long and what exceptions: the sentences on those aspects of confidentiality, among them
    one that refers to the confidentiality section by its number (the NDA's survival clause), and
    a lead-in's list items not again beside it."""
    quotes = _planned(contract, question)
    assert all(any(words in quote for quote in quotes) for words in expected), quotes
    assert not any(words in quote for quote in quotes for words in not_expected), quotes


@pytest.mark.parametrize("contract", ["mutual-nda", "services-agreement"])
def test_a_pages_running_text_is_no_clause(contract: str) -> None:
    """Rule "a page's running text is no clause": a footer the contract repeats on every page,
    numbers aside, is not planned though it names the subject; said once, it is a sentence."""
    question = "What does the contract say about confidentiality?"
    footer = "Confidential - Page {} of 3."
    paragraphs = example_text(contract).split("\n\n")
    third = len(paragraphs) // 3
    pages = [paragraphs[:1], paragraphs[1:third], paragraphs[third : 2 * third], paragraphs[2 * third :]]
    padded = "\n\n".join(
        [*pages[0], footer.format(1), *pages[1], footer.format(2), *pages[2], footer.format(3), *pages[3]]
    )
    once = "\n\n".join([*pages[0], footer.format(1), *paragraphs[1:]])
    assert RUNNING == 3
    without_footers = [
        " ".join(re.sub(r"Confidential - Page \d of 3\.", "", quote).split())
        for quote in _planned(contract, question, padded + "\n")
    ]
    assert [quote for quote in without_footers if quote] == _planned(contract, question)
    assert any("Page 1 of 3" in quote for quote in _planned(contract, question, once + "\n"))


@pytest.mark.parametrize("contract", ["mutual-nda", "services-agreement"])
def test_a_footer_joined_to_a_pages_last_line_is_running_text(contract: str) -> None:
    """Rule "a page's running text is no clause", joined: a footer at the end of each page's last
    line, alike but for the page's number, is not planned though it says "Confidential"; words
    that end three lines with numbers of their own (not counting up) stay."""
    question = "What does the contract say about confidentiality?"
    footer = "Confidential Page {} of 3 Initials: AB CD Version Mar2_v1"
    paragraphs = example_text(contract).split("\n\n")
    third = len(paragraphs) // 3
    ends = [third - 1, 2 * third - 1, len(paragraphs) - 1]
    joined = [f"{p} {footer.format(ends.index(n) + 1)}" if n in ends else p for n, p in enumerate(paragraphs)]
    quotes = _planned(contract, question, "\n\n".join(joined) + "\n")
    assert quotes and not any("Initials" in quote for quote in quotes), quotes
    clause = "Each Party shall keep confidential all notices it receives within {} days after written notice."

    def with_clauses(days: tuple[str, ...]) -> list[str]:
        kept = list(paragraphs)
        for n, said in zip(ends, days, strict=True):
            kept[n] = f"{paragraphs[n]} {clause.format(said)}"
        return _planned(contract, question, "\n\n".join(kept) + "\n")

    in_figures, in_words = with_clauses(("30", "10", "20")), with_clauses(("thirty", "ten", "twenty"))
    assert len(in_figures) == len(in_words)
    assert [q.count("keep confidential all notices") for q in in_figures] == [
        q.count("keep confidential all notices") for q in in_words
    ]
    assert any("within 30 days after written notice." in q for q in in_figures)


@pytest.mark.parametrize("contract", ["services-agreement", "supply-agreement"])
def test_a_sections_name_states_nothing(contract: str) -> None:
    """Rule "a section's name states nothing": a sentence whose exception names "clause 26
    (Proprietary Information)" is not on confidentiality for it; the same words as its own
    ("services that use proprietary information") put it there."""
    question = "How long does confidentiality last, and what information is excluded?"
    sentence = "The service levels in Schedule 2 shall not apply to services {}."
    paragraphs = example_text(contract).split("\n\n")

    def planned(services: str) -> list[str]:
        """The plan with the sentence as a paragraph after the contract's title and preamble."""
        text = "\n\n".join([*paragraphs[:2], sentence.format(services), *paragraphs[2:]])
        return _planned(contract, question, text)

    named = planned("under clause 26 (Proprietary Information)")
    assert named and not any("service levels in Schedule 2" in quote for quote in named), named
    said = planned("that use proprietary information")
    assert any("service levels in Schedule 2" in quote for quote in said), said


@pytest.mark.parametrize("contract", ["services-agreement", "supply-agreement"])
def test_a_limit_of_liability_is_no_confidentiality_clause(contract: str) -> None:
    """Rule "a limit of liability is no confidentiality clause": an exclusion of damages that
    excepts a breach of confidentiality is not planned for a confidentiality question, and is for
    a liability one."""
    exclusion = (
        "Except for a breach of its confidentiality obligations, neither Party shall be liable for any "
        "indirect or consequential damages."
    )
    paragraphs = example_text(contract).split("\n\n")
    text = "\n\n".join([*paragraphs[:2], exclusion, *paragraphs[2:]])
    confidentiality = _planned(
        contract, "What are the confidentiality obligations and their exceptions?", text
    )
    assert confidentiality and not any("consequential damages" in quote for quote in confidentiality)
    assert any(
        "consequential damages" in quote for quote in _planned(contract, "How is liability limited?", text)
    )


@pytest.mark.parametrize("contract", ["services-agreement", "supply-agreement"])
def test_an_indemnity_is_no_limit_of_liability(contract: str) -> None:
    """An indemnity names liabilities "including but not limited to" costs: it is beside the
    subject of a question on how liability is limited."""
    indemnity = (
        "\n\nEach Party shall indemnify and hold harmless the other Party from any liability, including but "
        "not limited to reasonable legal costs, arising from its breach.\n"
    )
    text = example_text(contract) + indemnity
    quotes = _planned(contract, "How is liability limited?", text)
    assert quotes and not any("indemnify" in quote for quote in quotes)


def test_without_a_tree_the_whole_text_is_read() -> None:
    text = example_text("supply-agreement")
    plan = plan_for("How must notices be given?")
    assert isinstance(plan, ASubjectsOwnSentences)
    spans = subject_sentences(plan.subject, plan.question, text, None)
    assert any("Notices must be in writing" in text[a:b] for a, b in spans)


LEGEND = (
    "Certain identified information has been excluded because it is both not material and would likely "
    "cause competitive harm if publicly disclosed."
)


@pytest.mark.parametrize(
    ("contract", "heading"),
    [("mutual-nda", "2. CONFIDENTIALITY OBLIGATIONS"), ("services-agreement", "CONFIDENTIALITY")],
)
def test_a_filings_redaction_legend_is_running_text(contract: str, heading: str) -> None:
    """Rule "a page's running text is no clause", sentences: a filing's redaction legend on every
    page, once inside the confidentiality section, is not planned for "what information is
    excluded" (restated, it read "Confidential information has been excluded")."""
    question = "How long does confidentiality last, and what information is excluded?"
    text = example_text(contract)
    paragraphs = text.split("\n\n")
    half = len(paragraphs) // 2
    # on no line of its own: joined to the text of the page it sits in, as a filing's text has it
    glued = [
        *paragraphs[:1],
        f"{LEGEND} {paragraphs[1]}",
        *paragraphs[2:half],
        f"{LEGEND} {paragraphs[half]}",
    ]
    padded = "\n\n".join([*glued, *paragraphs[half + 1 :]])
    padded = padded.replace(f"\n{heading}\n\n", f"\n{heading}\n\n{LEGEND} ", 1)
    assert padded.count(LEGEND) == 3
    quotes = _planned(contract, question, padded)
    assert quotes == _planned(contract, question) and not any("Certain identified" in q for q in quotes)


@pytest.mark.parametrize("contract", ["services-agreement", "supply-agreement"])
def test_an_amendment_of_a_law_is_no_amendment_of_the_contract(contract: str) -> None:
    """A force majeure clause that names "amendment to law or policy" among its events, with
    written notice, is not on how the contract is amended (restated, it read "The agreement can
    be amended by either party if ... force majeure")."""
    force_majeure = (
        "\n\nNeither Party is liable for a delay caused by an earthquake, flood, war, amendment to law or "
        "policy or any other event of force majeure, provided that it gives the other Party written notice "
        "signed by an officer within ten (10) days.\n"
    )
    question = "How can this agreement be amended?"
    quotes = _planned(contract, question, example_text(contract) + force_majeure)
    assert quotes == _planned(contract, question) and not any("force majeure" in q for q in quotes)


@pytest.mark.parametrize("contract", ["services-agreement", "supply-agreement"])
@pytest.mark.parametrize(
    ("question", "sentence"),
    [
        # a limitation period and an exclusive remedy limit liability
        (
            "How is liability limited?",
            "Any action arising out of this Agreement must be commenced within two (2) years.",
        ),
        (
            "How is liability limited?",
            "Repair or replacement is the Buyer's sole and exclusive remedy for defects.",
        ),
        # ownership in the words contracts use for it
        ("Who owns the intellectual property?", "The designs are the intellectual property of the Supplier."),
        (
            "Who owns the intellectual property?",
            "The Supplier has registered the trademark CORVANE in the United States.",
        ),
        (
            "Who owns the intellectual property?",
            "All deliverables shall be the sole and exclusive property of the Buyer.",
        ),
        (
            "Who owns the intellectual property?",
            "The Supplier hereby assigns to the Buyer all right, title and interest in its copyright.",
        ),
        (
            "How can this agreement be amended?",
            "Changes in scope may be agreed in writing signed by both Parties.",
        ),
        # a transfer of the contract, a change of control, subcontracting
        (
            "Can either party transfer the contract, and to whom?",
            "Neither Party may assign this Agreement without consent.",
        ),
        (
            "Can either party transfer the contract, and to whom?",
            "A change of control of a Party requires notice.",
        ),
        (
            "Can either party transfer the contract, and to whom?",
            "The Supplier shall not subcontract any work.",
        ),
    ],
)
def test_a_subjects_words_put_a_sentence_on_it(contract: str, question: str, sentence: str) -> None:
    """Each subject's words, on two contracts: a sentence added at the end, under no title of its
    subject, is planned for a question on it."""
    quotes = _planned(contract, question, example_text(contract) + "\n\n" + sentence + "\n")
    assert sentence in quotes, quotes


@pytest.mark.parametrize("contract", ["services-agreement", "supply-agreement"])
def test_successors_and_assigns_named_as_beneficiaries_are_no_assignment(contract: str) -> None:
    """A duty owed to a party "and its successors and assigns" names who benefits, not how the
    contract passes to another (a secrecy covenant held "for the sole benefit of the Customer, its
    successors and assigns" had been planned and shown for "Can this agreement be assigned?"); a
    contract binding on the parties' successors and assigns is on assignment."""
    owed = (
        "\n\nThe Supplier shall hold all know-how of the Buyer in trust for the sole benefit of the Buyer, "
        "its successors and assigns.\n"
    )
    binding = (
        "\n\nThis Agreement shall be binding upon and inure to the benefit of the Parties and their "
        "successors and assigns.\n"
    )
    question = "Can this agreement be assigned?"
    quotes = _planned(contract, question, example_text(contract) + owed + binding)
    assert not any("in trust" in q for q in quotes)
    assert any("binding upon" in q for q in quotes)


@pytest.mark.parametrize("contract", ["services-agreement", "supply-agreement"])
@pytest.mark.parametrize(
    ("question", "sentence"),
    [
        (
            "Can this agreement be assigned?",
            "The Buyer shall not assign the rights granted in this Section 1.01 without the prior written "
            "consent of the Supplier.",
        ),
        (
            "How is liability limited?",
            "The liability of the Buyer under Section 4.2 shall be capped at the Fees.",
        ),
    ],
)
def test_a_numbers_point_ends_no_sentence(contract: str, question: str, sentence: str) -> None:
    """Rule "a number's point ends no sentence": a section number between a subject's words ("assign
    ... Section 1.01 ... consent") does not stop them being read as one statement."""
    quotes = _planned(contract, question, example_text(contract) + "\n\n" + sentence + "\n")
    assert sentence in quotes, quotes
