"""BEIR retrieval eval: load a BEIR folder, index its corpus as notes, rank every query.

The corpus goes in through the public note path (``Brain.add_notes``), so the numbers are
what a user of the brain gets, not what a bespoke index could do.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..brain import Brain, NoteInput
from ..errors import InvalidInput, NotFound
from ..ports import Embedder
from ..retrieve import SearchPlan
from ..writes import MAX_NOTE_CHARS
from .cache import index_key, indexed_brain
from .memo import QueryMemo
from .metrics import mean, mrr_at_k, ndcg_at_k, percentile, recall_at_k
from .report import (
    EVIDENCE_DEPTH,
    EvalReport,
    PlanScores,
    default_results_path,
    gate_view,
    write_jsonl,
)

__all__ = [
    "BEIR_COLUMNS",
    "BeirData",
    "BeirDoc",
    "index_beir",
    "limit_beir",
    "load_beir",
    "run_beir",
    "score_beir",
]

BATCH = 500
DEPTH = 100
KEY_PREFIX = "beir:"
BEIR_COLUMNS = (
    "ndcg@10",
    "recall@10",
    "recall@100",
    "mrr@10",
    "false_silence",
    "search_p50_ms",
    "search_p95_ms",
)

Progress = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class BeirDoc:
    id: str
    title: str
    text: str


@dataclass(frozen=True, slots=True)
class BeirData:
    """A BEIR split: the corpus, the queries that have a relevant judgement, their qrels."""

    corpus: tuple[BeirDoc, ...]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]
    split: str
    skipped: dict[str, int] = field(default_factory=dict)


def _jsonl(path: Path) -> Iterator[dict[str, object]]:
    if not path.is_file():
        raise NotFound(f"no {path.name} in {path.parent}")
    with path.open(encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidInput(f"{path}:{lineno}: not JSON ({exc.msg})") from None
            if not isinstance(row, dict) or "_id" not in row:
                raise InvalidInput(f"{path}:{lineno}: expected an object with an _id")
            yield row


def _read_qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    with path.open(encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            parts = line.rstrip("\n").split("\t")
            if not line.strip():
                continue
            if len(parts) < 3:
                raise InvalidInput(f"{path}:{lineno}: expected query-id, corpus-id, score")
            try:
                grade = int(float(parts[2]))
            except ValueError:
                if lineno == 1:
                    continue  # the header line
                raise InvalidInput(f"{path}:{lineno}: score {parts[2]!r} is not a number") from None
            qrels.setdefault(parts[0], {})[parts[1]] = grade
    return qrels


def load_beir(folder: Path, split: str = "test") -> BeirData:
    """Read ``corpus.jsonl``, ``queries.jsonl`` and ``qrels/<split>.tsv`` from ``folder``."""
    qrels_path = folder / "qrels" / f"{split}.tsv"
    if not qrels_path.is_file():
        have = sorted(p.stem for p in (folder / "qrels").glob("*.tsv"))
        raise NotFound(
            f"no qrels/{split}.tsv in {folder}; splits there: {', '.join(have) or 'none'}"
        )
    qrels = _read_qrels(qrels_path)
    skipped = {"empty_docs": 0, "duplicate_docs": 0, "queries_without_text": 0}
    corpus: list[BeirDoc] = []
    seen: set[str] = set()
    for row in _jsonl(folder / "corpus.jsonl"):
        doc = BeirDoc(str(row["_id"]), str(row.get("title") or ""), str(row.get("text") or ""))
        if doc.id in seen:
            skipped["duplicate_docs"] += 1
        elif not (doc.title.strip() or doc.text.strip()):
            skipped["empty_docs"] += 1
        else:
            seen.add(doc.id)
            corpus.append(doc)
    queries: dict[str, str] = {}
    for row in _jsonl(folder / "queries.jsonl"):
        qid, text = str(row["_id"]), str(row.get("text") or "")
        if not any(g > 0 for g in qrels.get(qid, {}).values()):
            continue
        if not text.strip():
            skipped["queries_without_text"] += 1
            continue
        queries[qid] = text
    return BeirData(tuple(corpus), queries, {q: qrels[q] for q in queries}, split, skipped)


def limit_beir(
    data: BeirData, *, limit_queries: int | None = None, limit_docs: int | None = None
) -> BeirData:
    """The first ``limit_queries`` queries; every doc they judge plus the first
    ``limit_docs`` others (a smoke run keeps its answers findable)."""
    queries = data.queries
    if limit_queries is not None:
        queries = dict(list(queries.items())[:limit_queries])
    qrels = {q: data.qrels[q] for q in queries}
    corpus = data.corpus
    if limit_docs is not None:
        judged = {d for judged_docs in qrels.values() for d in judged_docs}
        others = 0
        kept: list[BeirDoc] = []
        for doc in corpus:
            if doc.id in judged:
                kept.append(doc)
            elif others < limit_docs:
                kept.append(doc)
                others += 1
        corpus = tuple(kept)
    return replace(data, corpus=corpus, queries=queries, qrels=qrels)


def _note(doc: BeirDoc) -> NoteInput:
    """Title as the label, text as the body: each said once, both searched and embedded
    (``label + newline + body``). A title-less doc's label is its first line."""
    title, text = doc.title.strip(), doc.text.strip()
    return NoteInput(
        body=(text or title)[:MAX_NOTE_CHARS],
        label=title or None,
        source_key=KEY_PREFIX + doc.id,
    )


def _writer(notes: Sequence[NoteInput], progress: Progress | None) -> Callable[[Brain], None]:
    def write(brain: Brain) -> None:
        t0 = time.perf_counter()
        for start in range(0, len(notes), BATCH):
            brain.add_notes(notes[start : start + BATCH])
            if progress is not None:
                done = min(start + BATCH, len(notes))
                progress(f"indexed {done}/{len(notes)} docs ({time.perf_counter() - t0:.0f} s)")

    return write


def _ranked(brain: Brain, memo: QueryMemo, query: str, plan: SearchPlan) -> tuple[list[str], float]:
    memo.reset_clock()
    t0 = time.perf_counter()
    result = brain.search(query, k=DEPTH, plan=plan)
    ms = (time.perf_counter() - t0) * 1000.0 + memo.charge_ms()
    ids = [
        h.item.source_key[len(KEY_PREFIX) :]
        for h in result.hits
        if h.item.source_key.startswith(KEY_PREFIX)
    ]
    return ids, ms


def _score(ranked: list[str], qrels: dict[str, int]) -> dict[str, float]:
    relevant = [d for d, g in qrels.items() if g > 0]
    return {
        "ndcg@10": ndcg_at_k(ranked, qrels, 10),
        "recall@10": recall_at_k(ranked, relevant, 10),
        "recall@100": recall_at_k(ranked, relevant, 100),
        "mrr@10": mrr_at_k(ranked, relevant, 10),
    }


def _run_plan(
    brain: Brain, memo: QueryMemo, data: BeirData, plan: SearchPlan, rows: list[dict[str, object]]
) -> PlanScores:
    deep = plan.with_limits(k_max=DEPTH, floors=False)
    per_query: list[dict[str, float]] = []
    latencies: list[float] = []
    silent: list[bool] = []
    for qid, text in data.queries.items():
        ranked, ms = _ranked(brain, memo, text, deep)
        scores = _score(ranked, data.qrels[qid])
        per_query.append(scores)
        latencies.append(ms)
        # Every query here has a relevant document, so silence as shipped is false silence.
        shipped, trace = brain.search_traced(text, plan=plan, evidence_depth=EVIDENCE_DEPTH)
        silent.append(not shipped.hits)
        rows.append(
            {
                "query_id": qid,
                "plan": plan.name,
                **scores,
                "silent": not shipped.hits,
                "reason": shipped.reason,
                "gate": gate_view(trace, shipped.reason),
                "latency_ms": ms,
                "ranked": ranked,
            }
        )
    metrics = {c: mean(q[c] for q in per_query) for c in BEIR_COLUMNS[:4]}
    metrics["false_silence"] = mean(float(s) for s in silent)
    metrics["search_p50_ms"] = percentile(latencies, 50)
    metrics["search_p95_ms"] = percentile(latencies, 95)
    return PlanScores(plan.name, metrics)


def index_beir(brain: Brain, data: BeirData, progress: Progress | None = None) -> None:
    """Write ``data``'s corpus into ``brain`` as ``run_beir`` does: one note per doc, through
    ``Brain.add_notes`` (for a brain ``run_beir`` does not open itself, e.g. on PostgreSQL)."""
    _writer([_note(d) for d in data.corpus], progress)(brain)


def score_beir(brain: Brain, data: BeirData, plan: SearchPlan, embedder: Embedder) -> PlanScores:
    """Rank ``data``'s queries in a brain ``index_beir`` filled, as ``run_beir`` does (top
    100, no floors or gate); ``embedder`` is the brain's."""
    return _run_plan(brain, QueryMemo(embedder), data, plan, [])


def run_beir(
    data: BeirData,
    plans: Sequence[SearchPlan],
    embedder: Embedder,
    *,
    source: str = "",
    out: Path | None = None,
    cache: Path | None = None,
    progress: Progress | None = None,
) -> EvalReport:
    """Index ``data`` once (into ``cache``, reused while its key matches, else a temporary
    brain) and rank every query with every plan, deep (top 100) with neither floors nor
    gate; then ask it once more as shipped, for ``false_silence`` (every query has a
    relevant document). Per-query rows go to ``out`` as JSONL."""
    if not plans:
        raise InvalidInput("name at least one plan")
    if not data.queries:
        raise InvalidInput(f"no judged queries in the {data.split} split")
    out = out or default_results_path("beir")
    rows: list[dict[str, object]] = []
    summaries: list[PlanScores] = []
    memo = QueryMemo(embedder)
    notes = [_note(d) for d in data.corpus]
    key = index_key("beir", embedder, notes)
    with indexed_brain(cache, key, memo, _writer(notes, progress)) as (brain, built):
        if built.cached and progress is not None:
            progress(f"reusing the index in {cache}/{key}")
        for plan in plans:
            summaries.append(_run_plan(brain, memo, data, plan, rows))
            if progress is not None:
                progress(f"searched {len(data.queries)} queries with {plan.name}")
    write_jsonl(out, rows)
    corpus_ids = {d.id for d in data.corpus}
    missing = sum(1 for q in data.qrels.values() for d in q if d not in corpus_ids)
    info: dict[str, float | int | str] = {
        "split": data.split,
        "docs": len(data.corpus),
        "queries": len(data.queries),
        "index_s": built.index_s,
        "index_docs_per_s": len(data.corpus) / built.index_s if built.index_s > 0 else 0.0,
        "index_cached": int(built.cached),
        "judged_docs_not_in_corpus": missing,
        **{k: v for k, v in data.skipped.items() if v},
    }
    return EvalReport("beir", source, tuple(summaries), BEIR_COLUMNS, info, results_path=str(out))
