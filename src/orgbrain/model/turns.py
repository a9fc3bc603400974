"""Read injection: what one agent turn gets from the brain."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

__all__ = [
    "ContextItem",
    "Decision",
    "Provenance",
    "TurnContext",
]

Decision = Literal["injected", "nothing", "failed"]
Provenance = Literal["anchor", "search"]


@dataclass(frozen=True, slots=True)
class ContextItem:
    """One injected item as the model sees it: where it came from and what was kept."""

    id: str
    label: str
    kind: str
    storage_class: str
    scope: str
    origin: Provenance
    score: float | None
    citation: str
    body: str
    truncated: bool


@dataclass(frozen=True, slots=True)
class TurnContext:
    """What one turn gets: the block to prepend (empty when the brain stays quiet)."""

    text: str
    items: tuple[ContextItem, ...]
    tokens: int
    decision: Decision
    reason: str
    """Why, with the search's numbers (for the turn log and ``--json``)."""
    top_score: float = 0.0
    scores: tuple[float, ...] = ()
    dropped_anchors: tuple[str, ...] = ()
    latency_ms: float = 0.0
    event_id: int | None = None
    budget: int = 0
    error: str | None = field(default=None, repr=False)
    why: str = ""
    """Why, in words a reader understands (``SearchResult.why``), with no score."""
