"""Traces: OpenTelemetry spans of what the system did, for a reader asking *why did it say this*.

Library code uses only the OpenTelemetry API, through the helpers here: :func:`span` around a
unit of work (a retrieval, a decision, a check pass; the graphs wrap their nodes the same way,
:mod:`graphs.traced`), :func:`record_content` for the text of a question or a prompt. With no tracer
provider installed (the default) every span is OpenTelemetry's non-recording span and costs
next to nothing. An entry point (the CLI, ``clausewise serve``, a worker) turns tracing on with
:func:`install` when ``tracing.enabled`` is set: spans are batched and exported over OTLP/HTTP to
the collector at ``tracing.endpoint`` in a background thread.

Contract text, questions and prompts are content: they enter a span only through
:func:`record_content`, which reads the :class:`ContentPolicy` of the work in hand (a context
variable the entry point sets with :func:`content_policy`). By default nothing is captured;
with ``tracing.capture_content`` the text is kept with party names, e-mail addresses, phone and
account numbers replaced by ``[party]``, ``[email]``, ``[phone]``, ``[account]``.

Attribute names follow OpenTelemetry's semantic conventions where one exists (``http.*``,
``gen_ai.*``) and are ``clausewise.*`` otherwise.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, TypeVar

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.propagate import extract, inject

from clausewise.core.version import clausewise_version

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.sampling import Sampler

    from clausewise.core.config import TracingSettings

#: The instrumentation scope of every Clausewise span.
SCOPE = "clausewise"

AttributeValue = str | bool | int | float | Sequence[str] | Sequence[int] | Sequence[float]
T = TypeVar("T")


def tracer() -> trace.Tracer:
    """The tracer of the installed provider (a no-op one when none is installed)."""
    return trace.get_tracer(SCOPE, clausewise_version())


def _attributes(values: Mapping[str, Any] | None) -> dict[str, AttributeValue]:
    """``values`` without the unset ones (OpenTelemetry refuses None)."""
    if not values:
        return {}
    kept: dict[str, AttributeValue] = {}
    for key, value in values.items():
        if value is None:
            continue
        kept[key] = list(value) if isinstance(value, tuple) else value
    return kept


@contextmanager
def span(
    name: str, attributes: Mapping[str, Any] | None = None, *, kind: trace.SpanKind = trace.SpanKind.INTERNAL
) -> Iterator[trace.Span]:
    """A span named ``name``, current for the ``with`` block; an exception escaping the block is
    recorded on it and marks it as an error."""
    with tracer().start_as_current_span(name, attributes=_attributes(attributes), kind=kind) as current:
        yield current


def annotate(target: trace.Span, attributes: Mapping[str, Any]) -> None:
    """Set ``attributes`` (unset ones skipped) on ``target`` when it records."""
    if target.is_recording():
        target.set_attributes(_attributes(attributes))


# --- content ---------------------------------------------------------------------------------

_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b")
#: A number an account word labels ("account number 20-45-11 73920154", "IBAN GB29 NWBK ..."):
#: the label in any case, the value in capitals and digits, so it stops at the next word.
_LABELLED_ACCOUNT = re.compile(
    r"\b((?i:account|acct\.?|a/c|iban|routing|sort code|swift|bic))((?i:\s+(?:no\.?|number|#|code)))?[\s:#.]*"
    r"([A-Z0-9](?:[A-Z0-9]|[ -](?=[A-Z0-9])){3,40})"
)
#: A run of digits and the separators phone and account numbers are written with, holding at
#: least nine digits (dates, section numbers and sums written with commas hold fewer or use commas).
_LONG_NUMBER = re.compile(r"(?<![\w,.])\+?\(?\d[\d\s().-]{7,}\d(?![\w,])")
#: Words of a company's name too common to mark the company on their own.
_GENERIC_NAME_WORDS = frozenset(
    "the a an and of inc inc. corp corp. corporation company co co. ltd ltd. limited llc l.l.c. lp llp plc "
    "gmbh ag sa s.a. bv n.v. holdings group international".split()
)


def _digits(text: str) -> int:
    return sum(ch.isdigit() for ch in text)


@lru_cache(maxsize=64)
def _party_patterns(parties: tuple[str, ...]) -> list[re.Pattern[str]]:
    """Each party's full name and its first distinctive word ("Acme" of "Acme Widgets, Inc."),
    longest first, as whole words; compiled once per list of parties (a span's clause ids are
    redacted one by one)."""
    names: set[str] = set()
    for party in parties:
        name = " ".join(party.split()).strip(" ,.")
        if len(name) < 3:
            continue
        names.add(name)
        first = name.split()[0].strip(",.")
        if len(first) >= 4 and first.lower() not in _GENERIC_NAME_WORDS:
            names.add(first)
    return [re.compile(rf"(?<!\w){re.escape(n)}(?!\w)", re.I) for n in sorted(names, key=len, reverse=True)]


def redact(text: str, parties: Sequence[str] = ()) -> str:
    """``text`` with party names, e-mail addresses, account and phone numbers replaced."""
    text = _EMAIL.sub("[email]", text)
    text = _LABELLED_ACCOUNT.sub(lambda m: f"{m.group(1)}{m.group(2) or ''} [account]", text)
    text = _IBAN.sub("[account]", text)
    text = _LONG_NUMBER.sub(lambda m: "[phone]" if _digits(m.group(0)) >= 9 else m.group(0), text)
    for pattern in _party_patterns(tuple(parties)):
        text = pattern.sub("[party]", text)
    return text


@dataclass(frozen=True)
class ContentPolicy:
    """Whether the work in hand may put text in its spans, and the party names to redact."""

    capture: bool = False
    parties: tuple[str, ...] = ()

    def shown(self, text: str) -> str | None:
        """``text`` as a span may hold it (redacted), or None when content is not captured."""
        return redact(text, self.parties) if self.capture else None

    def identifiers(self, ids: Sequence[str]) -> list[str]:
        """Clause ids as a span holds them, captured or not: an id made from a heading may name a
        party ("Signatures/Acme Inc"), which is redacted."""
        return [redact(i, self.parties) for i in ids]


_POLICY: ContextVar[ContentPolicy | None] = ContextVar("clausewise_trace_content", default=None)
_NOTHING_CAPTURED = ContentPolicy()


@contextmanager
def content_policy(policy: ContentPolicy) -> Iterator[None]:
    """``policy`` for the work done inside the block (and the threads it copies its context to)."""
    token = _POLICY.set(policy)
    try:
        yield
    finally:
        _POLICY.reset(token)


def record_content(target: trace.Span, key: str, text: str) -> None:
    """Put ``text`` on ``target`` as ``key`` if the current policy captures content (redacted)."""
    if not target.is_recording():
        return
    shown = (_POLICY.get() or _NOTHING_CAPTURED).shown(text)
    if shown is not None:
        target.set_attribute(key, shown)


def record_identifiers(target: trace.Span, key: str, ids: Sequence[str]) -> None:
    """Put clause ``ids`` on ``target`` as ``key``, party names redacted
    (:meth:`ContentPolicy.identifiers`)."""
    if target.is_recording():
        target.set_attribute(key, (_POLICY.get() or _NOTHING_CAPTURED).identifiers(ids))


# --- across a queue and a generator -------------------------------------------------------------


def current_traceparent() -> dict[str, str]:
    """The W3C trace context of the current span (empty when nothing records): what a queued
    job carries so that the work done for it joins its request's trace."""
    carrier: dict[str, str] = {}
    if trace.get_current_span().is_recording():
        inject(carrier)
    return carrier


def context_of(carrier: Mapping[str, str] | None) -> otel_context.Context | None:
    """The trace context a :func:`current_traceparent` carrier names (None for an empty one)."""
    return extract(dict(carrier)) if carrier else None


def step_within(items: Iterator[T], parent: trace.Span, policy: ContentPolicy) -> Iterator[T]:
    """``items`` (a lazy stream of work, such as a graph's events) advanced with ``parent`` as the
    current span and ``policy`` as the content policy, which are not current while the consumer
    handles an item: a generator that stayed inside a span across its ``yield`` would leak it into
    its consumer's code, and could not leave it from another thread."""
    while True:
        with trace.use_span(parent, end_on_exit=False), content_policy(policy):
            try:
                item = next(items)
            except StopIteration:
                return
        yield item


# --- installing (entry points only) ---------------------------------------------------------------


def install(settings: TracingSettings, sampler: Sampler | None = None) -> TracerProvider | None:
    """Export spans as ``settings`` say (None, and nothing installed, when tracing is off). The
    caller shuts the provider down when it exits, which sends the spans still batched.
    ``sampler`` chooses the spans recorded (all by default; a benchmark switches them off and on)."""
    if not settings.enabled:
        return None
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = Resource.create(
        {"service.name": settings.service_name, "service.version": clausewise_version()}
    )
    provider = TracerProvider(resource=resource, sampler=sampler)
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=settings.endpoint)))
    trace.set_tracer_provider(provider)
    return provider
