"""The end of the graph: the report finished by an explicit, ordered list of named passes.

    compose -> restate -> verify -> repair -> recheck -> remove -> fill -> render

Each pass runs once, and none undoes another:

- **compose** numbers the sources (the decision's grounds first, then the clauses closest to an
  unclear answer, then every finding's citations), turns the decision into the short answer,
  and puts two kinds of text side by side: the *composed* lines, quotes of verified sources that
  the system writes (the grounds of the short answer, the answer to each part of a compound
  question), and the *written* text, the writer model's summary, findings and preliminary answer;
- **restate** composes the answer of an open or list question from the verified sources: the
  writer restates each source in one plain sentence (a small model can restate one sentence
  faithfully; it cannot ground a paragraph), cited with that source's number, grouped by the
  question's parts and then by whom each is about; the summary is the first two of them
  (``interrogation.compose_answer``; a question a decider settled keeps the writer's draft). The
  sources are offered in the order research cited them (the answerer's own quotes first), not
  re-ranked: the shipped cross-encoder put "automatically renewed at the end of every ten (10)
  year term" (0.88) above "the remaining 50% of the total order cost must be paid prior to the
  goods leaving the warehouse" (0.10) for "What are the payment terms?". A source the writer
  skips as not about the question is not stated;
- **verify** checks everything shown: every quote and reference (:mod:`tools.report_checks`),
  every sentence of the written text against the sources it cites, for contradiction
  (:mod:`tools.claim_check`) and for support (:mod:`tools.decision.support`), and against the
  short answer: no written verdict other than the decided one (:mod:`tools.decision.agreement`);
  the writer's gaps, which say what the contract leaves open and so cite nothing, must not be
  contradicted by any source nor give another verdict;
- **repair** asks the writer once to rewrite its text, naming every failure (skipped when there
  is none, when ``interrogation.repair`` is off, the ``fast`` preset saving that call, and when
  all the text was composed: the fill pass quotes what failed, :meth:`Finisher.all_composed`);
  composed lines are never given to the writer, so a repair cannot drop them;
- **recheck** verifies the repaired text as **verify** did;
- **remove** cites, in a sentence that cited nothing, the source that supports it (every source
  was tried), and drops what still fails: a sentence that is contradicted, unsupported, gives another
  verdict than the short answer or quotes words the contract does not have, and references to
  sources that do not verify, and a gap that fails or repeats a sentence of the text that
  failed (before or after the repair). What was removed is noted in the report's
  checks, not in its gaps (those list what the contract leaves open);
- **fill** quotes, for each source whose restated sentence the checks removed, the source's
  sentence that shares most words with the question, with its place (rule "an answer that fails
  its check is replaced by one built from what holds"); where the checks left the preliminary
  answer empty although verified evidence was found, it quotes the sources so; an empty summary
  becomes the answer's first two sentences. It only adds where nothing stands, so it undoes no
  earlier pass;
- **render** builds the :class:`~clausewise.core.report.Report`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import KW_ONLY, dataclass, field, replace
from functools import cached_property

from langchain_core.runnables import Runnable

from clausewise.core.backends.accounting import UsageSummary
from clausewise.core.backends.structured import invoke_structured
from clausewise.core.config import DecisionSettings, InterrogationSettings
from clausewise.core.domain import Span
from clausewise.core.errors import StructuredOutputError
from clausewise.core.prompting import load_prompt
from clausewise.core.report import REFERENCE, Report, ReportMetadata, ShortAnswer, Source
from clausewise.core.results import Decision, Draft, Finding, Inquiry, Restatement
from clausewise.core.tracing import annotate, span
from indexes.bm25 import bm25_tokens
from tools.attribution import SentenceScorer
from tools.citations import QuoteVerifier, last_word
from tools.claim_check import Contradiction, contradictions
from tools.decision.agreement import Disagreement, disagreements
from tools.decision.instructions import addresses_a_model
from tools.decision.support import Support, claims_of, supports, uncited
from tools.list_lead_ins import lead_in_of
from tools.party_roles import Party, acts_of, contract_parties
from tools.report_checks import (
    Failures,
    check,
    evidence_findings,
    number_sources,
    plain_sentences,
    prose_sentences,
)
from tools.retrieval.spans import overlap
from tools.text_plans import asked_as_yes_or_no_alone, composed_from_the_text, plan_for

log = logging.getLogger(__name__)

PASSES = ("compose", "restate", "verify", "repair", "recheck", "remove", "fill", "render")
#: Sources the filled answer states, at most (one sentence each), and how many open the summary.
FILLED_SOURCES = 4
FILLED_SUMMARY = 2
#: Characters of a source's quote the writer is shown.
QUOTE_SHOWN = 600
#: Longest quote of a ground or a part's source the findings show (a clause with its list).
LIST_QUOTE_CHARS = 800
NOT_ADDRESSED = (
    "The contract does not appear to address this question: no passage that answers it could be "
    "found and verified."
)
#: What stands where every sentence the writer drafted for a section failed the checks.
NOTHING_SUPPORTED = (
    "The drafted answer could not be supported by the sources and was removed; the short answer and "
    "the findings above stand."
)


@dataclass
class Composition:
    """A report under construction: the composed lines (verified by construction) and the
    writer's text (checked), with the sources both cite."""

    inquiry: Inquiry
    draft: Draft
    sources: list[Source]
    short: ShortAnswer | None
    grounds: list[str] = field(default_factory=list)  # composed findings
    part_lines: list[str] = field(default_factory=list)  # composed lines of the preliminary answer
    filled: list[str] = field(default_factory=list)  # the answer built from the sources (fill)
    restating: list[int] = field(default_factory=list)  # sources the composed answer states (restate)
    found: set[Span] = field(default_factory=set)  # the spans this question's findings cited
    gaps: list[str] = field(default_factory=list)  # what the contract leaves open
    supported: bool = True  # some verified evidence was found
    checks: list[str] = field(default_factory=list)
    removed_citations: list[str] = field(default_factory=list)
    repaired_claims: list[str] = field(default_factory=list)
    removed_claims: list[str] = field(default_factory=list)

    def written(self) -> list[str]:
        """The writer's texts the checks read (summary, findings, preliminary answer)."""
        return [self.draft.summary, *self.draft.reasoning, self.draft.preliminary_answer]


@dataclass(frozen=True)
class Verification:
    """What failed the checks: citations, contradicted claims, unsupported ones and sentences
    giving another verdict than the short answer."""

    citations: Failures
    contradicted: list[Contradiction]
    unsupported: list[Support]
    disagreeing: list[Disagreement] = field(default_factory=list)
    #: sentences of the writer's gaps that a source contradicts or that give another verdict:
    #: removed, never sent to the repair (a gap is not the writer's answer to rewrite)
    failed_gaps: list[Contradiction | Disagreement] = field(default_factory=list)
    #: sentences that cited nothing and the number of the source that supports them
    to_cite: dict[str, int] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.citations or self.contradicted or self.unsupported or self.disagreeing)

    def claim_failures(self) -> list[Contradiction | Support | Disagreement]:
        return [*self.contradicted, *self.unsupported, *self.disagreeing]

    def problems(self) -> list[str]:
        return self.citations.describe() + [f.describe() for f in self.claim_failures()]

    def failing_claims(self) -> set[str]:
        return {f.claim for f in self.claim_failures()}


def short_answer_of(decision: Decision, sources: Sequence[Source]) -> ShortAnswer:
    """The short answer a decision makes, its grounds and closest clauses as source numbers."""
    number = {s.span: s.number for s in sources}
    return ShortAnswer(
        form=decision.form,
        verdict=decision.verdict if decision.form == "verdict" or decision.verdict else None,
        value=decision.value,
        value_type=decision.value_type,
        normalized=decision.normalized,
        sources=[number[g.span] for g in decision.grounds if g.span in number],
        closest=[number[c.span] for c in decision.closest if c.span in number],
        decided_by=decision.decided_by,
        provision=decision.provision,
        rationale=decision.rationale,
        qualification=decision.qualification,
        leaning=decision.leaning,
        leaning_probability=decision.leaning_probability,
        deferred=decision.deferred,
        found=decision.found,
        options=decision.options,
    )


def decision_finding(decision: Decision | None) -> list[Finding]:
    """The decision's grounds and closest clauses as a first, turn-0 finding (for numbering)."""
    if decision is None or not (decision.grounds or decision.closest):
        return []
    return [
        Finding(
            turn=0,
            question=decision.question,
            answer=decision.rationale,
            addressed=True,
            citations=[*decision.grounds, *decision.closest],
        )
    ]


def quick_answer_of(decision: Decision) -> tuple[ShortAnswer, list[Source]]:
    """The short answer a decision makes on its own, with its sources numbered as the finished
    report numbers them (the decision's grounds and closest clauses first), so that the quick
    answer's [n] are the report's [n]."""
    sources = number_sources(decision_finding(decision))
    return short_answer_of(decision, sources), sources


#: A decider's answers that settle nothing: the question stays open.
_UNSETTLED = frozenset({"unclear", "not addressed"})


def shown_short_answer(question: str, short: ShortAnswer | None, found: bool) -> ShortAnswer | None:
    """Rule "a plan's abstention is not its answer": a question a plan reads from the text
    (:func:`tools.text_plans.plan_for`), whose plan ``found`` sentences, shows no short answer its
    decider left unsettled; the plan's sentences below answer it. On the open-question bank's tune
    half 4 of 24 planned reports opened "Unclear: the contract does not settle this" above the
    grounds to terminate, the payment terms or the warranties they listed (the model could not
    settle "Can either party end this contract early?" alone; the value reader found no single
    amount for "How much is paid, and when?"), and one check-half report opened "Not stated in the
    contract" (the warranty's duration) above the warranties it quoted. A settled answer (a verdict,
    a value read) stays, and so does the abstention on a question asked as yes or no alone ("Is
    either party's liability capped or excluded?"): unclear, with the closest clause, is its answer,
    and the plan's sentences below show what the contract says."""
    if short is None or not found or plan_for(question) is None or asked_as_yes_or_no_alone(question):
        return short
    return None if short.verdict in _UNSETTLED and not short.value else short


def _as_to(question: str) -> str:
    return f"As to {question[:1].lower()}{question[1:]}".rstrip("?,; ") + ":"


def _part_lines(parts: Sequence[str], session: Sequence[Finding], sources: Sequence[Source]) -> list[str]:
    """A line per part of a compound question a turn answered with verified citations: its
    fullest source quoted (a small writer drops the parts it did not answer first)."""
    lines = []
    for part in parts:
        finding = next((f for f in session if f.question == part and f.addressed and f.citations), None)
        if finding is None:
            continue
        spans = {c.span for c in finding.citations}
        cited = [s for s in sources if s.span in spans]
        if not cited:
            continue
        fullest = max(cited, key=lambda s: len(s.quote))
        others = " ".join(f"[{s.number}]" for s in cited if s is not fullest)
        quoted = evidence_findings([fullest], quote_chars=LIST_QUOTE_CHARS)[0]
        lines.append(f"{_as_to(part)} {quoted}" + (f"; see also {others}." if others else "."))
    return lines


def _answering_sentence(source: Source, question: str) -> str:
    """The sentence of ``source`` that shares most words with ``question`` (the first on a tie),
    never one that instructs an assistant, and never a label or heading (rule "a heading is no
    answer", as it is no restatement: :func:`_states_something`): a clause's number "2." read as
    its first sentence was quoted as the answer to "Who owns the intellectual property?" on the
    open-question bank's check half, and "Section 9.5." on its tune half."""
    sentences = [
        " ".join(s.split())
        for s in plain_sentences(source.quote)
        if _states_something(s) and not addresses_a_model(s)
    ]
    if not sentences:
        return ""
    asked = set(bm25_tokens(question))  # the retrieval's own words: stemmed, without stop words
    return max(sentences, key=lambda s: len(asked & set(bm25_tokens(s))))


def filled_answer(
    sources: Sequence[Source],
    question: str,
    limit: int = FILLED_SOURCES,
    lead_ins: Mapping[int, str] | None = None,
) -> list[str]:
    """An answer built from verified sources alone: for each (in the report's order), its sentence
    closest to the question, quoted with its place and number, a list item after its lead-in
    (``lead_ins`` by source number; rule "a list item is read under its lead-in"). Quotes of the
    contract's own words, so the support check's quote rule holds them by construction."""
    lead_ins = lead_ins or {}
    lines = []
    for source in sources:
        sentence = _answering_sentence(source, question)
        if not sentence:
            continue
        place = source.node_id.split("/")[0]
        # a title's semicolon ("Governing Law; Jurisdiction") would end the line's first sentence
        # for the checks, which then held "At 9.10 Governing Law" as a claim apart and removed it
        title = source.title.replace(";", ",")
        place = place if source.title in ("", source.node_id) else f"{place} {title}"
        lead = lead_ins.get(source.number)
        opening = lead and sentence == _answering_sentence(source, "")  # the item, not a later sentence
        after = f', after "{lead}"' if opening else ""
        lines.append(f'At {place}{after}, the contract provides: "{sentence.rstrip()}" [{source.number}].')
        if len(lines) == limit:
            break
    return lines


def composed_lines(
    restatement: Restatement, offered: Sequence[Source], parts: Sequence[str]
) -> list[tuple[str, str]]:
    """The restated sentences in answer order, each ending with its source's number: by the
    question's parts (in their order), then by whom or what each is about (in order of first
    mention); one sentence per source (its first), none for a source not offered or one that
    instructs an assistant. Each line comes with what it is about, lowercased."""
    by_number = {s.number: s for s in offered}
    seen: set[int] = set()
    said: set[str] = set()
    kept = []
    for sentence in restatement.sentences:
        text = " ".join(REFERENCE.sub("", sentence.text).split()).strip()
        if sentence.source not in by_number or sentence.source in seen or not _states_something(text):
            continue
        source = by_number[sentence.source]
        if not _whole(text) or _cut_at_a_quotation(text, source) or _ends_where_shown(text, source):
            continue
        if not of_its_own_source(text, sentence.source, offered):
            continue
        if addresses_a_model(text) or _said(text) in said:
            continue
        seen.add(sentence.source)
        said.add(_said(text))
        # a sentence copied from a list item ends as a sentence, not on its ";" ("creditors [4];.")
        text = text if text.endswith((".", "!", "?")) else f"{text.rstrip(';:, ')}."
        kept.append((sentence, _cited(text, sentence.source)))
    part_rank = {p.lower(): i for i, p in enumerate(parts)}
    about_rank: dict[str, int] = {}
    for sentence, _ in kept:
        about_rank.setdefault(sentence.about.strip().lower(), len(about_rank))
    kept.sort(
        key=lambda pair: (
            part_rank.get(pair[0].part.strip().lower(), len(part_rank)),
            about_rank[pair[0].about.strip().lower()],
        )
    )
    return [(sentence.about.strip().lower(), line) for sentence, line in kept]


#: What the writer copies from the prompt's source header ("[2] 6.01 Term (p. 1): ...").
_SOURCE_HEADER = re.compile(r"\(p\.\s*[\d?]+\)")


def _states_something(text: str) -> bool:
    """Rule "a heading is no restatement": a restated sentence has at least three words, and is
    not the source's header the prompt shows it under (the 1.5B writer gave a survival clause the
    line "6.01 Term (p. 1):", which states nothing and passed the checks); the source is quoted
    instead (:func:`unstated_sources`)."""
    return len(re.findall(r"[A-Za-z]{2,}", text)) >= 3 and not _SOURCE_HEADER.search(text)


def _whole(text: str) -> bool:
    """Rule "a restated sentence is whole": its brackets close and it does not end on an opening
    one. The writer, quoting 'the International Chamber of Commerce ("ICC")' inside its JSON
    string, ended the string at the quotation mark, and the line shown was "... resolved by the
    International Chamber of Commerce ( [3]."; the source is quoted instead (:func:`unstated_sources`).
    Nor does it end on a word no sentence ends with (:data:`_NO_END`, as written, so "Exhibit A"
    ends one): the writer restated a lead-in up to its list, "Licensee agrees not to do anything
    inconsistent with such ownership, including [5].", and a list item up to a page break, "... on
    the appointment of a receiver of [1]." (in the open-question bank's stored tune-half reports, 4
    such sentences among 1,116 restated, and no whole one)."""
    body = REFERENCE.sub("", text).rstrip(" .;:,")
    return (
        text.count("(") == text.count(")")
        and not body.endswith(("(", "[", '"', "“"))
        and last_word(body) not in _NO_END
    )


#: Words no sentence ends with, as written (lowercase): a restated sentence ending on one stops
#: in the middle of what it says. Those of :data:`tools.citations.DANGLING` that even a full stop
#: cannot end ("as the case may be.", "if any." end sentences; "including." does not).
_NO_END = frozenset(
    """including a an the of to by for with and or nor from into than such shall will must its
    their every each""".split()
)


def _cut_at_a_quotation(text: str, source: Source) -> bool:
    """Rule "a restated sentence is whole", at a quotation mark: the writer, copying a sentence
    that quotes a defined term, ended its JSON string at the term's opening quotation mark, and the
    lines shown were "In this Agreement, [4]." and "without limiting the generality of the forgoing
    [5]." for 'In this Agreement, "Confidential Information" shall mean ...'. A restated line that
    is its source's words up to a quotation mark is cut short; the source is quoted instead."""
    said = " ".join(text.rstrip(" .,;:").split()).lower()
    words = " ".join(source.quote.split()).lower()
    return len(said) >= 8 and any(f"{said}{gap}{mark}" in words for gap in ("", " ") for mark in '"“')


def _ends_where_shown(text: str, source: Source) -> bool:
    """Rule "a restated sentence is whole", at the end of what was shown: the writer is shown
    :data:`QUOTE_SHOWN` characters of a long quote, and restated a definition up to where they
    stopped, inside a word ("... customers, suppliers, lenders, under [5]." for "underwriters").
    A restatement of a quote cut for the prompt that ends on the cut's last two words is cut
    short; the source is quoted instead."""
    if len(source.quote) <= QUOTE_SHOWN:
        return False
    shown = re.findall(r"\w+", source.quote[:QUOTE_SHOWN].lower())[-2:]
    return bool(shown) and re.findall(r"\w+", REFERENCE.sub("", text).lower())[-2:] == shown


def summary_lines(lines: Sequence[tuple[str, str]], limit: int = FILLED_SUMMARY) -> list[str]:
    """Rule "the summary names each side": the first composed line about each party or thing
    (the party acting in it, else what the writer says it is about), in answer order, then the
    next lines, up to ``limit``. The first two lines of an answer grouped by party were both the
    Buyer's duties, so the summary of "What are each party's main obligations?" named no duty of
    the Supplier."""
    firsts = [n for n, (about, _) in enumerate(lines) if about not in {a for a, _ in lines[:n]}]
    chosen = sorted([*firsts, *(n for n in range(len(lines)) if n not in firsts)][:limit])
    return [lines[n][1] for n in chosen]


def _said(text: str) -> str:
    """What a restated sentence says, for comparing two: its words, lowercased."""
    return " ".join(re.findall(r"\w+", REFERENCE.sub("", text).lower()))


def unstated_sources(restatement: Restatement, stated: Sequence[int]) -> list[int]:
    """The sources the writer gave a sentence that no composed line keeps (:func:`composed_lines`):
    a repeated restatement (rule "a repeated restatement is no restatement": the writer gave four
    clauses of a trademark licence the same sentence, "Either party may terminate this contract
    early, but only if ..."; the first is kept), a heading (rule "a heading is no restatement"), a
    sentence cut short (rule "a restated sentence is whole"), a
    restatement of another source (rule "a restatement is of its own source"). The writer did not
    read them; they are quoted in the contract's words instead (the fill pass)."""
    return list(
        dict.fromkeys(s.source for s in restatement.sentences if s.source > 0 and s.source not in stated)
    )


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]{3,}", text.lower()))


def of_its_own_source(text: str, number: int, offered: Sequence[Source]) -> bool:
    """Rule "a restatement is of its own source": a restated sentence shares more of its words
    with the source it cites than with any other offered source. The 1.5B writer gave a licence's
    "Upon termination ..., (a) Licensee shall immediately cease ..." the survival clause's words
    ("Section 2, this Section 4.5, and Sections 6.2 ... shall survive termination"); the support
    check read it against every source, found the survival clause, and passed it under the wrong
    number. Such a source is quoted instead."""
    words = _words(text)
    share = {s.number: len(words & _words(s.quote)) for s in offered}
    return share.get(number, 0) >= max(share.values(), default=0)


def renumbered(restatement: Restatement, offered: Sequence[Source]) -> Restatement:
    """``restatement`` with the writer's numbers (1..k, the order ``offered`` was shown in) turned
    into the report's; a number outside 1..k becomes 0, which no source has."""
    numbers = [s.number for s in offered]
    return Restatement(
        sentences=[
            s.model_copy(update={"source": numbers[s.source - 1] if 1 <= s.source <= len(numbers) else 0})
            for s in restatement.sentences
        ]
    )


def _cited(sentence: str, number: int | None) -> str:
    """``sentence`` with the reference ``[number]`` before its closing punctuation (as it was
    when ``number`` is None)."""
    if number is None:
        return sentence
    body = sentence.rstrip()
    end = len(body.rstrip(".;:!"))
    return f"{body[:end]} [{number}]{body[end:]}"


def _without(text: str, claims: set[str]) -> str:
    return " ".join(s for s in prose_sentences(text) if s.strip() not in claims).strip()


@dataclass(eq=False, repr=False)
class Finisher:
    """The finishing passes for one contract, with the writer for the one repair and the
    classifiers the checks use."""

    settings: InterrogationSettings
    decision_settings: DecisionSettings
    verifier: QuoteVerifier
    writer: Runnable
    _: KW_ONLY
    scorer: SentenceScorer | None = None
    contradiction_at: float = 0.5

    @cached_property
    def parties(self) -> list[Party]:
        """The contract's parties, read once when a claim is first checked (rule "a party
        swapped" reads them)."""
        return contract_parties(self.verifier.text)

    def lead_ins(self, sources: Sequence[Source]) -> dict[int, str]:
        """The lead-in of each source that is a list item, by number (rule "a list item is read
        under its lead-in", :mod:`tools.list_lead_ins`)."""
        return {s.number: lead for s in sources if (lead := lead_in_of(self.verifier.text, s.span))}

    def _actor(self, line: str) -> str:
        """The party ``line`` has act (its first duty or right), lowercased; "" for none. What a
        composed line is about for the summary (rule "the summary names each side"): the writer's
        own "about" named the thing, not the party ("purchase orders", "the products")."""
        acts = acts_of(line, self.parties) if len(self.parties) >= 2 else []
        return acts[0].party.lower() if acts else ""

    # -- the passes ---------------------------------------------------------------------------

    def compose(
        self,
        inquiry: Inquiry,
        draft: Draft | None,
        findings: Sequence[Finding],
        session: Sequence[Finding],
        decision: Decision | None,
    ) -> Composition:
        sources = number_sources([*decision_finding(decision), *findings])
        draft = draft or Draft(title=inquiry.question, summary="", preliminary_answer="", addressed=False)
        short = (
            short_answer_of(decision, sources)
            if decision is not None and self.settings.short_answer
            else None
        )
        supported = any(f.citations for f in session) or bool(
            decision and (decision.grounds or decision.closest)
        )
        grounds: list[str] = []
        if short is not None:
            numbers = set(short.sources)
            grounds = evidence_findings(
                [s for s in sources if s.number in numbers], quote_chars=LIST_QUOTE_CHARS
            )
        answered = {f.question for f in session if f.citations and f.addressed}
        gaps = [
            *draft.gaps,
            *(f"Not answered from the contract yet: {p}" for p in inquiry.parts if p not in answered),
        ]
        if not supported:
            draft = draft.model_copy(update={"summary": "", "reasoning": [], "preliminary_answer": ""})
        return Composition(
            inquiry=inquiry,
            draft=draft.model_copy(update={"short_answer": ""}),
            sources=sources,
            short=short,
            grounds=grounds,
            part_lines=_part_lines(inquiry.parts, session, sources),
            gaps=list(dict.fromkeys(gaps)),
            supported=supported,
            found={c.span for f in session for c in f.citations},
        )

    def restate(self, composition: Composition) -> Composition:
        c = composition
        decided = c.short is not None
        composed = composed_from_the_text(c.inquiry.question, decided=decided)
        if not (self.settings.compose_answer and c.supported and composed):
            return c
        offered = [s for s in c.sources if not addresses_a_model(s.quote)]
        if decided:  # rules "a planned question is composed", "a verdict shows what the contract
            # says on it": what the plan found, not the clauses closest to an unclear verdict ("This
            # Agreement shall be construed as if it were drafted jointly" for "Can either party end
            # it early?"); a settled verdict's grounds are quoted under its short answer already
            offered = [s for s in offered if s.span in c.found]
        offered = offered[: self.settings.composed_sources]
        if not offered:
            return c
        if decided and c.short.form == "verdict" and c.short.verdict not in _UNSETTLED:
            # rule "a verdict's account is quoted": the decider settled the answer, and the plan's
            # sentences show what the contract says on it in its own words (filled in, each list
            # item after its lead-in), no model call. Restated, on the open-question bank's tune
            # half, "(g) not to divulge ..." under "CRO agrees:" became "The agreement cannot
            # divulge ...", and a ground to terminate "(d) On either party assigning ..." was
            # shown without the right it is a ground for. The verdict's grounds lead, and a
            # planned sentence within one is not quoted again.
            grounds = [s for s in c.sources if s.number in c.short.sources]
            rest = [s for s in offered if not any(overlap(s.span, g.span) for g in grounds)]
            return replace(c, restating=[*(g.number for g in grounds), *(s.number for s in rest)])
        # numbered 1..k as the writer reads them (a small model given [2] alone answers "source": 1)
        messages = load_prompt("answer_restate").messages(
            question=c.inquiry.question,
            parts="\n".join(f"- {part}" for part in c.inquiry.parts) or "none",
            sources="\n".join(
                f"[{n}] {s.node_id} {s.title} (p. {s.pages[0] if s.pages else '?'}): "
                f'"{s.quote[:QUOTE_SHOWN]}"'
                for n, s in enumerate(offered, start=1)
            ),
        )
        try:
            restated = invoke_structured(self.writer, messages, Restatement)
        except StructuredOutputError as error:
            log.warning("restatement unreadable, the sources are quoted instead: %s", error)
            return replace(c, restating=[s.number for s in offered])
        restatement = renumbered(restated, offered)
        composed = [
            (self._actor(line) or about, line)
            for about, line in composed_lines(restatement, offered, c.inquiry.parts)
        ]
        lines = [line for _, line in composed]
        if not lines:
            return replace(c, restating=[s.number for s in offered])
        draft = c.draft.model_copy(
            update={"preliminary_answer": " ".join(lines), "summary": " ".join(summary_lines(composed))}
        )
        stated = [int(n) for line in lines for n in REFERENCE.findall(line)]
        return replace(c, draft=draft, restating=[*stated, *unstated_sources(restatement, stated)])

    def verify(self, composition: Composition) -> Verification:
        if self.settings.claim_check == "off":
            return Verification(Failures(), [], [])
        shown = composition.draft.model_copy(
            update={"reasoning": [*composition.grounds, *composition.draft.reasoning]}
        )
        citations = check(shown, composition.sources, self.verifier)
        valid = [s for s in composition.sources if s.number not in citations.bad_sources]
        scorer = self.scorer if self.settings.claim_check == "values+nli" else None
        texts = composition.written()
        leads = self.lead_ins(valid)
        contradicted = contradictions(
            texts,
            valid,
            composition.inquiry.question,
            scorer=scorer,
            at=self.contradiction_at,
            parties=self.parties,
            lead_ins=leads,
        )
        flagged = {c.claim for c in contradicted}
        checked = supports(
            texts, valid, scorer, self.decision_settings.support_at, composition.inquiry.question
        )
        missing = [u for u in checked if not u.supported and u.claim not in flagged]
        # rule "every shown sentence is cited": one that cites nothing, supported by a source
        # (every source was tried), is shown with that source's number
        to_cite = {
            s.claim: s.source
            for s in checked
            if s.supported and s.source is not None and uncited(s.claim) and s.claim not in flagged
        }
        decided = (
            composition.short.verdict if composition.short and composition.short.form == "verdict" else None
        )
        flagged |= {u.claim for u in missing}
        question = composition.inquiry.question
        disagreeing = [d for d in disagreements(texts, decided, question) if d.claim not in flagged]
        gaps = composition.draft.gaps  # the writer's; the composed "not answered yet" lines are not
        gap_contradicted = contradictions(
            gaps,
            valid,
            question,
            scorer=scorer,
            at=self.contradiction_at,
            parties=self.parties,
            lead_ins=leads,
        )
        contradicted_gaps = {c.claim for c in gap_contradicted}
        failed_gaps: list[Contradiction | Disagreement] = [*gap_contradicted]
        failed_gaps += [d for d in disagreements(gaps, decided, question) if d.claim not in contradicted_gaps]
        return Verification(citations, contradicted, missing, disagreeing, failed_gaps, to_cite)

    def repair(self, composition: Composition, verification: Verification) -> Composition:
        if not verification:
            return composition
        problems = verification.problems()
        log.info("report checks failed, asking for one repair", extra={"failures": problems})
        messages = load_prompt("report_repair").messages(
            draft=composition.draft.model_dump_json(exclude={"complete", "confidence", "short_answer"}),
            sources="\n".join(
                f'[{s.number}] {s.node_id} {s.title} (p. {s.pages[0]}): "{s.quote[:300]}"'.replace("  ", " ")
                for s in composition.sources
            ),
            failures="\n".join(f"- {p}" for p in problems),
        )
        try:
            repaired = invoke_structured(self.writer, messages, Draft)
        except StructuredOutputError as error:
            log.warning("report repair unreadable, failing statements are removed: %s", error)
            return composition
        draft = composition.draft.model_copy(
            update={
                "summary": repaired.summary,
                "reasoning": repaired.reasoning,
                "preliminary_answer": repaired.preliminary_answer,
            }
        )
        fixed = sorted(verification.failing_claims())
        return replace(composition, draft=draft, repaired_claims=fixed)

    @staticmethod
    def all_composed(composition: Composition) -> bool:
        """Whether every text the checks read was composed from the sources (the restated answer
        and summary, no writer's findings): a failing sentence of it is then quoted from its
        source by the fill pass, so the repair call would rewrite nothing worth its cost (rule "a
        restated sentence that fails is quoted, not rewritten")."""
        return bool(composition.restating) and not composition.draft.reasoning

    def recheck(self, composition: Composition) -> Verification:
        return self.verify(composition)

    def remove(self, composition: Composition, verification: Verification) -> Composition:
        failing = verification.failing_claims()
        bad_refs = set(verification.citations.bad_references) | set(verification.citations.bad_sources)
        bad_quotes = verification.citations.bad_quotations

        def shown(sentence: str) -> bool:
            """A sentence is judged as it was checked, references and all, before its bad ones
            go: rule "a sentence citing only a failed source goes with it" (a list item whose
            source failed its span check was shown uncited once its "[4]" was stripped, since
            the stripped sentence no longer matched the failing claim)."""
            claim = sentence.strip()
            if claim in failing or any(q in sentence for q in bad_quotes):
                return False
            refs = {int(m.group(1)) for m in REFERENCE.finditer(sentence)}
            return not (refs and refs <= bad_refs and claim not in verification.to_cite)

        def clean(text: str) -> str:
            kept = [
                _cited(
                    REFERENCE.sub(lambda m: "" if int(m.group(1)) in bad_refs else m.group(0), s),
                    verification.to_cite.get(s.strip()),
                )
                for s in prose_sentences(text)
                if shown(s)
            ]
            return re.sub(r"\s+([.,;])", r"\1", " ".join(kept)).strip()

        draft = composition.draft
        cleaned = draft.model_copy(
            update={
                "summary": clean(draft.summary),
                "reasoning": [r for r in (clean(item) for item in draft.reasoning) if r],
                "preliminary_answer": clean(draft.preliminary_answer),
            }
        )
        # rule "a sentence that failed is no gap": a writer often repeats a sentence of its text
        # among its gaps ("The contract does not explicitly state a non-compete clause."); once
        # the checks failed it in the text (now, or before the repair rewrote it), it goes there too
        failed_gaps = {f.claim for f in verification.failed_gaps}
        not_shown = failed_gaps | failing | set(composition.repaired_claims)
        gaps = [kept for gap in composition.gaps if (kept := _without(gap, not_shown))]
        sources = [s for s in composition.sources if s.number not in verification.citations.bad_sources]
        removed = [f.describe() for f in [*verification.claim_failures(), *verification.failed_gaps]]
        removed_citations = verification.citations.describe()
        repaired = [c for c in composition.repaired_claims if c not in failing]
        checks = []
        if repaired:
            checks.append(f"{len(repaired)} drafted statement(s) failed the checks and were rewritten once.")
        if removed or removed_citations:
            checks.append(
                f"{len(removed) + len(removed_citations)} drafted statement(s) or citation(s) that their "
                "sources did not support were removed."
            )
        return replace(
            composition,
            draft=cleaned,
            gaps=gaps,
            sources=sources,
            checks=checks,
            removed_claims=removed,
            removed_citations=removed_citations,
            repaired_claims=repaired,
        )

    def fill(self, composition: Composition) -> Composition:
        c = composition
        if not c.supported:
            return c
        # rule "a fragment is no summary", in the answer too: a writer's bare "no" left once its
        # sentences failed is no answer, and the sources are quoted in its place
        stated = " ".join(p for p in prose_sentences(c.draft.preliminary_answer) if claims_of(p))
        c = replace(c, draft=c.draft.model_copy(update={"preliminary_answer": stated}))
        answered = " ".join([stated, *c.part_lines]).strip()
        cited = {int(n) for n in REFERENCE.findall(answered)}
        by_number = {s.number: s for s in c.sources}
        lost = [by_number[n] for n in c.restating if n not in cited and n in by_number]
        question = c.inquiry.question
        leads = self.lead_ins(c.sources)
        if lost:
            lines = filled_answer(lost, question, limit=len(lost), lead_ins=leads)
        else:
            lines = [] if answered else filled_answer(c.sources, question, lead_ins=leads)
        summary = c.draft.summary or self._summary_of(c, lines)
        return replace(c, draft=c.draft.model_copy(update={"summary": summary}), filled=lines)

    @staticmethod
    def _summary_of(c: Composition, filled: list[str]) -> str:
        """A summary where the checks left none: the sentence of the short answer's grounds
        closest to the question (so a decided question's summary states what decided it), then
        the answer's own sentences, then the filled ones, then each part's, two at most and one
        per source (a part line quotes a whole clause: it comes last). Rule "a fragment is no
        summary": a piece that asserts nothing the checks read (under three words and no value,
        such as a writer's bare "no" left once its sentence failed) is not shown as one; the
        short answer states the verdict."""
        by_number = {s.number: s for s in c.sources}
        grounds = [by_number[n] for n in (c.short.sources if c.short else []) if n in by_number]
        candidates = [
            *filled_answer(grounds, c.inquiry.question, limit=1),
            *prose_sentences(c.draft.preliminary_answer),
            *filled,
            *(s for line in c.part_lines for s in prose_sentences(line)),
        ]
        chosen: list[str] = []
        stated: set[str] = set()
        for sentence in candidates:
            numbers = set(REFERENCE.findall(sentence))
            if not claims_of(sentence) or (numbers and numbers <= stated):
                continue
            chosen.append(sentence.strip())
            stated |= numbers
            if len(chosen) == FILLED_SUMMARY:
                break
        return " ".join(chosen)

    def render(
        self,
        composition: Composition,
        *,
        turns_used: int,
        stop: str,
        questions_asked: list[str],
        contract_id: str,
        file_name: str,
        usage: Callable[[], UsageSummary],
        seconds: Callable[[], float],
    ) -> Report:
        """The report. ``usage`` and ``seconds`` are read now, so the model calls and time of
        the finishing passes (the restatement, the repair) are counted too."""
        c, draft = composition, composition.draft
        inquiry = c.inquiry
        summary = draft.summary or f"Question examined: {inquiry.question}"
        reasoning = [*c.grounds, *draft.reasoning]
        if c.supported and not reasoning:
            reasoning = evidence_findings(c.sources)
        preliminary = " ".join([draft.preliminary_answer, *c.part_lines, *c.filled]).strip()
        if not c.supported:
            preliminary = NOT_ADDRESSED
        elif not preliminary:
            preliminary = NOTHING_SUPPORTED
        addressed = c.supported and (
            draft.addressed or (c.short is not None and c.short.verdict != "not addressed")
        )
        reason = "not addressed" if not addressed else (stop or "turn limit")
        spent = usage()
        return Report(
            question=inquiry.question,
            short_answer=shown_short_answer(inquiry.question, c.short, bool(c.found)),
            title=draft.title or inquiry.question,
            summary=summary,
            reasoning=reasoning,
            preliminary_answer=preliminary,
            gaps=c.gaps,
            sources=c.sources,
            addressed=addressed,
            metadata=ReportMetadata(
                contract_id=contract_id,
                file_name=file_name,
                turns_used=turns_used,
                max_turns=inquiry.max_turns,
                questions_asked=questions_asked,
                stopped_because=reason,
                confidence=draft.confidence,
                models=spent.models,
                llm_calls=spent.calls,
                prompt_tokens=spent.prompt_tokens,
                completion_tokens=spent.completion_tokens,
                seconds=seconds(),
                removed_citations=c.removed_citations,
                repaired_claims=c.repaired_claims,
                removed_claims=c.removed_claims,
                checks=c.checks,
            ),
        )

    # -- all of them, in order ------------------------------------------------------------------

    def finish(
        self,
        inquiry: Inquiry,
        draft: Draft | None,
        findings: Sequence[Finding],
        session: Sequence[Finding],
        decision: Decision | None,
        **render_options,
    ) -> Report:
        """:data:`PASSES` in order, each once, each in a ``check.<pass>`` span that says what it
        found or removed (counts and kinds; the sentences themselves are content)."""
        with span("check.compose") as passing:
            composition = self.compose(inquiry, draft, findings, session, decision)
            annotate(passing, {"clausewise.sources": len(composition.sources)})
        with span("check.restate"):
            composition = self.restate(composition)
        with span("check.verify") as passing:
            first = self.verify(composition)
            annotate(passing, _failure_counts(first))
        repairing = bool(first) and self.settings.repair and not self.all_composed(composition)
        if repairing:
            with span("check.repair"):
                composition = self.repair(composition, first)
            with span("check.recheck") as passing:
                second = self.recheck(composition)
                annotate(passing, _failure_counts(second))
        else:
            second = first
        with span("check.remove") as passing:
            composition = self.remove(composition, second)
            annotate(
                passing,
                {
                    "clausewise.check.removed_claims": len(composition.removed_claims),
                    "clausewise.check.removed_citations": len(composition.removed_citations),
                    "clausewise.check.repaired_claims": len(composition.repaired_claims),
                },
            )
        with span("check.fill") as passing:
            composition = self.fill(composition)
            annotate(passing, {"clausewise.check.filled_sentences": len(composition.filled)})
        return self.render(composition, **render_options)


def _failure_counts(verification: Verification) -> dict[str, int]:
    """What a check pass failed, by kind: a trace says why text was removed without quoting it."""
    citations = verification.citations
    return {
        "clausewise.check.bad_sources": len(citations.bad_sources),
        "clausewise.check.bad_references": len(citations.bad_references),
        "clausewise.check.bad_quotations": len(citations.bad_quotations),
        "clausewise.check.contradicted": len(verification.contradicted),
        "clausewise.check.unsupported": len(verification.unsupported),
        "clausewise.check.disagreeing": len(verification.disagreeing),
        "clausewise.check.failed_gaps": len(verification.failed_gaps),
    }


def texts_shown(report: Report) -> list[str]:
    """The texts of a report that say something of the contract: its summary, findings and
    preliminary answer, less the fixed notes rendered where the writer's text is gone ("Question
    examined: ...", :data:`NOT_ADDRESSED`, :data:`NOTHING_SUPPORTED`), which are about the report."""
    notes = {NOT_ADDRESSED, NOTHING_SUPPORTED, f"Question examined: {report.question}"}
    return [t for t in (report.summary, *report.reasoning, report.preliminary_answer) if t and t not in notes]


def claims_shown(report: Report) -> list[str]:
    """The sentences of :func:`texts_shown` that assert something (for benchmarks counting what
    the checks let through)."""
    return [claim for text in texts_shown(report) for claim in claims_of(text)]
