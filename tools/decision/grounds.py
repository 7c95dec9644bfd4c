"""Rule "a lead-in is quoted with what it leads to": a ground states something.

A decider grounds its answer in one sentence of the clause that decided it: the sentence the
reranker finds most relevant to the question. Contracts often split a provision into a line that
announces it and the text that states it: a lead-in ending with a colon ("The Agent shall receive
the following compensation for its services hereunder:", "This agreement shall terminate:") or a
heading on a line of its own ("MINIMUM PAYMENT", "WARRANTY COVERAGE INSTALLATION DATE:") with its
items, table or field after it. The tree may file the announcing line as a clause of its own, and
the classifier may score it highest because it names the provision. Quoted alone it states
nothing the answer rests on: a lawyer reading "Yes [1]" with source [1] "MINIMUM PAYMENT" learns
neither that a minimum is owed nor how much.

The rule quotes such a line together with what follows it, up to the end of the next sentence
(bounded, so a table or a run of items is cut at a word): the ground then shows the terms the
line announces, and still holds the words the classifier read. Nothing else about the decision
changes. A line is a lead-in when it ends with a colon, or is a heading: a few words without a
lowercase letter and without a sentence's closing stop. A title is such a heading too; quoting
the sentence after it ("SUPPLY AGREEMENT" then "This Supply Agreement is entered into ...")
keeps the title and costs a line.
"""

from __future__ import annotations

from clausewise.core.domain import Span
from tools.structure.sentences import sentence_spans

#: Most words a heading has; longer capitalised text is a clause written in capitals.
HEADING_WORDS = 8


def is_lead_in(sentence: str) -> bool:
    """Whether ``sentence`` announces text that follows it rather than stating terms itself."""
    words = sentence.split()
    if not words:
        return False
    if sentence.rstrip().endswith(":"):
        return True
    return (
        len(words) <= HEADING_WORDS
        and not any(character.islower() for character in sentence)
        and not sentence.rstrip().endswith((".", ";"))
    )


def with_what_it_leads_to(text: str, span: Span, limit: int) -> Span:
    """``span``, extended to the end of the sentence after it when ``span`` is a lead-in (see the
    module docstring), and never past ``limit`` characters from its start (cut after a word)."""
    start, end = span
    if not is_lead_in(text[start:end]):
        return span
    reach = min(len(text), start + limit)
    following = sentence_spans(text, end, reach)
    if not following:
        return span
    stop = following[0][1]
    if stop >= reach and reach < len(text):
        # the next sentence runs past the limit: cut it after its last whole word
        cut = text.rfind(" ", following[0][0], reach)
        stop = cut if cut > following[0][0] else stop
    return (start, len(text[start:stop].rstrip()) + start)
