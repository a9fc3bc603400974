"""The loop's measure: what logging every search costs a search, and what ``stats`` costs
over a large log.

    python -m bench.loop [--notes 500] [--searches 200] [--events 100000] [--write]

- **Search, logged vs not**: the same searches through ``brain`` and
  ``brain.without_search_log()`` (what evaluations use), interleaved rounds, real MiniLM.
- **One search event**: ``log_event`` alone (one fsynced insert).
- **A span with no SDK**: ``telemetry.span`` when no tracer provider is set.
- **stats**: ``Brain.stats`` over a log of ``--events`` search events (plus gate and
  review events), for the whole log and for the last hour of it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

if __package__ in (None, ""):  # run as a file: bench/ must not shadow the stdlib `http`
    sys.path[0] = str(Path(__file__).resolve().parent.parent)
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench._common import append_results
from orgbrain import Brain, NoteInput
from orgbrain.adapters.embed_minilm import MiniLMEmbedder
from orgbrain.telemetry import span


def _per_call_ms(fn: object, n: int) -> float:
    assert callable(fn)
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) * 1000 / n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notes", type=int, default=500)
    ap.add_argument("--searches", type=int, default=200)
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--write", action="store_true", help="append to docs/benchmarks.md")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp, Brain.open(tmp, embedder=MiniLMEmbedder()) as b:
        b.add_notes(
            [
                NoteInput(f"Team {i} owns service {i} and its on-call rota number {i * 7}.")
                for i in range(args.notes)
            ]
        )
        quiet = b.without_search_log()
        queries = [f"who owns service {i}" for i in range(args.searches)]
        for q in queries[:20]:  # warm up both
            b.search(q)
            quiet.search(q)
        rounds: dict[str, list[float]] = {"logged": [], "not logged": []}
        for _ in range(3):
            for name, brain in (("logged", b), ("not logged", quiet)):
                t0 = time.perf_counter()
                for q in queries:
                    brain.search(q)
                rounds[name].append((time.perf_counter() - t0) * 1000 / len(queries))
        record = {"surface": "python", "spoke": True, "k": 5, "latency_ms": 3}
        log_ms = _per_call_ms(lambda: b.log_event("search", dict(record)), 300)

        def empty_span() -> None:
            with span("bench", {"a": 1}):
                pass

        span_us = _per_call_ms(empty_span, 10_000) * 1000
        for i in range(args.events):
            b.log_event(
                "search",
                {
                    "surface": ("http", "mcp", "inject")[i % 3],
                    "spoke": i % 4 != 0,
                    "latency_ms": 5 + i % 40,
                },
            )
        for i in range(args.events // 100):
            b.log_event("gate", {"decision": ("written", "inbox")[i % 2], "scope": "org"})
            b.log_event("review", {"outcome": "approved", "waited_s": 60.0 * i, "scope": "org"})
        whole = statistics.median(_per_call_ms(b.stats, 1) for _ in range(5))
        hour = statistics.median(
            _per_call_ms(lambda: b.stats(since=timedelta(hours=1)), 1) for _ in range(5)
        )
        recent = statistics.median(
            _per_call_ms(lambda: b.stats(since=timedelta(seconds=1)), 1) for _ in range(5)
        )
    logged, unlogged = min(rounds["logged"]), min(rounds["not logged"])
    body = f"""
{args.notes} notes, real MiniLM, {args.searches} searches a round, best of 3 rounds.

| measure | value |
|---|---|
| a search, logged (`brain.search`) | {logged:.2f} ms |
| a search, not logged (`without_search_log`, evaluations) | {unlogged:.2f} ms |
| one `search` event (`log_event`, fsynced) | {log_ms:.3f} ms |
| a span with no SDK installed | {span_us:.1f} µs |
| `stats()` over {args.events:,} search events, all of them | {whole:.0f} ms |
| `stats(since=1h)`: every event in the window | {hour:.0f} ms |
| `stats(since=1s)`: a window of few events (the index at work) | {recent:.1f} ms |

Command: `python -m bench.loop --events {args.events}`.
"""
    print(body)
    if args.write:
        append_results("The loop's measure", body)


if __name__ == "__main__":
    main()
