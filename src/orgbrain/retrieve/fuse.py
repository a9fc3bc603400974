"""Fusion as pure functions: rank votes (``rrf``), normalised scores (``convex``), and the
neighbour boost that lets adjacent evidence (a conversation's next turn) lift a hit.

``rrf`` trusts no engine's score. ``convex`` does: each kind's scores (BM25, cosine) are
normalised over its own candidates, so a keyword hit far ahead of the rest counts for more
than one that merely ranks first. Both return scores in the same units (a hit ranked first
by every kind scores ``kinds / (k + 1)``), so one set of floors fits both.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from operator import itemgetter
from typing import Literal

__all__ = ["MIN_CROWD", "Normalise", "convex", "neighbour_boost", "rrf"]

ScoredList = Sequence[tuple[str, float]]

MIN_CROWD = 10
"""``convex`` normalises a kind's scores over its rows only when it has at least this many."""
Normalise = Literal["minmax", "zscore"]


def rrf(
    lists: Sequence[Sequence[str]],
    *,
    k: int = 60,
    weights: Sequence[float] | None = None,
) -> dict[str, float]:
    """Fuse ranked id lists; an id's score is the weighted sum of 1/(k+rank), rank from 1.

    Returned in descending score order (ties keep first-seen order).
    """
    if k < 0:
        raise ValueError("k must be >= 0")
    if weights is not None and len(weights) != len(lists):
        raise ValueError("one weight per list")
    scores: dict[str, float] = {}
    for i, ranked in enumerate(lists):
        w = 1.0 if weights is None else weights[i]
        for rank, item_id in enumerate(dict.fromkeys(ranked), start=1):
            scores[item_id] = scores.get(item_id, 0.0) + w / (k + rank)
    return _sorted(scores)


def convex(
    lists: Sequence[ScoredList],
    kinds: Sequence[str],
    shares: Mapping[str, float],
    *,
    k: int = 60,
    weights: Sequence[float] | None = None,
    normalise: Normalise = "minmax",
    min_crowd: int = MIN_CROWD,
) -> dict[str, float]:
    """Fuse scored lists by a weighted sum of per-kind normalised scores.

    ``lists[i]`` holds ``(id, score)`` rows (higher is better) of kind ``kinds[i]``; all
    lists of one kind are normalised together, and an id missing from a kind gets 0 from
    it, as its worst row does. ``minmax`` maps a kind's rows onto 0..1, so its best row
    scores 1. ``zscore`` measures ``score - worst`` in standard deviations of the kind's
    rows instead: a kind whose best row stands far out of its crowd outweighs one whose
    scores are bunched, which min-max (range-scaled) hides; it wants deep lists, whose
    spread is the whole crowd's. An id's score is ``scale * sum(shares[kind] * weight *
    normalised)``, ``scale`` chosen so that an id holding every kind's best row scores
    ``len(set(kinds)) / (k + 1)``, as under ``rrf``. A kind with fewer than
    ``min_crowd`` rows has no crowd to normalise against (two rows would always score 1
    and 0): its rows count by rank instead, ``(k + 1) / (k + rank)``, as under ``rrf``.
    Returned in descending score order (ties keep first-seen order).
    """
    if len(kinds) != len(lists):
        raise ValueError("one kind per list")
    if weights is not None and len(weights) != len(lists):
        raise ValueError("one weight per list")
    if k < 0:
        raise ValueError("k must be >= 0")
    present = list(dict.fromkeys(kinds))
    if sum(shares.get(kind, 0.0) for kind in present) <= 0:
        raise ValueError("the kinds' shares must add up to more than 0")
    values = _kind_values(lists, kinds)
    if not values:
        return {}
    by_rank = {kind for kind, v in values.items() if len(v) < min_crowd}
    # Per kind: (offset, divisor), a row normalising to (s - offset) / divisor, and what
    # the kind's best row normalises to. A kind without rows counts as an average one, so
    # that one kind alone still cannot reach the score of two agreeing (the floors).
    bounds = {kind: _bounds(v, normalise) for kind, v in values.items()}
    best = {kind: 1.0 if kind in by_rank else _best(v, bounds[kind]) for kind, v in values.items()}
    mean_best = sum(best.values()) / len(best)
    top = sum(shares.get(kind, 0.0) * best.get(kind, mean_best) for kind in present)
    scale = len(present) / (k + 1) / top if top > 0 else 0.0
    scores: dict[str, float] = {}
    get = scores.get
    for i, (rows, kind) in enumerate(zip(lists, kinds, strict=True)):
        if not rows:
            continue
        offset, divisor = bounds[kind]
        factor = scale * shares.get(kind, 0.0) * (1.0 if weights is None else weights[i])
        # An id counts once a list, at its first row (the loops differ only in the norm).
        if kind in by_rank:
            ids = dict.fromkeys(item_id for item_id, _ in rows)
            for rank, item_id in enumerate(ids, start=1):
                scores[item_id] = get(item_id, 0.0) + factor * ((k + 1) / (k + rank))
        elif divisor > 0:
            firsts = dict(rows)  # each id's last row, in first-seen order
            if len(firsts) < len(rows):  # an id listed twice counts at its first row
                firsts = {}
                for item_id, s in rows:
                    firsts.setdefault(item_id, s)
            for item_id, s in firsts.items():
                scores[item_id] = get(item_id, 0.0) + factor * ((s - offset) / divisor)
        else:
            for item_id in dict.fromkeys(item_id for item_id, _ in rows):
                scores[item_id] = get(item_id, 0.0) + factor * 1.0
    return _sorted(scores)


def _kind_values(lists: Sequence[ScoredList], kinds: Sequence[str]) -> dict[str, list[float]]:
    """Every score of each kind that has any, all its lists together."""
    out: dict[str, list[float]] = {}
    for rows, kind in zip(lists, kinds, strict=True):
        if rows:
            out.setdefault(kind, []).extend([s for _, s in rows])
    return out


def _bounds(values: Sequence[float], normalise: Normalise) -> tuple[float, float]:
    lo = min(values)
    if normalise == "minmax":
        return lo, max(values) - lo
    mu = sum(values) / len(values)
    return lo, math.sqrt(sum([(v - mu) ** 2 for v in values]) / len(values))


def _best(values: Sequence[float], bounds: tuple[float, float]) -> float:
    offset, divisor = bounds
    return (max(values) - offset) / divisor if divisor > 0 else 1.0


def neighbour_boost(
    scores: Mapping[str, float], pairs: Iterable[tuple[str, str]], weight: float
) -> dict[str, float]:
    """Add ``weight`` times its best neighbour's score to each id that has a scored one.

    ``pairs`` are undirected adjacencies (a turn and the next one); only pairs with both
    ends in ``scores`` count, and boosts are computed from the scores as given, so the
    order in which pairs arrive changes nothing. Returned in descending score order.
    """
    if weight < 0:
        raise ValueError("weight must be >= 0")
    best: dict[str, float] = {}
    for a, b in pairs:
        if a == b or a not in scores or b not in scores:
            continue
        best[a] = max(best.get(a, 0.0), scores[b])
        best[b] = max(best.get(b, 0.0), scores[a])
    return _sorted({i: s + weight * best.get(i, 0.0) for i, s in scores.items()})


def _sorted(scores: Mapping[str, float]) -> dict[str, float]:
    return dict(sorted(scores.items(), key=itemgetter(1), reverse=True))
