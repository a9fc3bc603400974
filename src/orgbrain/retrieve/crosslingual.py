"""A question in one language over notes in another: what the floors and the gate owe it."""

from __future__ import annotations

from collections.abc import Sequence

from ..analysis import detect_language, sure_language
from .candidate import Candidate
from .plan import ONE_KIND_FLOOR, SearchPlan
from .verdict import Relation

__all__ = ["fused_floor", "relation"]


def relation(query_lang: str, text: str) -> Relation:
    """``text``'s language against the question's: "unsure" where the text has no
    stopword to tell it by (a label: "Urlaubsantrag: Personalportal" reads as English to
    ``detect_language``, which defaults); the gate holds it to the question's own bars."""
    lang = sure_language(text)
    if lang is None:
        return "unsure"
    return "same" if lang == query_lang else "other"


def fused_floor(query_lang: str, scored: Sequence[Candidate], plan: SearchPlan) -> float:
    """The absolute floor on the best fused score (``verdict.apply_floors``).

    That floor asks a hit to be found by both kinds of stream, keyword and vector (one
    kind alone gives at most 1/61). A keyword stream matches the query's words, so it
    cannot find a note written in another language ("Who signs off engineering
    drawings?" shares no word with "Konstruktionszeichnungen zeichnet Jens Roth ab"):
    when the best hit is in another language than the query, the one kind that could
    find it is held to one kind's floor (``ONE_KIND_FLOOR``), as the vector-only plan
    is. The gate after the floors still decides whether the brain speaks. A best hit of
    no telling language (a label) reads as the default language, English."""
    floor_abs = plan.floor_abs
    best = max(scored, key=lambda c: c.fused, default=None)
    if best is None or best.item is None or floor_abs <= ONE_KIND_FLOOR:
        return floor_abs
    if detect_language(best.item.body) == query_lang:
        return floor_abs
    return ONE_KIND_FLOOR
