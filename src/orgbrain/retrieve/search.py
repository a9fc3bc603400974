"""One search: embed once, run the plan's streams, fuse, freshen, floor, cite."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from ..context import BrainContext
from ..model import Citation, Hit, Item, SearchResult, Verdict
from ..ports import ScoredId, Vector
from .evidence import hit_evidence
from .freshness import age_days, freshness
from .fuse import convex, neighbour_boost, rrf
from .plan import SearchPlan, Stream
from .terms import query_terms
from .verdict import HitEvidence, apply_floors, membership

__all__ = ["Candidate", "Searcher", "Trace", "citation_for"]

NEIGHBOURS = 16
"""The most ``neighbour_edge`` edges read per candidate (a turn has two)."""


def citation_for(item: Item) -> Citation:
    return Citation(
        item_id=item.id,
        file_id=item.parent_id
        if item.storage_class == "section"
        else (item.id if item.storage_class == "file" else None),
        label=item.label,
        blob_key=item.blob_key,
        text_key=item.text_key,
        byte_range=item.byte_range,
        locator=item.locator,
        file_name=item.name if item.storage_class in ("file", "section") else None,
    )


@dataclass(frozen=True, slots=True)
class Trace:
    """What a search saw on the way to its verdict, for evaluations and logs.

    ``floored``: the score floors alone said nothing; ``evidence``: the gate's view of the
    first ranked hits (before the floors cut any), whether or not the plan has a gate.
    """

    floored: bool
    evidence: tuple[HitEvidence, ...]


@dataclass(slots=True)
class Candidate:
    """One item on its way through a search: its fused vote, then its item and score."""

    item_id: str
    fused: float
    ranks: dict[str, int]
    item: Item | None = None
    score: float = 0.0


@dataclass(frozen=True, slots=True)
class _Streams:
    terms: list[str]
    rows: list[list[ScoredId]]
    cosines: dict[str, float]


@dataclass(frozen=True, slots=True)
class _Decision:
    keep: int
    verdict: Verdict
    reason: str
    trace: Trace


class Searcher:
    """Searches one context's workspace as its reader sees it, in named stages:
    streams -> candidates -> score -> decide -> cite."""

    def __init__(self, ctx: BrainContext) -> None:
        self.ctx = ctx

    def search(
        self, query: str, plan: SearchPlan, *, k: int | None = None, kind: str | None = None
    ) -> SearchResult:
        return self.search_traced(query, plan, k=k, kind=kind)[0]

    def search_traced(
        self,
        query: str,
        plan: SearchPlan,
        *,
        k: int | None = None,
        kind: str | None = None,
        evidence_depth: int | None = None,
    ) -> tuple[SearchResult, Trace]:
        """``search``, and the evidence for the first ``evidence_depth`` hits (default:
        what the plan's gate reads)."""
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        limit = max(1, min(k or plan.k_default, plan.k_max))
        found = self._streams(query, plan, timings)
        t = time.perf_counter()
        candidates = self._candidates(found, plan)
        scored = self._score(candidates, plan, kind)
        timings["fuse"] = _ms(t)
        if self.ctx.reranker is not None and scored:
            t = time.perf_counter()
            scored = self._rerank(query, scored, plan)
            timings["rerank"] = _ms(t)
        depth = (
            evidence_depth if evidence_depth is not None else plan.gate.depth if plan.gate else 0
        )
        decision = self._decide(query, found, scored, plan, limit, depth, timings)
        hits = tuple(_cite(c, plan) for c in scored[: decision.keep])
        timings["total"] = _ms(t0)
        result = SearchResult(
            query=query,
            hits=hits,
            verdict=decision.verdict,
            reason=decision.reason,
            top_score=scored[0].score if scored else 0.0,
            plan=plan.name,
            timings_ms=timings,
        )
        return result, decision.trace

    # -- stages -------------------------------------------------------------------------

    def _streams(self, query: str, plan: SearchPlan, timings: dict[str, float]) -> _Streams:
        """Embed the query once, then run each of the plan's streams."""
        t0 = time.perf_counter()
        terms = query_terms(query)
        vector = self._embed_query(query, plan) if plan.uses_vectors else None
        timings["embed"] = _ms(t0)
        rows: list[list[ScoredId]] = []
        cosines: dict[str, float] = {}
        for stream in plan.streams:
            t = time.perf_counter()
            found = self._run_stream(stream, terms, vector, plan)
            timings[stream.name] = _ms(t)
            rows.append(found)
            if stream.kind == "vector":
                for item_id, score in found:
                    cosines[item_id] = max(score, cosines.get(item_id, -1.0))
        return _Streams(terms, rows, cosines)

    def _candidates(self, found: _Streams, plan: SearchPlan) -> list[Candidate]:
        """Fuse the streams into one vote per item, load the items, fold files into their
        sections and credit neighbours."""
        fused = self._fuse(plan, found.rows)
        ranks: dict[str, dict[str, int]] = {}
        for stream, rows in zip(plan.streams, found.rows, strict=True):
            for r, (item_id, _) in enumerate(rows, start=1):
                ranks.setdefault(item_id, {})[stream.name] = r
        if plan.candidates is not None:
            fused = dict(list(fused.items())[: plan.candidates])
        items = self.ctx.get_many(list(fused))
        fused = _fold_files_into_sections(fused, items)
        if plan.neighbour_weight > 0 and fused:
            fused = neighbour_boost(fused, self._neighbours(fused, plan), plan.neighbour_weight)
        return [
            Candidate(item_id, f, ranks.get(item_id, {}), items.get(item_id))
            for item_id, f in fused.items()
        ]

    def _score(
        self, candidates: list[Candidate], plan: SearchPlan, kind: str | None
    ) -> list[Candidate]:
        """Fresher is better: each visible, answerable candidate's vote times its
        freshness, best first."""
        now = self.ctx.clock()
        scored: list[Candidate] = []
        for c in candidates:
            # Second check, in code: nothing invisible, unindexed or tombstoned leaves.
            if c.item is None or not c.item.indexed:
                continue
            if kind is not None and c.item.kind != kind:
                continue
            fresh = freshness(
                age_days(c.item.when, now),
                half_life_days=plan.half_life_days,
                floor=plan.freshness_floor,
            )
            c.score = c.fused * fresh
            scored.append(c)
        scored.sort(key=lambda c: -c.score)
        return scored

    def _decide(
        self,
        query: str,
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
            floor_abs=plan.floor_abs,
            floor_rel=plan.floor_rel,
            k=limit,
        )
        shown = [c.item for c in scored[:depth] if c.item is not None]
        evidence = hit_evidence(query, found.terms, shown, found.cosines)
        keep, verdict, reason = floored.keep, floored.verdict, floored.reason
        if plan.gate is not None and keep > 0:
            t = time.perf_counter()
            speak, why = membership(evidence, plan.gate)
            timings["gate"] = _ms(t)
            if speak:
                reason = f"{reason}; {why}"
            else:
                keep, verdict, reason = 0, "none", why
        trace = Trace(floored=floored.keep == 0, evidence=tuple(evidence))
        return _Decision(keep, verdict, reason, trace)

    # -- parts --------------------------------------------------------------------------

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
        """Adjacent pairs around the best ``neighbour_depth`` candidates: one edge lookup
        each, so the cost is bounded however deep the streams go."""
        ctx = self.ctx
        pairs: list[tuple[str, str]] = []
        for item_id in list(fused)[: plan.neighbour_depth]:
            for edge in ctx.store.edges_of(
                ctx.workspace,
                item_id,
                ctx.visibility,
                types=[plan.neighbour_edge],
                limit=NEIGHBOURS,
            ):
                pairs.append((edge.src, edge.dst))
        return pairs

    def _embed_query(self, query: str, plan: SearchPlan) -> Vector:
        vectors: Vector = self.ctx.embedder.embed([query[: plan.embed_chars]])
        first: Vector = vectors[0]
        return first

    def _run_stream(
        self, stream: Stream, terms: list[str], vector: Vector | None, plan: SearchPlan
    ) -> list[ScoredId]:
        ctx = self.ctx
        if stream.kind == "keyword":
            return ctx.store.keyword_search(
                ctx.workspace, stream.storage_class, terms, plan.per_stream, ctx.visibility
            )
        if vector is None:
            return []
        return ctx.store.vector_search(
            ctx.workspace, stream.storage_class, vector, plan.per_stream, ctx.visibility
        )

    def _rerank(self, query: str, scored: list[Candidate], plan: SearchPlan) -> list[Candidate]:
        reranker = self.ctx.reranker
        assert reranker is not None
        head = scored[: plan.per_stream]
        docs = [f"{c.item.label}\n{c.item.body}"[: plan.embed_chars] for c in head if c.item]
        scores = reranker.rerank(query, docs)
        order = sorted(range(len(head)), key=lambda j: -scores[j])
        # Keep the fused scores (floors stay meaningful); only the order changes.
        values = sorted((c.score for c in head), reverse=True)
        reranked = [replace(head[j], score=values[n]) for n, j in enumerate(order)]
        return reranked + scored[plan.per_stream :]


def _cite(c: Candidate, plan: SearchPlan) -> Hit:
    assert c.item is not None
    return Hit(
        item=_cut_body(c.item, plan.body_chars),
        score=c.score,
        fused=c.fused,
        citation=citation_for(c.item),
        ranks=c.ranks,
    )


def _fold_files_into_sections(fused: dict[str, float], items: dict[str, Item]) -> dict[str, float]:
    """A file whose own sections are candidates is dropped: a section is the precise
    citation. Votes are not moved, so every score stays one item's own evidence and the
    floors keep their meaning (a lone vector match can never reach 0.02)."""
    parents = {
        item.parent_id
        for item_id in fused
        if (item := items.get(item_id)) is not None and item.storage_class == "section"
    }
    if not parents:
        return fused
    return {i: f for i, f in fused.items() if i not in parents}


def _cut_body(item: Item, limit: int) -> Item:
    if len(item.body) <= limit:
        return item
    return replace(item, body=item.body[:limit])


def _ms(t0: float) -> float:
    return round((time.perf_counter() - t0) * 1000.0, 3)
