"""Fusion as pure functions: rank votes (``rrf``), normalised scores (``convex``), and the
neighbour boost that lets adjacent evidence (a conversation's next turn) lift a hit.

``rrf`` trusts no engine's score. ``convex`` does: each kind's scores (BM25, cosine) are
min-max normalised over its own candidates, so a keyword hit far ahead of the rest counts
for more than one that merely ranks first. Both return scores in the same units (a hit
ranked first by every kind scores ``kinds / (k + 1)``), so one set of floors fits both.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

__all__ = ["convex", "neighbour_boost", "rrf"]

ScoredList = Sequence[tuple[str, float]]


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
) -> dict[str, float]:
    """Fuse scored lists by a weighted sum of per-kind min-max normalised scores.

    ``lists[i]`` holds ``(id, score)`` rows (higher is better) of kind ``kinds[i]``; all
    lists of one kind are normalised together, so the best row of a kind scores 1 and its
    worst 0, and an id missing from a kind gets 0 from it. An id's score is
    ``scale * sum(shares[kind] * weight * normalised)``, with ``scale`` chosen so that an
    id ranked first by every kind scores ``len(set(kinds)) / (k + 1)``, as under ``rrf``.
    Returned in descending score order (ties keep first-seen order).
    """
    if len(kinds) != len(lists):
        raise ValueError("one kind per list")
    if weights is not None and len(weights) != len(lists):
        raise ValueError("one weight per list")
    if k < 0:
        raise ValueError("k must be >= 0")
    present = list(dict.fromkeys(kinds))
    total = sum(shares.get(kind, 0.0) for kind in present)
    if total <= 0:
        raise ValueError("the kinds' shares must add up to more than 0")
    scale = len(present) / (k + 1) / total
    bounds: dict[str, tuple[float, float]] = {}
    for kind in present:
        values = [s for rows, kd in zip(lists, kinds, strict=True) if kd == kind for _, s in rows]
        if values:
            bounds[kind] = (min(values), max(values))
    scores: dict[str, float] = {}
    for i, (rows, kind) in enumerate(zip(lists, kinds, strict=True)):
        if not rows:
            continue
        lo, hi = bounds[kind]
        factor = scale * shares.get(kind, 0.0) * (1.0 if weights is None else weights[i])
        seen: set[str] = set()
        for item_id, s in rows:
            if item_id in seen:
                continue
            seen.add(item_id)
            norm = (s - lo) / (hi - lo) if hi > lo else 1.0
            scores[item_id] = scores.get(item_id, 0.0) + factor * norm
    return _sorted(scores)


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
    return dict(sorted(scores.items(), key=lambda kv: -kv[1]))
