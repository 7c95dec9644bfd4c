"""Each node of a graph runs in a span of its own (``graph.node <name>``), so a trace shows the
path a question took through the graphs, how long each step took and where one failed."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from langgraph.errors import GraphBubbleUp
from opentelemetry.trace import Status, StatusCode

from clausewise.core.tracing import tracer

T = TypeVar("T")


def traced_node(name: str, node: Callable[..., T]) -> Callable[..., T]:
    """``node`` run inside its span. The wrapper keeps the node's signature, so LangGraph still
    hands it the runtime or config it asks for. LangGraph's control flow (an interrupt that asks
    the user a question) passes through without marking the span failed; any other exception
    is recorded on it."""

    @functools.wraps(node)
    def run(*args: Any, **kwargs: Any) -> T:
        with tracer().start_as_current_span(
            f"graph.node {name}",
            attributes={"clausewise.graph.node": name},
            record_exception=False,
            set_status_on_exception=False,
        ) as current:
            try:
                return node(*args, **kwargs)
            except GraphBubbleUp:
                current.set_attribute("clausewise.graph.interrupted", True)
                raise
            except Exception as error:  # recorded on the span, then raised unchanged
                current.record_exception(error)
                current.set_status(Status(StatusCode.ERROR, type(error).__name__))
                raise

    return run
