"""The measurements ``bench/backends.py`` takes on each backend, interleaved: the same
inputs go to both sides in alternating order, so a burst of load on the shared machine
lands on both."""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
from numpy.typing import NDArray
from pgvector.psycopg import register_vector
from psycopg.rows import dict_row

from bench._common import percentile
from bench._synth import WORKSPACE
from bench.index import index_folder, indexer_texts
from bench.write import ConstantEmbedder
from orgbrain import Brain, Principal
from orgbrain.adapters.postgres import PostgresStore
from orgbrain.adapters.postgres.db import Connection
from orgbrain.adapters.postgres.vectors import approximate_sql, ef_search_for
from orgbrain.adapters.sqlite import SQLiteStore
from orgbrain.evals.beir import BeirData, index_beir, score_beir
from orgbrain.evals.report import PlanScores
from orgbrain.indexer import embed_texts
from orgbrain.ports import Embedder, Store
from orgbrain.retrieve.plan import get_plan
from orgbrain.scopes import Visibility
from orgbrain.settings import Settings

__all__ = [
    "READER",
    "Side",
    "alternate",
    "fresh_folder",
    "index_throughput",
    "note_writes",
    "scifact_bm25",
    "search_latency",
    "vector_recall",
]

READER = Principal(WORKSPACE, "alice", frozenset({"eng"}))
"""Who searches: a team:eng member, so every stream filters by scope (org, team:eng and
user:alice visible; user:someone hidden)."""
K = 50


@dataclass
class Side:
    """One backend: a brain folder (SQLite) or a PostgreSQL URL with a folder for blobs."""

    name: str
    target: str | Path
    folder: Path

    def open(self, embedder: Embedder, **settings: Any) -> Brain:
        """A brain over this side, with these ``Settings`` fields changed."""
        s = Settings(brain=self.folder, **settings)
        return Brain.open(self.target, embedder=embedder, settings=s, workspace=WORKSPACE)

    def store(self) -> Store:
        if isinstance(self.target, str):
            return PostgresStore(self.target)
        return SQLiteStore(self.target / "brain.sqlite")


def alternate(i: int, sides: Sequence[object]) -> list[int]:
    """The order to visit ``sides`` in on the ``i``-th input: turn about."""
    order = list(range(len(sides)))
    return order if i % 2 == 0 else order[::-1]


@dataclass
class Latency:
    ms: list[float] = field(default_factory=list)
    stages: dict[str, list[float]] = field(default_factory=dict)

    def p(self, q: float) -> float:
        return percentile(self.ms, q)

    def shares(self) -> str:
        total = statistics.fmean(self.ms)
        share = {s: statistics.fmean(v) / total for s, v in self.stages.items() if s != "total"}
        ranked = sorted(share.items(), key=lambda kv: -kv[1])
        return ", ".join(f"{k} {v:.0%}" for k, v in ranked if v >= 0.005)


@contextmanager
def _brains(sides: Sequence[Side], embedder: Embedder) -> Iterator[list[Brain]]:
    with ExitStack() as stack:
        yield [stack.enter_context(side.open(embedder)) for side in sides]


def search_latency(
    sides: Sequence[Side], embedder: Embedder, queries: Sequence[str]
) -> list[Latency]:
    """Each query searched by the reader on every side in turn; query embedding included."""
    out = [Latency() for _ in sides]
    with _brains(sides, embedder) as owners:
        readers = [o.for_principal(READER) for o in owners]
        for r in readers:  # first searches load what each side keeps in memory
            for q in queries[:3]:
                r.search(q)
        for i, q in enumerate(queries):
            for s in alternate(i, sides):
                t = time.perf_counter()
                result = readers[s].search(q)
                out[s].ms.append((time.perf_counter() - t) * 1000)
                for stage, ms in result.timings_ms.items():
                    out[s].stages.setdefault(stage, []).append(ms)
    return out


# -- vectors ------------------------------------------------------------------------------


@dataclass
class Recall:
    recall: list[float] = field(default_factory=list)
    short: int = 0
    ms: list[float] = field(default_factory=list)
    exact_fallback: int = 0  # PostgreSQL: the HNSW read came back short, answered exactly


FILTERS: dict[str, tuple[Visibility, Callable[[NDArray[np.str_]], NDArray[np.bool_]]]] = {
    "none (owner)": (Visibility.everything(), lambda s: np.ones(len(s), dtype=bool)),
    "team:eng member (~90% visible)": (
        READER.visibility,
        lambda s: s != "user:someone",
    ),
    "team:eng only (~10% visible)": (
        Visibility(frozenset({"team:eng"})),
        lambda s: s == "team:eng",
    ),
    "team:legal only (~1% visible)": (
        Visibility(frozenset({"team:legal"})),
        lambda s: s == "team:legal",
    ),
}


def exact_top(x: NDArray[np.float32], q: NDArray[np.float32], mask: NDArray[np.bool_]) -> set[int]:
    scores = np.where(mask, x @ q, -np.inf)
    top = np.argpartition(-scores, K)[:K]
    return {int(i) for i in top}


def vector_recall(
    sides: Sequence[Side],
    ids: Sequence[str],
    scopes: NDArray[np.str_],
    x: NDArray[np.float32],
    qvecs: NDArray[np.float32],
) -> dict[str, list[Recall]]:
    """``Store.vector_search`` top 50 of the section class on each side under each scope
    filter, against exact float32 search over the same rows (``x``, ``ids``)."""
    position = {sid: n for n, sid in enumerate(ids)}
    masks = {name: fn(scopes) for name, (_, fn) in FILTERS.items()}
    truths = {name: [exact_top(x, q, m) for q in qvecs] for name, m in masks.items()}
    stores = [side.store() for side in sides]
    direct = [_connect(side) for side in sides]
    out: dict[str, list[Recall]] = {name: [Recall() for _ in sides] for name in FILTERS}
    try:
        for st in stores:
            st.vector_search(WORKSPACE, "section", qvecs[0], K, Visibility.everything())
        for name, (vis, _) in FILTERS.items():
            for i, q in enumerate(qvecs):
                for s in alternate(i, sides):
                    t = time.perf_counter()
                    got = stores[s].vector_search(WORKSPACE, "section", q, K, vis)
                    out[name][s].ms.append((time.perf_counter() - t) * 1000)
                    found = {position.get(item_id, -1) for item_id, _ in got}
                    out[name][s].recall.append(len(found & truths[name][i]) / K)
                    out[name][s].short += len(got) < K
                    conn = direct[s]
                    if conn is not None:
                        out[name][s].exact_fallback += _hnsw_short(conn, q, vis)
    finally:
        for st in stores:
            st.close()
        for conn in direct:
            if conn is not None:
                conn.close()
    return out


def _connect(side: Side) -> Connection | None:
    if not isinstance(side.target, str):
        return None
    conn = psycopg.connect(side.target, autocommit=True, row_factory=dict_row)
    register_vector(conn)
    return conn


def _hnsw_short(conn: Connection, q: NDArray[np.float32], vis: Visibility) -> bool:
    """Whether ``vector_search`` answered exactly: the reader's estimated share was too
    small for any HNSW read (``ef_search_for``), or the HNSW read it made, with the
    ``hnsw.ef_search`` it chose and 2·limit rows, held fewer than ``limit`` visible
    items."""
    params: dict[str, object] = {"ws": WORKSPACE, "q": q, "rows": 2 * K}
    if vis.scopes is not None:
        params["scopes"] = sorted(vis.scopes)
    filtered = vis.scopes is not None
    sql = approximate_sql(len(q), "section", filtered=filtered)
    with conn.transaction():
        ef = ef_search_for(conn, "section", filtered, params, K)
        if ef is None:
            return True
        conn.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(ef),))
        rows = conn.execute(sql, params).fetchall()
    return len({r["item_pk"] for r in rows}) < K


# -- writes -------------------------------------------------------------------------------


def _write_block(brain: Brain, texts: Sequence[str], writers: int) -> tuple[list[float], float]:
    latencies: list[float] = []
    lock = threading.Lock()

    def work(mine: Sequence[str]) -> None:
        for text in mine:
            t = time.perf_counter()
            brain.add_note(text)
            dt = (time.perf_counter() - t) * 1000
            with lock:
                latencies.append(dt)

    threads = [threading.Thread(target=work, args=(texts[i::writers],)) for i in range(writers)]
    t0 = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return latencies, len(texts) / (time.perf_counter() - t0)


def note_writes(
    sides: Sequence[Side], embedder: Embedder, texts: Sequence[str], writers: int
) -> list[tuple[list[float], float]]:
    """``add_note`` latency (until the write is durable) on each side, ``writers`` threads
    sharing one Brain; the notes in two halves, the sides taking turns first."""
    out: list[tuple[list[float], list[float]]] = [([], []) for _ in sides]
    half = len(texts) // 2
    with _brains(sides, embedder) as brains:
        for n, part in enumerate((texts[:half], texts[half:])):
            for s in alternate(n, sides):
                lat, rate = _write_block(brains[s], part, writers)
                out[s][0].extend(lat)
                out[s][1].append(rate)
    return [(lat, statistics.fmean(rates)) for lat, rates in out]


# -- indexing and SciFact, on fresh brains -------------------------------------------------


def index_throughput(
    make_sides: Callable[[], list[Side]],
    embedder: Embedder,
    files: list[tuple[str, bytes]],
    rounds: int,
) -> tuple[list[float], list[list[float]], int]:
    """Sections/s of the raw embedder and of add+``index_pending`` on each side (fresh
    brains each round, the order turning about); and the number of sections."""
    texts = indexer_texts(files)
    n_sections = len(texts) - len(files)
    raw: list[float] = []
    full: list[list[float]] = []
    embedder.embed(["warm up"] * 8)
    for r in range(rounds):
        t = time.perf_counter()
        embed_texts(embedder, texts, 100)
        raw.append(n_sections / (time.perf_counter() - t))
        sides = make_sides()
        full = full or [[] for _ in sides]
        for s in alternate(r, sides):
            with sides[s].open(embedder) as brain:
                t = time.perf_counter()
                index_folder(brain, files)
                full[s].append(n_sections / (time.perf_counter() - t))
                assert brain.counts()["section"] == n_sections
        print(
            f"index round {r + 1}: raw {raw[-1]:.1f}/s, "
            + ", ".join(f"{side.name} {f[-1]:.1f}/s" for side, f in zip(sides, full, strict=True)),
            flush=True,
        )
    return raw, full, n_sections


def scifact_bm25(
    sides: Sequence[Side], data: BeirData, extra: Sequence[tuple[str, dict[str, Any]]] = ()
) -> list[tuple[str, PlanScores, float]]:
    """BM25 on SciFact on each side: the corpus written as ``orgbrain eval beir`` writes it
    (vectors are constant: the plan reads none), every judged query ranked. ``extra``
    re-reads the first side under other settings (the FTS5 engine)."""
    embedder = ConstantEmbedder()
    plan = get_plan("bm25")
    out = []
    for side in sides:
        with side.open(embedder) as brain:
            t = time.perf_counter()
            index_beir(brain, data)
            built = time.perf_counter() - t
            scores = score_beir(brain.without_search_log(), data, plan, embedder)
        out.append((side.name, scores, built))
        print(f"scifact {side.name}: {scores.metrics}", flush=True)
    for name, settings in extra:
        with sides[0].open(embedder, **settings) as brain:
            scores = score_beir(brain.without_search_log(), data, plan, embedder)
        out.append((name, scores, float("nan")))
        print(f"scifact {name}: {scores.metrics}", flush=True)
    return out


def fresh_folder(prefix: str) -> Path:
    """A new folder under /tmp, open to PostgreSQL's own user (run as root)."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    folder.chmod(0o755)
    return folder
