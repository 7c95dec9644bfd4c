"""Headings as a ranking: the clauses whose own title names what a question asks about.

"What exceptions apply?" on a contract whose Section 3 is titled EXCEPTIONS should find Section 3,
yet its text says "do not apply to information that ..." and never "exception": BM25 and the
embedding rank the sub-clauses, not the section the drafter named for the question. A short
research question (a part of a compound question, a follow-up) names a topic much as a heading
does, so this ranking joins the fusion for such questions (``retrieval.headings``).
"""

from __future__ import annotations

import re

from clausewise.core.domain import ClauseTree

_WORD = re.compile(r"[A-Za-z][A-Za-z-]{2,}")
#: Words too common in questions or headings to say what a clause is about.
_GENERIC = frozenset(
    """
    what which when where whom whose does apply applies applied shall must will would could should
    there their them they this that these those with from into upon under about have been being
    agreement agreements contract party parties section sections clause clauses article provision
    provisions term terms other each such than then also only same any all general miscellaneous
    """.split()
)


_SUFFIXES = ("ations", "ation", "ated", "ates", "ate", "ity", "ions", "ion", "ies", "ing", "es", "ed", "s")


def stem(word: str) -> str:
    """A crude stem that lets "exceptions" meet "EXCEPTION" and "terminates" meet "termination"."""
    word = word.lower().strip("-")
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


#: Questions that name their topic by what they ask, not by the word a drafter puts in the
#: heading: "how long must ... be kept confidential?" is answered under TERM AND SURVIVAL.
_TOPICS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = (
    (
        re.compile(r"\bhow\s+long\b|\bduration\b|\buntil\s+when\b|\bsurviv|\bexpir", re.I),
        ("term", "survival", "duration", "expiry", "expiration"),
    ),
)


def _terms(text: str) -> set[str]:
    return {stem(w) for w in _WORD.findall(text) if w.lower() not in _GENERIC}


def _topics(question: str) -> set[str]:
    """The heading words of the topics ``question`` asks about without naming them."""
    return {stem(word) for pattern, words in _TOPICS if pattern.search(question) for word in words}


def heading_ranking(tree: ClauseTree, question: str, limit: int = 20) -> list[str]:
    """Ids of the nodes whose title shares a term with ``question`` (or names a topic it asks
    about: "how long ...?" meets TERM AND SURVIVAL): most shared terms first,
    then the larger share of the title, then the higher node, then document order."""
    asked, topics = _terms(question), _topics(question)
    if not asked and not topics:
        return []
    scored = []
    for node in tree.nodes.values():
        if not node.title or node.id == tree.root_id:
            continue
        title = _terms(node.title)
        every_word = {stem(w) for w in _WORD.findall(node.title)}
        shared = len(asked & title) + len(topics & every_word - asked)
        if shared:
            scored.append((-shared, -shared / max(len(every_word), 1), node.depth, node.start, node.id))
    return [entry[-1] for entry in sorted(scored)[:limit]]
