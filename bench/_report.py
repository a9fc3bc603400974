"""What ``bench/backends.py`` measured, and the tables it writes to docs/benchmarks.md."""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from bench._common import percentile
from bench._hnsw import FILTER, Sweep, sweep_rows
from bench._pg import SETTINGS
from bench._sides import FILTERS, Latency, Recall
from orgbrain.evals.report import PlanScores

__all__ = ["Built", "Results", "recall_rows", "render", "search_rows", "write_rows"]

SIDES = ("SQLite", "PostgreSQL")
Writes = list[tuple[str, int, list[tuple[list[float], float]]]]


@dataclass
class Built:
    """One size's brain on both sides, and the sections' vectors for exact search."""

    n: int
    sqlite: Path
    pg_url: str
    sqlite_s: float
    pg_steps: dict[str, float]
    ids: list[str]
    scopes: NDArray[np.str_]
    vectors: NDArray[np.float32]
    sqlite_mb: float
    pg_mb: float

    def summary(self) -> str:
        steps = ", ".join(f"{k} {v:.0f} s" for k, v in self.pg_steps.items())
        return (
            f"| {self.n:,} | SQLite: `put_items` in batches of 5,000, {self.sqlite_s:.0f} s "
            f"(file {self.sqlite_mb:,.0f} MB) | PostgreSQL: {sum(self.pg_steps.values()):.0f} s"
            f" ({steps}; tables and indexes {self.pg_mb:,.0f} MB) |"
        )


@dataclass
class Results:
    sizes: list[int]
    command: str
    built: list[str] = field(default_factory=list)
    relations: dict[int, list[tuple[str, str, float]]] = field(default_factory=dict)
    search: dict[int, list[Latency]] = field(default_factory=dict)
    recall: dict[int, dict[str, list[Recall]]] = field(default_factory=dict)
    hnsw: dict[int, list[Sweep]] = field(default_factory=dict)
    writes: dict[int, Writes] = field(default_factory=dict)
    index: tuple[list[float], list[list[float]], int] | None = None
    scifact: list[tuple[str, PlanScores, float]] = field(default_factory=list)
    load: tuple[tuple[float, ...], tuple[float, ...]] = ((), ())
    rss_mb: float = 0.0


def relation_rows(relations: dict[int, list[tuple[str, str, float]]]) -> str:
    rows = ["| sections | relation | kind | MB |", "|---|---|---|---|"]
    for n, rels in relations.items():
        rows += [f"| {n:,} | {name} | {kind} | {mb:,.0f} |" for name, kind, mb in rels]
    return "\n".join(rows)


def search_rows(search: dict[int, list[Latency]]) -> str:
    rows = [
        "| sections | backend | p50 ms | p95 ms | time share by stage |",
        "|---|---|---|---|---|",
    ]
    for n, sides in search.items():
        rows += [
            f"| {n:,} | {name} | {lat.p(50):.1f} | {lat.p(95):.1f} | {lat.shares()} |"
            for name, lat in zip(SIDES, sides, strict=True)
        ]
    return "\n".join(rows)


def recall_rows(recall: dict[int, dict[str, list[Recall]]]) -> str:
    rows = [
        "| sections | scope filter | backend | recall@50 | 10th percentile | min | "
        "answers short of 50 | answered exactly | p50 ms | p95 ms |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for n, by_filter in recall.items():
        for name in FILTERS:
            for side, r in zip(SIDES, by_filter[name], strict=True):
                fallback = f"{r.exact_fallback}/{len(r.recall)}" if side == "PostgreSQL" else "-"
                rows.append(
                    f"| {n:,} | {name} | {side} | {statistics.fmean(r.recall):.4f} | "
                    f"{percentile(r.recall, 10):.2f} | {min(r.recall):.2f} | "
                    f"{r.short}/{len(r.recall)} | {fallback} | "
                    f"{percentile(r.ms, 50):.1f} | {percentile(r.ms, 95):.1f} |"
                )
    return "\n".join(rows)


def write_rows(writes: dict[int, Writes]) -> str:
    rows = [
        "| sections in the brain | embedder | writers | backend | p50 ms | p95 ms | writes/s |",
        "|---|---|---|---|---|---|---|",
    ]
    for n, configs in writes.items():
        for label, writers, sides in configs:
            for side, (lat, rate) in zip(SIDES, sides, strict=True):
                rows.append(
                    f"| {n:,} | {label} | {writers} | {side} | {percentile(lat, 50):.1f} | "
                    f"{percentile(lat, 95):.1f} | {rate:.0f} |"
                )
    return "\n".join(rows)


def index_rows(index: tuple[list[float], list[list[float]], int]) -> str:
    raw, full, n_sections = index
    best_raw = max(raw)
    rows = [
        f"{n_sections} sections (~1000 characters of real SciFact text) in text files, best "
        f"of {len(raw)} rounds on fresh brains, the raw embedder (`embed_texts`, batches of "
        "100) and both sides taking turns.",
        "",
        "| path | sections/s | ratio to raw |",
        "|---|---|---|",
        f"| raw embedder | {best_raw:.1f} | 1.000 |",
    ]
    rows += [
        f"| add every file, then `index_pending`: {side} | {max(f):.1f} | {max(f) / best_raw:.3f} |"
        for side, f in zip(SIDES, full, strict=True)
    ]
    return "\n".join(rows)


def scifact_rows(scifact: list[tuple[str, PlanScores, float]]) -> str:
    rows = [
        "| keyword engine | nDCG@10 | recall@100 | MRR@10 | search p50 ms | search p95 ms | "
        "corpus written in s |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, scores, built in scifact:
        m = scores.metrics
        written = "-" if built != built else f"{built:.0f}"
        rows.append(
            f"| {name} | {m['ndcg@10']:.4f} | {m['recall@100']:.4f} | {m['mrr@10']:.4f} | "
            f"{m['search_p50_ms']:.1f} | {m['search_p95_ms']:.1f} | {written} |"
        )
    return "\n".join(rows)


def _load(values: tuple[float, ...]) -> str:
    return " ".join(f"{v:.1f}" for v in values)


def render(r: Results) -> str:
    settings = ", ".join(f"{k}={v}" for k, v in SETTINGS.items())
    parts = [
        f"`{r.command}`. One process drives both backends; PostgreSQL 16 with pgvector 0.6 "
        f"from the `pgserver` wheel on the same machine, over a Unix socket ({settings}; "
        "fsync and synchronous_commit on). Load average (1, 5, 15 min) "
        f"{_load(r.load[0])} at the start, {_load(r.load[1])} at the end: the two cores are "
        "shared with other work, so compare rows of this run, not runs.",
    ]
    if r.built:
        parts += [
            "",
            "**Build.** The same generated sections and vectors go to both sides "
            "(`bench/_synth.py`: real SciFact sentences and their MiniLM vectors, the rest "
            "a noisy mixture of two of them, text and vector; files of 20 sections, 80% "
            "org, 10% team:eng, 9% another user's, 1% team:legal).",
            "",
            "| sections | embedded | server |",
            "|---|---|---|",
            *r.built,
        ]
    if r.relations:
        parts += [
            "",
            "**PostgreSQL's tables and indexes** after the build (`pg_relation_size`; a "
            "table's TOAST included), the largest first:",
            "",
            relation_rows(r.relations),
        ]
    if r.search:
        parts += [
            "",
            "**Search**, `Brain.search` as a team:eng member (scope filters in every stream), "
            "default plan, query embedding included, the sides taking turns per query "
            "(SciFact claims).",
            "",
            search_rows(r.search),
        ]
    if r.recall:
        parts += [
            "",
            "**Vector recall@50 under scope filters**: `Store.vector_search` of the section "
            "class against exact float32 search over the same vectors and the same filter. "
            "SQLite scans int8 and rescores in float32 above 8,192 visible rows; PostgreSQL "
            "reads through the class's HNSW index (100 rows, `hnsw.ef_search` 1.5 times 50 "
            "over the planner's estimate of the share the reader sees, at least 200) and "
            "answers exactly, through the covering btree of the visible rows, when that "
            "would need ef_search past 1,000 or the read holds fewer than 50 visible items "
            '("answered exactly").',
            "",
            recall_rows(r.recall),
        ]
    if r.hnsw:
        parts += [
            "",
            "**PostgreSQL's HNSW read alone** (`approximate_sql`: 100 rows, no exact "
            f"fallback), {FILTER}, as `hnsw.ef_search` grows (index built with pgvector's "
            "defaults, m 16, ef_construction 64):",
            "",
            sweep_rows(r.hnsw),
        ]
    if r.writes:
        parts += [
            "",
            "**Note writes**: `add_note` until the write is durable, into the brain above; "
            "threads share one Brain; the sides take turns by halves.",
            "",
            write_rows(r.writes),
        ]
    if r.index is not None:
        parts += ["", "**Index throughput.** " + index_rows(r.index)]
    if r.scifact:
        parts += [
            "",
            "**BM25 on SciFact** (train split, 5,183 abstracts, 809 claims): the corpus "
            "written as notes and ranked with the `bm25` plan (top 100, no floors) by "
            "`orgbrain.evals.beir` (`index_beir`, `score_beir`); vectors constant, the plan "
            "reads none.",
            "",
            scifact_rows(r.scifact),
        ]
    parts += ["", f"Peak RSS of the bench process {r.rss_mb:,.0f} MB."]
    return "\n".join(parts)
