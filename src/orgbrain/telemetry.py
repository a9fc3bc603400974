"""Spans through the OpenTelemetry API: what the brain does, for whoever collects traces.

orgbrain depends on ``opentelemetry-api`` only. With no SDK installed, or an SDK with no
tracer provider set, every span is a no-op (a few microseconds); an application that
installs ``opentelemetry-sdk`` and sets a provider gets them, exported wherever it says.
Nothing here reads the environment, opens a connection or picks an exporter.

Names and attributes follow the OpenTelemetry GenAI semantic conventions where they fit
(the memory spans, in development): a search is a ``search_memory`` span, indexing a file
an ``upsert_memory`` span, with ``gen_ai.operation.name``, ``gen_ai.memory.store.id``
(the workspace), ``gen_ai.memory.record.id`` and ``gen_ai.memory.record.count``. What
the conventions do not name (the surface, the verdict, the gate's decision, a review) is
under ``orgbrain.*``. No span carries content: no query text, no body (the conventions
make those opt-in, and a brain holds private scopes). docs/loop.md lists every span.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind

__all__ = [
    "ERROR_TYPE",
    "MEMORY_RECORD_COUNT",
    "MEMORY_RECORD_ID",
    "MEMORY_STORE_ID",
    "OPERATION_NAME",
    "TRACER_NAME",
    "Attr",
    "Span",
    "set_attributes",
    "span",
]

TRACER_NAME = "orgbrain"

# The GenAI semantic conventions' names (attributes registry, gen_ai.* and error.*).
OPERATION_NAME = "gen_ai.operation.name"
MEMORY_STORE_ID = "gen_ai.memory.store.id"
MEMORY_RECORD_ID = "gen_ai.memory.record.id"
MEMORY_RECORD_COUNT = "gen_ai.memory.record.count"
ERROR_TYPE = "error.type"

Attr = str | bool | int | float | None
"""An attribute's value; None is left out (OpenTelemetry takes no null)."""


def _clean(attributes: Mapping[str, Attr] | None) -> dict[str, str | bool | int | float]:
    return {k: v for k, v in (attributes or {}).items() if v is not None}


@contextmanager
def span(
    name: str,
    attributes: Mapping[str, Attr] | None = None,
    *,
    kind: SpanKind = SpanKind.INTERNAL,
) -> Iterator[Span]:
    """A span named ``name`` around the block, current inside it (so nested spans are its
    children). An exception leaving the block is recorded on it, with ``error.type`` and
    an error status, and goes on."""
    tracer = trace.get_tracer(TRACER_NAME)
    with tracer.start_as_current_span(
        name, kind=kind, attributes=_clean(attributes), record_exception=False
    ) as current:
        try:
            yield current
        except BaseException as exc:
            if current.is_recording():
                current.set_attribute(ERROR_TYPE, type(exc).__qualname__)
                current.record_exception(exc)
            raise


def set_attributes(current: Span, attributes: Mapping[str, Attr]) -> None:
    """Set what is known once the work is done (a count, a decision); None is skipped."""
    if current.is_recording():
        current.set_attributes(_clean(attributes))
