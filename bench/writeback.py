"""Write-back: what a run's end costs the runner (the acknowledgement) and what the pass
costs the worker, with the offline writer (no LLM).

    python -m bench.writeback [--runs 100] [--no-write]

- **Ack**: ``write_back`` of a run's products returns when its job is on disk (fsynced);
  the runner never waits on memory (fire and forget).
- **Pass**: one worker drains the backlog of passes: the writer's extraction and brain
  searches, the gate, the proposals' rows and the notes written straight in (each
  embedded and queued for derivation). Runs per second, and the proposals' fate.

Runs are the packaged write-back dev and held-out sets' products, cycled with a counter
so each run is new; the brain holds the notes those sets start from.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

if __package__ in (None, ""):  # run as a file: bench/ must not shadow the stdlib `http`
    sys.path[0] = str(Path(__file__).resolve().parent.parent)
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench._common import append_results, percentile
from orgbrain import Brain
from orgbrain.adapters.embed_minilm import MiniLMEmbedder
from orgbrain.jobs import WriteBackJobs


def runs() -> list[dict[str, object]]:
    data = resources.files("orgbrain.evals.data")
    out = []
    for name in ("writeback_dev.jsonl", "writeback_heldout.jsonl"):
        text = data.joinpath(name).read_text()
        out += [json.loads(line) for line in text.splitlines() if line.strip()]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    records = runs()
    embedder = MiniLMEmbedder()
    with tempfile.TemporaryDirectory() as tmp, Brain.open(Path(tmp), embedder=embedder) as brain:
        for note in {n for r in records for n in r.get("brain", [])}:
            brain.add_note(note, wait="derived")
        acks = []
        for n, record in zip(range(args.runs), itertools.cycle(records), strict=False):
            products = {"run_id": f"bench-{n}", **dict(record["products"])}  # type: ignore[arg-type]
            t0 = time.perf_counter()
            brain.write_back(products)
            acks.append((time.perf_counter() - t0) * 1000)
        worker = brain.worker(handlers=[WriteBackJobs()])
        t0 = time.perf_counter()
        worker.drain()
        seconds = time.perf_counter() - t0
        fate: dict[str, int] = {}
        for p in brain.proposals(state=None, limit=500):
            fate[p.state] = fate.get(p.state, 0) + 1
    fates = ", ".join(f"{k} {v}" for k, v in sorted(fate.items()))
    ack = f"p50 {percentile(acks, 50):.1f} ms, p95 {percentile(acks, 95):.1f} ms"
    rate = f"{args.runs / seconds:.1f} runs/s ({seconds * 1000 / args.runs:.0f} ms a run)"
    body = f"""
{args.runs} runs (the packaged write-back dev and held-out sets' products, cycled), real
MiniLM, the offline writer (no chat model configured), one worker.

| measure | value |
|---|---|
| ack latency (`write_back`, job fsynced) | {ack} |
| passes (one worker, a backlog of {args.runs}) | {rate} |
| proposals | {fates} (repeated runs find their facts known) |

Command: `python -m bench.writeback --runs {args.runs}`.
"""
    print(body)
    if not args.no_write:
        append_results("Write-back", body)


if __name__ == "__main__":
    main()
