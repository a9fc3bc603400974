"""The SQLite store's approximate vector tier (an HNSW graph above ``APPROX_ABOVE`` rows in
a class) against its exact scan, on a brain already built by ``bench/search.py --folder``.

    python -m bench.vector_tier --folder /tmp/brains/1000000 [--queries 100] [--ef 128,256,512]

- **graph**: the first search's catch-up, then the graph's build (or load, when the file
  beside the database is there already), then a second store's load of that file.
- **recall**: ``Store.vector_search`` of the sections, top 50, under four scope filters
  (everything, ~90%, ~10%, ~1% visible), through the graph and through the exact scan
  (the same file opened with the tier off), against exact float32 search over the same
  rows; and top 500, what the default plan reads, for the ~90% reader.
- **ef**: recall and latency of the graph read as its least ``expansion_search`` varies.

Prints a Markdown block (for docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a file: bench/ must not shadow the stdlib `http`
    sys.path[0] = str(Path(__file__).resolve().parent.parent)
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np
from numpy.typing import NDArray

from bench._common import percentile
from bench._sides import FILTERS
from bench._synth import WORKSPACE, queries
from orgbrain.adapters.embed_minilm import MiniLMEmbedder
from orgbrain.adapters.sqlite import SQLiteStore
from orgbrain.adapters.sqlite import shelf as shelves
from orgbrain.scopes import Visibility

K = 50
F32 = NDArray[np.float32]


def rows_of(store: SQLiteStore) -> tuple[list[str], NDArray[np.str_], F32]:
    """The section shelf's ids, scopes and vectors, as the store holds them."""
    index = store._vectors[WORKSPACE]
    shelf = index._shelves[index._class_code["section"]]
    slots = np.flatnonzero(shelf.alive[: shelf.n])
    names = {code: scope for scope, code in index._scope_codes.items()}
    ids = [index._item_ids[int(k)] for k in shelf.keys[slots]]
    scopes = np.array([names[int(c)] for c in shelf.scopes[slots]])
    return ids, scopes, shelf.vectors[slots]


def visible(scopes: NDArray[np.str_], vis: Visibility) -> NDArray[np.bool_]:
    """The rows ``vis`` lets through (``bench._sides.FILTERS``' masks are near: its ~90%
    reader's also counts team:legal rows, which that reader may not see)."""
    if vis.scopes is None:
        return np.ones(len(scopes), dtype=bool)
    return np.isin(scopes, sorted(vis.scopes))


def truth(x: F32, qs: F32, mask: NDArray[np.bool_], k: int) -> list[set[int]]:
    out = []
    for q in qs:
        scores = np.where(mask, x @ q, -np.inf)
        out.append({int(i) for i in np.argpartition(-scores, k)[:k]})
    return out


def measure(
    store: SQLiteStore, qs: F32, vis: Visibility, want: list[set[int]], position: dict[str, int]
) -> tuple[list[float], list[float], int]:
    recalls, ms, short = [], [], 0
    for q, w in zip(qs, want, strict=True):
        t = time.perf_counter()
        got = store.vector_search(WORKSPACE, "section", q, K, vis)
        ms.append((time.perf_counter() - t) * 1000)
        short += len(got) < K
        recalls.append(len({position[i] for i, _ in got} & w) / K)
    return recalls, ms, short


def row(label: str, recalls: list[float], ms: list[float], short: int) -> str:
    return (
        f"| {label} | {statistics.fmean(recalls):.4f} | {percentile(recalls, 10):.2f} | "
        f"{min(recalls):.2f} | {sum(r == 1.0 for r in recalls) / len(recalls):.2f} | "
        f"{short}/{len(recalls)} | {percentile(ms, 50):.2f} | {percentile(ms, 95):.2f} |"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--folder", type=Path, required=True, help="holds brain.sqlite")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--ef", default="", help="least expansion_search values to sweep")
    ap.add_argument("--approx-above", type=int, default=shelves.APPROX_ABOVE, help="tier threshold")
    args = ap.parse_args()
    path = args.folder / "brain.sqlite"
    load = [f"{v:.1f}" for v in os.getloadavg()]
    qs = np.asarray(MiniLMEmbedder().embed(queries()[: args.queries]), dtype=np.float32)
    lines: list[str] = []

    tier = SQLiteStore(path, approx_above=args.approx_above)
    t = time.perf_counter()
    tier.vector_search(WORKSPACE, "section", qs[0], K, Visibility.everything())
    caught = time.perf_counter() - t
    t = time.perf_counter()
    tier.settle_vectors()
    tier.vector_search(WORKSPACE, "section", qs[0], K, Visibility.everything())
    made = time.perf_counter() - t
    rows = tier._vectors[WORKSPACE].graph_rows("section")
    files = sorted(path.parent.glob("brain.sqlite.hnsw-*"))
    mb = sum(f.stat().st_size for f in files) / 2**20
    again = SQLiteStore(path, approx_above=args.approx_above)
    again.vector_search(WORKSPACE, "section", qs[0], K, Visibility.everything())
    t = time.perf_counter()
    again.settle_vectors()
    again.vector_search(WORKSPACE, "section", qs[0], K, Visibility.everything())
    reload_s = time.perf_counter() - t
    again.close()
    lines += [
        f"Catch-up of the first search {caught:.1f} s; graph of {rows:,} vectors ready "
        f"{made:.0f} s later (built, or loaded if the file was there); files beside the "
        f"database {mb:,.0f} MB; a second store's load of them {reload_s:.1f} s.",
        "",
    ]

    exact = SQLiteStore(path, approx_above=10**12)
    exact.vector_search(WORKSPACE, "section", qs[0], K, Visibility.everything())
    ids, scopes, x = rows_of(exact)
    position = {sid: n for n, sid in enumerate(ids)}
    lines += [
        "| scope filter / path | recall@50 | 10th percentile | min | all 50 kept "
        "| answers short | p50 ms | p95 ms |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, (vis, _) in FILTERS.items():
        want = truth(x, qs, visible(scopes, vis), K)
        for label, store in (("exact scan", exact), ("HNSW tier", tier)):
            lines.append(row(f"{name}, {label}", *measure(store, qs, vis, want, position)))
            print(lines[-1], flush=True)
    # What the default plan asks: 500 rows; recall of the top 50 within them.
    vis, _ = FILTERS["team:eng member (~90% visible)"]
    want = truth(x, qs, visible(scopes, vis), K)
    for label, store in (("exact scan", exact), ("HNSW tier", tier)):
        recalls, ms = [], []
        for q, w in zip(qs, want, strict=True):
            t = time.perf_counter()
            got = store.vector_search(WORKSPACE, "section", q, 500, vis)
            ms.append((time.perf_counter() - t) * 1000)
            recalls.append(len({position[i] for i, _ in got[:K]} & w) / K)
        lines.append(row(f"team:eng member, top 500, {label}", recalls, ms, 0))
        print(lines[-1], flush=True)
    exact.close()
    for ef in [int(e) for e in args.ef.split(",") if e]:
        shelves.EXPANSION_SEARCH = ef  # type: ignore[misc]
        lines.append(
            row(
                f"team:eng member, HNSW at expansion_search {ef}",
                *measure(tier, qs, vis, want, position),
            )
        )
        print(lines[-1], flush=True)
    tier.close()
    end = [f"{v:.1f}" for v in os.getloadavg()]
    lines += [
        "",
        f"{len(qs)} SciFact claims (MiniLM), {len(ids):,} sections. Load average (1/5/15 min) "
        f"{' '.join(load)} at the start, {' '.join(end)} at the end. Command: "
        f"`python -m bench.vector_tier --folder {args.folder}"
        + (f" --ef {args.ef}`." if args.ef else "`."),
    ]
    print("\n".join(lines))


if __name__ == "__main__":
    main()
