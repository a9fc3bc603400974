"""One search: embed once, run the plan's streams, fuse, freshen, floor, cite."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime

from ..model import Citation, Hit, Item, SearchResult, utcnow
from ..ports import Embedder, Reranker, ScoredId, Store, Vector
from ..scopes import Visibility
from .evidence import hit_evidence
from .freshness import age_days, freshness
from .fuse import convex, neighbour_boost, rrf
from .plan import SearchPlan, Stream
from .terms import query_terms
from .verdict import HitEvidence, apply_floors, membership

__all__ = ["Searcher", "Trace", "citation_for"]

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
    )


@dataclass(frozen=True, slots=True)
class Trace:
    """What a search saw on the way to its verdict, for evaluations and logs.

    ``floored``: the score floors alone said nothing; ``evidence``: the gate's view of the
    first ranked hits (before the floors cut any), whether or not the plan has a gate.
    """

    floored: bool
    evidence: tuple[HitEvidence, ...]


@dataclass
class Searcher:
    store: Store
    embedder: Embedder | None
    reranker: Reranker | None = None
    clock: Callable[[], datetime] = utcnow

    def search(
        self,
        workspace: str,
        query: str,
        plan: SearchPlan,
        visibility: Visibility,
        *,
        k: int | None = None,
        kind: str | None = None,
    ) -> SearchResult:
        return self.search_traced(workspace, query, plan, visibility, k=k, kind=kind)[0]

    def search_traced(
        self,
        workspace: str,
        query: str,
        plan: SearchPlan,
        visibility: Visibility,
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
        terms = query_terms(query)
        vector = self._embed_query(query, plan) if plan.uses_vectors else None
        timings["embed"] = _ms(t0)

        rows: list[list[ScoredId]] = []
        for stream in plan.streams:
            t = time.perf_counter()
            rows.append(self._run_stream(workspace, stream, terms, vector, plan, visibility))
            timings[stream.name] = _ms(t)

        t = time.perf_counter()
        fused = self._fuse(plan, rows)
        ranks: dict[str, dict[str, int]] = {}
        cosines: dict[str, float] = {}
        for stream, found in zip(plan.streams, rows, strict=True):
            for r, (item_id, score) in enumerate(found, start=1):
                ranks.setdefault(item_id, {})[stream.name] = r
                if stream.kind == "vector":
                    cosines[item_id] = max(score, cosines.get(item_id, -1.0))
        if plan.candidates is not None:
            fused = dict(list(fused.items())[: plan.candidates])
        items = self.store.get_items(workspace, list(fused), visibility)
        fused = _fold_files_into_sections(fused, items)
        if plan.neighbour_weight > 0 and fused:
            fused = neighbour_boost(
                fused, self._neighbours(workspace, fused, plan, visibility), plan.neighbour_weight
            )
        now = self.clock()
        scored: list[tuple[str, float, float]] = []
        for item_id, f in fused.items():
            item = items.get(item_id)
            # Second check, in code: nothing invisible, unindexed or tombstoned leaves.
            if item is None or not visibility.allows(item.scope) or not item.indexed:
                continue
            if item.tombstoned_at is not None or (kind is not None and item.kind != kind):
                continue
            fresh = freshness(
                age_days(item.when, now),
                half_life_days=plan.half_life_days,
                floor=plan.freshness_floor,
            )
            scored.append((item_id, f * fresh, f))
        scored.sort(key=lambda s: -s[1])
        timings["fuse"] = _ms(t)

        if self.reranker is not None and scored:
            t = time.perf_counter()
            scored = self._rerank(query, scored, items, plan)
            timings["rerank"] = _ms(t)

        best_fused = max((f for _, _, f in scored), default=0.0)
        floored = apply_floors(
            [s for _, s, _ in scored],
            best_fused=best_fused,
            floor_abs=plan.floor_abs,
            floor_rel=plan.floor_rel,
            k=limit,
        )
        depth = (
            evidence_depth if evidence_depth is not None else (plan.gate.depth if plan.gate else 0)
        )
        evidence = hit_evidence(query, terms, [items[i] for i, _, _ in scored[:depth]], cosines)
        keep, verdict, reason = floored.keep, floored.verdict, floored.reason
        if plan.gate is not None and keep > 0:
            t = time.perf_counter()
            speak, why = membership(evidence, plan.gate)
            timings["gate"] = _ms(t)
            if speak:
                reason = f"{reason}; {why}"
            else:
                keep, verdict, reason = 0, "none", why
        hits = tuple(
            Hit(
                item=_cut_body(items[item_id], plan.body_chars),
                score=score,
                fused=f,
                citation=citation_for(items[item_id]),
                ranks=ranks.get(item_id, {}),
            )
            for item_id, score, f in scored[:keep]
        )
        timings["total"] = _ms(t0)
        result = SearchResult(
            query=query,
            hits=hits,
            verdict=verdict,
            reason=reason,
            top_score=scored[0][1] if scored else 0.0,
            plan=plan.name,
            timings_ms=timings,
        )
        return result, Trace(floored=floored.keep == 0, evidence=tuple(evidence))

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

    def _neighbours(
        self, workspace: str, fused: dict[str, float], plan: SearchPlan, visibility: Visibility
    ) -> list[tuple[str, str]]:
        """Adjacent pairs around the best ``neighbour_depth`` candidates: one edge lookup
        each, so the cost is bounded however deep the streams go."""
        pairs: list[tuple[str, str]] = []
        for item_id in list(fused)[: plan.neighbour_depth]:
            for edge in self.store.edges_of(
                workspace, item_id, visibility, types=[plan.neighbour_edge], limit=NEIGHBOURS
            ):
                pairs.append((edge.src, edge.dst))
        return pairs

    def _embed_query(self, query: str, plan: SearchPlan) -> Vector | None:
        if self.embedder is None:
            return None
        vectors: Vector = self.embedder.embed([query[: plan.embed_chars]])
        first: Vector = vectors[0]
        return first

    def _run_stream(
        self,
        workspace: str,
        stream: Stream,
        terms: list[str],
        vector: Vector | None,
        plan: SearchPlan,
        visibility: Visibility,
    ) -> list[ScoredId]:
        if stream.kind == "keyword":
            return self.store.keyword_search(
                workspace, stream.storage_class, terms, plan.per_stream, visibility
            )
        if vector is None:
            return []
        return self.store.vector_search(
            workspace, stream.storage_class, vector, plan.per_stream, visibility
        )

    def _rerank(
        self,
        query: str,
        scored: list[tuple[str, float, float]],
        items: dict[str, Item],
        plan: SearchPlan,
    ) -> list[tuple[str, float, float]]:
        assert self.reranker is not None
        head = scored[: plan.per_stream]
        docs = [f"{items[i].label}\n{items[i].body}"[: plan.embed_chars] for i, _, _ in head]
        scores = self.reranker.rerank(query, docs)
        order = sorted(range(len(head)), key=lambda j: -scores[j])
        # Keep the fused scores (floors stay meaningful); only the order changes.
        values = sorted((s for _, s, _ in head), reverse=True)
        reranked = [(head[j][0], values[n], head[j][2]) for n, j in enumerate(order)]
        return reranked + scored[plan.per_stream :]


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
