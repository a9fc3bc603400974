"""Supersession in a search's ranking: a superseded candidate yields its place to what
superseded it, sits just below it, and lends it its support at the gate."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from ..model import ItemSketch
from .candidate import Candidate
from .evidence import Memo, hit_evidence
from .graph import TimeFrame
from .plan import SearchPlan
from .query import Query
from .verdict import membership
from .when import Window

__all__ = ["below_successors", "heirs_support", "just_below", "superseded_yield"]

T = TypeVar("T")


def superseded_yield(
    scored: list[Candidate],
    successors: dict[str, ItemSketch],
    frame: TimeFrame,
    plan: SearchPlan,
    kind: str | None,
) -> list[Candidate]:
    """A superseded candidate yields its place to what superseded it: the successor's
    vote is at least the old one's (it answers what the old one answered), and the old
    one keeps ``superseded_factor`` of its score. Returns the successors that were not
    candidates yet, to be scored and added."""
    by_id = {c.item_id: c for c in scored}
    new: list[Candidate] = []
    for c in scored:
        assert c.item is not None
        successor = successors.get(c.item.superseded_by or "")
        if successor is not None and frame.mode == "history":
            c.superseded_by = successor  # marked, but left in its place
            continue
        if successor is None or not frame.supersedes(successor):
            continue
        c.superseded_by = successor
        c.factor = plan.superseded_factor
        c.score *= c.factor
        heir = by_id.get(successor.id)
        if heir is None:
            if not successor.indexed or (kind is not None and successor.kind != kind):
                continue
            heir = Candidate(successor.id, c.fused, {"supersedes": 1}, successor)
            by_id[successor.id] = heir
            new.append(heir)
        elif c.fused > heir.fused:
            heir.fused = c.fused
            heir.score = heir.fused * heir.fresh * heir.factor
    return new


def below_successors(scored: list[Candidate]) -> list[Candidate]:
    """Move each superseded candidate to just below its successor when the successor
    is a candidate ranked under it (scores are kept; only the order changes)."""
    return just_below(
        scored, lambda c: c.item_id, lambda c: c.superseded_by.id if c.superseded_by else None
    )


def just_below(
    ranked: Sequence[T], ident: Callable[[T], str], above: Callable[[T], str | None]
) -> list[T]:
    """Each of ``ranked`` moved to just below the one ``above`` names, when that one is
    ranked under it; the rest keep their places."""
    out = list(ranked)
    for x in ranked:
        anchor = above(x)
        if anchor is None:
            continue
        at = out.index(x)
        after = next((j for j, o in enumerate(out) if ident(o) == anchor), -1)
        if after > at:
            out.insert(after, out.pop(at))
    return out


def heirs_support(
    query: Query,
    cosines: dict[str, float],
    window: Window | None,
    below: list[Candidate],
    shown: list[ItemSketch],
    plan: SearchPlan,
    memo: Memo | None = None,
) -> dict[str, str]:
    """A superseded hit that its demotion pushed out of the gate's view still answers the
    question its successor now answers ("two approving reviews before merge", then "we're
    dropping to a single approving review"): the successor, when shown, speaks for it
    when the gate would have let the older hit through (``cosines``, ``window``: what
    the search's streams found of the query; ``memo``: its evidence read so far)."""
    if plan.gate is None:
        return {}
    ids = {i.id for i in shown}
    older = [c for c in below if c.item and c.superseded_by and c.superseded_by.id in ids]
    if not older:
        return {}
    sketches = [c.item for c in older if c.item]
    evidence = hit_evidence(query, sketches, cosines, window=window, memo=memo)
    out: dict[str, str] = {}
    for c, e in zip(older, evidence, strict=True):
        heir = c.superseded_by.id if c.superseded_by else ""
        said = membership([e], plan.gate)
        if said.speak and heir not in out:
            out[heir] = "supersedes a hit that " + re.sub(r"^\w+: hit \d+ ", "", said.reason)
    return out
