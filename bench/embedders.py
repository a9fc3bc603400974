"""The embedders a user can pick, through their adapters as the brain calls them: MiniLM
(numpy, the default) and multilingual e5 (``ORGBRAIN_EMBEDDER=e5``, the ``e5`` extra).

Not a test and not run by CI. A small sample by default (a shared 2-core box, and e5 is
the slower of the two):

    python -m bench.embedders             # 64 texts of ~1000 characters, 40 queries
    python -m bench.embedders --quick     # smoke run

Documents go through ``embed`` in one call (as the indexer does: its batches of 100),
queries one at a time through ``embed_query`` (as a search does). The adapters are
measured in interleaved rounds and each figure is the median of the rounds, so that a
neighbour's load drifting during the run hits both alike; CPU time is all the process's
threads'. ``bench/embed_backends.py`` compares ways of running MiniLM itself.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a file: bench/ must not shadow the stdlib `http`
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench.embed_backends import QUERIES, cpu_model, make_text, usable_cores
from orgbrain.adapters.embed_e5 import E5Embedder
from orgbrain.adapters.embed_minilm import MiniLMEmbedder
from orgbrain.ports import QueryEmbedder


def measure(
    embedder: QueryEmbedder, texts: list[str], queries: list[str]
) -> tuple[float, float, float, float]:
    """(docs/s wall, docs per CPU-s, query ms wall p50, query ms CPU p50)."""
    c, t = time.process_time(), time.perf_counter()
    embedder.embed(texts)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    walls, cpus = [], []
    for q in queries:
        c, t = time.process_time(), time.perf_counter()
        embedder.embed_query(q)
        walls.append((time.perf_counter() - t) * 1000)
        cpus.append((time.process_time() - c) * 1000)
    return (
        len(texts) / wall,
        len(texts) / cpu,
        statistics.median(walls),
        statistics.median(cpus),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny smoke run")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--texts", type=int, default=64, help="documents per round")
    parser.add_argument("--chars", type=int, default=1000, help="characters per document")
    parser.add_argument("--queries", type=int, default=40, help="queries per round")
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.texts, args.queries = 1, 4, 4
    rng = random.Random(7)
    texts = [make_text(rng, args.chars) for _ in range(args.texts)]
    queries = [QUERIES[i % len(QUERIES)] + f" {i}" for i in range(args.queries)]
    embedders: dict[str, QueryEmbedder] = {"minilm": MiniLMEmbedder(), "e5": E5Embedder()}
    for e in embedders.values():
        e.embed(["warm up"])
        e.embed_query("warm up")
    rows: dict[str, list[tuple[float, float, float, float]]] = {k: [] for k in embedders}
    for _ in range(args.rounds):
        for name, e in embedders.items():
            rows[name].append(measure(e, texts, queries))
    print(
        f"{cpu_model()}, {usable_cores()} usable cores; {args.rounds} rounds of {args.texts} "
        f"~{args.chars}-char documents and {args.queries} queries; medians of the rounds"
    )
    print()
    print("| embedder | documents/s, wall / per CPU-s | one query, ms wall / CPU (p50) |")
    print("|---|---|---|")
    for name, got in rows.items():
        docs, docs_cpu, q, q_cpu = (statistics.median(col) for col in zip(*got, strict=True))
        print(f"| {name} | {docs:.1f} / {docs_cpu:.1f} | {q:.1f} / {q_cpu:.1f} |")


if __name__ == "__main__":
    main()
