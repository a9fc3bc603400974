"""Presenting a ranked search: the kept hits read in full and cited, each with what it
replaced and what replaced it (``belief``), and the verdict turned to ``conflict`` when
the best answers disagree. Ranking (``search``) decides what to give; this decorates it."""

from __future__ import annotations

import time
from dataclasses import dataclass

from ..context import BrainContext
from ..model import SearchResult, Verdict
from .belief import belief_of, cite_all, disagreeing
from .candidate import Candidate
from .graph import TimeFrame
from .grounds import Grounds, plain_reason, tier_of
from .older import below_newer
from .plan import SearchPlan
from .when import Window

__all__ = ["Ranked", "present"]


@dataclass(frozen=True, slots=True)
class Ranked:
    """What a search's ranking gives its presenting step.

    ``kept``: the hits to give, best first; ``verdict``, ``reason`` and ``grounds``: its
    decision on them; ``plan``: the plan as the router weighed it; ``rerank``: what the
    reranker said, on the ``noted`` hits it judged; ``entities``, ``route``, ``window``:
    what the search read of the query.
    """

    query: str
    kept: list[Candidate]
    verdict: Verdict
    reason: str
    grounds: Grounds
    plan: SearchPlan
    rerank: str
    noted: frozenset[str]
    top_score: float
    entities: tuple[str, ...]
    route: str
    window: Window | None


def present(
    ctx: BrainContext,
    ranked: Ranked,
    frame: TimeFrame,
    timings: dict[str, float],
    started: float,
) -> SearchResult:
    """``ranked`` as the reader sees it in ``frame`` (``timings``: the search's so far, to
    which this adds its own and the total since ``started``)."""
    t = time.perf_counter()
    belief = belief_of(ctx, ranked.kept, frame)
    timings["statements"] = _ms(t)
    plan = ranked.plan
    hits = cite_all(ranked.kept, belief, plan, ranked.rerank, ranked.noted)
    if frame.mode != "history":  # history reads every version where it stood
        hits = below_newer(hits)
    verdict, reason = ranked.verdict, ranked.reason
    if disagreeing(hits):
        verdict, reason = "conflict", f"{reason}; the best answers disagree"
    timings["total"] = _ms(started)
    return SearchResult(
        query=ranked.query,
        hits=hits,
        verdict=verdict,
        reason=reason,
        why=plain_reason(ranked.grounds, verdict),
        tier=tier_of(ranked.grounds.ground),
        top_score=ranked.top_score,
        plan=plan.name,
        timings_ms=timings,
        mode=frame.mode,
        as_of=frame.at,
        entities=ranked.entities,
        route=ranked.route,
        window="" if ranked.window is None else str(ranked.window),
    )


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000.0, 3)
