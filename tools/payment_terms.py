"""The contract's payment terms, gathered from its own sentences and its payment article (rule
"the payment terms").

"What are the payment terms?" asks what is paid, by whom, when and how, which a contract states
in its payment article and its subclauses and often again elsewhere (a per-unit price in the
customer's covenants, the place of payment in the general provisions). An answer built from the
passages most similar to the question reads the words "payment" and "period" wherever they sit,
a redacted schedule's row labels among them (issue 70: "The payment period is 3 months, with a
minimum payment period of 4 months, ..."). So the question is planned from the text: in document
order, the first :data:`SENTENCES` sentences that state a term of payment
(:func:`states_a_payment_term`): a payment, fee, price or invoice with what makes it a term (a
party that pays, an amount, a share, a time or a place), or either inside an article whose title
names payment ("2.0 Payment", "1.2. Development Fees"). Fees a court awards (attorneys' fees, damages)
are remedies, not payment terms.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from clausewise.core.domain import ClauseTree, Span
from tools.question_kind import asks_for_an_account
from tools.structure.sentences import sentences_within

#: Sentences shown at most. On the open-question bank's tune half the payment gold of a contract
#: lies in 1 to 3 clauses of the first half of the payment article.
SENTENCES = 8
#: Longest sentence taken (a longer "sentence" is a run the splitter could not cut).
SENTENCE_CHARS = 1200

_ASKS = re.compile(
    r"\b(?:pa(?:y|id|ys|yments?|yable)|fees?|prices?|pricing|invoic\w*|compensation|royalt\w*|"
    r"how\s+much|cost)\b",
    re.I,
)
_PAYMENT = re.compile(
    r"\b(?:pa(?:y|id|ys|yments?|yable)|fees?|prices?|pricing|invoic\w*|compensat\w*|royalt\w*|"
    r"remunerat\w*|net\s+(?:cash|\d+))\b",
    re.I,
)
#: An amount or a share ("US $23,000 per month", "50%", "$4.50 per unit").
_AMOUNT = re.compile(
    r"[$€£]|\b(?:US\s*\$|USD|EUR|GBP|AUS|dollars?|per\s+(?:cent|unit|month|year|annum|hour)|percent)\b|\d\s*%"
)
#: What else makes a sentence on payment a term: a time ("within thirty (30) days", "monthly",
#: "net", "upon delivery"), a party that pays, or how and where payment is made.
_TERM = re.compile(
    r"\b(?:within|no\s+later\s+than)\s+(?:\w+\s+)?\(?\d+\)?\s+(?:\w+\s+)?days?\b|"
    r"\b(?:monthly|quarterly|annually|net\s+\d+|net\s+cash|in\s+advance|in\s+arrears|upon\s+(?:receipt|delivery|"
    r"signature|placement|completion))\b|"
    r"\b(?:shall|will|must|agrees?\s+to)\s+(?:promptly\s+)?(?:pay|compensate|reimburse|invoice)\b|"
    r"\b(?:shall|will|must)\s+be\s+(?:made|paid|payable|invoiced|remitted)\b",
    re.I,
)
#: Rule "a remedy is no payment term": fees and sums a breach or a dispute makes due, and a
#: default ("fails to pay its debts as they become due" is a ground to terminate).
_REMEDY = re.compile(
    r"\b(?:attorneys?['’]?\s+fees|legal\s+fees|court\s+costs|costs\s+of\s+(?:collection|enforcement)|damages|"
    r"indemnif\w*|penalt\w*|prevailing\s+party|bankrupt\w*|insolven\w*|debts)\b",
    re.I,
)
#: A section title naming payment ("Payment", "Fees", "Prices", "Compensation", "Royalties").
_PAYMENT_TITLE = re.compile(
    r"\b(?:payments?|fees?|prices?|pricing|compensation|royalt\w*|remuneration|consideration|invoic\w*)\b",
    re.I,
)


def asks_payment_terms(question: str) -> bool:
    """Whether ``question`` asks for the payment terms ("What are the payment terms?", "How much is
    paid, and when?", "What does this contract say about fees and payment?"), not yes or no on
    one of them."""
    return bool(_ASKS.search(question)) and (
        asks_for_an_account(question) or question.lower().lstrip().startswith("how much")
    )


def states_a_payment_term(sentence: str, in_a_payment_article: bool) -> bool:
    """Whether ``sentence`` states a term of payment: on payment and with what makes that a term
    (an amount, a time, a payer, how it is made); inside a payment article, on payment or with an
    amount ("1,000 to 5,000 Units - $4.50 per unit" under the title "Price per Unit"); never a
    remedy."""
    if _REMEDY.search(sentence):
        return False
    on_payment, amount = bool(_PAYMENT.search(sentence)), bool(_AMOUNT.search(sentence))
    if in_a_payment_article:
        return on_payment or amount
    return on_payment and (amount or bool(_TERM.search(sentence)))


def payment_articles(tree: ClauseTree) -> list[Span]:
    """The spans of the clause tree's sections whose titles name payment."""
    return [node.span for node in tree.walk() if node.title and _PAYMENT_TITLE.search(node.title)]


def payment_terms(
    text: str, units: Sequence[Span] = (), articles: Sequence[Span] = (), limit: int = SENTENCES
) -> list[Span]:
    """The first ``limit`` sentences of ``text`` that state a payment term, in document order;
    sentences are read within ``units`` (the clause tree's own texts) when given, and those inside
    one of ``articles`` (:func:`payment_articles`) need only be on payment."""
    found: list[Span] = []
    for start, end in sentences_within(text, units):
        inside = any(a <= start and end <= b for a, b in articles)
        if end - start <= SENTENCE_CHARS and states_a_payment_term(text[start:end], inside):
            found.append((start, end))
            if len(found) == limit:
                break
    return found
