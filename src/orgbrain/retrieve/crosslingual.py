"""A question in one language over notes in another: what the floors owe it."""

from __future__ import annotations

from collections.abc import Sequence

from ..analysis import detect_language
from .candidate import Candidate
from .plan import ONE_KIND_FLOOR

__all__ = ["fused_floor"]


def fused_floor(query_lang: str, scored: Sequence[Candidate], floor_abs: float) -> float:
    """The absolute floor on the best fused score (``verdict.apply_floors``).

    That floor asks a hit to be found by both kinds of stream, keyword and vector (one
    kind alone gives at most 1/61). A keyword stream matches the query's words, so it
    cannot find a note written in another language ("Who signs off engineering
    drawings?" shares no word with "Konstruktionszeichnungen zeichnet Jens Roth ab"):
    when the best hit is in another language than the query, the one kind that could
    find it is held to one kind's floor (``ONE_KIND_FLOOR``), as the vector-only plan
    is. The gate after the floors still decides whether the brain speaks."""
    best = max(scored, key=lambda c: c.fused, default=None)
    if best is None or best.item is None or floor_abs <= ONE_KIND_FLOOR:
        return floor_abs
    if detect_language(best.item.body) == query_lang:
        return floor_abs
    return ONE_KIND_FLOOR
