"""The decider: a question's short answer, settled before anything is written.

One pipeline, an explicit ordered list of steps, each run once (:meth:`AnswerDecider.decide`):

1. **type** the question once: a yes/no question, a value question, a list or an open question
   (:func:`tools.question_kind.question_kind`);
2. **match** it to a known provision (:mod:`tools.decision.matching`): a CUAD category by its
   names and description, or one of the NDA suite's hypotheses;
3. **decide** with the decider trained for what was matched:

   - a yes/no question about a CUAD category: the provision presence classifier over every
     clause, with its calibrated bands: "yes" above the band (grounds: the deciding clause's
     sentence most relevant to the question, with the text it announces when it is a lead-in),
     "no" below it, "unclear" inside it (the closest clauses shown); with
     ``decision.model_breaks_ties`` the model is asked inside the band, on the same terms as below;
   - an NDA topic: the hypothesis classifier's ruling, on the user's own hypothesis for a "does
     the agreement provide that ...?" question, else on the suite's wording of the topic;
   - a value of a CUAD category (the governing law, the expiry, the renewal term...): read from
     the clauses the presence classifier finds for that category, the value whose sentence best
     answers the question; where the clause states no such value (a condition, a reference), the
     clause's sentence itself is the answer; "not addressed" when no clause is likely to hold it;
   - anything no trained decider covers: a yes/no question goes to the model, whose verdict
     stands only if the sentence it quotes supports it (:meth:`AnswerDecider._by_model`); a value
     question is read by the value reader from the retrieved sentences that answer it.

Every ground is a verified span of the contract. A sentence that instructs an assistant
(:mod:`tools.decision.instructions`) is never a ground.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import KW_ONLY, dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from langchain_core.runnables import Runnable
from opentelemetry import trace
from pydantic import BaseModel, Field

from clausewise.core import tracing
from clausewise.core.backends.structured import invoke_structured
from clausewise.core.config import DecisionSettings
from clausewise.core.domain import Hit, Span
from clausewise.core.errors import ProvisionNotFound, StructuredOutputError
from clausewise.core.prompting import load_prompt
from clausewise.core.results import LABELS, Decision, RouteChoice, Ruling, VerifiedCitation
from indexes.store import ContractIndex
from tools.attribution import SentenceScorer
from tools.citations import QuoteVerifier
from tools.decision.catalogue import KnownProvision
from tools.decision.grounds import with_what_it_leads_to
from tools.decision.instructions import addresses_a_model
from tools.decision.routing import QuestionRouter, Route
from tools.passages import render_passages
from tools.question_kind import QuestionKind, question_kind, value_asked_too
from tools.retrieval.query_plan import default_plan
from tools.retrieval.rerank import Reranker
from tools.review.presence import ClauseScores, PresenceHead
from tools.structure.sentences import sentence_spans
from tools.value_reading import party_reading, qualification, value_readings

if TYPE_CHECKING:
    from agents.checker import HypothesisChecker
    from tools.retrieval.contract_retriever import ContractRetriever

log = logging.getLogger(__name__)

#: The value kind a CUAD category's value is read as, when the question's wording names none.
CATEGORY_VALUE = {
    "Governing Law": "law",
    "Expiration Date": "expiry",
    "Renewal Term": "duration",
    "Notice Period to Terminate Renewal": "notice period",
    "Effective Date": "date",
    "Agreement Date": "date",
    "Warranty Duration": "duration",
    "Parties": "party",
}
#: Longest sentence quoted as the answer where the contract states a condition, not a value.
CONDITION_CHARS = 400


class ModelVerdict(BaseModel):
    """What the model answers for a yes/no question no classifier covers (structured output).
    The quote and the answer sentence come before the verdict, so the verdict follows them."""

    passage: int = Field(default=0, description="Number of the passage that decides the question (0: none).")
    quote: str = Field(default="", description="The deciding sentence, copied exactly from that passage.")
    answer: str = Field(default="", description="One sentence answering the question from that quote.")
    verdict: Literal["yes", "no", "unclear"] = "unclear"


@dataclass(frozen=True)
class Presence:
    """The presence classifier's scores on one contract (``scores``) and the head that made them."""

    head: PresenceHead
    scores: ClauseScores


#: The verdict a hypothesis ruling gives.
_VERDICT_OF_LABEL = {"Entailment": "yes", "Contradiction": "no", "NotMentioned": "not addressed"}


def _route_attributes(route: Route | None) -> dict[str, Any]:
    if route is None:
        return {"clausewise.route.provision": ""}
    return {
        "clausewise.route.provision": route.provision.name,
        "clausewise.route.probability": round(route.confidence, 4),
        "clausewise.route.runner_up": round(route.runner_up, 4),
        "clausewise.route.polarity": route.polarity,
    }


def _decision_attributes(decision: Decision) -> dict[str, Any]:
    """What a trace shows of a decision: never the value's words (contract text), only whether
    one was read."""
    return {
        "clausewise.decision.form": decision.form,
        "clausewise.decision.verdict": decision.verdict,
        "clausewise.decision.value_read": bool(decision.value) and not decision.unclear,
        "clausewise.decision.decided_by": decision.decided_by,
        "clausewise.decision.provision": decision.provision,
        "clausewise.decision.confidence": decision.confidence,
        "clausewise.decision.band": "abstained" if decision.unclear else "decided",
        "clausewise.decision.leaning": decision.leaning,
        "clausewise.decision.leaning_probability": decision.leaning_probability,
        "clausewise.decision.grounds": len(decision.grounds),
    }


@dataclass(eq=False, repr=False)
class AnswerDecider:
    """Decides a question on one contract before any report is written. ``retriever`` finds
    passages (a ContractRetriever); ``ruler`` rules hypotheses (a HypothesisChecker); ``scorer``
    is the NLI classifier the model's verdicts are checked with; ``model`` decides what nothing
    else covers (None: such questions are unclear); ``relevant_at`` is the reranker probability
    at which a sentence is about the question (``retrieval.rerank_threshold``)."""

    settings: DecisionSettings
    index: ContractIndex
    _: KW_ONLY
    router: QuestionRouter
    retriever: ContractRetriever
    reranker: Reranker | None
    presence: Presence | None = None
    ruler: HypothesisChecker | None = None
    scorer: SentenceScorer | None = None
    model: Runnable | None = None
    relevant_at: float = 0.2
    verifier: QuoteVerifier = field(init=False)

    def __post_init__(self) -> None:
        self.verifier = QuoteVerifier(self.index.document.text)

    # -- the pipeline -----------------------------------------------------------------------------

    def decide(self, question: str, provision: str | None = None) -> Decision | None:
        """The decision on ``question`` (None for a list or open question: no short answer),
        traced as a ``decide`` span: the route (provision, probability, runner-up, polarity),
        then the verdict or value, who decided, the confidence and, when unclear, the leaning.
        ``provision`` (a known provision's key, the asker's choice among the options a question
        was offered back with) takes the place of the router's choice of provision."""
        with tracing.span("decide", {"clausewise.contract": self.index.contract_id}) as deciding:
            tracing.record_content(deciding, "clausewise.question", question)
            decision = self._routed(question, deciding, provision)
            if decision is not None:
                tracing.annotate(deciding, _decision_attributes(decision))
        return decision

    def _route(self, question: str, provision: str | None) -> Route | None:
        if provision is None:
            return self.router.route(question)
        route = self.router.route_as(question, provision)
        if route is None:
            raise ProvisionNotFound(
                f"no known provision has the key {provision!r}",
                hint="choose one of the keys the question was offered back with",
            )
        return route

    def _routed(self, question: str, deciding: trace.Span, provision: str | None) -> Decision | None:
        kind = question_kind(question)
        tracing.annotate(deciding, {"clausewise.question.form": kind.form})
        if kind.form in ("list", "free"):
            route = self._route(question, provision) if kind.form == "free" else None
            tracing.annotate(deciding, _route_attributes(route))
            if route is None or route.provision.family != "cuad" or route.provision.answer in ("", "none"):
                return None
            # an open wording may still ask for a known provision's value ("What date is the
            # agreement dated?"): the provision's value kind then types it
            kind = QuestionKind("value", question=kind.question)
        else:
            route = self._route(question, provision)
            tracing.annotate(deciding, _route_attributes(route))
            if route is None and kind.form == "verdict":
                options = self.router.options(question)
                if options:
                    decision = self._by_model(question, ask=self.settings.model_decides)
                    # the model, where it is asked and settles it, answers; else the asker chooses
                    return decision if decision.settled else self._asked_back(decision, options)
        decision = self._decide(question, kind, route)
        log.info(
            "decided %s: %s",
            decision.form,
            decision.verdict or decision.value,
            extra={
                "contract": self.index.contract_id,
                "decided_by": decision.decided_by,
                "provision": decision.provision,
                "confidence": decision.confidence,
            },
        )
        return decision

    def _asked_back(self, unsettled: Decision, options: Sequence[Route]) -> Decision:
        """Rule "ask back": a yes/no question the router could not place, but whose likeliest
        provisions it can name, is answered by none of their deciders: it stays unclear, names the
        reading it would take (the first) and offers each as a choice, with the closest clauses.
        Where the model was asked and left it unclear, its reason stays."""
        choices = [
            RouteChoice(key=o.provision.key, name=o.provision.name, probability=o.confidence) for o in options
        ]
        named = " or ".join(c.name for c in choices)
        asked = not unsettled.deferred
        return unsettled.model_copy(
            update={
                "provision": choices[0].name,
                "options": choices,
                "deferred": False,
                "decided_by": unsettled.decided_by if asked else "none",
                "rationale": f"{unsettled.rationale}; the question may ask about {named}"
                if asked
                else f"the question may ask about {named}; none was decided",
            }
        )

    # -- a known provision, decided without routing (a playbook position names its clause) ----------

    def covers(self, provision: KnownProvision) -> bool:
        """Whether the presence classifier decides ``provision`` on this contract."""
        return self._presence_column(provision) is not None

    def decide_presence(self, question: str, provision: KnownProvision) -> Decision:
        """yes / no / unclear: does the contract hold ``provision`` (a CUAD category the presence
        classifier covers, see :meth:`covers`)? ``question`` picks the ground's sentence."""
        return self._by_presence(question, provision)

    def clauses_holding(self, provision: KnownProvision, at: float) -> list[Span]:
        """The clauses whose own calibrated P(present) (the contract's P were it its best
        clause) is at least ``at``, most probable first: what striking ``provision`` strikes."""
        column = self._presence_column(provision)
        if column is None or self.presence is None:
            return []
        head = self.presence.head
        held = []
        for span, score in self._ranked_clauses(column):
            probability = head.present_probability(column, score)
            if (probability if probability is not None else score) < at:
                break
            held.append(span)
        return held

    def presence_after_edit(self, provision: KnownProvision, clause: Span, words: str) -> str | None:
        """yes / no / unclear: the presence decision for the contract with ``clause`` edited to
        read ``words``, by the same calibrated bands as :meth:`decide_presence` (the other
        clauses' stored scores, the edited clause's words scored afresh); None when no presence
        head covers ``provision``."""
        column = self._presence_column(provision)
        if column is None or self.presence is None:
            return None
        head = self.presence.head
        edited = float(head.probabilities(self.retriever.embedder.embed([words]), [words])[0, column])
        others = [
            score
            for span, score in self._ranked_clauses(column)
            if not (span[0] < clause[1] and clause[0] < span[1])
        ]
        verdict, _, _ = self._presence_verdict(column, max([edited, *others]))
        return verdict

    def hypothesis_after_edit(self, hypothesis: str, clause: str) -> str | None:
        """yes / no / not addressed / unclear: the NLI classifier's ruling on ``hypothesis`` for
        one (edited) clause's words, unclear below the confidence :meth:`decide_hypothesis`
        answers at; None without the classifier."""
        if self.scorer is None:
            return None
        row = self.scorer.probabilities(hypothesis, [clause])[0]
        best = int(row.argmax())
        if float(row[best]) < self.settings.hypothesis_confident_at:
            return "unclear"
        return _VERDICT_OF_LABEL[LABELS[best]]

    def decide_value(self, question: str, provision: KnownProvision, value_kind: str) -> Decision:
        """The value of ``value_kind`` ("law", "duration", ...) the clauses holding ``provision``
        state, read for ``question``; "not addressed" or "unclear" as :meth:`decide` says them."""
        kind = QuestionKind("value", value_kind, question=question)  # type: ignore[arg-type]
        return self._value_from_clauses(question, kind, provision)

    def decide_hypothesis(self, question: str, provision: KnownProvision, hypothesis: str) -> Decision:
        """The hypothesis classifier's ruling on ``hypothesis``: yes (entailed), no (contradicted),
        not addressed, or unclear below its confidence."""
        if self.ruler is None:
            return Decision(
                question=question, form="verdict", verdict="unclear", rationale="no hypothesis classifier"
            )
        return self._by_hypothesis(question, provision, hypothesis)

    def _decide(self, question: str, kind: QuestionKind, route: Route | None) -> Decision:
        provision = route.provision if route else None
        if kind.form == "verdict":
            if provision is not None and self._presence_column(provision) is not None:
                decided = self._by_presence(question, provision)
                if route.polarity == "absent":
                    return self._turned(decided)
                if route.polarity == "unsure":
                    return self._either_way(decided)
                asked = value_asked_too(question)
                if asked is not None and decided.verdict == "yes":
                    return self._with_value(decided, asked, provision)
                return decided
            if provision is not None and provision.family == "nda" and self.ruler is not None:
                # "does the agreement provide that X?": the classifier rules X in the user's own
                # words when X is about what it was trained on (an NDA topic); a suite wording
                # ruled in its place would answer another hypothesis
                if kind.hypothesis:  # the user's own claim is ruled as worded: no turning round
                    return self._by_hypothesis(question, provision, kind.hypothesis)
                decided = self._by_hypothesis(question, provision, provision.hypothesis)
                if route.polarity == "unsure":
                    return self._either_way(decided)
                return self._turned(decided) if route.polarity == "absent" else decided
            return self._by_model(question, ask=self.settings.model_decides)
        if provision is not None and self._presence_column(provision) is not None:
            return self._value_from_clauses(question, kind, provision)
        return self._value_from_retrieval(question, kind)

    # -- grounds ----------------------------------------------------------------------------------

    def _citation(self, span: Span, number: int = 1) -> VerifiedCitation | None:
        text = self.index.document.text
        quote = text[span[0] : span[1]].strip()
        found = self.verifier.verify(quote, hint=span)
        if found is None or not quote:
            return None
        node = self.index.tree.smallest_containing(found.span)
        return VerifiedCitation(
            contract_id=self.index.contract_id,
            node_id=node.id,
            title=node.title,
            pages=self.index.document.pages_for(found.span) or [1],
            span=found.span,
            quote=found.text,
            evidence=number,
            attributed=True,
        )

    def _sentences(self, span: Span) -> list[Span]:
        text = self.index.document.text
        return [s for s in sentence_spans(text, span[0], span[1]) if not addresses_a_model(text[s[0] : s[1]])]

    def _best_sentence(self, question: str, spans: Sequence[Span]) -> tuple[Span, float] | None:
        """The sentence of ``spans`` the reranker finds most relevant to ``question``."""
        sentences = [s for span in spans for s in self._sentences(span)]
        if not sentences:
            return None
        if self.reranker is None:
            return sentences[0], 0.0
        text = self.index.document.text
        scores = self.reranker.score(question, [text[a:b] for a, b in sentences])
        best = max(range(len(sentences)), key=lambda i: float(scores[i]))
        return sentences[best], float(scores[best])

    def _stated(self, sentence: Span) -> Span:
        """The ground quoted for ``sentence``: with the text it announces when it is a lead-in
        (rule "a lead-in is quoted with what it leads to", :mod:`tools.decision.grounds`)."""
        return with_what_it_leads_to(self.index.document.text, sentence, CONDITION_CHARS)

    def _cite(self, spans: Sequence[Span]) -> list[VerifiedCitation]:
        cited = [c for n, span in enumerate(spans, start=1) if (c := self._citation(span, n)) is not None]
        return list({c.span: c for c in cited}.values())

    # -- provisions the presence classifier covers --------------------------------------------------

    def _presence_column(self, provision: KnownProvision) -> int | None:
        if self.presence is None or provision.family != "cuad":
            return None
        return self.presence.head.category_index(provision.name)

    def _ranked_clauses(self, column: int) -> list[tuple[Span, float]]:
        scores = self.presence.scores  # type: ignore[union-attr]
        ranked = scores.above(column, 0.0, len(scores.chunks))
        return [(chunk.span, probability) for chunk, probability in ranked]

    def _presence_verdict(self, column: int, best: float) -> tuple[str, str, float | None]:
        """yes / no / unclear for a contract whose best clause has probability ``best``, why, and
        the calibrated P(present) (None for a head without a calibration, which decides by its
        bands)."""
        assert self.presence is not None
        head = self.presence.head
        probability = head.present_probability(column, best)
        confident = self.settings.presence_confident_at
        if probability is not None and confident > 0:
            why = f"P(present) {probability:.2f}, best clause {best:.2f}; it answers at {confident:.2f}"
            if probability >= confident:
                return "yes", why, probability
            if probability <= 1 - confident:
                return "no", why, probability
            return "unclear", why, probability
        no_below, yes_at = head.band(column)
        why = f"best clause {best:.2f}; yes at {yes_at:.2f}, no below {no_below:.2f}"
        verdict = "yes" if best >= yes_at else "no" if best < no_below else "unclear"
        return verdict, why, probability

    def _by_presence(self, question: str, provision: KnownProvision) -> Decision:
        column = self._presence_column(provision)
        assert column is not None and self.presence is not None
        ranked = self._ranked_clauses(column)
        best = ranked[0][1] if ranked else 0.0
        closest = [span for span, _ in ranked[: self.settings.closest]]
        verdict, why, probability = self._presence_verdict(column, best)
        common = {
            "question": question,
            "form": "verdict",
            "decided_by": "provision classifier",
            "provision": provision.name,
            "confidence": round(probability if probability is not None else best, 4),
        }
        if verdict == "yes":
            sentence = self._best_sentence(question, closest[:1])
            grounds = self._cite([self._stated(sentence[0])] if sentence else closest[:1])
            return Decision(
                **common,
                verdict="yes",
                grounds=grounds,
                rationale=f"the provision classifier finds {provision.name} in this clause ({why})",
            )
        if verdict == "no":
            return Decision(
                **common,
                verdict="no",
                closest=self._cite(closest),
                rationale=f"the provision classifier finds no {provision.name} provision ({why}; the closest "
                "clauses are shown)",
            )
        undecided = f"the provision classifier is not confident either way about {provision.name} ({why})"
        if self.settings.model_breaks_ties and self.model is not None:
            by_model = self._by_model(question)
            if by_model.verdict in ("yes", "no"):
                return by_model.model_copy(
                    update={
                        "provision": provision.name,
                        "confidence": round(best, 4),
                        "rationale": f"{undecided}; {by_model.rationale}",
                    }
                )
            undecided += f"; the model's answer did not stand ({by_model.rationale})"
        leaning = {}
        if probability is not None and probability != 0.5:
            leaning = {
                "leaning": "yes" if probability > 0.5 else "no",
                "leaning_probability": round(max(probability, 1 - probability), 2),
            }
        return Decision(
            **common,
            **leaning,
            verdict="unclear",
            closest=self._cite(closest),
            rationale=f"{undecided}; the closest clauses are shown",
        )

    def _with_value(self, decision: Decision, asked: QuestionKind, provision: KnownProvision) -> Decision:
        """A "yes" to a question that also asks for the provision's value ("Does it renew, and for
        how long?"): the value read from the clauses that hold the provision (rule "a verdict and
        a value"), its sentence cited beside the verdict's ground; the sentence itself, quoted,
        where it states the value as a condition; the verdict alone where neither holds."""
        column = self._presence_column(provision)
        assert column is not None and self.presence is not None
        holding = [span for span, _ in self._ranked_clauses(column)[: self.settings.closest]]
        value_kind = CATEGORY_VALUE.get(provision.name) or asked.value or ""
        # the whole question scores the sentences: its verdict part names the provision ("renew"),
        # its value part only the kind of value ("for how long"), which an initial term also states
        whole = replace(asked, question=decision.question)
        read = self._read_value(decision.question, whole, value_kind, holding)
        if read is not None:
            cited = {c.span for c in decision.grounds}
            grounds = [*decision.grounds, *(g for g in read.grounds if g.span not in cited)]
            return decision.model_copy(
                update={
                    "value": read.value,
                    "value_type": read.value_type,
                    "normalized": read.normalized,
                    "qualification": read.qualification,
                    "grounds": grounds,
                    "rationale": f"{decision.rationale}; the value read from the sentence that states it",
                }
            )
        quote = " ".join(decision.grounds[0].quote.split()) if decision.grounds else ""
        if quote and len(quote) <= CONDITION_CHARS and not value_kind:
            return decision.model_copy(
                update={
                    "value": quote,
                    "value_type": "condition",
                    "rationale": f"{decision.rationale}; the clause states it as a condition, quoted",
                }
            )
        return decision.model_copy(
            update={"rationale": f"{decision.rationale}; no sentence of the clause states the value asked"}
        )

    @staticmethod
    def _either_way(decision: Decision) -> Decision:
        """A decision on a question whose way round the router could not tell ("Can we ...?" of a
        provision that may restrict or permit): no yes or no, but what the contract has, with the
        clause that holds it (rule "say what the contract has when the question's way round is
        unclear")."""
        if decision.verdict not in ("yes", "no", "not addressed"):
            return decision
        found = "present" if decision.verdict == "yes" else "absent"
        return decision.model_copy(
            update={
                "verdict": "unclear",
                "found": found,
                "grounds": [],
                "closest": [*decision.grounds, *decision.closest][:3],
                "rationale": f"{decision.rationale}; which way round the question asks is unclear, so what "
                "the contract has is shown instead of a yes or no",
            }
        )

    @staticmethod
    def _turned(decision: Decision) -> Decision:
        """A presence decision read the other way round, for a question whose "yes" means the
        contract lacks the provision ("Can we assign freely?"): yes and no swap, and so does the
        leaning; the grounds stay (the clause that holds the provision is why the answer is no)."""
        swap = {"yes": "no", "no": "yes"}
        return decision.model_copy(
            update={
                "polarity": "absent",
                "verdict": swap.get(decision.verdict or "", decision.verdict),
                "leaning": swap.get(decision.leaning or "") or None,
                "rationale": f"{decision.rationale}; the question asks the other way round (yes means the "
                f"contract does not provide for {decision.provision})",
            }
        )

    # -- NDA hypotheses ---------------------------------------------------------------------------

    def _by_hypothesis(self, question: str, provision: KnownProvision, hypothesis: str) -> Decision:
        """The hypothesis classifier's ruling on ``hypothesis`` (of ``provision``'s topic)."""
        assert self.ruler is not None
        ruling: Ruling = self.ruler.rule(hypothesis)
        verdict = _VERDICT_OF_LABEL[ruling.label]
        grounds = [c for c in ruling.citations if not addresses_a_model(c.quote)]
        common = {
            "question": question,
            "form": "verdict",
            "decided_by": "hypothesis classifier",
            "provision": provision.name,
            "confidence": ruling.confidence,
        }
        if ruling.confidence < self.settings.hypothesis_confident_at or (
            verdict != "not addressed" and not grounds
        ):
            return Decision(
                **common,
                verdict="unclear",
                closest=grounds or self._closest_hits(question),
                rationale=f"the hypothesis classifier's {ruling.label} ({ruling.confidence:.2f}) is not "
                "confident enough to decide",
            )
        return Decision(
            **common,
            verdict=verdict,
            grounds=grounds,
            rationale=f'ruling on "{hypothesis}": {ruling.rationale}',
        )

    # -- values ---------------------------------------------------------------------------------

    def _value_kind(self, kind: QuestionKind, provision: KnownProvision | None) -> str:
        if kind.value:
            return kind.value
        return CATEGORY_VALUE.get(provision.name, "") if provision else ""

    def _value_from_clauses(self, question: str, kind: QuestionKind, provision: KnownProvision) -> Decision:
        column = self._presence_column(provision)
        assert column is not None and self.presence is not None
        no_below, yes_at = self.presence.head.band(column)
        ranked = self._ranked_clauses(column)
        best = ranked[0][1] if ranked else 0.0
        common = {
            "question": question,
            "form": "value",
            "decided_by": "value reader",
            "provision": provision.name,
            "confidence": round(best, 4),
        }
        if best < no_below:
            return Decision(
                **common,
                verdict="not addressed",
                closest=self._cite([s for s, _ in ranked[: self.settings.closest]]),
                rationale=f"no clause is likely to state the {provision.name.lower()} (best {best:.2f}, "
                f"below {no_below:.2f})",
            )
        holding = [span for span, p in ranked if p >= min(no_below, yes_at)][: self.settings.closest]
        value_kind = self._value_kind(kind, provision)
        decision = self._read_value(question, kind, value_kind, holding)
        if decision is not None:
            return decision.model_copy(update={**common, "decided_by": "value reader"})
        if best < yes_at:
            # inside the band a clause may not hold the provision at all: only a value of the
            # kind asked is read from it, never its sentence quoted as the answer
            return Decision(
                **common,
                verdict="unclear",
                closest=self._cite(holding),
                rationale=f"no clause surely holds the {provision.name.lower()} (best {best:.2f}, under "
                f"{yes_at:.2f}) and the likeliest state no value of the kind asked",
            )
        sentence = self._best_sentence(question, holding[:1])
        if sentence is None:
            return Decision(
                **common, verdict="unclear", rationale="the clause holding the value has no sentence"
            )
        citation = self._cite([self._stated(sentence[0])])
        quote = " ".join(citation[0].quote.split()) if citation else ""
        if not quote or len(quote) > CONDITION_CHARS:
            return Decision(
                **common,
                verdict="unclear",
                closest=self._cite(holding),
                rationale=f"the clause that holds the {provision.name.lower()} states no value the reader "
                "can quote; the clause is shown",
            )
        return Decision(
            **common,
            value=quote,
            value_type="condition",
            grounds=citation,
            rationale=f"the clause holding the {provision.name.lower()} states it as a condition or a "
            "reference, quoted as it stands",
        )

    def _read_value(
        self, question: str, kind: QuestionKind, value_kind: str, spans: Sequence[Span]
    ) -> Decision | None:
        """The value of ``value_kind`` the sentences of ``spans`` state that best answers the
        question, with its sentence as the ground (None when they state none)."""
        text = self.index.document.text
        if value_kind == "party":
            for span in spans:
                parties = party_reading(text, span[0], span[1])
                if parties is not None:
                    names = [name for name, _ in parties.parties]
                    return Decision(
                        question=question,
                        form="value",
                        value=parties.value(),
                        value_type="party",
                        normalized=" and ".join(n.lower() for n in names),
                        grounds=self._cite([parties.span]),
                        rationale="the parties as the agreement names them",
                    )
            return None
        if not value_kind:
            return None
        readings = [
            r
            for r in value_readings(kind.question or question, value_kind, text, spans)
            if not addresses_a_model(r.text)
        ]
        if not readings:
            return None
        reading = readings[0]
        return Decision(
            question=question,
            form="value",
            value=reading.mention.text,
            value_type=value_kind,
            normalized=reading.mention.normalized,
            qualification=qualification(reading),
            grounds=self._cite([reading.span]),
            rationale="read from the sentence that states it",
        )

    def _value_from_retrieval(self, question: str, kind: QuestionKind) -> Decision:
        """A value question no provision covers: the value reader over the sentences retrieval
        flags relevant (the reranker's probability at or above ``retrieval.rerank_threshold``)."""
        # the value's own question (the first part of a compound one), over more passages than the
        # model reads: the sentence stating the value need not rank first
        hits = self._hits(kind.question or question, self.settings.value_passages)
        relevant = [h.span for h in hits if h.relevant]
        common = {"question": question, "form": "value", "decided_by": "value reader"}
        decision = (
            self._read_value(question, kind, self._value_kind(kind, None), relevant) if relevant else None
        )
        if decision is not None:
            return decision.model_copy(update=common)
        return Decision(
            **common,
            verdict="unclear",
            closest=self._cite([h.span for h in hits[: self.settings.closest]]),
            rationale="no retrieved sentence states a value that answers the question",
        )

    # -- what no classifier covers ------------------------------------------------------------------

    def _hits(self, question: str, k: int | None = None) -> list[Hit]:
        terms = [d.term for d in self.index.definitions]
        query = default_plan(question, terms).query(question)
        return self.retriever.search(query, k or self.settings.model_passages, expand=False)

    def _closest_hits(self, question: str) -> list[VerifiedCitation]:
        return self._cite([h.span for h in self._hits(question)[: self.settings.closest]])

    def _by_model(self, question: str, ask: bool = True) -> Decision:
        """The model's verdict over the top passages, kept only when the sentence it quotes is the
        contract's, states terms (not instructions), is relevant to the question, entails the
        model's answer, and no retrieved sentence contradicts that answer. ``ask`` False (the
        model not to be asked): unclear, with the closest passages."""
        hits = self._hits(question)
        common = {"question": question, "form": "verdict", "decided_by": "model"}
        closest = self._cite([h.span for h in hits[: self.settings.closest]])
        if not ask or self.model is None or not hits:
            return Decision(
                **common,
                verdict="unclear",
                deferred=True,
                closest=closest,
                rationale="no trained decider covers this question, and the model was not asked here",
            )
        passages = render_passages(self.index, hits, self.settings.passage_chars, focus=question)
        messages = load_prompt("decide_yes_no").messages(question=question, passages=passages)
        try:
            # asked once, within a time bound: a second attempt or a long wait costs more than
            # the unclear answer it would most likely end in
            said = invoke_structured(
                self.model, messages, ModelVerdict, retries=0, seconds=self.settings.model_seconds
            )
        except StructuredOutputError as error:
            log.warning("the model's verdict was unreadable: %s", error)
            return Decision(
                **common, verdict="unclear", closest=closest, rationale="the model's verdict was unreadable"
            )
        refused = self._unsupported_verdict(question, said, hits)
        if refused:
            return Decision(**common, verdict="unclear", closest=closest, rationale=refused)
        found = self.verifier.verify(said.quote, hint=hits[said.passage - 1].span)
        assert found is not None
        return Decision(
            **common,
            verdict=said.verdict,
            grounds=self._cite([found.span]),
            rationale=f"the model answered from the quoted sentence: {said.answer}",
        )

    def _unsupported_verdict(self, question: str, said: ModelVerdict, hits: Sequence[Hit]) -> str:
        """Why the model's verdict cannot stand ("" when it can)."""
        if said.verdict == "unclear":
            return "the model could not decide from the passages"
        if not 1 <= said.passage <= len(hits) or not said.quote.strip():
            return f"the model answered '{said.verdict}' without quoting a passage"
        found = self.verifier.verify(said.quote, hint=hits[said.passage - 1].span)
        if found is None:
            return f"the model answered '{said.verdict}' quoting words that are not in the contract"
        if addresses_a_model(found.text):
            return (
                f"the model answered '{said.verdict}' from a sentence that instructs an assistant, "
                "which is not a term"
            )
        if self.reranker is not None:
            relevance = float(self.reranker.score(question, [found.text])[0])
            if relevance < self.relevant_at:
                return f"the sentence the model quoted is not about the question (relevance {relevance:.2f})"
        if self.scorer is None:
            return "no classifier can check the model's verdict"
        claim = said.answer.strip() or question
        entailed = float(self.scorer.probabilities(claim, [found.text])[0][0])
        if entailed < self.settings.support_at:
            return f"the quoted sentence does not support the model's answer (entailment {entailed:.2f})"
        text = self.index.document.text
        others = [text[a:b] for h in hits for a, b in self._sentences(h.span) if (a, b) != found.span]
        if others:
            rows = self.scorer.probabilities(claim, others)
            worst = max(range(len(others)), key=lambda i: float(rows[i][1]))
            if float(rows[worst][1]) >= self.settings.support_at:
                against = " ".join(others[worst].split())[:200]
                return f'another sentence contradicts the model\'s answer: "{against}"'
        return ""
