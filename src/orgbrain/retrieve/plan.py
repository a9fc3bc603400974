"""Search plans: retrieval described as typed data, with named presets for ablations."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from ..errors import InvalidInput
from ..model import StorageClass
from ..settings import DEFAULT_PLAN
from .fuse import Normalise
from .learned import LinearRanker
from .learned_model import LEARNED

__all__ = [
    "DEFAULT_PLAN",
    "K_MAX",
    "ONE_KIND_FLOOR",
    "PLANS",
    "Fusion",
    "Gate",
    "SearchPlan",
    "Stream",
    "StreamKind",
    "get_plan",
]

K_MAX = 100
"""The most hits one search returns, whatever ``k`` asks: a larger ``k`` is capped here
and the result's ``reason`` says so. The agent tool keeps its own smaller cap (8)."""

StreamKind = Literal["vector", "keyword"]
Fusion = Literal["rrf", "convex"]


@dataclass(frozen=True, slots=True)
class Stream:
    kind: StreamKind
    storage_class: StorageClass
    weight: float = 1.0

    @property
    def name(self) -> str:
        return f"{self.kind}:{self.storage_class}"


def _streams(*kinds: StreamKind) -> tuple[Stream, ...]:
    classes: tuple[StorageClass, ...] = ("file", "section", "note")
    return tuple(Stream(k, c) for k in kinds for c in classes)


@dataclass(frozen=True, slots=True)
class Gate:
    """The membership verdict: speak only if one of the top ``depth`` hits really matches.

    A hit matches when it names every proper name of the query (``query_names``) and
    either its cosine to the query is at least ``min_cosine`` or it holds at least
    ``min_coverage`` of the query's other terms, and, when ``near_best`` is set, its
    cosine is at most ``near_best`` below the best cosine of the first ``depth`` hits
    (the brain holds the thing asked, but of someone else, when the closest hits do not
    name whom the question asks of and the one that does is far behind them); or,
    among the first ``plain_depth`` hits, when it mentions one of the names (if not
    speaking of it: a speaker's "I" and "you") and its cosine is at least
    ``plain_cosine``; or, when the query has two names or more and ``some_name_cosine``
    is set, when it mentions one of them and its cosine is at least ``some_name_cosine``
    (a question about two people is answered by what one says to the other); or when
    the typed graph says it states what the query asks. A hit that only asks never
    matches by its text. Rank fusion scores say how a hit compares with the others, not
    whether any of them is about the question; these signals do.
    """

    depth: int = 3
    min_cosine: float = 0.5
    min_coverage: float = 0.67
    plain_depth: int = 0
    plain_cosine: float = 1.0
    near_best: float | None = None
    some_name_cosine: float | None = None
    across: Gate | None = None
    """The bars for a hit in another language than the question (``HitEvidence.lang``),
    None to hold it to these: a model that maps languages into one space still scores
    a translation lower than a paraphrase (``retrieve/space_gate.py``). Only its cosine
    bars and ``spelled_names`` are read."""
    spelled_names: bool = True
    """Whether a hit must spell the query's proper names; ``across`` may waive it, since a
    note in another language translates the names that are words ("Swiss": "Schweiz")."""


@dataclass(frozen=True, slots=True)
class SearchPlan:
    """Everything that decides what a search returns, and nothing else.

    ``fusion`` is ``rrf`` (ranks only) or ``convex`` (scores normalised per kind by
    ``normalise``, min-max or z-score, the keyword kind weighing ``keyword_share``); both
    score in RRF's units, so ``floor_abs`` means the same under either. ``per_stream`` is
    how deep each stream is read (what convex normalises over); ``candidates``, when set,
    is how many of the fused ids go on to be fetched, boosted and floored, so that deep
    streams do not mean fetching a thousand items. ``neighbour_weight`` > 0 adds that share
    of a hit's best neighbour's score, neighbours being the ``neighbour_edge`` edges of the
    top ``neighbour_depth`` candidates (``FOLLOWED_BY``: one conversation turn to the next).
    ``gate`` is the membership verdict applied after the floors. ``graph_weight`` > 0
    fuses the graph stream (entities named in the query → what states or mentions them,
    ``retrieve.graph``) by rank at that weight; ``route`` lets the read router reweigh the
    streams per query. A superseded item's score is multiplied by ``superseded_factor``
    (and it never ranks above what superseded it) unless the search asks for history.
    """

    name: str
    streams: tuple[Stream, ...] = field(default_factory=lambda: _streams("vector", "keyword"))
    per_stream: int = 50
    keyword_depth: int | None = None
    """How deep the keyword streams are read, when not ``per_stream`` (None: as deep).
    Measured and not used by the default (docs/journal.md, "Issue 17, the keyword depth")."""
    rrf_k: int = 60
    half_life_days: float = 365.0
    freshness_floor: float = 0.25
    k_default: int = 5
    k_max: int = K_MAX
    floor_abs: float = 0.02
    floor_rel: float = 0.6
    body_chars: int = 4000
    embed_chars: int = 2000
    fusion: Fusion = "rrf"
    keyword_share: float = 0.5
    normalise: Normalise = "minmax"
    candidates: int | None = None
    neighbour_weight: float = 0.0
    neighbour_depth: int = 20
    neighbour_edge: str = "FOLLOWED_BY"
    gate: Gate | None = None
    graph_weight: float = 0.0
    route: bool = False
    superseded_factor: float = 0.5
    window_weight: float = 0.0
    """> 0: the query's time window (``retrieve.when``) narrows the fetched candidates to
    those that happened in it (``retrieve.narrow``); when it picks out no more than the
    gate reads, those gain by rank at this weight, as the graph's do."""
    learned: LinearRanker | None = None
    """A learned order for the first ``learned.depth`` candidates (``retrieve.learned``)."""

    def reading(self, limit: int) -> SearchPlan:
        """The plan reading deep enough to fill ``limit`` hits: each stream and the fetched
        candidates at least ``limit`` deep (the ranking is otherwise the same)."""
        if self.per_stream >= limit and (self.candidates is None or self.candidates >= limit):
            if self.keyword_depth is None or self.keyword_depth >= limit:
                return self
        return replace(
            self,
            per_stream=max(self.per_stream, limit),
            keyword_depth=_at_least(self.keyword_depth, limit),
            candidates=_at_least(self.candidates, limit),
        )

    def with_limits(self, *, k_max: int, floors: bool) -> SearchPlan:
        """The same ranking with other output limits (evaluation wants deep, unfloored lists).

        ``floors=False`` drops every "should the brain speak" decision, the score floors
        and the membership gate alike: what is left is the ranking alone, which is what a
        ranking metric measures. Silence is measured with the plan as shipped.
        """
        return replace(
            self,
            k_max=k_max,
            per_stream=max(self.per_stream, k_max),
            keyword_depth=_at_least(self.keyword_depth, k_max),
            candidates=_at_least(self.candidates, k_max),
            floor_abs=self.floor_abs if floors else 0.0,
            floor_rel=self.floor_rel if floors else 0.0,
            gate=self.gate if floors else None,
        )

    def depth(self, kind: StreamKind) -> int:
        """How deep a stream of this kind is read."""
        if kind == "keyword" and self.keyword_depth is not None:
            return self.keyword_depth
        return self.per_stream

    @property
    def uses_vectors(self) -> bool:
        return any(s.kind == "vector" for s in self.streams)

    @property
    def kinds(self) -> int:
        """How many kinds of stream (vector, keyword) the plan fuses."""
        return len({s.kind for s in self.streams})


def _at_least(depth: int | None, limit: int) -> int | None:
    return None if depth is None else max(depth, limit)


# One kind of stream can give a hit at most 1/61 (rank 1, k 60): its floor is half the
# two-kind floor, so that a top hit of the one kind can clear it.
ONE_KIND_FLOOR = 0.01
# One verdict for every kind of data (docs/journal.md, issue 17, "Issue 17, the verdict
# (2026-12-05 session 2)" and "Issue 17: the verdict with organisation questions that
# have no answer"): the point of the trade-off curve, measured on five kinds of dev data
# at once (SciFact train, LoCoMo dev, the facts, LongMemEval, and the organisation
# questions of the living sets asked where their answer is held and where it is not),
# that keeps false silence under 5% on each and loses the least of what the ranking
# found to silence (bench/verdict_curve.py --pick). Its cost: more speech where there is
# no answer than at 0.4, which left 8.8% of the answerable organisation questions silent.
_GATE = Gate(
    depth=5,
    min_cosine=0.35,
    min_coverage=0.5,
    plain_depth=1,
    plain_cosine=0.6,
    near_best=0.25,
    some_name_cosine=0.35,
)
# The gate before issue 17 (docs/journal.md, stop 9): the quiet end of the curve, twice as
# silent on questions without an answer, at three times the false silence.
_STRICT_GATE = Gate(depth=3, min_cosine=0.5, min_coverage=0.67)
_CONVEX = SearchPlan("convex", fusion="convex", keyword_share=0.5, per_stream=100)

_CONVEX_Z = replace(_CONVEX, name="convex-z", normalise="zscore", per_stream=500, candidates=100)

PLANS: dict[str, SearchPlan] = {
    # Plain six-stream RRF: the ablation baseline.
    "hybrid": SearchPlan("hybrid"),
    "bm25": SearchPlan("bm25", streams=_streams("keyword"), floor_abs=ONE_KIND_FLOOR),
    "dense": SearchPlan("dense", streams=_streams("vector"), floor_abs=ONE_KIND_FLOOR),
    # Each later improvement, one plan each, every one adding to the one before.
    "convex": _CONVEX,
    "convex-next": replace(_CONVEX, name="convex-next", neighbour_weight=0.3),
    "tuned": replace(_CONVEX, name="tuned", neighbour_weight=0.3, gate=_GATE),
    # z-score over lists read 500 deep (docs/journal.md, "Deeper lists"); only the best
    # 100 fused ids are fetched, so the depth costs list reads, not item fetches.
    "convex-z": _CONVEX_Z,
    "convex-z-next": replace(_CONVEX_Z, name="convex-z-next", neighbour_weight=0.3),
    "tuned-z-flat": replace(_CONVEX_Z, name="tuned-z-flat", neighbour_weight=0.3, gate=_GATE),
    # The default: the above plus the typed graph (a stream of its own, and the router),
    # and the learned order of its first 50 candidates (retrieve/learned.py; trained on
    # every dev set at once, held out by conversation/claim/question: docs/journal.md, "A
    # learned ranker"). The gate reads the fused order's first hits and decides whether
    # it speaks; when it does, it gives the k hits asked for (no relative floor trims
    # the list: floor_rel 0). No neighbour boost: a turn's neighbours' words are its
    # keys instead (graph/context_keys.py; docs/journal.md, "Issue 17, contextual keys").
    # The query's time window narrows the fetched candidates to those in it, and only a
    # window that picks out a handful credits them, at half a stream's weight
    # (docs/journal.md, "Issue 17, reading time in queries"; until session 13 it credited
    # every note in it, and any note of "this week" answered in a fresh brain).
    "tuned-z": replace(
        _CONVEX_Z,
        name="tuned-z",
        floor_rel=0.0,
        gate=_GATE,
        graph_weight=1.0,
        route=True,
        learned=LEARNED,
        window_weight=0.5,
    ),
}
# The default without its learned stage (the fused order), for comparison.
PLANS["tuned-z-fused"] = replace(PLANS["tuned-z"], name="tuned-z-fused", learned=None)
# The default's ranking with the strict gate and the 60% floor, for a caller that would
# rather say nothing than something beside the point (``--plan tuned-z-strict``).
PLANS["tuned-z-strict"] = replace(
    PLANS["tuned-z"], name="tuned-z-strict", floor_rel=0.6, gate=_STRICT_GATE
)


def get_plan(name: str = DEFAULT_PLAN) -> SearchPlan:
    try:
        return PLANS[name]
    except KeyError:
        raise InvalidInput(
            f"unknown search plan {name!r}; known: {', '.join(sorted(PLANS))}"
        ) from None
