"""Clause trees of the layouts real contracts come in (issue 38), each rule on two contracts or more.

Every excerpt is copied from a CUAD development contract (CC BY 4.0) named in its test, a few
lines each, after a neutral one-line preamble (``PREAMBLE``); where a layout needs several pages
(a running footer) the pages are joined, and a few tests add made-up counter-examples, said so.
"""

from __future__ import annotations

from clausewise.core.config import StructureSettings
from clausewise.core.domain import NodeKind
from tests.tree_checks import assert_tree_invariants
from tools.parsing.text import document_from_text
from tools.structure.blocks import running_lines
from tools.structure.tree_builder import build_tree

PREAMBLE = (
    "SUPPLY AGREEMENT\n\nThis Agreement is made between the Supplier and the Customer, and the parties "
    "hereby agree as follows:\n\n"
)


def _tree(text: str, name: str = "contract.txt"):
    document = document_from_text(text, name)
    tree = build_tree(document, StructureSettings())
    assert_tree_invariants(tree, text)
    return tree


def _at(tree, text: str, needle: str) -> str:
    """Id of the smallest node holding ``needle``."""
    start = text.index(needle)
    return tree.smallest_containing((start, start + len(needle))).id


def _assert_filed(text: str, expected: dict[str, str]):
    """Build the tree of ``text`` and check that each needle's smallest node id starts with its
    expected prefix; returns the tree."""
    tree = _tree(text)
    filed = {needle: _at(tree, text, needle) for needle in expected}
    assert all(filed[needle].startswith(prefix) for needle, prefix in expected.items()), filed
    return tree


# --- numbered sections starting mid-line --------------------------------------------------------

TODOS = (
    "2. Exclusivity 2.1 The Reseller's exclusive right to market and sell the Products in the Territory "
    "shall terminate in the event that the Reseller fails to meet the minimum sales in the 180-day notice "
    "period. 3. Duties of Todos 3.1 Todos shall provide technical assistance and advice to support the "
    "Reseller's preparation of marketing materials, including technical sales literature, catalogs and "
    "the like, to be used in the Territory. 3.2 Todos shall provide the Reseller, at no charge, with "
    "initial training"
)
AGAPE = (
    "NOW IT IS AGREED as follows:- 1. TERMS OF AGREEMENT 1.1 Commencement This agreement commences upon "
    "execution of this document. 1.2 Term This agreement is for a term of ten (10) years. 1.3 Renewal This "
    "agreement will be automatically renewed at the end of every ten (10) year term, with each subsequent "
    "term of renewal being for a ten (10) year term."
)
IPASS = (
    "1.4 Account and Password Information. iPass will assign to Channel Partner a unique password and "
    "identification code used to access the Channel Partner section of the iPass Portal. Channel Partner "
    "may not transfer or share this account information with any third party. 2. CHANNEL PARTNER "
    "RESPONSIBILITIES 2.1 General. Channel Partner will use its reasonable endeavours cooperate with iPass "
    "and assist with the implementation of this Agreement."
)


def test_sections_run_together_on_one_line_are_split_todos() -> None:
    """TodosMedical: "... notice period. 3. Duties of Todos 3.1 Todos shall ..." on one line."""
    text = PREAMBLE + TODOS
    tree = _tree(text)
    assert [c.id for c in tree.children(tree.root_id)][-2:] == ["2", "3"]
    assert tree.node("3").title == "Duties of Todos"
    assert _at(tree, text, "Todos shall provide technical assistance") == "3.1"
    assert _at(tree, text, "with initial training") == "3.2"
    assert _at(tree, text, "The Reseller's exclusive right") == "2.1"


def test_sections_run_together_after_an_all_caps_heading_agape() -> None:
    """AgapeAtp: "1. TERMS OF AGREEMENT 1.1 Commencement This agreement commences ..."."""
    text = PREAMBLE + AGAPE
    tree = _tree(text)
    assert [c.id for c in tree.children("1")] == ["1.1", "1.2", "1.3"]
    assert tree.node("1").title == "TERMS OF AGREEMENT"
    assert _at(tree, text, "for a term of ten (10) years") == "1.2"


def test_sections_run_together_ipass() -> None:
    """iPass: "... with any third party. 2. CHANNEL PARTNER RESPONSIBILITIES 2.1 General. ..."."""
    text = PREAMBLE + IPASS
    tree = _tree(text)
    assert tree.node("2").title == "CHANNEL PARTNER RESPONSIBILITIES"
    assert tree.node("2.1").title == "General"
    assert _at(tree, text, "may not transfer or share").startswith("1.4/s")


def test_numbers_in_running_text_do_not_split() -> None:
    """Made-up counter-examples: a reference at a sentence start, an amount, a number that does not
    continue the numbering."""
    text = PREAMBLE + (
        "10.4 Payments. The Customer shall pay within 30 days. Section 2.2 shall not apply to such "
        "payments. 1.5 million units are the minimum order. 2.2 Refunds are excluded as set out "
        "above. 10.5 Assignment. This Agreement may not be assigned."
    )
    tree = _tree(text)
    assert _at(tree, text, "shall not apply to such") == "10.4/s2"
    assert _at(tree, text, "million units are") == "10.4/s3"
    assert _at(tree, text, "Refunds are excluded") == "10.4/s4"
    assert _at(tree, text, "may not be assigned") == "10.5"


# --- page furniture: running headers and footers ---------------------------------------------------


def test_running_footers_are_page_furniture_todos() -> None:
    """TodosMedical: "Source: TODOS MEDICAL LTD., 20-F, 3/28/2019" at the foot of every page."""
    footer = "\n\nSource: TODOS MEDICAL LTD., 20-F, 3/28/2019\n\n\n\n\n\n"
    text = PREAMBLE + TODOS.replace(" 3. Duties", footer + "3. Duties").replace(" 3.2 ", footer + "3.2 ")
    text += (
        footer + "4. Duties of the Reseller 4.1 The Reseller shall use all commercially reasonable efforts."
    )
    tree = _tree(text)
    assert [c.id for c in tree.children(tree.root_id)][-3:] == ["2", "3", "4"]
    assert not any("Source" in node.id for node in tree.walk())
    assert _at(tree, text, "with initial training") == "3.2"


def test_running_footers_are_page_furniture_ipass() -> None:
    """iPass: "Source: IPASS INC, 8-K, 12/3/2018" between the pages of the reseller agreement."""
    footer = "\n\nSource: IPASS INC, 8-K, 12/3/2018\n\n\n\n\n\n"
    text = (
        PREAMBLE
        + IPASS.replace(" 2. CHANNEL", footer + "2. CHANNEL")
        + footer
        + "2.2 Acceptable Use Policy. Channel Partner agrees to comply with the policy."
        + footer
        + "2.3 End User Realms. A realm is used to uniquely identify End Users."
    )
    tree = _tree(text)
    assert [c.id for c in tree.children("2")] == ["2.1", "2.2", "2.3"]
    assert not any("Source" in node.id for node in tree.walk())


# --- a label set off from its text by a wide gap ---------------------------------------------------


def test_label_and_heading_apart_by_a_wide_gap_stay_together() -> None:
    """AMERICANPHYSICIANS: "A.       AUTHORITY OF AGENCY"; N2K: "1.       EXCLUSIVITY, TERM ..."."""
    micoa = PREAMBLE + (
        "A.       AUTHORITY OF AGENCY\n\n         Subject to requirements imposed by law, the underwriting "
        "rules,          procedures and regulations of MICOA and this agreement, the Agency is          "
        "authorized to:\n"
    )
    tree = _tree(micoa)
    (section,) = [c for c in tree.children(tree.root_id) if c.label]
    assert section.label == "A." and section.title == "AUTHORITY OF AGENCY"
    n2k = PREAMBLE + (
        "1.       EXCLUSIVITY, TERM AND RIGHT OF FIRST REFUSAL\n\n      a)       Sponsor will be the "
        "exclusive retail music store sponsor of                   the Excite Site and the Excite Broadcast "
        "Pages.\n"
    )
    tree = _tree(n2k)
    assert tree.node("1").title == "EXCLUSIVITY, TERM AND RIGHT OF FIRST REFUSAL"
    assert _at(tree, n2k, "exclusive retail music store") == "1(a)"


# --- a bare number before an all-caps heading ------------------------------------------------------


def test_bare_number_before_a_capitals_heading() -> None:
    """GOOSEHEAD: "... they agree as follows: 1 GRANT 1.1 Rights ..." on one line; BOLIVARMINING:
    "1    TERM" on a line; TELKOMSA: "... such claim.   13     ASSIGNMENT   13. 1   Neither ..."."""
    goosehead = PREAMBLE.replace("as follows:\n\n", "as follows: ") + (
        "1 GRANT 1.1 Rights and Obligations. We grant you the right, and you accept the obligation, all "
        "under the terms (and subject to the conditions) of this Agreement. 2 TERM AND RENEWAL 2.1 Term. The "
        "term of this Agreement starts on the Effective Date."
    )
    tree = _tree(goosehead)
    assert tree.node("1").title == "GRANT" and tree.node("2").title == "TERM AND RENEWAL"
    assert _at(tree, goosehead, "starts on the Effective Date") == "2.1"
    bolivar = PREAMBLE + (
        "1    TERM\n\nThis agreement shall be for a term of five years from the date of this document.\n\n"
        "2    FEES\n\nThe fees are set out in the schedule.\n"
    )
    tree = _tree(bolivar)
    assert tree.node("1").title == "TERM" and tree.node("2").title == "FEES"
    assert _at(tree, bolivar, "term of five years") == "1"
    telkom = PREAMBLE + (
        "12     INDEMNITY   12. 6   Save as is set out in clause 11 and this clause 12, TELKOM shall have no "
        "other claim.   13     ASSIGNMENT   13. 1   Neither Party shall be entitled to cede its rights.\n"
    )
    tree = _tree(telkom)
    assert tree.node("13").title == "ASSIGNMENT"
    assert _at(tree, telkom, "Neither Party shall be entitled").startswith("13")


def test_page_number_before_a_running_header_is_no_section() -> None:
    """N2K: "2    3    CONFIDENTIAL" (page numbers and a running header) is not section 3."""
    text = PREAMBLE + (
        "1.       EXCLUSIVITY\n\n      d)      Excite will offer Sponsor the right of first refusal.\n\n"
        "                                    2    3                                      CONFIDENTIAL\n\n"
        "               i) Excite will not propose offers.\n"
    )
    tree = _tree(text)
    assert "3" not in tree.nodes


# --- section N.0 and flattened tables of contents --------------------------------------------------


def test_zero_subsection_is_the_section_itself() -> None:
    """Sonos: "1.62 ... 2.0 SCOPE OF RELATIONSHIP. 2.1. Manufacturing"; QuantumGroup (IBM): "1.0
    Introduction ... 2.0 Definitions"."""
    sonos = PREAMBLE + (
        '1.0 DEFINITIONS.\n\n1.62. "ERS SOW" shall mean a statement of work.\n\n'
        "2.0 SCOPE OF RELATIONSHIP.\n\n"
        "2.1. Manufacturing of Products. Subject to the terms and conditions of this Agreement, IAC shall "
        "manufacture Products.\n"
    )
    tree = _tree(sonos)
    assert tree.node("2.0").title == "SCOPE OF RELATIONSHIP"
    assert tree.node("2.1").parent == "2.0"
    quantum = (
        "e-business Hosting Agreement 1.0 Introduction This e-business Hosting Agreement sets forth the "
        "terms and conditions under which IBM will provide hosting. The Base Terms will prevail. "
        "2.0 Definitions "
        '"Acceptable Use Policy" means the Acceptable Use Policy for IBM e-business Services.'
    )
    tree = _tree(quantum)
    assert [c.id for c in tree.children(tree.root_id)][-2:] == ["1.0", "2.0"]


def test_flattened_table_of_contents_is_not_split() -> None:
    """Sonos and GOOSEHEAD: the table of contents on one line stays one contents node."""
    sonos = (
        "TABLE OF CONTENTS 1.0 DEFINITIONS 3 2.0 SCOPE OF RELATIONSHIP 8 3.0 OWNERSHIP; GRANT OF RIGHTS; "
        "TRADEMARKS USAGE 8 4.0 MANUFACTURING OPERATIONS; COMPLIANCE 9\n\n" + PREAMBLE + "1.0 DEFINITIONS.\n"
    )
    goosehead = (
        "TABLE OF CONTENTS Section Title Page# Recitals 2 1 Grant 2 2 Term And Renewal 3 3 Our Duties 4 4 "
        "Fees; Sales Reporting 6 5 Franchised Business Commencement 9\n\n" + PREAMBLE + "1 GRANT\n"
    )
    for text, entry in ((sonos, "4.0"), (goosehead, "5")):
        tree = _tree(text)
        contents = tree.children(tree.root_id)[0]
        assert contents.kind == NodeKind.TABLE_OF_CONTENTS and not contents.children
        assert contents.end > text.index("Commencement 9" if entry == "5" else "COMPLIANCE 9")
        assert entry not in tree.nodes


# --- signatures, exhibits, recitals ---------------------------------------------------------------


def test_signature_page_before_the_terms() -> None:
    """BEYONDCOM and OFGBANCORP print the signature page first, then the numbered terms."""
    beyond = PREAMBLE + (
        "IN WITNESS WHEREOF, the parties have executed this Agreement effective as of the Effective Date."
        "\n\n                                    SOFTWARE.NET CORPORATION                                  "
        "      (a.k.a. Beyond.com)\n\n                                    By:        /s/ JAMES R. LUSSIOR\n\n"
        "Date: September 21, 1998\n\n\n\n\n\n                     TERMS AND CONDITIONS OF AGREEMENT\n\n"
        "1.   LOCATION. During the Term (as defined in Section 6 (a) below), NAI shall      provide the "
        "following marketing considerations to Co-Host:\n\n  (a)  Co-Hosting Rights. Co-Host shall be "
        "permitted to maintain on the           Online Service Page a hot link.\n"
    )
    tree = _tree(beyond)
    assert _at(tree, beyond, "Co-Host shall be permitted") == "1(a)"
    assert tree.node("Signatures").end < beyond.index("TERMS AND CONDITIONS")
    ofg = PREAMBLE + (
        "IN WITNESS WHEREOF, the parties have caused this Agreement to be executed on their behalf as of "
        "the date first above written.                   METAVANTE CORPORATION   ORIENTAL FINANCIAL GROUP "
        "INC.     By:   /s/ Paul T. Danola   By:   /s/ José Rafael Fernández\n\nName:  Paul T. Danola   "
        "Name:  José Rafael Fernández\n\n\n\n\n\n\n\nTERMS AND CONDITIONS\n\n1. CONSTRUCTION\n\n"
        "1.1. Definitions. Capitalized terms shall have the meaning ascribed to them in Article 18 of this "
        'Agreement.\n\n1.2. References. In this Agreement, references and mention of the word "includes" '
        'and "including" shall mean "includes, without limitation".\n'
    )
    tree = _tree(ofg)
    assert [c.id for c in tree.children("1")] == ["1.1", "1.2"]
    assert _at(tree, ofg, "Capitalized terms shall have") == "1.1"


def test_exhibit_heading_run_on_into_its_text() -> None:
    """FreezeTag: "ATTACHMENT A ACKNOWLEDGEMENT OF SUPPORT The following ..."; TodosMedical:
    "EXHIBIT A THE PRODUCTS Each unit of Product ..." after the signatures."""
    for heading in (
        "ATTACHMENT A ACKNOWLEDGEMENT OF SUPPORT The following outlines the type of acknowledgment that "
        "has been agreed upon by the Company and the Association",
        "EXHIBIT A THE PRODUCTS Each unit of Product consists of one Physician Kit and one Laboratory Kit.",
    ):
        text = PREAMBLE + (
            "1. Term. This Agreement lasts two years.\n\nIN WITNESS WHEREOF, the parties have signed.\n\n"
            f"By: By: Name Name Title Title Date Date 5\n\n{heading}\n"
        )
        tree = _tree(text)
        schedule = tree.children(tree.root_id)[-1]
        assert schedule.kind == NodeKind.SCHEDULE and schedule.id in {"Attachment A", "Exhibit A"}


def test_recitals_after_a_title_that_opened_the_body() -> None:
    """N2K: a confidentiality legend, then "SPONSORSHIP AGREEMENT", then RECITALS A to D; the
    numbered terms follow "Therefore, the parties agree as follows:"."""
    text = (
        "CONFIDENTIAL Portions of this Exhibit have been omitted pursuant to a request for confidential "
        "treatment and filed separately with the Commission.\n\nSPONSORSHIP AGREEMENT\n\nThis agreement is "
        "entered into as of the 23rd day of September, 1997 by and between Excite and Sponsor.\n\n"
        "RECITALS\n\nA.   Excite maintains a site on the Internet.\n\nB.   Sponsor wishes to be the "
        "exclusive sponsor.\n\nTherefore, the parties agree as follows:\n\n1.       EXCLUSIVITY, TERM AND "
        "RIGHT OF FIRST REFUSAL\n\n      a)       Sponsor will be the exclusive retail music store sponsor.\n"
    )
    tree = _tree(text)
    assert tree.node("Recitals").kind == NodeKind.RECITALS
    assert _at(tree, text, "Sponsor will be the exclusive") == "1(a)"


# --- hard-wrapped lines whose breaks became wide gaps ------------------------------------------------


def test_wrapped_lines_are_one_paragraph() -> None:
    """N2K: an all-caps clause wrapped with wide gaps; FIDELITY: "... set forth in this [gap]
    Section 4.1(a) with respect to ..." (a reference, not a heading)."""
    n2k = PREAMBLE + (
        "1.       TERM\n\n      a)       Sponsor will be the exclusive sponsor.\n\n"
        "2.      LIMITATION OF LIABILITY\n\n               EXCEPT UNDER SECTION 13(c) and (d), IN NO EVENT "
        "WILL EITHER                   PARTY BE LIABLE TO THE OTHER FOR ANY SPECIAL, INCIDENTAL OR"
        "                   CONSEQUENTIAL DAMAGES, WHETHER BASED ON BREACH OF CONTRACT,"
        "                   TORT (INCLUDING NEGLIGENCE) OR OTHERWISE.\n"
    )
    tree = _tree(n2k)
    start = n2k.index("EXCEPT UNDER")
    assert tree.smallest_containing((start, n2k.index("OR OTHERWISE."))).id.startswith("2")
    assert not [n for n in tree.walk() if n.kind == NodeKind.HEADING]
    fidelity = PREAMBLE + (
        "     Section 4.1. Grant of Licenses by Equifax.\n\n     (a) Equifax hereby grants a license.\n\n"
        "          (iv)  all sublicenses from Certegy to members of the Certegy Group (A)\n\n"
        "                shall contain the rights and restrictions set forth in this                 "
        "Section 4.1(a) with respect to the license granted to Certegy                 and comply with "
        "Sections 4.1(b) through (d) hereof.\n\n     (b) The sublicense rights granted to Certegy pursuant "
        "to Section 4.1(a) are limited.\n"
    )
    tree = _tree(fidelity)
    assert _at(tree, fidelity, "The sublicense rights granted") == "4.1(b)"
    assert "4.1(a)~2" not in tree.nodes


def test_far_number_without_a_title_is_no_section() -> None:
    """LegacyEducation: "90 High Street Burnham" in the notices of section 12; CERES: "76 Mb 76
    Miscanthus ..." a row of a table after row 75. Neither is a section 90 or 76."""
    legacy = PREAMBLE + (
        "11. FORCE MAJEURE   Neither party will be liable for any delay.   12. NOTICES   Notice: Each "
        "notice shall be in writing.   If to CSA Name: Sharon Bowler   Address: Celebrity Speakers Ltd     "
        "90 High Street Burnham     Buckinghamshire     SL1 7JT England   Telephone: 01628 601400\n\n"
        "13. JURISDICTION/DISPUTES   This Agreement shall be deemed to have been made in England.\n"
    )
    tree = _tree(legacy)
    assert "90" not in tree.nodes
    assert _at(tree, legacy, "deemed to have been made in England").startswith("13")
    ceres = PREAMBLE + (
        "37. Samples. The samples are listed below.\n\n"
        "75   Mb 75    Miscanthus  [***]   [***]    [***]    under MTA    [***]    [***]\n\n"
        "76 Mb 76 Miscanthus [***] [***] under MTA [***] [***]\n"
    )
    tree = _tree(ceres)
    assert "76" not in tree.nodes and "75" not in tree.nodes


# --- PDFs that print the section number in a column of its own ---------------------------------------


def test_number_on_its_own_line_then_its_title() -> None:
    """TodosMedical (PDF): "2.\\nExclusivity\\n2.1 The Reseller's ..."; Innerscope (PDF): "2.\\n
    Obligations of Distributor.\\na.\\nDistributor shall ...": the number is no page number, the
    short line after it is its title."""
    todos = PREAMBLE + (
        "1.\n\nGrant of Rights\n\n1.1 Subject to the terms and conditions of this Agreement, Todos grants "
        "the rights.\n\n2.\n\nExclusivity\n\n2.1 The Reseller's exclusive right to market and sell the "
        "Products in the Territory is subject to the Reseller achieving the following milestones.\n"
    )
    tree = _tree(todos)
    assert tree.node("2").title == "Exclusivity"
    assert _at(tree, todos, "exclusive right to market") == "2.1"
    innerscope = PREAMBLE + (
        "1.\n\nAppointment\n\nErchonia appoints the Distributor for the Territory.\n\n2.\n\n"
        "Obligations of Distributor\n\na.\n\nDistributor shall use its best efforts to market, promote and "
        "sell the Products to the authorized customers.\n"
    )
    tree = _tree(innerscope)
    assert tree.node("2").title == "Obligations of Distributor"
    assert _at(tree, innerscope, "best efforts to market").startswith("2")


def test_section_number_lines_are_not_running_lines() -> None:
    """ArmstrongFlooring (PDF): "1.1", "1.2" ... each on a line of its own, many times: numbers,
    not a running header."""
    text = (
        PREAMBLE
        + "1. DEFINITIONS AND INTERPRETATION\n\n"
        + "".join(
            f"1.{n}\n\nCertain Definitions {n}. As used herein, capitalized terms have meanings.\n\n"
            for n in range(1, 6)
        )
    )
    tree = _tree(text)
    assert [c.id for c in tree.children("1")] == [f"1.{n}" for n in range(1, 6)]


def test_article_number_at_a_page_end_heading_on_the_next() -> None:
    """SigaTechnologies: "... (a) [***]. ARTICLE 3\\n\\nGOVERNANCE 3.1 Joint Steering ..."; WaterNow:
    "... disclosed in writing to Hydraspin. ARTICLE VIII.\\n\\nINTELLECTUAL PROPERTY RIGHTS 8.1 ..."."""
    siga = PREAMBLE + (
        "ARTICLE 2\n\nGRANT OF RIGHTS 2.6 [***]. (a) [***]. ARTICLE 3\n\nGOVERNANCE 3.1 Joint Steering "
        "Committee. (a) Formation and Role. The Parties shall form a joint steering committee.\n"
    )
    tree = _tree(siga)
    assert tree.node("Article 3").title == "GOVERNANCE"
    assert _at(tree, siga, "shall form a joint steering").startswith("3.1")
    water = PREAMBLE + (
        "ARTICLE VII.\n\nREPRESENTATIONS AND WARRANTIES 7.1 Representations of Hydraspin. No consent is "
        "required, other than approvals or consents that have been previously obtained and disclosed in "
        "writing to Hydraspin. ARTICLE VIII.\n\nINTELLECTUAL PROPERTY RIGHTS 8.1 Limited Grant. Hydraspin "
        "grants Distributor a limited license.\n"
    )
    tree = _tree(water)
    assert tree.node("Article VIII").title == "INTELLECTUAL PROPERTY RIGHTS"
    assert _at(tree, water, "grants Distributor a limited") == "8.1"


def test_titled_sections_after_a_lead_in_are_no_list() -> None:
    """BUFFALOWILDWINGS: "We and you agree as follows:" then "I.     APPOINTMENT AND FRANCHISE FEE";
    KIROMIC: "... on the following terms:" then "1. Services and Compensation. ...": sections, not a
    list of the lead-in paragraph."""
    buffalo = PREAMBLE + (
        "AGREEMENTS:\n\n       We and you agree as follows:\n\nI.     APPOINTMENT AND FRANCHISE FEE\n\n"
        "       A.   Subject to the provisions stated below, we hereby grant you a license.\n\n"
        "II.    TERM AND RENEWAL\n\n       A.   The term of this Agreement is ten years.\n"
    )
    tree = _tree(buffalo)
    assert not in_paragraph(_at(tree, buffalo, "The term of this Agreement is ten years"))
    kiromic = PREAMBLE + (
        'Kiromic, Inc, a Delaware corporation (the "Company"), is pleased to this offer to this Consulting '
        'Agreement (this "Agreement") to retain Gianluca Rotino ("Consultant") to perform certain consulting '
        "activities as described below on the following terms:\n\n1. Services and Compensation. Consultant "
        "agrees to act as a consultant to Company.\n\n2. Confidentiality. Consultant shall keep the "
        "Company's information confidential.\n"
    )
    tree = _tree(kiromic)
    assert _at(tree, kiromic, "keep the Company's information") == "2"


def in_paragraph(node_id: str) -> bool:
    return any(step.startswith("p") and step[1:2].isdigit() for step in node_id.split("/"))


def test_bare_number_line_then_its_text() -> None:
    """ArmstrongFlooring (PDF): "3.2\\nCompany Copyright Grant. Subject to ..."; LinkPlus (PDF):
    "2.6\\nAxiometric will have the right to terminate ...": the text is the section's own."""
    armstrong = PREAMBLE + (
        "3. LICENSES\n\n3.1\n\nArizona Grant. Arizona grants a license.\n\n3.2\n\nCompany Copyright Grant. "
        "Subject to the terms and conditions of this Agreement, the Company hereby grants to Seller a "
        "perpetual, non-exclusive, royalty-free license.\n"
    )
    tree = _tree(armstrong)
    assert _at(tree, armstrong, "hereby grants to Seller").startswith("3.2")
    assert tree.node("3.2").title == "Company Copyright Grant"
    linkplus = PREAMBLE + (
        "2. OFFICE SPACE\n\n2.5\n\nAxiometric uses the office space at its sole risk.\n\n2.6\n\nAxiometric "
        "will have the right to terminate the license to use the office space and to move out of the "
        "office space at any time upon two weeks notice.\n\n2.7\n\nAxiometric must at all times use the "
        "office space lawfully.\n"
    )
    tree = _tree(linkplus)
    assert _at(tree, linkplus, "will have the right to terminate") == "2.6"


# --- sections numbered in roman numerals ----------------------------------------------------------

BUFFALO = (
    "AGREEMENTS:\n\n       We and you agree as follows:\n\n"
    "I.     APPOINTMENT AND FRANCHISE FEE\n\n"
    "       A.   Subject to the provisions of this Agreement, we grant to you a franchise to operate a "
    "restaurant.\n\n"
    "II.    TERM AND RENEWAL\n\n"
    "       A.   The term of this Agreement is for ten (10) years commencing on the date of this "
    "Agreement.\n\n"
    "       B.   You may renew the franchise providing you meet all of the following conditions:\n\n"
    "            1.    You have, during the entire term, complied with all the provisions of the "
    "Agreement;\n\n"
    "            2.    You have complied with our then-current qualification and training requirements; "
    "and\n\n"
    "       C.   Within ninety (90) days of our receipt of your notice to renew, we will furnish you "
    "with written notice.\n\n"
    "Notices to Us:    bw-3 FRANCHISE SYSTEMS, INC.\n\n"
    "III.   RESTAURANT AND LOCATION\n\n"
    "       A.   You shall operate the Franchised Restaurant at the location approved by us.\n"
)
ORBSAT = (
    "I. ENGAGEMENT\n\nAVDU hereby retains UTK to provide those services as defined herein.\n\n"
    "II. INDEPENDENT CONTRACTOR\n\nUTK shall be, and in all respects be deemed to be, an independent "
    "contractor in the performance of its duties hereunder.\n\n"
    "III. SERVICES\n\nUTK agrees to provide the following services, hereinafter collectively referred to "
    'as "Services":\n\nSEE "CONFIDENTIAL TERM SHEET" (EXHIBIT A) ATTACHED AND MADE A PART HEREOF\n\n'
    "IV. EXPENSES\n\nIt is expressly agreed and understood that each party shall be responsible for its "
    "own normal and reasonable out-of-pocket expenses.\n\n"
    "V. COMPENSATION\n\n  A. In consideration for the services to be provided, AVDU shall pay UTK.\n"
)


def test_roman_numeral_sections_buffalo_wild_wings() -> None:
    """Buffalo Wild Wings franchise agreement: "II.    TERM AND RENEWAL" is section II, not an
    item "(II)" of a list under the "AGREEMENTS:" heading; its lettered paragraphs and the numbered
    conditions inside "B." nest under it; a heading inside a section ("Notices to Us:") does not
    capture the sections after it."""
    text = PREAMBLE + BUFFALO
    tree = _tree(text)
    assert _at(tree, text, "The term of this Agreement is for ten") == "II(A)"
    assert _at(tree, text, "You have complied with our") == "II(B)/2"
    assert _at(tree, text, "Within ninety (90) days") == "II(C)"
    assert _at(tree, text, "You shall operate the Franchised") == "III(A)"
    assert tree.nodes["II"].kind == NodeKind.SECTION and tree.nodes["II"].title == "TERM AND RENEWAL"


def test_roman_numeral_sections_orbsat() -> None:
    """ORBSAT strategic alliance agreement: an all-caps note inside section III does not take
    sections IV and V under it; the numbering continues."""
    text = PREAMBLE + ORBSAT
    tree = _tree(text)
    assert _at(tree, text, "each party shall be responsible") == "IV"
    assert _at(tree, text, "AVDU shall pay UTK") == "V(A)"
    assert [n.id for n in tree.children(tree.root_id) if n.kind == NodeKind.SECTION] == [
        "I",
        "II",
        "III",
        "IV",
        "V",
    ]


def test_a_capitals_titled_letter_continuing_a_list_stays_an_item() -> None:
    """Made-up counter-example: "I. INSURANCE" after "H." is the ninth item of a lettered list,
    not a section I."""
    text = PREAMBLE + (
        "1. OBLIGATIONS\n\nThe Supplier shall:\n\n"
        + "".join(f"{letter}. DUTY. Perform duty {letter}.\n\n" for letter in "ABCDEFGH")
        + "I. INSURANCE. Insure the goods in transit.\n"
    )
    tree = _tree(text)
    assert _at(tree, text, "Insure the goods") == "1(I)"


def test_contents_entries_with_dot_leaders_buffalo_and_a_made_up_one() -> None:
    """Buffalo Wild Wings: contents entries with dot leaders, each line ending with the next
    entry's number ("TERM AND RENEWAL . . . .3 III."), are the table of contents, not sections;
    a made-up contents page of the same kind with decimal numbers too."""
    buffalo = (
        "TABLE OF CONTENTS\n\nARTICLE                                            PAGE\n\n"
        "I.     APPOINTMENT AND FRANCHISE FEE. . . . . . . . . . . . . . . . . . . . .1 II.\n"
        "TERM AND RENEWAL . . . . . . . . . . . . . . . . . . . . . . . . . . .3 III.\n"
        "RESTAURANT AND LOCATION. . . . . . . . . . . . . . . . . . . . . . . .4 IV.\n"
        "TRAINING . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . .5\n\n"
    )
    made_up = (
        "CONTENTS\n\n1. DEFINITIONS. . . . . . . . . . . . . . . . . . . . . . . . . . 1 2.\n"
        "SERVICES . . . . . . . . . . . . . . . . . . . . . . . . . . . . .4 3.\n"
        "FEES . . . . . . . . . . . . . . . . . . . . . . . . . . . . . . .6\n\n"
    )
    for contents, body in ((buffalo, BUFFALO), (made_up, "1. DEFINITIONS\n\nWords have meanings.\n")):
        text = contents + PREAMBLE + body
        tree = _tree(text)
        first = tree.children(tree.root_id)[0]
        assert first.kind == NodeKind.TABLE_OF_CONTENTS
        assert first.end >= text.index("TRAINING" if body is BUFFALO else "FEES")


def test_page_number_and_running_header_on_one_line_n2k_and_corio() -> None:
    """N2K sponsorship agreement: the page number and the running "CONFIDENTIAL" printed on one
    line, far apart, inside section 1(a) is page furniture, not a section "2" (nor a heading) that
    takes the rest of the agreement; Corio's page number above "EXHIBIT A" on one line is not
    furniture (the exhibit starts there)."""
    from tools.structure.blocks import analyze_blocks

    n2k = PREAMBLE + (
        "1.       EXCLUSIVITY, TERM AND RIGHT OF FIRST REFUSAL\n\n"
        "      a)       Sponsor will be the exclusive retail music store sponsor of the Excite Site. "
        '"Music Products"\n\n2' + " " * 69 + "CONFIDENTIAL\n\n"
        "              shall mean pre-recorded music hard goods.\n\n"
        "      b)      The term of this Agreement will begin on the Effective Date.\n\n"
        '2.       IMPRESSIONS\n\n      a)       "Impression" means a display.\n'
    )
    tree = _tree(n2k)
    assert _at(tree, n2k, "The term of this Agreement will begin") == "1(b)"
    assert _at(tree, n2k, "means a display") == "2(a)"
    corio = "Date: 11/5/99\n\n                                    14\n\n15" + " " * 37 + "EXHIBIT A\n\n"
    document = document_from_text(corio, "corio.txt")
    facts = analyze_blocks(corio, document.blocks)
    exhibit = next(f for f in facts if "EXHIBIT A" in f.text)
    assert not exhibit.furniture


# --- a numbered list deep inside a titled section -------------------------------------------------

ATN = (
    "3.0 General Terms\n\n3.1 Affiliate. An Affiliate of AT&T may order under this Agreement.\n\n"
    "3.17 Infringement.\n\n(e) Exceptions. Vendor shall have no liability for that portion of a "
    "Covered Loss which is based on:\n\n(i) use of the Provided Elements in breach of this "
    "Agreement; or\n\n(iii) Vendor's conformance to written specifications, unless any one or more "
    "of the following is true:\n\n1. there was a technically feasible non-infringing means of "
    "complying with those specifications; or\n\n2. the relevant specifications are designed to bring "
    "the Provided Elements into compliance with an industry standard.\n\n"
    "(f) OTHER LIMITATIONS OF LIABILITY NOT APPLICABLE. NOTWITHSTANDING ANY OTHER PROVISION.\n\n"
    "3.18 Insurance. Vendor shall maintain insurance.\n"
)
BLUE_HILLS = (
    "Section 4. Representations and Warranties of the Blue Hills Parties. The Blue Hills Parties "
    "represent and warrant to and agree with the Agent as follows:\n\n(a) The Registration Statement "
    "complies with the 1933 Act. As used in this paragraph and elsewhere in this Agreement:\n\n"
    '1. "Applicable Time" means each and every date when a potential purchaser submitted a '
    "subscription.\n\n"
    '2. "Statutory Prospectus," as of any time, means the Prospectus relating to the offered Shares.\n\n'
    "(b) None of the Blue Hills Parties has distributed any offering material.\n\n"
    "Section 5. Representations and Warranties of the Agent. The Agent represents as follows.\n"
)


def test_untitled_list_deep_inside_a_titled_section_atn_and_blue_hills() -> None:
    """AT&T maintenance agreement and Blue Hills agency agreement: "1. there was ..." under item
    (iii) of 3.17, and "1. "Applicable Time" means ..." under (a) of Section 4, are lists inside the
    item they follow, not sections "1" and "2" restarting beside "3.0 General Terms" (which would
    take what follows under a section "2")."""
    atn = PREAMBLE + ATN
    tree = _tree(atn)
    assert _at(tree, atn, "there was a technically feasible").startswith("3.17")
    assert _at(tree, atn, "NOTWITHSTANDING ANY OTHER").startswith("3.17")
    assert _at(tree, atn, "Vendor shall maintain insurance") == "3.18"
    blue = PREAMBLE + BLUE_HILLS
    tree = _tree(blue)
    assert _at(tree, blue, "means each and every date").startswith("4(a)")
    assert _at(tree, blue, "None of the Blue Hills Parties") == "4(b)"
    assert _at(tree, blue, "The Agent represents") == "5"


def test_a_sentence_or_title_opening_with_contents_is_no_contents_page() -> None:
    """Ideanomics content licence: "Contents are dubbed and subtitled ..." is a paragraph of
    section 2, not a table of contents that takes the rest of the section; Coherus licence: a
    schedule titled "Contents of Commercialization Plan for Planned Activities" is that schedule's
    title. "TABLE OF CONTENTS" and "Contents" alone still open a contents page (tests above)."""
    from tools.structure.blocks import analyze_blocks

    ideanomics = PREAMBLE + (
        "2. License Grant.\n\n(a) Licensor grants to Licensee the right to:\n\ni. exhibit the Titles.\n\n"
        "Contents are dubbed and subtitled in Cantonese and Mandarin languages. Exploitation of the "
        "Title over the internet must adhere to the following.\n\n"
        "ii. copy and dub the Titles, and authorize any person to do the foregoing.\n\n"
        "(b) Sublicensing. Licensee shall have the right to sublicense.\n"
    )
    tree = _tree(ideanomics)
    assert _at(tree, ideanomics, "Contents are dubbed").startswith("2(a)")
    assert _at(tree, ideanomics, "Licensee shall have the right to sublicense") == "2(b)"
    coherus = (
        "Confidential Execution Version Schedule 6.3\n\nContents of Commercialization Plan for Planned "
        "Activities\n"
    )
    facts = analyze_blocks(coherus, document_from_text(coherus, "coherus.txt").blocks)
    assert not any(f.toc_heading for f in facts)


# --- legends and exhibits behind running titles ---------------------------------------------------

FIBROGEN_LEGEND = (
    "[ * ] = Certain confidential information contained in this document, marked by brackets, has "
    "been omitted and filed separately with the Securities and Exchange Commission pursuant to Rule "
    "24b-2 of the Securities Exchange Act of 1934, as amended."
)
INKTOMI_LEGEND = (
    "[*]=CERTAIN INFORMATION IN THIS EXHIBIT HAS BEEN OMITTED AND FILED SEPARATELY  WITH THE "
    "COMMISSION. CONFIDENTIAL TREATMENT HAS BEEN REQUESTED WITH RESPECT TO  THE OMITTED PORTIONS."
)


def test_a_legend_printed_on_every_page_is_furniture_fibrogen_and_inktomi() -> None:
    """FibroGen and Inktomi: the confidentiality legend at the foot of every page is not a
    paragraph that ends the contents page (FibroGen: the rest of the contents then read as
    articles) or files the next section's text under the page it ends; a repeated "WHEREAS"
    recital (attached forms) is still a recital."""
    fibrogen = (
        'TABLE OF CONTENTS   ARTICLE 1 DEFINITIONS     1\n\n1.1   "Actions"     1\n\n'
        + FIBROGEN_LEGEND
        + "\n\nARTICLE 2 JOINT DEVELOPMENT COMMITTEE     8\n\n2.1   Joint Development Committee     8\n\n"
        + FIBROGEN_LEGEND
        + "\n\nEXHIBIT A LIST OF PATENTS     45\n\n"
        + FIBROGEN_LEGEND
        + "\n\nCONFIDENTIAL   EXECUTION COPY   COLLABORATION AGREEMENT\n\n"
        + 'This COLLABORATION AGREEMENT (the "Agreement") is entered into as of June 1, 2005 (the '
        + '"Effective Date") by and between FibroGen, Inc., a Delaware corporation ("FG"), and Astellas '
        + 'Pharma Inc., a Japanese corporation ("Astellas").\n\n'
        + 'ARTICLE 1 DEFINITIONS\n\n1.1 "Actions" shall have the meaning set forth below.\n'
    )
    tree = _tree(fibrogen)
    contents = tree.children(tree.root_id)[0]
    assert contents.kind == NodeKind.TABLE_OF_CONTENTS
    assert contents.end >= fibrogen.index("LIST OF PATENTS")
    assert _at(tree, fibrogen, "shall have the meaning") == "1.1"
    inktomi = PREAMBLE + "".join(
        f'1.{n}  "Term {n}" shall mean the thing numbered {n}.\n\n{INKTOMI_LEGEND}\n\n' for n in range(1, 4)
    )
    tree = _tree(inktomi)
    assert _at(tree, inktomi, "the thing numbered 3").startswith("1.3")
    assert not [n for n in tree.walk() if n.kind == NodeKind.PARAGRAPH and n.parent == tree.root_id]


def test_an_exhibit_heading_behind_the_running_title_goosehead_and_fibrogen() -> None:
    """Goosehead: "GOOSEHEAD INSURANCE AGENCY, LLC FRANCHISE AGREEMENT EXHIBIT F-2 SAMPLE FORM OF
    ..." after the signatures starts Exhibit F-2 (its numbered covenants are not signature
    paragraphs); FibroGen: "CONFIDENTIAL   EXECUTION COPY   EXHIBIT A  LIST OF PATENTS". A
    reference in capitals prose ("... LISTED IN EXHIBIT C OR YOUR PUBLIC LIBRARY ...") is none."""
    from tools.structure.blocks import run_in_schedule_start

    goosehead = PREAMBLE + (
        "1. Grant. We grant you a franchise.\n\n2. Term. Ten years.\n\n3. Fees. You pay fees.\n\n"
        "IN WITNESS WHEREOF, the parties hereto have duly signed this Agreement.\n\nBy: By:\n\n"
        "GOOSEHEAD INSURANCE AGENCY, LLC FRANCHISE AGREEMENT EXHIBIT F-2 SAMPLE FORM OF IN-TERM "
        "NON-COMPETITION AGREEMENT (to be signed by franchisee with its executive/management personnel)\n\n"
        'THIS IN-TERM NON-COMPETITION AGREEMENT ("Agreement") is made by Franchisee and Member.\n\n'
        "1. Covenants Not to Compete. Member shall not compete during the term.\n"
    )
    tree = _tree(goosehead)
    assert _at(tree, goosehead, "Member shall not compete").startswith("Exhibit F-2/")
    line = "CONFIDENTIAL   EXECUTION COPY   EXHIBIT A  LIST OF PATENTS"
    assert line[run_in_schedule_start(line) :] == "EXHIBIT A  LIST OF PATENTS"
    prose = (
        "INFORMATION IS AVAILABLE. CALL THE STATE ADMINISTRATORS LISTED IN EXHIBIT C OR YOUR PUBLIC LIBRARY"
    )
    assert run_in_schedule_start(prose) == 0


def test_a_titled_section_after_a_lettered_list_when_its_predecessor_was_missed() -> None:
    """Ambassador Eyewear: "1." is lost in the parties' lettered list, so "2. Grant of License."
    follows "(e) NOW THEREFORE ... agree as follows." with no numbered section before it; TriZetto:
    "2 2.  TERM" (a page number run into the heading) leaves section 2 unread, and "3.  SERVICE"
    follows its items (a) to (f). Both titled numbers are sections, not paragraphs of the list."""
    ambassador = (
        "ENDORSEMENT AGREEMENT\n\nThis Agreement is made by and between:\n\n"
        '(a) Kathy Ireland, Inc. ("KI Inc."), furnishing the services of Kathy Ireland;\n\n'
        '(b) Diplomat Ambassador Eyewear Group ("Diplomat").\n\n'
        "(c) NOW THEREFORE, for and in consideration of the mutual promises and conditions contained "
        "in this Agreement, the parties hereby agree as follows.\n\n"
        "2. Grant of License.\n\n(a) Products. KI, Inc. hereby grants to Diplomat the right to use "
        "KI's name.\n\n(b) Territory. The license hereby granted extends worldwide.\n\n"
        "3. Terms of Payment.\n\n(a) Rate. Diplomat agrees to pay KI, Inc. a royalty.\n"
    )
    tree = _tree(ambassador)
    assert _at(tree, ambassador, "extends worldwide") == "2(b)"
    assert _at(tree, ambassador, "agrees to pay KI") == "3(a)"
    trizetto = PREAMBLE + (
        "2 2.  TERM\n\n (e)   The term of this Agreement consists of the Initial Term and any "
        "continuations.\n\n (f)   Equipment under Warranty: A Manufacturer's Warranty accompanies "
        "most items.\n\n3.  SERVICE\n\n (a)   MMMW will provide on-call service for the Technical "
        "Infrastructure during the term of this Agreement.\n"
    )
    tree = _tree(trizetto)
    assert _at(tree, trizetto, "will provide on-call service") == "3(a)"


PROFOUND_REDACTED = PREAMBLE + (
    "7. CONFORMITY OF PRODUCTS 7.1 Philips represents and warrants to Customer that all Products "
    "comply in all respects with the terms of this Agreement and the applicable Purchase Orders. "
    "7.2 [Redacted - Commercially Sensitive] 7.3 [Redacted - Commercially Sensitive] the foregoing "
    "warranties will survive any inspection, delivery, acceptance, or payment by Customer.\n"
)


def test_bracketed_headings_split_run_together_sections_profound_and_deltathree() -> None:
    """Profound Medical: "... Purchase Orders. 7.2 [Redacted - Commercially Sensitive] ..." run
    on after 7.1 is section 7.2; Deltathree: "Section 2.02  [On-Line Marketing]." run on."""
    tree = _tree(PROFOUND_REDACTED)
    assert _at(tree, PROFOUND_REDACTED, "7.2 [Redacted").startswith("7.2")
    deltathree = PREAMBLE + (
        "Section 2.01  [Calling Card]. Calling Card. PrimeCall and DeltaThree shall jointly develop a "
        "card. Section 2.02  [On-Line Marketing]. On-Line Marketing. Each of PrimeCall and DeltaThree "
        "agree to place a link on its home page website.\n"
    )
    tree = _tree(deltathree)
    assert _at(tree, deltathree, "agree to place a link").startswith("2.02")


# --- unnumbered sub-headings and chapters ---------------------------------------------------------


def test_a_sub_heading_inside_a_numbered_section_stays_in_it_quantum_and_violin() -> None:
    """Quantum hosting agreement: "Choice of Law" printed as a heading inside "14.0 General" keeps
    its clause in section 14.0; Violin sponsorship agreement: the notice addresses "If to
    Sponsor:" inside section 12 do not take "(f) Severability" out of it. A heading in capitals
    between sections ("TERMS AND CONDITIONS") still stands on its own (tests above)."""
    quantum = PREAMBLE + (
        "13.0 Term\n\nThis Agreement lasts three years.\n\n"
        "14.0 General Headings The headings of the various sections of this Agreement have been "
        "inserted for convenience only.\n\nPage 8 of 36\n\nChoice of Law\n\n"
        "Choice of Law This Agreement will be governed by the substantive laws of the State of New York. "
        "Waiver of Jury Trial The parties waive any right to a jury trial.\n"
    )
    tree = _tree(quantum)
    assert _at(tree, quantum, "will be governed by the substantive laws").startswith("14.0/")
    violin = PREAMBLE + (
        "12. Miscellaneous.\n\n(e) Notices. All notices shall be in writing and addressed as follows:   "
        "If to Forty Niners SC:\n\n\n\nSan Francisco 49ers Attn: Legal Affairs 4949 Centennial Blvd. "
        "Santa Clara, CA 95054\n\nIf to Sponsor:\n\n\n\nViolin Memory, Inc. Attn: Legal 685 Clyde Ave "
        "Mountain View, CA 94043\n\n(f) Severability. Should any provision of this Agreement be "
        "determined to be invalid, such invalidity shall not affect the validity of any other "
        "provisions.\n\n13. Counterparts. This Agreement may be signed in counterparts.\n"
    )
    tree = _tree(violin)
    assert _at(tree, violin, "such invalidity shall not affect").startswith("12")
    assert _at(tree, violin, "may be signed in counterparts") == "13"


def test_chapters_number_like_articles_cheetah_and_valence() -> None:
    """Cheetah Mobile cooperation agreement ("Chapter 3 Cooperation Term" then "3.1 ...") and
    Valence joint venture contract ("CHAPTER 2 PARTIES TO THIS CONTRACT"): a chapter is numbered
    like an article, and its sections sit under it."""
    cheetah = PREAMBLE + (
        "Chapter 1 Definitions and Interpretations\n\n1.1 Definitions\n\nWords have meanings.\n\n"
        "Chapter 3 Cooperation Term\n\n3.1 The Cooperation Term of the parties shall be two years.\n"
    )
    tree = _tree(cheetah)
    node = tree.nodes[_at(tree, cheetah, "shall be two years")]
    assert node.id.startswith("3.1") and "Chapter 3" in [a.id for a in tree.ancestors(node.id)]
    valence = PREAMBLE + (
        "                          CHAPTER 1 GENERAL PROVISIONS\n\nThe parties form a joint venture.\n\n"
        "                       CHAPTER 2 PARTIES TO THIS CONTRACT\n\nThe parties are named below.\n"
    )
    tree = _tree(valence)
    assert _at(tree, valence, "The parties are named below").startswith("Chapter 2")


def test_an_indented_heading_only_section_owns_the_text_after_it_rewalk_and_msci() -> None:
    """ReWalk strategic alliance agreement ("  2. INVESTMENT BY YEC" indented, its text at the
    margin) and MSCI licence ("  2.1 MS Grant." indented under "2. GRANT OF LICENSE", its text at
    the margin): the text is the section's own, not a paragraph of what surrounds it."""
    rewalk = PREAMBLE + (
        "AGREEMENTS:\n\n1. SCOPE OF STRATEGIC ALLIANCE\n\nThe parties acknowledge the purpose of this "
        "agreement.\n\n  2. INVESTMENT BY YEC\n\nAs part of the implementation and execution of this "
        "Agreement, both parties agree to enter into a separate Share Purchase Agreement.\n\n"
        "  3. DISTRIBUTION OF ARGO'S PRODUCTS BY YEC\n\nPursuant to the DA, and subject to its terms, "
        "ARGO agreed to appoint YEC as the exclusive distributor.\n"
    )
    tree = _tree(rewalk)
    assert _at(tree, rewalk, "separate Share Purchase Agreement") == "2"
    assert _at(tree, rewalk, "ARGO agreed to appoint YEC") == "3"
    msci = PREAMBLE + (
        "2. GRANT OF LICENSE\n\n  2.1 MS Grant.\n\nMS hereby grants to MSCI a non-exclusive licence.\n\n"
        "  2.2 MSCI Grant.\n\nMSCI hereby grants to MS a non-exclusive licence.\n"
    )
    tree = _tree(msci)
    assert _at(tree, msci, "MSCI hereby grants") == "2.2"


def test_a_page_number_on_the_line_of_a_section_heading_corio_and_trizetto() -> None:
    """Corio ("3 2.      GRANT OF RIGHTS.", the heading's title cut into the next block) and
    TriZetto ("2 2.  TERM"): a page number printed before a section number on one line leaves the
    section its number."""
    corio = PREAMBLE + (
        "1.      DEFINITIONS.\n\nThe following terms shall have the following meanings.\n\n"
        "                                     2\n\n3 2." + " " * 6 + "GRANT OF RIGHTS.\n\n"
        "2.1     Hosting Software License. Commerce One grants Corio a license.\n"
    )
    tree = _tree(corio)
    assert "2" in tree.nodes and tree.nodes["2.1"].parent == "2"
    trizetto = PREAMBLE + (
        "1. TECHNICAL INFRASTRUCTURE\n\n (a)   Maintenance refers to services.\n\n"
        "2 2.  TERM\n\n (a)   MMMW provided Customer with an all inclusive initial term.\n"
    )
    tree = _tree(trizetto)
    assert _at(tree, trizetto, "all inclusive initial term") == "2(a)"


# --- numbered exhibits: a sequence of headings, not a running header ----------------------------

CHEETAH_ANNEXES = (
    "9. Governing Law\n\n9.1 This Agreement is governed by the laws of the PRC.\n\n"
    "Party A: Beijing Kingsoft Internet Security Software Co., Ltd.\n\n"
    "Authorized signatory: /s/ common seal\n\nTitle:\n\nDate:   14\n\n\n\n\n\n"
    "Annex 1\n\nSearch Engine Exemption Clause\n\n"
    "1. In addition to service clause indicated by Baidu, Baidu is not responsible for any other "
    "accident.\n\n"
    "2. Baidu is not responsible for the legality of link and information obtained from webpages.\n\n"
    "   15\n\n\n\n\n\nAnnex 2\n\n1. Display Format\n\n"
    "2. Table of Fee-charging Code and Corresponding Website   Fee-charging item   Channel   16\n\n\n\n\n\n"
    "Annex 3\n\nBusiness Cooperation Standard of Baidu Union\n\n"
    "In order to standardize the business cooperation of Baidu Union, it is provided as follows.\n\n"
    "5. Breach of exclusivity clause\n\nBreach the exclusivity agreement with Baidu to engage in competing "
    'business.\n\n   24\n\n\n\n\n\nAnnex 4\n\nRules of "Blue Sky 365" Plan\n\n'
    "Honesty is the basis for long-standing business.\n"
)
VIOLIN_SCHEDULES = (
    "20. Governing Law. This Agreement is governed by the laws of the State of California.\n\n"
    "IN WITNESS WHEREOF, the Parties have executed this Agreement, effective as of the Effective Date.\n\n"
    "VIOLIN MEMORY\n\nBy:  /s/ Dixon Doll Jr.\n\n Name: Dixon Doll Jr.\n\n Title:  COO/Director\n\n\n\n\n\n"
    "SCHEDULE 1\n\nSPONSORSHIP RIGHTS\n\nDuring each Contract Year:\n\n"
    '1. Designation. Sponsor will be permitted to use the designation of "The Official Data Storage '
    'Provider".\n\n2. Signage. Design and installation of all signage shall be subject to approval.\n\n'
    "(a) Branded Areas. Sponsor shall receive exclusive branding and entitlement at the Stadium.\n\n\n\n\n\n"
    "SCHEDULE 2\n\nTeam MARKS\n\n\n\n\n\n"
    "SCHEDULE 3\n\nSPONSOR MARKS\n\n[Please insert logo here.]\n\n\n\n\n\n"
    "SCHEDULE 4\n\nPAYMENT TERMS\n\nSponsor shall pay the annual fee in two instalments.\n"
)


def test_numbered_annexes_after_the_signatures_open_annexes_cheetah() -> None:
    """Rule "numbered exhibits are a sequence, not a header": "Annex 1" ... "Annex 4" are four
    headings; read as one line repeated on every page, they were page furniture and every annex
    stayed in the signature block."""
    text = PREAMBLE + CHEETAH_ANNEXES
    tree = _tree(text)
    assert _at(tree, text, "Baidu is not responsible for the legality").startswith("Annex 1")
    assert _at(tree, text, "Breach the exclusivity agreement with Baidu").startswith("Annex 3")
    assert _at(tree, text, "Honesty is the basis").startswith("Annex 4")
    assert _at(tree, text, "Authorized signatory").startswith("Signatures")


def test_numbered_schedules_after_the_signatures_open_schedules_violin() -> None:
    text = PREAMBLE + VIOLIN_SCHEDULES
    tree = _tree(text)
    branded = _at(tree, text, "Sponsor shall receive exclusive branding")
    assert branded.startswith("Schedule 1") and "2" in branded.split("/", 1)[1]
    assert _at(tree, text, "Sponsor shall pay the annual fee").startswith("Schedule 4")
    assert _at(tree, text, "Dixon Doll Jr.").startswith("Signatures")


def test_an_exhibit_number_on_every_page_is_still_a_running_header() -> None:
    """The counter-example the rule keeps (made up): the filing's own exhibit number printed at the
    top of every page is one header; numbered annexes are not, nor are page numbers one header."""
    page = "Exhibit 10.38\n\n{n}. Term. The parties agree to clause {n}.\n\nPage {n} of 4\n\nAnnex {n}\n\n"
    text = PREAMBLE + "".join(page.format(n=n) for n in range(1, 5))
    running = running_lines(text, document_from_text(text, "contract.txt").blocks)
    assert {"exhibit 10.38", "page # of #"} <= running
    assert not any(key.startswith("annex") for key in running)


# --- a sentence cut by a page break ------------------------------------------------------------


def test_a_sentence_cut_by_a_page_break_continues_airspan_and_nexstar() -> None:
    """Rule "a sentence cut by a page break continues": the text after the page's furniture goes on
    with the sentence the page cut ("... to resell the" | "Page 1" | "Airspan Products to ..."),
    even where it opens with a capital; it was an unnumbered paragraph "1.1/p1" beside its
    section's own text."""
    airspan = PREAMBLE + (
        "1.1  Distributor's appointment as a distributor of the Airspan Products grants to Distributor "
        "only a license to resell the\n\n- ----------------------------------------\n\nPage 1\n\n"
        "Airspan Products to Distributor's customers in the Territory, and does not transfer any right, "
        "title, or interest in any of the Airspan Software to Distributor.\n\n1.2  Distributor's "
        "relationship to Airspan is that of an independent contractor.\n"
    )
    tree = _tree(airspan)
    assert _at(tree, airspan, "does not transfer any right").startswith("1.1")
    assert not in_paragraph(_at(tree, airspan, "does not transfer any right"))
    nexstar = PREAMBLE + (
        "7. Programming. Nexstar shall provide the programming described in Schedule A.\n\n"
        "8. Political Advertising. WYZZ shall oversee and shall take ultimate responsibility for WYZZ-TV's "
        "compliance with the political broadcasting rules of the\n\n                                       9"
        "\n\nFCC and Sections 312 and 315 of the Act, or any similar provision which may be enacted during "
        "the term hereof.\n\n9. Term. This Agreement runs for two years.\n"
    )
    tree = _tree(nexstar)
    assert _at(tree, nexstar, "FCC and Sections 312") == "8"


def test_a_number_in_figures_does_not_end_a_sentence_mrs_fields_and_webhelp() -> None:
    """ "within three (3)" then "miles of ..." on the next line: "(3)" ends no sentence, so the
    lowercase line that follows goes on with it."""
    fields = PREAMBLE + (
        "17.B.    COVENANT NOT TO COMPETE. Franchisee will not hold any interest in a Competitive "
        "Business located or          operating  within  three (3) miles of the Unit,  and  within  "
        "three (3)          miles of any other Pretzel Time Unit;\n\n17.C.    TERM. This Agreement "
        "runs for ten years.\n"
    )
    tree = _tree(fields)
    assert _at(tree, fields, "miles of any other Pretzel Time Unit") == _at(tree, fields, "COVENANT NOT")
    webhelp = PREAMBLE + (
        "5. SERVICE LEVELS\n\na) For the first sixty (60) minutes of Downtime eGain will credit "
        "Customer's account for one       (1) day of service.\n\nb) For each eight (8) hour period "
        "of Downtime per day in addition to the       Initial Downtime, eGain will credit Customer's "
        "account for one (1)       additional day of service.\n"
    )
    tree = _tree(webhelp)
    assert _at(tree, webhelp, "additional day of service").startswith("5(b)")


def test_short_lines_across_a_page_break_stay_apart() -> None:
    """The counter-examples the rule keeps: a table's cells (CERES, "Mix of accessions" then a
    cell "Miscanthus [***]") and a made-up attention line are short, so a page break between them
    joins nothing."""
    text = PREAMBLE + (
        "3. PLANT MATERIALS\n\nIGER holds the accessions listed in the table below.\n\nMix of accessions"
        "\n\n40\n\nMiscanthus  [***]\n\n4. NOTICES\n\nNotices go to the addresses below.\n\n"
        "Attention: the chief financial officer of the\n\n41\n\nNotices take effect on receipt by the "
        "addressee.\n"
    )
    tree = _tree(text)
    assert _at(tree, text, "Mix of accessions") != _at(tree, text, "Miscanthus")
    assert _at(tree, text, "Attention: the chief") != _at(tree, text, "Notices take effect")


# --- labels printed on a line of their own, and lists that run on -------------------------------


def test_a_bare_item_label_owns_the_text_after_it_innerscope_and_scansource() -> None:
    """Rule "a bare label owns the text that follows": a PDF's label column puts "a." or "(A)" on
    a line of its own and the item's text on the next; "a." alone was no label at all and the
    text of "(A)" became an unnumbered paragraph "(A)/p1"."""
    innerscope = PREAMBLE + (
        "1.\n\nGrant of License.\n\na.\n\nSubject to the terms set forth in this agreement, Erchonia "
        "grants Distributor the exclusive, non-transferable right and license to promote, distribute and "
        "sell the Products.\n\nb.\n\nErchonia retains the right, in its sole discretion, to add, delete, "
        "upgrade, or modify the Products from time to time.\n\n2.\n\nObligations of Distributor.\n\na.\n\n"
        "Distributor shall use its best efforts to market, promote and sell the Products.\n"
    )
    tree = _tree(innerscope)
    assert _at(tree, innerscope, "Erchonia grants Distributor the exclusive") == "1(a)"
    assert _at(tree, innerscope, "Erchonia retains the right") == "1(b)"
    assert _at(tree, innerscope, "use its best efforts") == "2(a)"
    scansource = PREAMBLE + (
        '1. RECITALS\n\n(A)\n\nAgreement, (as amended) ("Distribution Agreement"), which relates to Zebra '
        "Enterprise Visibility and Mobility products and services;\n\n(B)\n\nDistributor purchases Products "
        "from Zebra under the Distributor Agreement;\n\n(C)\n\nZebra has recently completed the acquisition "
        "of Xplore.\n"
    )
    tree = _tree(scansource)
    assert _at(tree, scansource, "which relates to Zebra") == "1(A)"
    assert _at(tree, scansource, "Distributor purchases Products") == "1(B)"


def test_a_first_item_run_on_after_its_heading_reeds_and_scansource() -> None:
    """Rule "a list's first item may run on after its heading": "6. Intellectual Property. (a)
    Ownership ..." with "(b) Work Product ..." on a line of its own. Left in the section's text,
    "(a)" was text and "(b)" an unnumbered paragraph; the block is now cut at "(a)"."""
    reeds = PREAMBLE + (
        "6. Intellectual Property. (a) Ownership of Intellectual Property. Reed's acknowledges that all "
        "rights of ownership of Company's Intellectual Property shall belong exclusively to Company. 3\n\n"
        "Source: REED'S, INC., 10-Q, 11/13/2019\n\n\n\n(b) Work Product. Company acknowledges and agrees "
        "that all Intellectual Property created by Company in connection with the Products shall be owned "
        "by Reed's. 4\n\nSource: REED'S, INC., 10-Q, 11/13/2019\n\n7. Term. This Agreement runs for two "
        "years. 5\n\nSource: REED'S, INC., 10-Q, 11/13/2019\n"
    )
    tree = _tree(reeds)
    assert _at(tree, reeds, "rights of ownership of Company").startswith("6(a)")
    assert _at(tree, reeds, "created by Company in connection").startswith("6(b)")
    scansource = PREAMBLE + (
        "25.0 INSURANCE (a) Each party shall be responsible for maintaining Worker's Compensation "
        "insurance in the statutory amounts required by the applicable state laws.\n\n(b) Each party shall "
        "maintain Commercial General Liability insurance with bodily injury and property damage limits.\n\n"
        "26.0 NOTICES. Notices shall be in writing.\n"
    )
    tree = _tree(scansource)
    assert _at(tree, scansource, "Worker's Compensation").startswith("25.0(a)")
    assert _at(tree, scansource, "Commercial General Liability").startswith("25.0(b)")


def test_a_reference_or_a_lone_item_is_not_cut() -> None:
    """The counter-examples (made up): "(a)" after a referring word is a citation, and a run-in
    "(a)" with no "(b)" on a line of its own after it stays in its section's text."""
    text = PREAMBLE + (
        "4. Payment. Fees are due as set out in Section 2 (a) Payment Schedule attached.\n\n(b) Late fees "
        "accrue monthly.\n\n5. Audit. (a) Records. Each party keeps records for three years.\n\n"
        "6. Term. This Agreement runs for two years.\n"
    )
    tree = _tree(text)
    assert _at(tree, text, "Fees are due as set out").startswith("4")
    assert not _at(tree, text, "Fees are due as set out").startswith("4(a)")
    assert _at(tree, text, "Each party keeps records").startswith("5")
    assert "(a)" not in _at(tree, text, "Each party keeps records")


def test_a_list_resumes_after_a_paragraph_that_interrupts_it_goldresource_and_stamps() -> None:
    """Rule "a list resumes after a paragraph that interrupts it": "(a) ..." then a paragraph at the
    margin, then "(b)": the paragraph closed the list, and "(b)" had no sibling to follow."""
    gold = PREAMBLE + (
        "6.1 Joint Venture\n\n  (a) If the Company decides to seek a joint venture partner, the Company "
        "shall immediately provide notice to HOC.\n\nNotwithstanding the foregoing, nothing in this "
        "Section 6.1 shall prevent the Company from negotiating with third parties.\n\n  (b) If HOC, "
        "acting reasonably, determines that the notice contains insufficient information, HOC may ask "
        "for more.\n\n6.2 Joint Venture Proposal\n\nHOC may propose a joint venture.\n"
    )
    tree = _tree(gold)
    assert _at(tree, gold, "HOC, acting reasonably").startswith("6.1(b)")
    stamps = PREAMBLE + (
        "7.   Services.\n\n     The Company shall provide the Service to each MBE Center.\n\n"
        "8.   Payments; Taxes.\n\n     (a) Basic Fee. In consideration for the Service, the Company shall "
        "be entitled to receive a fee for each package shipped by the U.S. Postal\n\n     -9-\n\n"
        "Service), the Company shall be entitled to receive the Basic Fee.\n\n     (b) Bounty Fee. In "
        "further consideration for the Service, MBE shall pay a bounty.\n\n9.   Term.\n\n     This "
        "Agreement runs for two years.\n"
    )
    tree = _tree(stamps)
    assert _at(tree, stamps, "MBE shall pay a bounty").startswith("8(b)")


def test_a_section_may_open_at_its_first_sub_section_intricon_and_smartrx() -> None:
    """Rule "a section may open at its first sub-section": IntriCon strategic alliance agreement
    ("2.14 Additional definitions ..." then "3.1 Term: ...", no "3" printed) and Smart RX
    distributor agreement ("15. CONTROLLING LAW:" run on after an address, then "15.1
    Generally."): "3.1" is section 3's first clause beside section 2, not a paragraph of 2.14."""
    intricon = PREAMBLE + (
        "2.13 Territory means the world.\n\n   2.14 Additional definitions are provided in Exhibits A and "
        "B attached here to which are considered to be part of this Agreement.\n\n   3.1 Term: The initial "
        "term of this Agreement shall be five (5) years from the date of execution.     3.2 Dynamic "
        "Hearing grants to IntriCon in accordance with the terms of this Agreement an exclusive licence.\n"
    )
    tree = _assert_filed(
        intricon, {"The initial term of this Agreement": "3.1", "Hearing grants to IntriCon": "3.2"}
    )
    assert tree.node("3.1").parent == tree.node("2.14").parent
    smartrx = PREAMBLE + (
        "14. NOTICES: All communications will be sent to the addresses set forth below:\n\nCompany: Smart "
        "RX Systems, Inc. Red Bug Lake Road, Suite 256 Winter Springs, Florida 32708 Distributor: A3 "
        "Development Group, LLC 17521 Highway 69 South, Suite 120 Tyler, Texas 75703 15. CONTROLLING LAW: "
        "15.1 Generally. This Distributor Agreement shall be exclusively governed by the laws of the State "
        "of Texas. 15.2 Service of Process. The Parties further agree that service of process may be made "
        "by mail.\n"
    )
    _assert_filed(
        smartrx, {"exclusively governed by the laws": "15.1", "service of process may be made": "15.2"}
    )


def test_an_untitled_first_sub_section_number_is_a_reference() -> None:
    """The counter-example of the rule above (made up): "3.1 of Schedule B" wrapped to the start
    of a line inside section 2.2 has no title and stays in its paragraph."""
    text = PREAMBLE + (
        "2.1 Fees. The Customer shall pay the fees.\n\n2.2 Expenses. The Customer shall reimburse the "
        "expenses listed in Section\n3.1 of Schedule B within thirty days of invoice.\n"
    )
    _assert_filed(text, {"of Schedule B within thirty days": "2.2"})


def test_a_section_keeps_its_text_at_the_margin_icoreconnect_and_biopure() -> None:
    """Rule "a section keeps its text at the margin": iCoreConnect strategic alliance agreement
    ("   3. TERM   This Agreement ..." indented, its second paragraph at the margin) and BioPure
    agency agreement ("   5.2. Assignment." indented, its text continued at the margin after a page
    number): the later paragraphs are the section's, not paragraphs under no number."""
    icore = PREAMBLE + (
        "   2. SERVICES   IMedicor will, from time to time make available upgrade services to its "
        "members.   3. TERM   This Agreement shall commence on the Effective Date of this Agreement and "
        'shall remain in effect for a period of 5 years ("Initial Term").\n\nIn such an instance, all '
        "compensation will continue for a extended period of five years from the date of termination.\n\n"
        "   4. COMPENSATION   USA MCO will receive a revenue share.\n"
    )
    _assert_filed(icore, {"all compensation will continue": "3", "USA MCO will receive": "4"})
    biopure = PREAMBLE + (
        "   5.1. Notices. All such communications will be deemed effective on actual receipt.\n\n   5.2. "
        "Assignment. This Agreement will be binding upon and inure to the benefit of the parties hereto "
        "and their respective successors and permitted assigns.    14\n\n                                   "
        "-13-\n\nNeither party will not assign or otherwise transfer any of its rights or obligations under "
        "this Agreement without the express prior written consent of the other party.\n\n   5.3. Waiver. No "
        "waiver is effective unless in writing.\n"
    )
    _assert_filed(biopure, {"Neither party will not assign": "5.2", "No waiver is effective": "5.3"})


def test_a_sub_section_keeps_its_text_at_the_margin_biopure_and_lime_energy() -> None:
    """Rule "a section keeps its text at the margin" for sub-sections too: BioPure agency
    agreement ("   2.6. Warranty." under "2.", its sentence cut by a page break and finished at
    the margin) and Lime Energy distributor agreement ("1.6 Distributor's Terms and Minimum
    Expectations. ... from the Company:" deeply indented, its next paragraph less so): the text
    is 2.6's and 1.6's, not a paragraph of sections 2 and 1."""
    biopure = PREAMBLE + (
        "2. PRODUCTS PURCHASE AND SALE.\n\n   2.5. Claims. Any claim "
        "for shortage in Product delivery must be "
        "made within ten (10) business days after the Customer's receipt of shipment.\n\n   2.6. Warranty. "
        "The Company hereby warrants that all Products sold to "
        "the\n\n\n\n\n\nCustomer hereunder, at the time "
        "of shipment to the Customer, (a) will be merchantable and of generally commercially salable "
        "quality; and (b) will have a then remaining shelf life of at least twelve (12) months. In no "
        "event will the Company be liable for incidental or consequential damages.\n\n3. COVENANTS.\n\n"
        "   3.1. Purchaser Guarantees. The Agent will guarantee payment.\n"
    )
    lime = PREAMBLE + (
        "1.     APPOINTMENT\n\n                  1.5      The "
        "Distributor's Obligation. The Distributor, at its"
        "                            own expense,  shall promote the distribution,  sales,"
        "                            and use of Products in the Market.\n\n"
        "                  1.6      Distributor's  Terms  and  Minimum  Expectations.  In"
        "                            order  to  maintain  the  exclusive  rights  to sell,"
        "                            the Distributor must purchase the following minimum quantities of the "
        "Products from the                            Company:\n\n"
        "         On the  commencement of the Term  Distributor will issue to the Company an  irrevocable  "
        "letter of credit in the amount of Five Hundred  Thousand Dollars.\n\n"
        "                  1.7      Sub-distributors. The Distributor may appoint sub-distributors.\n"
    )
    for text, expected in (
        (biopure, {"In no event will the Company be liable": "2.6", "will guarantee payment": "3.1"}),
        (lime, {"Distributor will issue to the Company": "1.6", "may appoint sub-distributors": "1.7"}),
    ):
        _assert_filed(text, expected)


def test_a_number_far_past_the_last_section_is_not_one_legacy_and_smith_electric() -> None:
    """Rule "a number far past the last section is not a section unless it looks like one": in
    Legacy Education's endorsement agreement the notices of section 12 print "90 High Street
    Burnham" after a postcode read as a heading; in Smith Electric's fleet maintenance agreement a
    cover page "DATED 13 October 2005" interrupts the definitions of section 1. Neither number is
    a section: sections 13 and 14 keep their numbers and their text."""
    legacy = PREAMBLE + (
        "11. FORCE MAJEURE   Neither party will be liable for any "
        "delay caused by events beyond its control.   "
        "12. NOTICES   Notice: Each notice shall be in writing and addressed to the address of the intended "
        "recipient set forth below.   If to Company Name: lain "
        "Edwards   Address: Tigrent Learning UK Ltd     "
        "Boston House     69 — 75 Boston Manor Road     Brentford     Middlesex     TW8 9.1.1     England   "
        "Telephone: 02089 966700       If to CSA Name: Sharon Bowler   Address: Celebrity Speakers Ltd     "
        "90 High Street Burnham     Buckinghamshire     SL1 7JT England   Telephone: 01628 601400\n\n6\n\n"
        "  13. JURISDICTION/DISPUTES   This Agreement shall be deemed to have been made in England. This "
        "Agreement shall be governed by the laws of England and Wales.   14. AGREEMENT BINDING ON SUCCESSORS"
        "   The provisions of the Agreement shall be binding upon the Parties.\n"
    )
    _assert_filed(legacy, {"governed by the laws of England": "13", "binding upon the Parties": "14"})
    smith = PREAMBLE + (
        "1. Definitions     1.1 In this Agreement:     1.1.1 the following expressions have the following "
        'meanings:     "DCL Financial Year" means the period of 12 (twelve) months commencing on the first '
        "day of each financial year of DCL (and, in the\n\n            DATED         13 October 2005"
        "                   DCL\n\nDAIRY CREST LIMITED (Company no 2085882) whose registered office is at "
        "Claygate House, Esher, Surrey KT10 9PN\n\n   2. Term     "
        "2.1 This Agreement runs for five years.     "
        "13. Warranties and Liability     13.1 SEV does not warrant that the Maintenance Services will cause "
        "Vehicles to operate without breakdown.\n"
    )
    tree = _tree(smith)
    assert not _at(tree, smith, "13 October 2005").startswith("13")
    assert tree.node("13").title.startswith("Warranties")


def test_a_bracketed_placeholder_ends_its_section_gwg_and_profound() -> None:
    """Rule "a bracketed placeholder ends its section": GWG's orderly marketing agreement runs
    "Section 3. [Reserved] Section 4. General Provisions. 4.1 Term; ..." on one line, Profound
    Medical's supply agreement "7.2 [Redacted - Commercially Sensitive] 7.3 [Redacted - ...] the
    foregoing warranties ...": the number after the closing bracket starts the next section, as
    after a full stop."""
    gwg = PREAMBLE + (
        "Section 2. Compensation. The Engagement Letter shall provide that the Bank shall not be entitled "
        "to any compensation for its advice hereunder. Section 3. [Reserved] Section 4. General Provisions. "
        "4.1 Term; Termination; Withdrawal of Bank. (a) This OMA shall expire upon the earlier of (i) the "
        "first anniversary of the Effective Date and (ii) the date that all Shares are sold.\n\n- 4 -\n\n"
        "(b) The Engagement Letter shall provide that the Bank may terminate its engagement at any time.\n\n"
        "4.2 Amendments and Waivers. This OMA may be amended only in writing.\n"
    )
    _assert_filed(
        gwg, {"This OMA shall expire": "4.1(a)", "Bank may terminate": "4.1(b)", "may be amended only": "4.2"}
    )
    _assert_filed(PROFOUND_REDACTED, {"the foregoing warranties": "7.3", "7.2 [Redacted": "7.2"})
