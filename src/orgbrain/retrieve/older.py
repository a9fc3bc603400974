"""Older answers: two hits of one search that the supersession judge read as answering one
slot, without being sure the newer replaced the older (derivation's ``SAME_SLOT`` edge,
``derive/judged.py``). The reader gets both, the newer first, and the older marked "an
older answer, from <date>" beside the newer it yields to: where the judge is sure, the
older is superseded instead (``succession``), and where it is not, nothing is hidden."""

from __future__ import annotations

from collections.abc import Sequence

from ..context import BrainContext
from ..model import SAME_SLOT, Hit
from .candidate import Candidate
from .succession import just_below

__all__ = ["below_newer", "newer_answers"]


def newer_answers(ctx: BrainContext, kept: Sequence[Candidate]) -> dict[str, tuple[str, float]]:
    """For each of ``kept`` that another of them answers anew: that newer one's id (the
    judge's surest, when several) and the judge's probability."""
    ids = [c.item_id for c in kept]
    if len(ids) < 2:
        return {}
    shown = set(ids)
    around = ctx.edges.edges_around(ctx.workspace, ids, ctx.visibility, types=[SAME_SLOT])
    out: dict[str, tuple[str, float]] = {}
    for old in ids:
        newer = [
            (e.src, _probability(e.props.get("probability")))
            for e in around.get(old, ())
            if e.dst == old and e.src in shown
        ]
        if newer:
            out[old] = max(newer, key=lambda n: n[1])
    return out


def below_newer(hits: Sequence[Hit]) -> tuple[Hit, ...]:
    """Each older answer moved to just below its newer answer when ranked above it (the
    newest answer first; scores kept, only the order changes)."""
    return tuple(just_below(hits, lambda h: h.item.id, _newer_id))


def _newer_id(h: Hit) -> str | None:
    return h.newer_answer.citation.item_id if h.newer_answer else None


def _probability(value: object) -> float:
    return float(value) if isinstance(value, int | float) else 0.0
