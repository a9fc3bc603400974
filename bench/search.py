"""Search latency in process, query embedding included: p50/p95 at N sections, and where the
time goes (embed, each stream, fuse).

    python -m bench.search [--sizes 10000,100000] [--queries 200] [--no-write]
    python -m bench.search --sizes 100000 --depths 500,200,100 [--approx]
    python -m bench.search --sizes 1000000 --keyword-depths 500,300,200,100

The brain is synthetic but built from real text and real vectors (``bench/_synth.py``);
queries are SciFact claims, searched as a member of team:eng so scopes filter every stream.
``--depths`` searches the default plan at each list depth (``per_stream``) in turn on every
query, the order rotating, so that load on the shared machine lands on each alike; it
reports each depth's p50/p95, its ratio to the first depth and the mean milliseconds by
stage. ``--keyword-depths`` does the same with the keyword streams' depth alone
(``keyword_depth``), the vector streams read as the plan reads them. ``--folder`` keeps (or
reuses) the built brain. Results are appended to docs/benchmarks.md under "Search latency".
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

if __package__ in (None, ""):  # run as a file: bench/ must not shadow the stdlib `http`
    sys.path[0] = str(Path(__file__).resolve().parent.parent)
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from bench._common import append_results, peak_rss_mb, percentile
from bench._synth import WORKSPACE, build, queries, real_vectors
from orgbrain import Brain, Principal
from orgbrain.adapters.embed_minilm import MiniLMEmbedder
from orgbrain.retrieve.plan import SearchPlan, get_plan

READER = Principal(WORKSPACE, "alice", frozenset({"eng"}))


def _load() -> str:
    return "/".join(f"{v:.1f}" for v in os.getloadavg())


def warm(owner: Brain, brain: Brain, plans: list[SearchPlan | None]) -> None:
    """The first search loads the indexes and, on a large shelf, starts building the
    approximate vector tier in the background: wait for it, so that the figures are the
    steady state's (the build's own time is printed)."""
    for plan in plans:
        brain.search("warm up the caches", plan=plan)
    t = time.perf_counter()
    settle = getattr(owner._ctx.store, "settle_vectors", None)
    if settle is not None and settle():
        waited = time.perf_counter() - t
        if waited > 0.5:
            print(f"waited {waited:.0f} s for the approximate vector tier", flush=True)
        for plan in plans:
            brain.search("warm up the caches", plan=plan)


def measure(folder: Path, embedder: MiniLMEmbedder, qs: list[str]) -> dict[str, object]:
    with Brain.open(folder, embedder=embedder, workspace=WORKSPACE) as owner:
        brain = owner.for_principal(READER)
        warm(owner, brain, [None])
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


def interleave(
    folder: Path, embedder: MiniLMEmbedder, qs: list[str], plans: list[SearchPlan]
) -> list[tuple[list[float], dict[str, list[float]]]]:
    """Each query through every plan, the order rotating by query: (totals, stages) per plan."""
    out: list[tuple[list[float], dict[str, list[float]]]] = [([], {}) for _ in plans]
    with Brain.open(folder, embedder=embedder, workspace=WORKSPACE) as owner:
        brain = owner.for_principal(READER)
        warm(owner, brain, list(plans))
        for i, q in enumerate(qs):
            for j in range(len(plans)):
                p = (i + j) % len(plans)
                t = time.perf_counter()
                result = brain.search(q, plan=plans[p])
                out[p][0].append((time.perf_counter() - t) * 1000)
                for stage, ms in result.timings_ms.items():
                    out[p][1].setdefault(stage, []).append(ms)
    return out


def depth_rows(n: int, plans: list[SearchPlan], runs: list[tuple[list[float], dict]]) -> list[str]:
    base50 = percentile(runs[0][0], 50)
    rows = []
    for plan, (totals, stages) in zip(plans, runs, strict=True):
        p50 = percentile(totals, 50)
        means = sorted(
            ((s, statistics.fmean(v)) for s, v in stages.items() if s != "total"),
            key=lambda kv: -kv[1],
        )
        spent = ", ".join(f"{s} {ms:.1f}" for s, ms in means if ms >= 0.05)
        rows.append(
            f"| {n:,} | {plan.per_stream} | {plan.depth('keyword')} | {p50:.1f} "
            f"| {percentile(totals, 95):.1f} "
            f"| {p50 / base50:.2f} | {spent} |"
        )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--real", type=int, default=3000, help="real sentences to embed once")
    ap.add_argument("--depths", help="comma-separated list depths, interleaved (default plan)")
    ap.add_argument("--keyword-depths", help="the same, rotating the keyword streams' depth")
    ap.add_argument("--folder", type=Path, help="keep the built brain here (reused if there)")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    texts, base = real_vectors(args.real)
    qs = queries()[: args.queries]
    embedder = MiniLMEmbedder()
    depths = [int(d) for d in args.depths.split(",")] if args.depths else []
    plans = [replace(get_plan(), per_stream=d) for d in depths]
    if args.keyword_depths:
        depths = [int(d) for d in args.keyword_depths.split(",")]
        plans = [replace(get_plan(), keyword_depth=d) for d in depths]
    if depths:
        rows = [
            "| sections | per_stream | keyword depth | p50 ms | p95 ms | p50 / first "
            "| mean ms by stage |",
            "|---|---|---|---|---|---|---|",
        ]
    else:
        rows = ["| sections | p50 ms | p95 ms | time share by stage |", "|---|---|---|---|"]
    loads: list[str] = []
    for n in sizes:
        with tempfile.TemporaryDirectory() as tmp:
            folder = (args.folder / str(n)) if args.folder else Path(tmp)
            if not (folder / "brain.sqlite").exists():
                folder.mkdir(parents=True, exist_ok=True)
                print(f"built {n:,} in {build(folder, n, texts, base):.0f} s", flush=True)
            loads.append(f"{n:,}: {_load()} before")
            if depths:
                new = depth_rows(n, plans, interleave(folder, embedder, qs, plans))
            else:
                r = measure(folder, embedder, qs)
                share = r["share"]
                assert isinstance(share, dict)
                stages = ", ".join(
                    f"{k} {v:.0%}" for k, v in sorted(share.items(), key=lambda kv: -kv[1])
                )
                new = [f"| {n:,} | {r['p50']:.1f} | {r['p95']:.1f} | {stages} |"]
            loads[-1] += f", {_load()} after"
        rows += new
        print("\n".join(new), f"(load {loads[-1]})", flush=True)
    rotated = f"--depths {args.depths}" if args.depths else ""
    if args.keyword_depths:
        rotated = f"--keyword-depths {args.keyword_depths}"
    what = (
        f"the default plan at list depths ({rotated}), interleaved query by query"
        if depths
        else "the default plan"
    )
    body = "\n".join(
        [
            f"{len(qs)} SciFact claims against synthetic brains built from real text and "
            f"vectors, {what}; in process, one thread, query embedding included; the reader "
            "is a team:eng member, so scope filters apply in every stream.",
            "",
            *rows,
            "",
            f"Load average (1/5/15 min) {'; '.join(loads)}. Peak RSS {peak_rss_mb():.0f} MB. "
            "Target at 1M: p50 <= 40 ms, p95 <= 80 ms. "
            f"Command: `python -m bench.search --sizes {args.sizes}"
            + (f" {rotated}`." if depths else "`."),
        ]
    )
    if not args.no_write:
        append_results("Search latency", body)


if __name__ == "__main__":
    main()
