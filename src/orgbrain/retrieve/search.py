"""One search: read the query once (``Query``), run the plan's streams, fuse, freshen,
floor; then ``present`` cites what it kept, with what each hit replaced."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime

from ..context import BrainContext
from ..model import ItemSketch, SearchResult, Verdict
from ..ports import QueryEmbedder, ScoredId, Vector
from .candidate import Candidate, fold_files_into_sections, stream_ranks
from .crosslingual import fused_floor
from .evidence import Memo, hit_evidence
from .freshness import age_days, freshness
from .fuse import convex, neighbour_boost, rrf
from .graph import CURRENT, GraphMatch, TimeFrame, graph_stream, route
from .grounds import Grounds, grounds_of
from .learned import LinearRanker, features, reorder
from .narrow import narrow
from .plan import SearchPlan, Stream
from .present import Ranked, present
from .query import Query
from .rerank import DEPTH, PASSAGE_CHARS, BrainOrder, Judged, judge
from .signals import head_signals
from .space_gate import in_space
from .succession import below_successors, heirs_support, superseded_yield
from .topics import freshen_by_topic
from .verdict import HitEvidence, Membership, apply_floors
from .verdict_llm import decide
from .when import Window

__all__ = ["Searcher", "Trace"]

NEIGHBOURS = 16
"""The most ``neighbour_edge`` edges read per candidate (a turn has two)."""


@dataclass(frozen=True, slots=True)
class Trace:
    """What a search saw on the way to its verdict, for evaluations and logs.

    ``floored``: the score floors alone said nothing; ``evidence``: the gate's view of the
    first ranked hits (before the floors cut any, and in the fused order when a learned
    ranker reorders them), whether or not the plan has a gate;
    ``head``: when the plan has a learned ranker, each candidate it read, in the fused
    order, with its features (``retrieve.learned.FEATURES``); ``read``: the ids of the
    hits ``evidence`` is of, in its order.
    """

    floored: bool
    evidence: tuple[HitEvidence, ...]
    head: tuple[tuple[str, tuple[float, ...]], ...] = ()
    read: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class _Streams:
    rows: list[list[ScoredId]]
    cosines: dict[str, float]
    graph: GraphMatch
    plan: SearchPlan
    """The plan as the router weighed it for this query."""
    route: str
    window: Window | None = None
    """The query's time (``Query.window``), as narrowed once the candidates are known."""
    evidence: Memo = field(default_factory=dict)
    """What ``hit_evidence`` has read so far in this search."""


@dataclass(frozen=True, slots=True)
class _Decision:
    keep: int
    verdict: Verdict
    reason: str
    trace: Trace
    grounds: Grounds


class Searcher:
    """Searches one context's workspace as its reader sees it, in named stages:
    streams -> candidates -> score -> decide, then ``present.present`` cites."""

    def __init__(self, ctx: BrainContext) -> None:
        self.ctx = ctx
        # The embedder's cheaper path for one query, when it has one (``QueryEmbedder``;
        # an isinstance of a protocol costs ~10 µs, so once here, not once a search).
        embedder = ctx.embedder
        self._query_embedder = embedder if isinstance(embedder, QueryEmbedder) else None

    def search(
        self,
        query: str,
        plan: SearchPlan,
        *,
        k: int | None = None,
        kind: str | None = None,
        frame: TimeFrame = CURRENT,
    ) -> SearchResult:
        return self.search_traced(query, plan, k=k, kind=kind, frame=frame)[0]

    def search_traced(
        self,
        query: str,
        plan: SearchPlan,
        *,
        k: int | None = None,
        kind: str | None = None,
        evidence_depth: int | None = None,
        frame: TimeFrame = CURRENT,
    ) -> tuple[SearchResult, Trace]:
        """``search``, and the evidence for the first ``evidence_depth`` hits (default:
        what the plan's gate reads)."""
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        limit = max(1, min(k or plan.k_default, plan.k_max))
        plan = in_space(plan.reading(limit), self.ctx.embedder.name)  # its cosines' bars
        asked = Query(query, self._now(frame), self._embedding(plan) if plan.uses_vectors else None)
        ranked, trace = self._rank(asked, plan, limit, kind, evidence_depth, frame, timings)
        reason = ranked.reason
        if k is not None and k > plan.k_max:
            reason = f"{reason}; k {k} capped at {plan.k_max}, the most a search returns"
        if ranked.rerank.startswith("skipped"):
            reason = f"{reason}; reranker {ranked.rerank}"
        ranked = replace(ranked, reason=reason)
        return present(self.ctx, ranked, frame, timings, t0), trace

    def _rank(
        self,
        query: Query,
        plan: SearchPlan,
        limit: int,
        kind: str | None,
        evidence_depth: int | None,
        frame: TimeFrame,
        timings: dict[str, float],
    ) -> tuple[Ranked, Trace]:
        """The hits to give, best first, and the verdict on them, before any is read in
        full: streams -> candidates -> score -> (learned) -> rerank -> decide."""
        found = self._streams(query, plan, timings, frame)
        plan = found.plan
        t = time.perf_counter()
        candidates, window = self._candidates(query, found, plan)
        found = replace(found, window=window)  # as narrowed: the gate reads it so
        scored = self._score(candidates, plan, kind, frame, query)
        timings["fuse"] = _ms(t)
        head: tuple[tuple[str, tuple[float, ...]], ...] = ()
        # The verdict reads the fused order's first hits, which its gate was calibrated
        # on (docs/journal.md, "A learned ranker"); the learned order is what it gives.
        heard = scored
        if plan.learned is not None and scored:
            t = time.perf_counter()
            scored, head = self._learned(query, found, scored, plan.learned, frame)
            timings["learned"] = _ms(t)
        t = time.perf_counter()
        scored, judged, noted = self._rerank(query, scored, frame)
        timings["rerank"] = _ms(t)
        if judged.order is not None:
            heard = scored  # a reranker's order is what the verdict reads (seed 004)
        depth = (
            evidence_depth if evidence_depth is not None else plan.gate.depth if plan.gate else 0
        )
        decision = self._decide(query, found, heard, plan, limit, depth, timings)
        trace = decision.trace if not head else replace(decision.trace, head=head)
        ranked = Ranked(
            query=query.text,
            kept=scored[: decision.keep],
            verdict=decision.verdict,
            reason=decision.reason,
            grounds=decision.grounds,
            plan=plan,
            rerank=judged.note,
            noted=noted,
            top_score=scored[0].score if scored else 0.0,
            entities=tuple(e.label for e in found.graph.entities),
            route=found.route,
            window=found.window,
        )
        return ranked, trace

    # -- stages -------------------------------------------------------------------------

    def _streams(
        self, query: Query, plan: SearchPlan, timings: dict[str, float], frame: TimeFrame
    ) -> _Streams:
        """The graph first (it tells the router what the query is about), then embed the
        query once and run each of the plan's streams."""
        graph = GraphMatch((), (), None)
        why = ""
        if plan.graph_weight > 0:
            t = time.perf_counter()
            graph = graph_stream(self.ctx, query, frame)
            timings["graph"] = _ms(t)
            if plan.route:
                r = route(query, graph.entities, plan.keyword_share)
                weight = plan.graph_weight * r.graph_weight
                plan = replace(plan, keyword_share=r.keyword_share, graph_weight=weight)
                why = r.reason
        t0 = time.perf_counter()
        terms, window, vector = query.searched, query.window, query.vector
        timings["embed"] = _ms(t0)
        rows: list[list[ScoredId]] = []
        cosines: dict[str, float] = {}
        for stream in plan.streams:
            t = time.perf_counter()
            found = self._run_stream(stream, terms, vector, plan)
            timings[stream.name] = _ms(t)
            rows.append(found)
            if stream.kind == "vector":
                get = cosines.get
                for item_id, score in found:  # each id's best: max(score, seen), inlined
                    seen = get(item_id, -1.0)
                    cosines[item_id] = seen if seen > score else score
        return _Streams(rows, cosines, graph, plan, why, window)

    def _candidates(
        self, query: Query, found: _Streams, plan: SearchPlan
    ) -> tuple[list[Candidate], Window | None]:
        """Fuse the streams into one vote per item, load the items, fold files into their
        sections, keep those in the query's time (``narrow``) and credit neighbours; and
        the window as narrowed."""
        fused = self._fuse(plan, found.rows)
        graph = found.graph.ranked if plan.graph_weight > 0 else ()
        if graph:
            # By rank, in the fusion's units: the graph's first item gains what one
            # stream's best row gives (times the weight).
            for r, item_id in enumerate(graph, start=1):
                fused[item_id] = fused.get(item_id, 0.0) + plan.graph_weight / (plan.rrf_k + r)
            fused = dict(sorted(fused.items(), key=lambda kv: -kv[1]))
        if plan.candidates is not None:
            fused = dict(list(fused.items())[: plan.candidates])
        ranks = stream_ranks(plan, found.rows, graph, fused)
        items = self.ctx.get_sketches(list(fused))
        fused = fold_files_into_sections(fused, items)
        window = found.window
        if plan.window_weight > 0 and window is not None:
            depth = plan.gate.depth if plan.gate else plan.k_default
            fused, window = narrow(fused, items, query, depth, plan.window_weight, plan.rrf_k)
        before = fused
        if plan.neighbour_weight > 0 and fused:
            fused = neighbour_boost(fused, self._neighbours(fused, plan), plan.neighbour_weight)
        return [
            Candidate(
                item_id, f, ranks.get(item_id, {}), items.get(item_id), boost=f - before[item_id]
            )
            for item_id, f in fused.items()
        ], window

    def _score(
        self,
        candidates: list[Candidate],
        plan: SearchPlan,
        kind: str | None,
        frame: TimeFrame,
        query: Query,
    ) -> list[Candidate]:
        """Fresher is better: each visible, answerable candidate's vote times its
        freshness at the query's time against its own topic (``topics.freshen_by_topic``,
        which reads the query's proper names), best first; in the frame's time, a
        superseded item below its successor."""
        now = query.now

        successors = self.ctx.get_sketches(
            sorted({c.item.superseded_by for c in candidates if c.item and c.item.superseded_by})
        )
        scored: list[Candidate] = []
        for c in candidates:
            # Second check, in code: nothing invisible, unindexed or tombstoned leaves.
            if c.item is None or not c.item.indexed:
                continue
            if kind is not None and c.item.kind != kind:
                continue
            if not frame.exists(c.item):
                continue
            c.fresh = self._freshness(c.item, now, plan)
            c.score = c.fused * c.fresh
            scored.append(c)
        for heir in superseded_yield(scored, successors, frame, plan, kind):
            heir.fresh = self._freshness(heir.item, now, plan)  # type: ignore[arg-type]
            heir.score = heir.fused * heir.fresh
            scored.append(heir)
        freshen_by_topic(self.ctx, scored, query.names)
        scored.sort(key=lambda c: -c.score)  # stable: equal scores keep the fused order
        return scored if frame.mode == "history" else below_successors(scored)

    def _decide(
        self,
        query: Query,
        found: _Streams,
        scored: list[Candidate],
        plan: SearchPlan,
        limit: int,
        depth: int,
        timings: dict[str, float],
    ) -> _Decision:
        """How many hits to give: the score floors, then the plan's gate (if any)."""
        floored = apply_floors(
            [c.score for c in scored],
            best_fused=max((c.fused for c in scored), default=0.0),
            floor_abs=fused_floor(query.lang, scored, plan),
            floor_rel=plan.floor_rel,
            k=limit,
        )
        shown = [c.item for c in scored[:depth] if c.item is not None]
        support = dict(found.graph.support)
        for c in scored:
            # What superseded a hit the graph supports answers what it answered, though it
            # may not name the subject ("we moved from jenkins to github actions").
            said = support.get(c.item_id)
            if c.superseded_by is not None and said and c.superseded_by.id not in support:
                support[c.superseded_by.id] = f"supersedes a hit that {said}"
        memo, window = found.evidence, found.window
        support |= heirs_support(query, found.cosines, window, scored[depth:], shown, plan, memo)
        seen = hit_evidence(query, shown, found.cosines, window=window, memo=memo)
        evidence = [replace(e, graph=support.get(i.id)) for e, i in zip(seen, shown, strict=True)]
        keep, verdict, reason = floored.keep, floored.verdict, floored.reason
        gated: Membership | None = None
        if plan.gate is not None and keep > 0:
            t = time.perf_counter()
            gated = decide(self.ctx, query.text, shown, evidence, plan.gate)
            timings["gate"] = _ms(t)
            if gated.speak:
                reason = f"{reason}; {gated.reason}"
            else:
                keep, verdict, reason = 0, "none", gated.reason
        trace = Trace(floored.keep == 0, tuple(evidence), read=tuple(i.id for i in shown))
        read = [(c.item, c.superseded_by) for c in scored[: max(depth, 1)] if c.item]
        grounds = grounds_of(
            query, read, evidence, gated, spoke=keep > 0, gate=plan.gate, window=found.window
        )
        return _Decision(keep, verdict, reason, trace, grounds)

    # -- parts --------------------------------------------------------------------------

    def _now(self, frame: TimeFrame) -> datetime:
        """The search's reference time: the frame's date for an ``as_of`` search, else
        the context's clock."""
        return frame.at if frame.mode == "as_of" and frame.at else self.ctx.clock()

    @staticmethod
    def _fuse(plan: SearchPlan, rows: list[list[ScoredId]]) -> dict[str, float]:
        weights = [s.weight for s in plan.streams]
        if plan.fusion == "convex":
            shares = {"keyword": plan.keyword_share, "vector": 1.0 - plan.keyword_share}
            kinds = [s.kind for s in plan.streams]
            return convex(
                rows, kinds, shares, k=plan.rrf_k, weights=weights, normalise=plan.normalise
            )
        return rrf([[i for i, _ in r] for r in rows], k=plan.rrf_k, weights=weights)

    def _neighbours(self, fused: dict[str, float], plan: SearchPlan) -> list[tuple[str, str]]:
        """Adjacent pairs around the best ``neighbour_depth`` candidates, read in one
        store call of at most ``NEIGHBOURS`` edges each, so the cost is bounded however
        deep the streams go."""
        ctx = self.ctx
        best = list(fused)[: plan.neighbour_depth]
        around = ctx.edges.edges_around(
            ctx.workspace, best, ctx.visibility, types=[plan.neighbour_edge], limit=NEIGHBOURS
        )
        return [(e.src, e.dst) for item_id in best for e in around.get(item_id, ())]

    @staticmethod
    def _freshness(item: ItemSketch, now: datetime, plan: SearchPlan) -> float:
        return freshness(
            age_days(item.when, now),
            half_life_days=plan.half_life_days,
            floor=plan.freshness_floor,
        )

    def _embedding(self, plan: SearchPlan) -> Callable[[str], Vector]:
        """How a query's text becomes its vector under ``plan`` (``Query.vector``)."""

        def embed(text: str) -> Vector:
            text = text[: plan.embed_chars]
            if self._query_embedder is not None:
                return self._query_embedder.embed_query(text)
            first: Vector = self.ctx.embedder.embed([text])[0]
            return first

        return embed

    def _run_stream(
        self, stream: Stream, terms: list[str], vector: Vector | None, plan: SearchPlan
    ) -> list[ScoredId]:
        ctx = self.ctx
        if stream.kind == "keyword":
            return ctx.search.keyword_search(
                ctx.workspace, stream.storage_class, terms, plan.depth("keyword"), ctx.visibility
            )
        if vector is None:
            return []
        return ctx.search.vector_search(
            ctx.workspace, stream.storage_class, vector, plan.per_stream, ctx.visibility
        )

    def _learned(
        self,
        query: Query,
        found: _Streams,
        scored: list[Candidate],
        ranker: LinearRanker,
        frame: TimeFrame,
    ) -> tuple[list[Candidate], tuple[tuple[str, tuple[float, ...]], ...]]:
        """The first ``ranker.depth`` candidates in the learned order (their scores kept,
        in the same descending sequence, so the floors keep their meaning); and each one's
        features, in the fused order."""
        head = scored[: ranker.depth]
        signals, best_keyword = head_signals(
            query,
            head,
            ranker,
            found.cosines,
            found.plan.streams,
            found.rows,
            found.graph.support,
            found.evidence,
        )
        rows = features(signals, best_keyword)
        order = reorder(ranker, rows)
        values = [c.score for c in head]
        reordered = [head[j].rescored(values[n]) for n, j in enumerate(order)]
        out = reordered + scored[ranker.depth :]
        if frame.mode != "history":
            out = below_successors(out)
        traced = tuple((c.item_id, tuple(r)) for c, r in zip(head, rows, strict=True))
        return out, traced

    def _rerank(
        self, query: Query, scored: list[Candidate], frame: TimeFrame
    ) -> tuple[list[Candidate], Judged, frozenset[str]]:
        """The first ``rerank.DEPTH`` candidates in the reranker's order, their scores kept
        in the same descending sequence (the floors keep their meaning); what it said;
        and the ids it judged."""
        head = scored[:DEPTH]
        passages = [f"{c.item.label}\n{c.item.body}"[:PASSAGE_CHARS] for c in head if c.item]
        judged = judge(self.ctx.reranker or BrainOrder(), query.text, passages)
        noted = frozenset(c.item_id for c in head)
        if judged.order is None or len(passages) < len(head):
            return scored, judged, noted
        values = [c.score for c in head]
        out = [head[j].rescored(values[n]) for n, j in enumerate(judged.order)] + scored[DEPTH:]
        return (out if frame.mode == "history" else below_successors(out)), judged, noted


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000.0, 3)
