"""The scorer of clause trees: section numbers printed in a contract, read from its text alone.

Excerpts are from CUAD development contracts (CC BY 4.0); the hand-checked sample at the end reads
whole development contracts and is skipped without the benchmark data.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from clausewise.core.config import StructureSettings
from clausewise_lab.evals import printed_numbers as scorer
from clausewise_lab.evals.data import cuad_documents
from clausewise_lab.evals.printed_numbers import number_above, printed_numbers
from clausewise_lab.evals.section_filing import (
    FilingTally,
    align_spans,
    filed_under,
    id_numbers,
    in_stray_paragraph,
    in_unnumbered_paragraph,
    sequence_breaks,
)
from tools.parsing.text import document_from_text
from tools.structure.tree_builder import build_tree


def _labels(text: str) -> list[str]:
    return [n.label or "reset" for n in printed_numbers(text)]


def _above(text: str, needle: str) -> str | None:
    start = text.index(needle)
    number = number_above(printed_numbers(text), start, start + len(needle))
    return number.label if number else None


def test_the_scorer_shares_no_code_with_the_tree_builder() -> None:
    """The judge must not import what it judges (nor anything of the product's structure code)."""
    for module in ("printed_numbers", "section_filing"):
        source = (Path(scorer.__file__).parent / f"{module}.py").read_text(encoding="utf-8")
        imported = [
            node.module or "" for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ImportFrom)
        ]
        assert not [name for name in imported if name.startswith(("tools", "agents", "indexes"))], module


def test_numbers_run_together_on_one_line() -> None:
    """TodosMedical and AgapeAtp: sections after a sentence end and after a heading's last word."""
    todos = (
        "1. Grant of Rights 1.1 Subject to the terms and conditions. 2. Exclusivity 2.1 The Reseller's "
        "exclusive right shall terminate in the 180-day notice period. 3. Duties of Todos 3.1 Todos shall "
        "provide technical assistance. 3.2 Todos shall provide the Reseller, at no charge, with initial "
        "training"
    )
    assert _labels(todos) == ["1", "1.1", "2", "2.1", "3", "3.1", "3.2"]
    agape = (
        "NOW IT IS AGREED as follows:- 1. TERMS OF AGREEMENT 1.1 Commencement This agreement commences "
        "upon execution of this document. 1.2 Term This agreement is for a term of ten (10) years."
    )
    assert _labels(agape) == ["1", "1.1", "1.2"]
    assert _above(agape, "for a term of ten") == "1.2"


def test_keyword_numbers_articles_and_bare_numbers_before_capitals() -> None:
    """ON2 ("ARTICLE VII ... 7.1"), Cerence ("Section 8.01."), VEONEER ("Article 4.Effectiveness"),
    TELKOMSA ("13     ASSIGNMENT")."""
    text = (
        "ARTICLE VII\n\n INTELLECTUAL PROPERTY RIGHTS\n\n      7.1  The Incorporated Technology Works shall "
        "be the sole property of On2.\n\nARTICLE VIII TRANSFERABILITY AND ASSIGNMENT\n\nSection 8.01. No "
        "Assignment or Transfer Without Consent. Except as expressly set forth.\n\n"
        "Article 9.Effectiveness\n\n"
        "This Amendment shall only become effective.\n\nsuch claim.   10     ASSIGNMENT   Neither Party shall"
    )
    assert _labels(text) == ["Article 7", "7.1", "Article 8", "8.1", "Article 9", "10"]


def test_references_amounts_and_page_numbers_are_not_read() -> None:
    """Cross-references, quantities, "THIS SECTION 13", and N2K's "2    3    CONFIDENTIAL"."""
    text = (
        "1. Term. The term is two years. Section 2 shall survive. 1.5 million units are ordered.\n\n"
        "IN THIS SECTION 13 ARE THE REMEDIES.\n\n                2    3                  CONFIDENTIAL\n\n"
        "as set out in\n10.5 hereof. 2. Fees. The fees are due."
    )
    assert _labels(text) == ["1", "2"]


def test_numbers_must_continue_the_numbering() -> None:
    """A "5.3" printed at a sentence start amid section 2 is a reference, not a heading."""
    text = "1. TERM 1.1 One year. 2. PAYMENT 2.1 Fees are due monthly. 5.3 Refunds are excluded. 2.2 None."
    assert _labels(text) == ["1", "1.1", "2", "2.1", "2.2"]


def test_tables_of_contents_and_exhibits() -> None:
    """TRICITY's contents (no page numbers) are not read; an exhibit heading after the signatures,
    even run on into its text (FreezeTag), ends the numbering; "Exhibit 10.38" on every page
    (Scansource) does not."""
    contents = "".join(f"{n}.1 Title Words   " for n in range(1, 7))
    body = "1. DEFINITIONS\n\n1.1 Background. " + "This Agreement is made with reference to the facts. " * 12
    preamble = (
        "This Outsourcing Agreement is made as of the 16th day of February, 1998, by and between Tri City "
        "National Bank and Marshall & Ilsley Corporation. The parties agree as follows:"
    )
    text = contents + "\n\nOUTSOURCING AGREEMENT\n\n" + preamble + "\n\n" + body
    numbers = printed_numbers(text)
    assert [n.label for n in numbers if n.kind != "reset"] == ["1", "1.1"]
    assert _above(text, "The parties agree as follows") is None
    signed = (
        "1. Governing Law: This Agreement is subject to the laws of Virginia.\n\nBy: By: Name Name Title "
        "Title Date Date 5\n\nATTACHMENT A ACKNOWLEDGEMENT OF SUPPORT The following outlines the type of "
        "acknowledgment that has been agreed upon"
    )
    assert _above(signed, "The following outlines") is None
    assert _above(signed, "subject to the laws") == "1"
    header = "\n\nExhibit 10.38\n\n"
    paged = "1.0 DEFINITIONS. Terms.\n\n2.0 SCOPE. The scope." + header + "2.1 Affiliates. Text." + header
    paged += "2.2 More. Text." + header + "2.3 Last. Text."
    assert _labels(paged) == ["1.0", "2.0", "2.1", "2.2", "2.3"]


def test_contents_pages_and_short_numbered_fields() -> None:
    """Aimmune: contents lines with page numbers are not read; TcPipelines: short numbered fields
    each on a line of their own ("1. EFFECTIVE DATE: November 01, 2016") are sections."""
    contents = "TABLE OF CONTENTS Page ARTICLE 1 Definitions 1\n\n" + "".join(
        f"ARTICLE {n} Title Words {n * 3}\n\n" for n in range(2, 8)
    )
    preamble = "This License, Development and Commercialization Agreement is made by Xencor and Aimmune. " * 8
    text = contents + preamble + "\n\nARTICLE 1 DEFINITIONS\n\n1.1 " + "Terms have meanings. " * 30
    assert _above(text, "This License, Development") is None
    assert [n.label for n in printed_numbers(text) if n.kind != "reset"] == ["Article 1", "1.1"]
    fields = (
        "1. EFFECTIVE DATE: November 01, 2016\n\n2. CONTRACT IDENTIFICATION: FT18150\n\n3. RATE SCHEDULE: "
        "FT\n\n4. SHIPPER TYPE: Interstate Pl\n\n5. STATE/PROVINCE OF INCORPORATION: Delaware\n\n"
        "6. TERM: November 01, 2014 to October 31, 2017\n\n7. EFFECT ON PREVIOUS CONTRACTS:\n\n"
        + "This Agreement supersedes the following contracts. "
        * 12
    )
    assert _labels(fields) == [str(n) for n in range(1, 8)]


def test_number_above_a_clause_running_over_several_numbers() -> None:
    text = "1. MISCELLANEOUS 1.4 Notices. Notices are in writing. 1.5 Assignment. No assignment. 2. END"
    start = text.index("Notices are")
    end = text.index("No assignment.") + len("No assignment.")
    assert number_above(printed_numbers(text), start, end).label == "1"
    end = text.index("END") + 3
    assert number_above(printed_numbers(text), start, end) is None


def test_ids_name_their_numbers() -> None:
    assert id_numbers("Article IV/4.10(a)/s2") == [("4",), ("4", "10")]
    assert id_numbers("10.5~2") == [("10", "5")]
    assert id_numbers("2.2/p4(ii)/s14") == [("2", "2")]
    assert in_unnumbered_paragraph("8.2/p14/s2") and in_unnumbered_paragraph("Preamble/p1")
    assert not in_unnumbered_paragraph("10.5(a)/s2")
    assert in_stray_paragraph("Signatures/p61") and in_stray_paragraph("p19/s2")
    assert not in_stray_paragraph("10.5/p2") and not in_stray_paragraph("Article IV/4.1/p3")


def test_filing_and_breaks_on_a_small_contract() -> None:
    text = (
        "SUPPLY AGREEMENT\n\nThe parties agree as follows:\n\n1. TERM\n\n1.1 This Agreement lasts two years. "
        "It renews.\n\n1.2 Either party may end it on notice.\n\n2. FEES\n\n2.1 Fees are due monthly.\n"
    )
    tree = build_tree(document_from_text(text, "t.txt"), StructureSettings())
    start = text.index("Fees are due")
    node = tree.smallest_containing((start, start + 20))
    assert filed_under(tree, node, number_above(printed_numbers(text), start, start + 20))
    assert sequence_breaks(tree) == []
    tally = FilingTally()
    tally.add(
        "t", text, tree, [(start, start + 20), (text.index("It renews"), text.index("It renews") + 9)], 5
    )
    result = tally.result()
    assert result["with_printed_number"] == 2 and result["under_printed_number_share"] == 1.0


def test_gold_spans_found_again_in_another_extraction() -> None:
    source = "1.  The Term.\n\nThis Agreement lasts    two years."
    target = "1. The Term. This Agree-\nment lasts two years."
    (span,) = align_spans(source, [(source.index("This"), len(source))], target)
    assert span is not None and target[span[0] : span[1]].startswith("This Agree")


# --- readings checked by hand on development contracts ------------------------------------------

#: (contract title prefix, opening of a CUAD gold clause, the number printed above it as read by
#: hand in the contract's text; None: none, e.g. a preamble, a table of contents or an exhibit).
HAND_CHECKED = [
    ("CHEETAHMOBILEINC_04_22_2014", "All act which may damage the right of user", None),
    ("NEONSYSTEMSINC_03_01_1999", "(2)   Upon thirty (30) days prior written notice", "14.2"),
    ("XinhuaSportsEntertainmentLtd_20070221", "media now or hereafter known", "2.1"),
    ("ORBSATCORP_08_17_2007", "9th day of September 2005", None),
    ("ON2TECHNOLOGIES,INC_11_17_2006", "The Incorporated Technology Works shall be the sole", "7.1"),
    ("ExactSciencesCorp_20180822", "COLOGUARD® PROMOTION AGREEMENT", None),
    ("AgapeAtpCorp_20191202", "The Manufacturer agrees that the Customer has the right", "14.9"),
    ("PROLONGINTERNATIONALCORP_03_23_1998", "The term of this Agreement shall commence with the first", "1"),
    (
        "EtonPharmaceuticalsInc_20191114",
        "If this Agreement is terminated by Aucta under Section 11.2",
        "11.5.2",
    ),
    ("Antares Pharma, Inc.", "Except as otherwise provided in this Section 12.2", "12.2"),
    ("VEONEER,INC_02_21_2020", "This Amendment shall only become effective upon the VNBJ", "Article 4"),
    ("REWALKROBOTICSLTD_07_10_2014", "Unless sooner terminated in accordance with the provisions", "5"),
    ("AIRSPANNETWORKSINC_04_11_2000", "This Agreement shall be construed in accordance with", "21.4"),
    ("BOLIVARMININGCORP_05_23_2003", "CONSIDERATION  TO  PROVIDER", "7"),
    ("AIRSPANNETWORKSINC_04_11_2000", "And Distributor, taken as a whole, shall be liable", "16.3"),
    ("CHAPARRALRESOURCESINC_03_30_2000", "In accordance with items 9.3, 9.4, and 10.3", "9.1"),
    ("LegacyEducationAllianceInc_20200330", "To facilitate the effective launch of the Business", None),
    ("CerenceInc_20191002", "Except as expressly set forth in this Agreement, neither this", "8.1"),
    ("Sonos, Inc.", "IAC\n", None),
    ("ExactSciencesCorp_20180822", "Pfizer Investment and Support 28", None),
    ("MphaseTechnologiesInc_20030911", "Neither Party shall be liable to the other for special", "13"),
    ("MphaseTechnologiesInc_20030911", "mPhase shall have the right to          annually renew", "11"),
    ("PLAYAHOTELS_RESORTSNV_03_14_2017", "If the Receiving Party and exercises its right", "1"),
    ("CreditcardscomInc_20070810", "Chase shall have no liability for any indirect", "21"),
    ("ScansourceInc_20190822_10-K_EX-10.38", "In addition to the written limited warranty provided", "10.2"),
    ("BICYCLETHERAPEUTICSPLC_03_10_2020", "(d) either on your own account", "14.2"),
    ("HOLIDAYRVSUPERSTORESINC_04_15_2002", "AGI hereby grants a non-exclusive license", "1"),
    ("WEBHELPCOMINC_03_22_2000", "EXCLUDING LIABILITY FOR INFRINGEMENT CLAIMS", "7"),
    ("QuantumGroupIncFl_20090120", "This is IBM's entire obligation to Customer", "8.0"),
    ("TRICITYBANKSHARESCORP_05_15_1998", "The validity, construction and interpretation of this", "22.1"),
    ("XLITECHNOLOGIES,INC_12_02_2015", "BOSCH INTERNATIONAL, LLC, a Nevada", None),
    ("PrudentialBancorpInc_20170606", 'Employee"), residing at 2406 Sanibel', None),
]


@pytest.fixture(scope="module")
def cuad_texts(bench_data: Path) -> dict[str, tuple[str, list[tuple[int, int]]]]:
    return {document.name: (document.text, document.spans) for document in cuad_documents(bench_data)}


@pytest.mark.parametrize(("contract", "opening", "expected"), HAND_CHECKED)
def test_hand_checked_readings(cuad_texts, contract: str, opening: str, expected: str | None) -> None:
    title = next(t for t in cuad_texts if t.startswith(contract))
    text, spans = cuad_texts[title]
    numbers = printed_numbers(text)
    matching = [(s, e) for s, e in spans if text[s : s + 400].lstrip().startswith(opening)]
    assert matching, f"no gold clause of {title} opens with {opening!r}"
    start, end = matching[0]
    start += len(text[start:end]) - len(text[start:end].lstrip())
    number = number_above(numbers, start, end)
    assert (number.label if number else None) == expected


def test_roman_numeral_headings_buffalo_and_orbsat() -> None:
    """Buffalo Wild Wings and ORBSAT number their sections "XVII." / "IV." before a heading in
    capitals; a lettered item after a numbered list inside the item before it ends the list."""
    buffalo = (
        "I.     APPOINTMENT AND FRANCHISE FEE\n\n       A.   Subject to this Agreement, we grant you a "
        "franchise.\n\nII.    TERM AND RENEWAL\n\n       A.   The term is ten (10) years.\n\n"
        "       B.   You may renew providing you meet all of the following conditions:\n\n"
        "            1.    You have complied with all the provisions of the Agreement;\n\n"
        "            7.    You have executed a general release.\n\n"
        "       C.   Within ninety (90) days of our receipt of your notice to renew, we will furnish "
        "you with written notice.\n\nIII.   RESTAURANT AND LOCATION\n\n       A.   You shall operate it.\n"
    )
    assert _above(buffalo, "You have complied") == "1"
    assert _above(buffalo, "Within ninety") == "Article 2"
    assert _above(buffalo, "You shall operate") == "Article 3"
    orbsat = (
        "IX. OTHER MATERIAL TERMS AND CONDITIONS\n\n  A. INDEMNITY.\n\n1. UTK shall indemnify AVDU.\n\n"
        "2. AVDU shall indemnify UTK.\n\n  B. PROVISIONS. Neither termination nor completion shall "
        "affect the provisions.\n\nC. AVDU agrees that for twenty four months it shall not solicit.\n\n"
        "X. NOTICES\n\nNotices are in writing.\n\nXI. TERM\n\nOne year.\n"
    )
    assert _above(orbsat, "AVDU shall indemnify") == "2"
    assert _above(orbsat, "Neither termination") == "Article 9"
    assert _above(orbsat, "AVDU agrees") == "Article 9"
    assert _above(orbsat, "One year") == "Article 11"
    # two roman headings are not yet a numbering: "I. INSURANCE" may be the ninth item of a list
    assert _labels("I. INSURANCE\n\nInsure it.\n\nII. TERM\n\nOne year.\n") == []


def test_roman_ids_and_list_items_in_sequence_breaks() -> None:
    assert id_numbers("XVII(A)/s1") == [("17",)]
    assert id_numbers("Civil Matters") == []
    text = (
        "SUPPLY AGREEMENT\n\nThe parties agree as follows:\n\nI. TERM\n\nA. One year.\n\n"
        "B. It renews on these conditions:\n\n1. no breach;\n\n2. notice given.\n\nC. Renewals last a year."
        "\n\nII. FEES\n\nA. Fees are due monthly.\n\nIII. NOTICES\n\nNotices are in writing.\n"
    )
    tree = build_tree(document_from_text(text, "t.txt"), StructureSettings())
    assert sequence_breaks(tree) == []


def test_items_in_parentheses_end_a_list_inside_the_item_before_blue_hills_and_alliance() -> None:
    """Blue Hills and Alliance Bancorp agency agreements: a definitions list "1." to "5." inside
    item (c) (or (iii)) of Section 4 (or 1); the next item "(d)" ("(iv)") is back in the section, not
    under the list's "5"."""
    blue_hills = (
        "Section 1. The Offering. Shares are offered.\n\nSection 2. Retention of Agent. The Agent is "
        "retained.\n\nSection 3. Sale and Delivery. Shares are delivered.\n\n"
        "Section 4. Representations and Warranties. The Parties represent as follows:\n\n"
        "(a) The Registration Statement complies.\n\n(b) No other offering material.\n\n"
        '(c) As used in this Agreement:\n\n1. "Applicable Time" means each date.\n\n'
        '2. "Statutory Prospectus" means the Prospectus.\n\n'
        "(d) Each Issuer-Represented Free Writing Prospectus does not conflict.\n\n"
        "Section 5. Covenants. The Company covenants as follows.\n"
    )
    assert _above(blue_hills, "Statutory Prospectus") == "2"
    assert _above(blue_hills, "Each Issuer-Represented") == "4"
    assert _above(blue_hills, "The Company covenants") == "5"
    alliance = (
        "SECTION 1. REPRESENTATIONS AND WARRANTIES. The Company represents:\n\n"
        "(i) The Registration Statement is effective.\n\n(ii) No stop order is in effect.\n\n"
        '(iii) As used in this Section:\n\n1. "Applicable Time" means each date.\n\n'
        '5. "Issuer-Represented Limited-Use Free Writing Prospectus" means any other prospectus.\n\n'
        "(iv) Each Issuer-Represented Free Writing Prospectus does not conflict.\n\n"
        "SECTION 2. APPOINTMENT OF THE AGENT. The Company appoints the Agent.\n"
    )
    assert _above(alliance, "Each Issuer-Represented") == "1"


def test_bracketed_headings_deltathree_and_profound() -> None:
    """Deltathree prints "Section 2.02  [On-Line Marketing]. On-Line Marketing. ..."; Profound
    Medical "... Purchase Orders. 7.2 [Redacted - Commercially Sensitive] ...": a bracketed heading
    follows a section number like a capitalised one."""
    deltathree = (
        "Section 1.01  [Term]. Term. This Agreement lasts a year.\n\n"
        "Section 2.01  [Calling Card]. Calling Card. PrimeCall and DeltaThree shall jointly develop a "
        "card.\n\n"
        "Section 2.02  [On-Line Marketing]. On-Line Marketing. Each of PrimeCall and DeltaThree agree to "
        "place a link.\n"
    )
    assert _labels(deltathree) == ["1.1", "2.1", "2.2"]
    profound = (
        "7. CONFORMITY OF PRODUCTS 7.1 Philips warrants that the Products comply in all respects with "
        "the applicable Purchase Orders. 7.2 [Redacted - Commercially Sensitive] 7.3 [Redacted - "
        "Commercially Sensitive] the foregoing warranties will survive any inspection."
    )
    assert ("7", "2") in [c.path for c in scorer._candidates(profound)]  # numbering aside


def test_chapter_numbers_and_ids() -> None:
    """Cheetah Mobile numbers its chapters "Chapter 3 Cooperation Term"; a tree id "Chapter 3"
    names 3."""
    text = "Chapter 1 Definitions\n\n1.1 Words have meanings.\n\nChapter 2 Term\n\n2.1 Two years.\n"
    assert _labels(text) == ["Article 1", "1.1", "Article 2", "2.1"]
    assert id_numbers("Chapter 3/3.1") == [("3",), ("3", "1")]


#: a body section's text: a contents page is told from the body by the length of what follows
BODY_TEXT = " ".join(
    ["The Operator shall operate the Rail Facility with due care and in accordance with law."] * 6
)


def test_contents_lines_with_glued_or_trailing_page_numbers_vertex_and_immunomedics() -> None:
    """Vertex Energy prints its contents as "ARTICLE I : DEFINITIONS1" (the page number run into
    the title) and long lines of an article's sections each with its page (its article VIII line,
    renumbered V here); Immunomedics the same long lines: neither is the body, so the preamble
    after them sits under no number."""
    vertex = (
        "TABLE OF CONTENTS Page\n\nARTICLE I : DEFINITIONS1\n\n"
        "ARTICLE II : ENGAGEMENT OF OPERATOR5 2.1 Engagement..    5 2.2 Independent Contractor.    5 "
        "2.3 Owner Cooperation    5\n\nARTICLE III : TERM, RESIGNATION OR REMOVAL OF OPERATOR5 3.1 "
        "Term.    5 3.2 Owner Default.    5 3.3 Operator Default    6\n\nARTICLE IV : DUTIES AS "
        "OPERATOR7 4.1 Duties "
        "as Operator.    7\n\nARTICLE V : GENERAL PROVISIONS15 5.2 Notices    15 5.3 Rights    16 5.4 "
        "Applicable Laws    16 5.5 Rules of Construction.    16 5.6 Governing Law..    17 5.7 Dispute "
        "Resolution.    17 5.8 Limitation of Liability..    17 5.9 Entirety of Agreement, Amendments    17 "
        "5.10 Waivers.    18 5.11 Headings.    18 5.12 Rights and Remedies.    18 5.13 Assignment    18 "
        "5.14 Counterparts    18 5.15 No Third Party Beneficiary    18 5.16 Further Assurances.    28"
        "\n\nOPERATION AND MAINTENANCE AGREEMENT      This OPERATIONS AND MAINTENANCE AGREEMENT dated "
        "this 3rd day of November, 2010 is made and entered into by and between the Owner and the "
        "Operator. Owner and Operator are referred to individually herein as a Party.\n\n"
        "ARTICLE I : DEFINITIONS\n\nCapitalized terms have the meanings below. " + BODY_TEXT + "\n"
    )
    assert _above(vertex, "is made and entered into") is None
    assert _above(vertex, "Capitalized terms") == "Article 1"
    immunomedics = (
        "TABLE OF CONTENTS\n\nARTICLE 1 DEFINITIONS 1\n\nARTICLE II BRAND PLAN 10 2.1 Brand Plan "
        "Generally 10 2.2 Contents of Brand Plan 10\n\nARTICLE III PROMOTION 12 3.1 Scope 12 3.2 "
        "Detailing Requirements 13 3.3 Sales Representatives 14\n\nARTICLE IV GOVERNANCE 17 4.1 "
        "Authority 17 4.2 Joint Commercial Team 17 4.3 BALVERSA Sales Advisory Team 18\n\n"
        "PROMOTION AGREEMENT This Promotion Agreement is entered into by Janssen Biotech, Inc. and "
        "Immunomedics, Inc.\n\nARTICLE 1 DEFINITIONS\n\n1.1 Words have meanings. " + BODY_TEXT + "\n"
    )
    assert _above(immunomedics, "This Promotion Agreement") is None
    assert _above(immunomedics, "Words have meanings") == "1.1"
