"""A learned order for the head of a search's list: features the search already has, one
linear model over them.

The fused score weighs each stream by fixed shares; what else a search knows of a
candidate (how much of the query it holds, whether it names the query's names, whether
it only asks, its neighbours, the graph's word, its run's other candidates) reaches the
order only through hand rules, or not at all. ``features`` turns what the search saw of
its first candidates into one row of numbers each, every one normalised within the list
(a share of the list's best, a rank), so that one model can read lists from corpora of
any size or kind; ``LinearRanker`` scores the rows, and ``reorder`` gives the head's new
order. Nothing here names a data set or a kind of item: the model is trained on the dev
sets of several kinds at once (``bench/learned_rank.py``) and the weights ship as a
constant (``learned_model.py``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

__all__ = ["FEATURES", "LinearRanker", "Signals", "features", "reorder"]

FEATURES: tuple[str, ...] = (
    "position",  # 1 / (1 + place in the fused list)
    "score_share",  # fused score (freshened, boosted) over the list's best
    "vector_rank",  # 10 / (9 + best rank among the vector streams), 0 if none saw it
    "keyword_rank",  # the same for the keyword streams
    "both_kinds",  # both kinds of stream saw it
    "cosine",  # its cosine to the query (0 if no vector stream saw it)
    "cosine_gap",  # its cosine less the list's best
    "keyword_share",  # its best keyword score over the best keyword score of the search
    "coverage",  # share of the query's content terms it holds (HitEvidence.coverage)
    "names",  # it names the query's names and speaks of one (HitEvidence.names)
    "mentions",  # it mentions one of the query's names
    "asks",  # it only asks
    "graph",  # 5 / (4 + its rank in the graph stream), 0 if not there
    "support",  # the graph says it states what the query asks
    "neighbour",  # the neighbour boost it gained, over the list's best score
    "fresh",  # its freshness factor
    "run_best",  # the best other candidate of its run or file, over the list's best
    "run_count",  # how many other head candidates share its run or file (log)
    "body_chars",  # log10(1 + characters of its body) / 4
    "label_chars",  # log10(1 + characters of its label) / 2
)


class Signals(NamedTuple):
    """What a search saw of one candidate, before any normalisation. (A named tuple: a
    search builds 50, and a frozen dataclass's 14 fields cost 2.5 times as much.)

    ``ranks``: the candidate's rank in each stream that listed it (``"vector:note"``,
    ``"keyword:section"``, ``"graph"``); ``keyword``: its best raw keyword score (None if
    no keyword stream listed it); ``coverage``, ``names``, ``mentions``, ``asks``: what
    the gate's evidence says of it (``verdict.HitEvidence``), ``support``: the graph says
    it states what the query asks; ``boost``: what the neighbour boost added to its fused
    score; ``group``: the run or file it belongs to (None: it stands alone)."""

    score: float
    ranks: dict[str, int]
    cosine: float | None
    keyword: float | None
    coverage: float
    names: bool
    mentions: bool
    asks: bool
    support: bool
    boost: float
    fresh: float
    group: str | None
    body_chars: int
    label_chars: int


def _best_rank(ranks: dict[str, int], prefix: str) -> int | None:
    """The best rank among the streams named ``prefix...`` (``"vector:"``)."""
    best = None
    for name, r in ranks.items():
        if name.startswith(prefix) and (best is None or r < best):
            best = r
    return best


def features(head: Sequence[Signals], best_keyword: float | None) -> list[list[float]]:
    """One row of ``FEATURES`` per candidate of ``head`` (in the fused order);
    ``best_keyword``: the best keyword score any keyword stream gave this search."""
    if not head:
        return []
    top = max((s.score for s in head), default=0.0) or 1.0
    best_cos = max((s.cosine for s in head if s.cosine is not None), default=0.0)
    kw_top = best_keyword if best_keyword and best_keyword > 0 else 1.0
    groups: dict[str, list[float]] = {}
    for s in head:
        if s.group is not None:
            groups.setdefault(s.group, []).append(s.score)
    for scores in groups.values():
        scores.sort(reverse=True)
    rows: list[list[float]] = []
    for place, s in enumerate(head):
        vr = _best_rank(s.ranks, "vector:")
        kr = _best_rank(s.ranks, "keyword:")
        gr = s.ranks.get("graph")
        cos = s.cosine if s.cosine is not None else 0.0
        # Its group's scores, best first (its own among them): the best of the others,
        # and how many others there are.
        group = groups[s.group] if s.group is not None else [s.score]
        mates = len(group) - 1
        best_mate = (group[1] if group[0] == s.score else group[0]) if mates else None
        rows.append(
            [
                1.0 / (1.0 + place),
                s.score / top,
                0.0 if vr is None else 10.0 / (9.0 + vr),
                0.0 if kr is None else 10.0 / (9.0 + kr),
                float(vr is not None and kr is not None),
                cos,
                (cos - best_cos) if s.cosine is not None else -1.0,
                0.0 if s.keyword is None else max(0.0, s.keyword) / kw_top,
                s.coverage,
                float(s.names),
                float(s.mentions),
                float(s.asks),
                0.0 if gr is None else 5.0 / (4.0 + gr),
                float(s.support),
                s.boost / top,
                s.fresh,
                0.0 if best_mate is None else best_mate / top,
                math.log1p(mates),
                math.log10(1 + s.body_chars) / 4.0,
                math.log10(1 + s.label_chars) / 2.0,
            ]
        )
    return rows


@dataclass(frozen=True, slots=True)
class LinearRanker:
    """A linear score over ``FEATURES`` (standardised by ``mean`` and ``scale``): higher
    ranks first. ``depth``: how many of the fused list's first candidates it reorders.
    ``every_feature``: the search computes every feature for it (a do-nothing ranker
    that records them, ``bench/learned_rank.py dump``); otherwise only those it weighs
    (``reads``) are computed and the others are left at their empty value."""

    name: str
    weights: tuple[float, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    depth: int = 30
    every_feature: bool = False

    def __post_init__(self) -> None:
        n = len(FEATURES)
        if not (len(self.weights) == len(self.mean) == len(self.scale) == n):
            raise ValueError(f"a ranker needs {n} weights, means and scales")
        if self.depth < 1:
            raise ValueError("depth must be at least 1")

    @property
    def reads(self) -> frozenset[str]:
        """The features the search must compute for it."""
        if self.every_feature:
            return frozenset(FEATURES)
        return frozenset(f for f, w in zip(FEATURES, self.weights, strict=True) if w)

    def score(self, row: Sequence[float]) -> float:
        # Features without weight are skipped: adding their 0.0 changes no sum of finite
        # terms, and most of the 20 have none.
        return _score(_weighted(self), row, len(self.weights))


@lru_cache(maxsize=64)
def _weighted(ranker: LinearRanker) -> tuple[tuple[int, float, float, float], ...]:
    """The ranker's weighted features as (index, weight, mean, scale or 1.0), in order:
    computed once a ranker, not once a row (a search scores 50)."""
    return tuple(
        (i, w, m, s or 1.0)
        for i, (w, m, s) in enumerate(zip(ranker.weights, ranker.mean, ranker.scale, strict=True))
        if w
    )


def _score(
    weighted: tuple[tuple[int, float, float, float], ...], row: Sequence[float], width: int
) -> float:
    if len(row) != width:
        raise ValueError(f"a row needs {width} features")
    return sum(w * (row[i] - m) / s for i, w, m, s in weighted)


def reorder(ranker: LinearRanker, rows: Sequence[Sequence[float]]) -> list[int]:
    """The head's new order, as indices into ``rows``: best score first, ties in the
    fused order."""
    weighted, width = _weighted(ranker), len(ranker.weights)
    scores = [_score(weighted, r, width) for r in rows]
    return sorted(range(len(rows)), key=lambda j: (-scores[j], j))
