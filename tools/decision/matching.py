"""Which known provision a question asks about.

A yes/no question about a provision ("Is there a non-compete?") can be decided by a classifier
trained for that provision, and a question asking for a value ("Which law governs?") can be
answered from the clause that holds it, but only once the question is tied to the provision.
The known provisions are CUAD's 41 categories (``clausewise/core/suites/cuad.yaml``: name,
aliases, description and question of each) and the NDA suite's 17 hypotheses
(``clausewise/core/suites/nda.yaml``).

The question is compared with each provision's texts by the embedder's cosine similarity (the
best of the provision's texts counts). A match needs:

- **similarity** of at least ``match_at`` (a setting, chosen on the tune half of the question
  bank against questions about provisions outside the catalogue);
- **a distinctive word in common** (rule ``a distinctive word in common``): the question and the
  provision's texts share a word that is not generic contract vocabulary ("agreement", "party",
  "clause"...), compared by its first letters ("irrevocably" / "irrevocable"). Embeddings rate
  any question about "the agreement" or "the parties" close to the categories about the
  agreement's parties, name and date ("Are the parties independent contractors?" is 0.72 from
  Parties); a shared word keeps such questions out;
- **the same qualifiers** (rule ``qualifiers must match``): a question that narrows the
  provision with a negation ("Can either party terminate *without notice*?", "Can a party
  assign *without consent*?") asks something the provision's classifier does not decide
  (termination for convenience usually needs notice; an anti-assignment clause is what makes
  consent necessary). Each negated word of the question must be negated in the provision's own
  texts too, else the question is not matched and is decided another way.

Candidates within ``near`` of the most similar one are tried in order (rule ``near ties go to
the provision named``): "What is the effective date?" is as close to Agreement Date as to
Effective Date, and only the second shares its name's words with the question; the first
candidate that passes both rules is the match. Nothing further down is tried: a weak candidate
that happens to share a word is a guess.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from clausewise.core.backends.embeddings import Embedder

Family = Literal["cuad", "nda"]


@dataclass(frozen=True)
class KnownProvision:
    """A provision a trained decider covers: a CUAD category (``family`` "cuad", ``name`` the
    category) or an NDA hypothesis ("nda", ``hypothesis`` its text)."""

    key: str
    family: Family
    name: str
    texts: tuple[str, ...]
    hypothesis: str = ""
    answer: str = "none"  # what value the provision has (date, duration, law, parties, name, none)


@dataclass(frozen=True)
class Match:
    provision: KnownProvision
    similarity: float
    runner_up: float


#: Words that negate what follows them in a question or a provision's text.
_NEGATOR = re.compile(r"\b(?:without|not|no|never|cannot|nor|non)\b|n't\b", re.IGNORECASE)
_WORD = re.compile(r"[a-z]+")
#: Words skipped when looking for what a negation negates ("not *to* be *able to* assign").
_FILLER = frozenset(
    "to be a an the any its their his her of for it able have has had been by in on at or and".split()
)
#: How many words after a negator the negated word may come in a provision's text ("not to
#: challenge or contest").
NEGATION_REACH = 4


#: Contract vocabulary that names no provision by itself.
GENERIC = frozenset(
    """agreement agreements contract contracts party parties clause clauses provision provisions
    document section sections term terms other each either there this that these those which what
    when where does shall must will would could should have there their them they than then with
    from into under upon such some also only same been being about after before between right
    rights hereunder herein thereof states stated says include includes including contracting
    the and for any are may can its has not all one who how why use yes its our you per out own""".split()
)
#: Letters of a word compared for the shared-word rule ("irrevocab" = "irrevocably", "irrevocable").
PREFIX = 6


def _stem(word: str) -> str:
    return word.lower().rstrip("s")


def distinctive_words(text: str) -> set[str]:
    """The words of ``text`` of three letters or more ("law", "fee") that are not :data:`GENERIC`,
    cut to :data:`PREFIX` letters."""
    return {w[:PREFIX] for w in _WORD.findall(text.lower()) if len(w) >= 3 and w not in GENERIC}


def shares_a_word(question: str, provision: KnownProvision) -> bool:
    """Rule "a distinctive word in common" (see the module docstring)."""
    return bool(distinctive_words(question) & set().union(*(distinctive_words(t) for t in provision.texts)))


def negated_words(text: str) -> set[str]:
    """The first content word after each negator of ``text`` ("without notice" -> notice)."""
    found = set()
    for negator in _NEGATOR.finditer(text):
        for word in _WORD.findall(text[negator.end() :].lower())[:6]:
            if word not in _FILLER:
                found.add(_stem(word))
                break
    return found


def _negated_within(text: str, reach: int = NEGATION_REACH) -> set[str]:
    """Every content word within ``reach`` words after a negator of ``text``."""
    found = set()
    for negator in _NEGATOR.finditer(text):
        words = _WORD.findall(text[negator.end() :].lower())[:reach]
        found |= {_stem(w) for w in words if w not in _FILLER}
    return found


def unmatched_qualifiers(question: str, provision: KnownProvision) -> set[str]:
    """The words ``question`` negates that ``provision``'s texts never negate (rule "qualifiers
    must match"; see the module docstring)."""
    negated_there = set().union(*(_negated_within(t) for t in provision.texts)) if provision.texts else set()
    return negated_words(question) - negated_there


class ProvisionMatcher:
    """Ties questions to known provisions by embedding similarity (vectors of the provisions'
    texts computed once, on first use)."""

    def __init__(
        self, provisions: Sequence[KnownProvision], embedder: Embedder, match_at: float, near: float = 0.03
    ) -> None:
        self.provisions = list(provisions)
        self.embedder = embedder
        self.match_at = match_at
        self.near = near
        self._owner: list[int] = []
        self._vectors: np.ndarray | None = None
        self._lock = threading.Lock()

    def _profile(self) -> tuple[list[int], np.ndarray]:
        with self._lock:
            if self._vectors is None:
                owner, texts = [], []
                for number, provision in enumerate(self.provisions):
                    for text in provision.texts:
                        owner.append(number)
                        texts.append(text)
                self._owner = owner
                self._vectors = self.embedder.embed(texts).astype(np.float32)
            return self._owner, self._vectors

    def similarities(
        self, question: str, family: Family | None = None, answer: bool = False
    ) -> list[tuple[KnownProvision, float]]:
        """Every provision (of ``family``; with ``answer``, only those that have a value) with the
        best similarity of its texts to ``question``, most similar first."""
        owner, vectors = self._profile()
        query = self.embedder.embed_queries([question])[0].astype(np.float32)
        scores = vectors @ query
        best: dict[int, float] = {}
        for number, score in zip(owner, scores.tolist(), strict=True):
            best[number] = max(best.get(number, -1.0), score)
        ranked = sorted(best.items(), key=lambda item: -item[1])
        return [
            (self.provisions[n], s)
            for n, s in ranked
            if (family is None or self.provisions[n].family == family)
            and (not answer or self.provisions[n].answer not in ("none", ""))
        ]

    def match(
        self, question: str, family: Family | None = None, answer: bool = False, qualifiers: bool = True
    ) -> Match | None:
        """The provision ``question`` asks about, or None when none is similar enough or the
        question's qualifiers do not match the best one's (``qualifiers`` False: the caller decides
        on the question's own words, so its qualifiers need not match)."""
        ranked = self.similarities(question, family, answer)
        if not ranked or ranked[0][1] < self.match_at:
            return None
        top = ranked[0][1]
        near = [(p, s) for p, s in ranked if s >= max(top - self.near, self.match_at)]
        named = [(p, s) for p, s in near if _names_in(p, question)]
        for provision, similarity in [*named, *(c for c in near if c not in named)]:
            if shares_a_word(question, provision) and not (
                qualifiers and unmatched_qualifiers(question, provision)
            ):
                others = [s for p, s in ranked if p is not provision]
                return Match(provision, round(similarity, 4), round(max(others, default=0.0), 4))
        return None


def _names_in(provision: KnownProvision, question: str) -> bool:
    """Whether every distinctive word of the provision's name is in ``question``."""
    name = distinctive_words(provision.name)
    return bool(name) and name <= distinctive_words(question)
