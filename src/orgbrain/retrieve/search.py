"""One search: embed once, run the plan's streams, fuse, freshen, floor, cite."""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from operator import itemgetter

from ..analysis import topic_words
from ..context import BrainContext
from ..model import Citation, Hit, Item, ItemSketch, SearchResult, Statement, Verdict
from ..ports import QueryEmbedder, ScoredId, Vector
from .evidence import EVIDENCE, hit_evidence
from .freshness import NEWER, age_days, by_topic, freshness
from .fuse import convex, neighbour_boost, rrf
from .graph import CURRENT, GraphMatch, TimeFrame, graph_stream, route
from .grounds import Grounds, grounds_of, plain_reason
from .learned import LinearRanker, Signals, features, reorder
from .narrow import narrow
from .plan import SearchPlan, Stream
from .replacements import (
    NO_MARKS,
    Marks,
    StatementLink,
    marks_for,
    replaced_pairs,
    statement_links,
)
from .rerank import DEPTH, PASSAGE_CHARS, BrainOrder, Judged, judge
from .terms import query_names, query_terms
from .verdict import HitEvidence, Membership, apply_floors, membership
from .when import Window, read_time

__all__ = ["Candidate", "Searcher", "Trace", "citation_for"]

HELD = 500
"""The most statements read from the kept hits at once (past it, conflicts are read a hit
at a time and the statement-level marks see the first ``HELD``)."""

NEIGHBOURS = 16
"""The most ``neighbour_edge`` edges read per candidate (a turn has two)."""

SAME_TOPIC = 3
"""Two candidates whose texts share this many words that carry meaning
(``terms.topic_words``) are on one topic for freshness (``freshness.by_topic``): one
shared word is as often chance ("day", a first name), and two often are ("first day",
"new"); long texts share three on any topic, and are then compared as before."""


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
    first ranked hits (before the floors cut any, and in the fused order when a learned
    ranker reorders them), whether or not the plan has a gate;
    ``head``: when the plan has a learned ranker, each candidate it read, in the fused
    order, with its features (``retrieve.learned.FEATURES``).
    """

    floored: bool
    evidence: tuple[HitEvidence, ...]
    head: tuple[tuple[str, tuple[float, ...]], ...] = ()


@dataclass(slots=True)
class Candidate:
    """One item on its way through a search: its fused vote, then its sketch (what the
    search weighs of it: ``Store.item_sketches``) and score. The kept ones are read in
    full when they are cited."""

    item_id: str
    fused: float
    ranks: dict[str, int]
    item: ItemSketch | None = None
    score: float = 0.0
    superseded_by: ItemSketch | None = None
    fresh: float = 1.0
    boost: float = 0.0
    factor: float = 1.0
    """What the search's rules took off its vote besides freshness (a superseded item's
    ``superseded_factor``): its score is ``fused * fresh * factor``."""

    def rescored(self, score: float) -> Candidate:
        """This candidate with another ``score`` (as ``dataclasses.replace`` gives it, at
        an eighth of its cost: a search reorders 50)."""
        return Candidate(
            self.item_id,
            self.fused,
            self.ranks,
            self.item,
            score,
            self.superseded_by,
            self.fresh,
            self.boost,
            self.factor,
        )


@dataclass(frozen=True, slots=True)
class _Streams:
    terms: list[str]
    rows: list[list[ScoredId]]
    cosines: dict[str, float]
    graph: GraphMatch
    plan: SearchPlan
    """The plan as the router weighed it for this query."""
    route: str
    window: Window | None = None
    """The query's time (``when.read_time``), read against the search's reference time."""


@dataclass(frozen=True, slots=True)
class _Decision:
    keep: int
    verdict: Verdict
    reason: str
    trace: Trace
    grounds: Grounds


class Searcher:
    """Searches one context's workspace as its reader sees it, in named stages:
    streams -> candidates -> score -> decide -> cite."""

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
        capped = k is not None and k > plan.k_max
        plan = plan.reading(limit)
        found = self._streams(query, plan, timings, frame)
        plan = found.plan
        t = time.perf_counter()
        candidates, window = self._candidates(found, plan)
        found = replace(found, window=window)  # as narrowed: the gate reads it so
        scored = self._score(candidates, plan, kind, frame, query_names(query))
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
        if head:
            decision = replace(decision, trace=replace(decision.trace, head=head))
        kept = scored[: decision.keep]
        t = time.perf_counter()
        held = self._held(kept)
        disagree = self._disagreements(kept, held)
        links = statement_links(self.ctx, [c.item_id for c in kept], held, frame)
        full = self._cited_items(kept, links)
        marks = marks_for(links, full, citation_for)
        timings["statements"] = _ms(t)
        hits = tuple(
            _cite(
                full[c.item_id],
                c,
                plan,
                disagree.get(c.item_id, ()),
                superseded_by=full.get(c.superseded_by.id) if c.superseded_by else None,
                older=full.get(c.item.supersedes or "") if c.item else None,
                marks=marks.get(c.item_id, NO_MARKS),
                rerank=judged.note if c.item_id in noted else "",
            )
            for c in kept
            if c.item_id in full
        )
        verdict, reason = decision.verdict, decision.reason
        if capped:
            reason = f"{reason}; k {k} capped at {plan.k_max}, the most a search returns"
        if judged.note.startswith("skipped"):
            reason = f"{reason}; reranker {judged.note}"
        ids = {h.item.id for h in hits}
        if any(set(h.conflicts) & ids for h in hits):
            verdict, reason = "conflict", f"{reason}; the best answers disagree"
        timings["total"] = _ms(t0)
        result = SearchResult(
            query=query,
            hits=hits,
            verdict=verdict,
            reason=reason,
            why=plain_reason(decision.grounds, verdict),
            top_score=scored[0].score if scored else 0.0,
            plan=plan.name,
            timings_ms=timings,
            mode=frame.mode,
            as_of=frame.at,
            entities=tuple(e.label for e in found.graph.entities),
            route=found.route,
            window="" if found.window is None else str(found.window),
        )
        return result, decision.trace

    # -- stages -------------------------------------------------------------------------

    def _streams(
        self, query: str, plan: SearchPlan, timings: dict[str, float], frame: TimeFrame
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
        terms = query_terms(query)
        reading = read_time(query, self._now(frame))
        # The vector is of what the query asks, less its time: no text says "four weeks
        # ago", and the window does the reading of it (docs/journal.md, issue 17, time).
        vector = self._embed_query(reading.rest or query, plan) if plan.uses_vectors else None
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
        return _Streams(terms, rows, cosines, graph, plan, why, reading.window)

    def _candidates(
        self, found: _Streams, plan: SearchPlan
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
        ranks = _ranks(plan, found.rows, graph, fused)
        items = self.ctx.get_sketches(list(fused))
        fused = _fold_files_into_sections(fused, items)
        window = found.window
        if plan.window_weight > 0 and window is not None:
            depth = plan.gate.depth if plan.gate else plan.k_default
            fused, window = narrow(fused, items, window, depth, plan.window_weight, plan.rrf_k)
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
        names: Sequence[str] = (),
    ) -> list[Candidate]:
        """Fresher is better: each visible, answerable candidate's vote times its
        freshness against its own topic (``_by_topic``; ``names``: the query's proper
        names), best first; in the frame's time, a superseded item below its successor."""
        now = self._now(frame)

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
        for heir in _superseded_yield(scored, successors, frame, plan, kind):
            heir.fresh = self._freshness(heir.item, now, plan)  # type: ignore[arg-type]
            heir.score = heir.fused * heir.fresh
            scored.append(heir)
        self._by_topic(scored, names)
        scored.sort(key=lambda c: -c.score)  # stable: equal scores keep the fused order
        return scored if frame.mode == "history" else _below_successors(scored)

    def _by_topic(self, scored: list[Candidate], names: Sequence[str]) -> None:
        """Each candidate's freshness against its own topic (``freshness.by_topic``), its
        score with it. Two candidates share a topic when their texts share
        ``SAME_TOPIC`` words that carry meaning, when both name one of ``names`` (the
        query's proper names: "Kestrel" in an old project card and in a status line of a
        quarterly update), or when the derivation linked them (one replaced the other,
        or a statement of it: two ways of saying one thing, read from the store once,
        when neither the words nor the names tell)."""
        items = [c.item for c in scored if c.item is not None]
        if len(items) < len(scored) or not items:
            return
        written = [item.when for item in items]
        if max(written) - min(written) < NEWER:
            return
        topics: dict[int, frozenset[str]] = {}
        named: dict[int, frozenset[str]] = {}
        linked: set[frozenset[str]] | None = None

        def words_of(i: int) -> frozenset[str]:
            # Read only for the candidates compared: a list's long texts cost its stems.
            if i not in topics:
                topics[i] = topic_words(items[i].body)
            return topics[i]

        def names_of(i: int) -> frozenset[str]:
            if i not in named:
                named[i] = frozenset(n for n in names if _names(items[i].body, n))
            return named[i]

        def related(i: int, j: int) -> bool:
            nonlocal linked
            if len(words_of(i) & words_of(j)) >= SAME_TOPIC or (
                names and names_of(i) & names_of(j)
            ):
                return True
            if linked is None:
                linked = replaced_pairs(self.ctx, [item.id for item in items])
                linked.update(
                    frozenset((item.id, other))
                    for item in items
                    for other in (item.superseded_by, item.supersedes)
                    if other is not None
                )
            return frozenset((items[i].id, items[j].id)) in linked

        fresh = by_topic([c.fresh for c in scored], written, related)
        for c, f in zip(scored, fresh, strict=True):
            if f != c.fresh and c.fresh > 0:
                c.score = c.fused * f * c.factor  # not ``*= f / fresh``: no float noise
                c.fresh = f

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
        support = dict(found.graph.support)
        for c in scored:
            # What superseded a hit the graph supports answers what it answered, though it
            # may not name the subject ("we moved from jenkins to github actions").
            said = support.get(c.item_id)
            if c.superseded_by is not None and said and c.superseded_by.id not in support:
                support[c.superseded_by.id] = f"supersedes a hit that {said}"
        support |= _heirs_support(query, found, scored[depth:], shown, plan)
        evidence = [
            replace(e, graph=support.get(item.id))
            for e, item in zip(
                hit_evidence(
                    query,
                    found.terms,
                    shown,
                    found.cosines,
                    window=found.window,
                ),
                shown,
                strict=True,
            )
        ]
        keep, verdict, reason = floored.keep, floored.verdict, floored.reason
        gated: Membership | None = None
        if plan.gate is not None and keep > 0:
            t = time.perf_counter()
            gated = membership(evidence, plan.gate)
            timings["gate"] = _ms(t)
            if gated.speak:
                reason = f"{reason}; {gated.reason}"
            else:
                keep, verdict, reason = 0, "none", gated.reason
        trace = Trace(floored=floored.keep == 0, evidence=tuple(evidence))
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
        around = ctx.store.edges_around(
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

    def _cited_items(self, kept: list[Candidate], links: list[StatementLink]) -> dict[str, Item]:
        """The kept hits read in full, with the items they supersede and that supersede
        them, whole or a statement of them (their citations), in one read."""
        ids = {c.item_id for c in kept}
        ids.update(c.superseded_by.id for c in kept if c.superseded_by is not None)
        ids.update(c.item.supersedes for c in kept if c.item and c.item.supersedes)
        ids.update(i for link in links for i in (link.old.item_id, link.new.item_id))
        return self.ctx.get_many(sorted(ids))

    def _held(self, kept: list[Candidate]) -> list[Statement]:
        """The statements with evidence in any kept hit, in one read: what the conflict
        check and the statement-level marks both start from."""
        if not kept:
            return []
        ctx = self.ctx
        ids = [c.item_id for c in kept]
        return ctx.store.statements(ctx.workspace, ctx.visibility, item_ids=ids, limit=HELD)

    def _disagreements(
        self, kept: list[Candidate], held: list[Statement]
    ) -> dict[str, tuple[str, ...]]:
        """For each kept hit, the items holding current statements that disagree with
        its own (visible ones only)."""
        ctx = self.ctx
        store, ws, vis = ctx.store, ctx.workspace, ctx.visibility
        out: dict[str, tuple[str, ...]] = {}
        if len(held) < HELD and not any(s.current and s.conflicts for s in held):
            return out  # the common case, without a read a hit
        for c in kept:
            held = store.statements(ws, vis, item_id=c.item_id, current=True, conflicted=True)
            others = sorted({o for s in held for o in s.conflicts})
            if not others:
                continue
            rivals = store.statements(ws, vis, ids=others, current=True)
            items = sorted({s.item_id for s in rivals} - {c.item_id})
            if items:
                out[c.item_id] = tuple(items)
        return out

    def _embed_query(self, query: str, plan: SearchPlan) -> Vector:
        text = query[: plan.embed_chars]
        if self._query_embedder is not None:
            return self._query_embedder.embed_query(text)
        first: Vector = self.ctx.embedder.embed([text])[0]
        return first

    def _run_stream(
        self, stream: Stream, terms: list[str], vector: Vector | None, plan: SearchPlan
    ) -> list[ScoredId]:
        ctx = self.ctx
        if stream.kind == "keyword":
            return ctx.store.keyword_search(
                ctx.workspace, stream.storage_class, terms, plan.depth("keyword"), ctx.visibility
            )
        if vector is None:
            return []
        return ctx.store.vector_search(
            ctx.workspace, stream.storage_class, vector, plan.per_stream, ctx.visibility
        )

    def _learned(
        self,
        query: str,
        found: _Streams,
        scored: list[Candidate],
        ranker: LinearRanker,
        frame: TimeFrame,
    ) -> tuple[list[Candidate], tuple[tuple[str, tuple[float, ...]], ...]]:
        """The first ``ranker.depth`` candidates in the learned order (their scores kept,
        in the same descending sequence, so the floors keep their meaning); and each one's
        features, in the fused order."""
        head = scored[: ranker.depth]
        items = [c.item for c in head if c.item is not None]
        assert len(items) == len(head)
        # Only the evidence the ranker weighs: reading a hit's text is most of the stage.
        evidence = hit_evidence(
            query, found.terms, items, found.cosines, reads=ranker.reads & EVIDENCE
        )
        # Each head candidate's best keyword score, and the best of the search.
        wanted = {c.item_id for c in head}
        keyword: dict[str, float] = {}
        best_keyword: float | None = None
        for stream, listed in zip(found.plan.streams, found.rows, strict=True):
            if stream.kind != "keyword" or not listed:
                continue
            top = max(map(itemgetter(1), listed))
            best_keyword = top if best_keyword is None else max(best_keyword, top)
            for item_id, value in listed:
                if item_id in wanted:
                    keyword[item_id] = max(value, keyword.get(item_id, value))
        support = found.graph.support
        signals = [
            Signals(
                score=c.score,
                ranks=c.ranks,
                cosine=found.cosines.get(c.item_id),
                keyword=keyword.get(c.item_id),
                coverage=e.coverage,
                names=e.names,
                mentions=e.mentions,
                asks=e.asks,
                support=c.item_id in support,
                boost=c.boost,
                fresh=c.fresh,
                group=item.run_id or item.parent_id,
                body_chars=len(item.body),
                label_chars=len(item.label),
            )
            for c, item, e in zip(head, items, evidence, strict=True)
        ]
        rows = features(signals, best_keyword)
        order = reorder(ranker, rows)
        values = [c.score for c in head]
        reordered = [head[j].rescored(values[n]) for n, j in enumerate(order)]
        out = reordered + scored[ranker.depth :]
        if frame.mode != "history":
            out = _below_successors(out)
        traced = tuple((c.item_id, tuple(r)) for c, r in zip(head, rows, strict=True))
        return out, traced

    def _rerank(
        self, query: str, scored: list[Candidate], frame: TimeFrame
    ) -> tuple[list[Candidate], Judged, frozenset[str]]:
        """The first ``rerank.DEPTH`` candidates in the reranker's order, their scores kept
        in the same descending sequence (the floors keep their meaning); what it said;
        and the ids it judged."""
        head = scored[:DEPTH]
        passages = [f"{c.item.label}\n{c.item.body}"[:PASSAGE_CHARS] for c in head if c.item]
        judged = judge(self.ctx.reranker or BrainOrder(), query, passages)
        noted = frozenset(c.item_id for c in head)
        if judged.order is None or len(passages) < len(head):
            return scored, judged, noted
        values = [c.score for c in head]
        out = [head[j].rescored(values[n]) for n, j in enumerate(judged.order)] + scored[DEPTH:]
        return (out if frame.mode == "history" else _below_successors(out)), judged, noted


def _cite(
    item: Item,
    c: Candidate,
    plan: SearchPlan,
    conflicts: tuple[str, ...] = (),
    *,
    superseded_by: Item | None = None,
    older: Item | None = None,
    marks: Marks = NO_MARKS,
    rerank: str = "",
) -> Hit:
    """The hit for candidate ``c``, read in full as ``item``."""
    return Hit(
        item=_cut_body(item, plan.body_chars),
        score=c.score,
        fused=c.fused,
        citation=citation_for(item),
        ranks=c.ranks,
        superseded_by=None if superseded_by is None else citation_for(superseded_by),
        supersedes=None if older is None else citation_for(older),
        conflicts=conflicts,
        replaces=marks.replaces,
        replaced_by=marks.replaced_by,
        rerank=rerank,
    )


def _ranks(
    plan: SearchPlan,
    rows: list[list[ScoredId]],
    graph: tuple[str, ...],
    candidates: dict[str, float],
) -> dict[str, dict[str, int]]:
    """Each candidate's rank in each stream that listed it (``"vector:note"``...), then in
    the graph's list; only the candidates' (a search lists ~8 times as many rows)."""
    ranks: dict[str, dict[str, int]] = {}
    for stream, listed in zip(plan.streams, rows, strict=True):
        name = stream.name  # a property: computed once a stream, not once a row
        for r, (item_id, _) in enumerate(listed, start=1):
            if item_id in candidates:
                ranks.setdefault(item_id, {})[name] = r
    for r, item_id in enumerate(graph, start=1):
        if item_id in candidates:
            ranks.setdefault(item_id, {})["graph"] = r
    return ranks


def _heirs_support(
    query: str,
    found: _Streams,
    below: list[Candidate],
    shown: list[ItemSketch],
    plan: SearchPlan,
) -> dict[str, str]:
    """A superseded hit that its demotion pushed out of the gate's view still answers the
    question its successor now answers ("two approving reviews before merge", then "we're
    dropping to a single approving review"): the successor, when shown, speaks for it
    when the gate would have let the older hit through."""
    if plan.gate is None:
        return {}
    ids = {i.id for i in shown}
    older = [c for c in below if c.item and c.superseded_by and c.superseded_by.id in ids]
    if not older:
        return {}
    sketches = [c.item for c in older if c.item]
    evidence = hit_evidence(query, found.terms, sketches, found.cosines, window=found.window)
    out: dict[str, str] = {}
    for c, e in zip(older, evidence, strict=True):
        heir = c.superseded_by.id if c.superseded_by else ""
        said = membership([e], plan.gate)
        if said.speak and heir not in out:
            out[heir] = "supersedes a hit that " + re.sub(r"^\w+: hit \d+ ", "", said.reason)
    return out


def _superseded_yield(
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


def _below_successors(scored: list[Candidate]) -> list[Candidate]:
    """Move each superseded candidate to just below its successor when the successor
    is a candidate ranked under it (scores are kept; only the order changes)."""
    out = list(scored)
    for c in scored:
        if c.superseded_by is None:
            continue
        at = out.index(c)
        after = next((j for j, o in enumerate(out) if o.item_id == c.superseded_by.id), -1)
        if after > at:
            out.insert(after, out.pop(at))
    return out


def _names(text: str, name: str) -> bool:
    """Whether ``text`` writes ``name`` (a query's proper name, lower-cased) as a name:
    capitalised ("the Planning Committee", not "the quarterly planning offsite"), the
    rest in any case, perhaps longer ("Kestrel's")."""
    return (
        re.search(rf"(?<!\w){re.escape(name[:1].upper())}(?i:{re.escape(name[1:])})", text)
        is not None
    )


def _fold_files_into_sections(
    fused: dict[str, float], items: dict[str, ItemSketch]
) -> dict[str, float]:
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
