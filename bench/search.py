"""Search latency in process, query embedding included: p50/p95 at N sections, and where the
time goes (embed, each stream, fuse).

    python -m bench.search [--sizes 10000,100000] [--queries 200] [--no-write]

The brain is synthetic but built from real text and real vectors (``bench/_synth.py``);
queries are SciFact claims, searched as a member of team:eng so scopes filter every stream.
Results are appended to docs/benchmarks.md under "Search latency".
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a file: bench/ must not shadow the stdlib `http`
    sys.path[0] = str(Path(__file__).resolve().parent.parent)
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from bench._common import append_results, peak_rss_mb, percentile
from bench._synth import WORKSPACE, build, queries, real_vectors
from orgbrain import Brain, Principal
from orgbrain.adapters.embed_minilm import MiniLMEmbedder


def measure(folder: Path, embedder: MiniLMEmbedder, qs: list[str]) -> dict[str, object]:
    with Brain.open(folder, embedder=embedder, workspace=WORKSPACE) as owner:
        brain = owner.for_principal(Principal(WORKSPACE, "alice", frozenset({"eng"})))
        brain.search("warm up the caches")  # first call loads the vector matrix
        totals: list[float] = []
        stages: dict[str, list[float]] = {}
        for q in qs:
            t = time.perf_counter()
            result = brain.search(q)
            totals.append((time.perf_counter() - t) * 1000)
            for stage, ms in result.timings_ms.items():
                stages.setdefault(stage, []).append(ms)
    share = {
        s: statistics.fmean(v) / statistics.fmean(totals) for s, v in stages.items() if s != "total"
    }
    return {"p50": percentile(totals, 50), "p95": percentile(totals, 95), "share": share}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--real", type=int, default=3000, help="real sentences to embed once")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    texts, base = real_vectors(args.real)
    qs = queries()[: args.queries]
    embedder = MiniLMEmbedder()
    rows = ["| sections | p50 ms | p95 ms | time share by stage |", "|---|---|---|---|"]
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            build_s = build(Path(tmp), n, texts, base)
            r = measure(Path(tmp), embedder, qs)
        share = r["share"]
        assert isinstance(share, dict)
        stages = ", ".join(f"{k} {v:.0%}" for k, v in sorted(share.items(), key=lambda kv: -kv[1]))
        row = f"| {n:,} | {r['p50']:.1f} | {r['p95']:.1f} | {stages} |"
        rows.append(row)
        print(row, f"(built in {build_s:.0f} s)", flush=True)
    body = "\n".join(
        [
            f"{len(qs)} SciFact claims against synthetic brains built from real text and "
            "vectors; in process, one thread, query embedding included; the reader is a "
            "team:eng member, so scope filters apply in every stream.",
            "",
            *rows,
            "",
            f"Peak RSS {peak_rss_mb():.0f} MB. Target at 100k: p50 <= 40 ms, p95 <= 80 ms. "
            f"Command: `python -m bench.search --sizes {args.sizes}`.",
        ]
    )
    if not args.no_write:
        append_results("Search latency", body)


if __name__ == "__main__":
    main()
