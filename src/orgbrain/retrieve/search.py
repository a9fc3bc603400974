"""One search: embed once, run the plan's streams, fuse, freshen, floor, cite."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime

from ..model import Citation, Hit, Item, SearchResult, utcnow
from ..ports import Embedder, Reranker, ScoredId, Store, Vector
from ..scopes import Visibility
from .freshness import age_days, freshness
from .fuse import rrf
from .plan import SearchPlan, Stream
from .terms import query_terms
from .verdict import apply_floors

__all__ = ["Searcher", "citation_for"]


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
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        limit = max(1, min(k or plan.k_default, plan.k_max))
        terms = query_terms(query)
        vector = self._embed_query(query, plan) if plan.uses_vectors else None
        timings["embed"] = _ms(t0)

        lists: list[list[str]] = []
        weights: list[float] = []
        stream_names: list[str] = []
        for stream in plan.streams:
            t = time.perf_counter()
            rows = self._run_stream(workspace, stream, terms, vector, plan, visibility)
            timings[stream.name] = _ms(t)
            lists.append([item_id for item_id, _ in rows])
            weights.append(stream.weight)
            stream_names.append(stream.name)

        t = time.perf_counter()
        fused = rrf(lists, k=plan.rrf_k, weights=weights)
        ranks: dict[str, dict[str, int]] = {}
        for name, ids in zip(stream_names, lists, strict=True):
            for r, item_id in enumerate(ids, start=1):
                ranks.setdefault(item_id, {})[name] = r
        items = self.store.get_items(workspace, list(fused), visibility)
        fused = _fold_files_into_sections(fused, items)
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
        hits = tuple(
            Hit(
                item=_cut_body(items[item_id], plan.body_chars),
                score=score,
                fused=f,
                citation=citation_for(items[item_id]),
                ranks=ranks.get(item_id, {}),
            )
            for item_id, score, f in scored[: floored.keep]
        )
        timings["total"] = _ms(t0)
        return SearchResult(
            query=query,
            hits=hits,
            verdict=floored.verdict,
            reason=floored.reason,
            top_score=scored[0][1] if scored else 0.0,
            plan=plan.name,
            timings_ms=timings,
        )

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
