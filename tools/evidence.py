"""Retrieved spans turned into evidence a user sees: the contract's own words at the span, checked
against the contract text, with the clause that holds them and their pages."""

from __future__ import annotations

import logging

from clausewise.core.domain import EvidenceSpan, Span
from indexes.store import ContractIndex
from tools.citations import QuoteVerifier

log = logging.getLogger(__name__)


def evidence_span(
    index: ContractIndex, verifier: QuoteVerifier, span: Span, node_id: str
) -> EvidenceSpan | None:
    """The verified evidence at ``span`` (surrounding whitespace trimmed), or None when its text
    does not verify, which never happens for spans of the index and is refused if it does."""
    quote = index.document.text[span[0] : span[1]].strip()
    found = verifier.verify(quote, hint=span)
    if found is None:
        log.warning(
            "evidence at %s does not verify and is not shown", span, extra={"contract": index.contract_id}
        )
        return None
    node = index.tree.node(node_id)
    return EvidenceSpan(
        node_id=node.id,
        title=node.title,
        pages=index.document.pages_for(found.span),
        span=found.span,
        quote=found.text,
    )
