"""Every search a reader makes is an event: the loop's measure of how often the brain spoke.

``logged_search`` wraps one search from any surface (Python, CLI, HTTP, MCP, an agent
tool, read injection) in a ``search_memory`` span and, when it ends, appends a ``search``
event: the surface, whether the brain spoke (returned hits, or injected items) or stayed
silent, how many hits, ``k``, the verdict, the tier that decided it and the latency in
whole milliseconds. No query text: the counts are the point, and a query may be private
(injection's ``turn`` events keep theirs, for the reader who asked). A log that cannot be
written is itself logged and the search goes on: reads fail open. ``ctx.search_log`` off
(evaluations) logs nothing.

A search event is a statistic, not an acknowledged write: it is logged with
``durable=False`` (no fsync of its own; it reaches disk with the next durable write or
checkpoint), so a crash of the machine may lose the last searches' events, never a
write. That fsync was ~7 ms of a search's ~65 (docs/benchmarks.md, "Search latency
against txtai").
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from ..context import BrainContext
from ..errors import InvalidInput
from ..model import SearchResult
from ..telemetry import (
    MEMORY_RECORD_COUNT,
    MEMORY_STORE_ID,
    OPERATION_NAME,
    Attr,
    set_attributes,
    span,
)

__all__ = ["INJECT", "SEARCH_EVENT", "SURFACES", "SearchSeen", "check_surface", "logged_search"]

log = logging.getLogger(__name__)

SEARCH_EVENT = "search"
INJECT = "inject"
SURFACES = ("python", "cli", "http", "mcp", "tool", INJECT)
"""The surfaces orgbrain itself tags; ``Brain.via`` takes any short name like these."""

_SURFACE = re.compile(r"[a-z][a-z0-9_-]{0,31}")


def check_surface(surface: object) -> str:
    """``surface`` if it is a short lower-case name (``http``, ``slack-bot``), else
    ``InvalidInput``."""
    if not isinstance(surface, str) or not _SURFACE.fullmatch(surface):
        raise InvalidInput(f"a surface is a short lower-case name like 'http', not {surface!r}")
    return surface


@dataclass(slots=True)
class SearchSeen:
    """What one search came to, filled in by the caller before the block ends."""

    hits: int = 0
    spoke: bool = False
    verdict: str = "none"
    tier: str = ""
    error: str | None = None

    def found(self, result: SearchResult) -> None:
        self.hits, self.spoke, self.verdict = len(result.hits), result.speak, result.verdict
        self.tier = result.tier


@contextmanager
def logged_search(ctx: BrainContext, surface: str, *, k: int) -> Iterator[SearchSeen]:
    """Time the block as one search from ``surface``; log it (a ``search`` event) and end
    its span when the block ends, however it ends."""
    seen = SearchSeen()
    t0 = time.perf_counter()
    attributes: dict[str, Attr] = {
        OPERATION_NAME: "search_memory",
        MEMORY_STORE_ID: ctx.workspace,
        "orgbrain.search.surface": surface,
        "orgbrain.search.k": k,
    }
    with span("search_memory", attributes) as current:
        try:
            yield seen
        except Exception as exc:
            seen.error = type(exc).__name__
            raise
        finally:
            latency_ms = (time.perf_counter() - t0) * 1000.0
            set_attributes(
                current,
                {
                    MEMORY_RECORD_COUNT: seen.hits,
                    "orgbrain.search.spoke": seen.spoke,
                    "orgbrain.search.verdict": seen.verdict,
                },
            )
            if ctx.search_log:
                _log(ctx, surface, k, seen, latency_ms)


def _log(ctx: BrainContext, surface: str, k: int, seen: SearchSeen, latency_ms: float) -> None:
    record: dict[str, object] = {
        "surface": surface,
        "transport": ctx.surface,
        "spoke": seen.spoke,
        "hits": seen.hits,
        "k": k,
        "verdict": seen.verdict,
        "tier": seen.tier,  # which tier decided it (docs/architecture.md, Search)
        # Whole milliseconds: the stats count latencies by value (docs/loop.md).
        "latency_ms": round(latency_ms),
        "actor": ctx.actor,
    }
    if seen.error is not None:
        record["error"] = seen.error
    try:
        ctx.events.log_event(ctx.workspace, SEARCH_EVENT, record, durable=False)
    except Exception:  # reads fail open: a log that fails never fails the search
        log.warning("could not log a search event; the search goes on", exc_info=True)
