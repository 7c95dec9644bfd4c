"""Rule "a lead-in is cited with its list", for a lead-in ending in a comma: "Upon the expiration or
termination of this Agreement," quoted alone says nothing, and a planned turn cites it with the
items (i), (ii) that complete its sentence, on a development agreement and a trademark licence."""

from __future__ import annotations

import pytest

from tests.conftest import research_turn
from tests.helpers import ingested_file, scripted_researcher

DEVELOPMENT = """TECHNOLOGY DEVELOPMENT AGREEMENT

This Agreement is made between Document Security Systems, Inc. ("DSS") and HotApp International Ltd
("Developer").

1. Services

1.1 Developer shall provide the development services described in Schedule 1.

1.2 DSS shall pay Developer the monthly fee within thirty (30) days of each invoice.

2. Term and Termination

2.1 This Agreement has a term of one (1) year.

2.2 Upon the expiration or termination of this Agreement,

(i) the development licence granted to Developer shall immediately cease, and

(ii) Developer shall deliver to DSS all proprietary files delivered to it.
"""

LICENCE = """TRADEMARK LICENSE AGREEMENT

This Agreement is made between Morgan Stanley Investment Management ("Licensor") and the Fund
("Licensee").

1. Grant

1.1 Licensor grants Licensee a non-exclusive licence to use the Brand.

1.2 Licensee shall use the Brand only for the Permitted Activity.

4. Termination

4.1 Either party may terminate this Agreement on sixty (60) days' written notice.

4.5 Upon termination of this Agreement for any reason,

(a) Licensee shall immediately cease all use of the Brand; and

(b) the parties shall cooperate so as to best preserve the value of the Brand.
"""


@pytest.fixture(
    params=[
        ("development.txt", DEVELOPMENT, "(ii) Developer shall deliver"),
        ("licence.txt", LICENCE, "(b) the parties"),
    ]
)
def contract(request, tmp_path, embedder):
    name, text, last_item = request.param
    source = tmp_path / name
    source.write_text(text, encoding="utf-8")
    settings, index = ingested_file(tmp_path / "data", embedder, source)
    yield settings, index, last_item
    index.close()


def test_a_lead_in_ending_in_a_comma_is_cited_with_its_list(contract, embedder) -> None:
    settings, index, last_item = contract
    nothing = {"answer": "Nothing more.", "addressed": False, "citations": []}
    researcher, answerer = scripted_researcher(settings, index, embedder, nothing)
    result = research_turn(researcher, "What happens at the end of the agreement?")
    quotes = [" ".join(c.quote.split()) for c in result.citations]
    lead_in = next(q for q in quotes if q.startswith("Upon"))
    assert last_item in lead_in and answerer.calls == []
