"""Search latency while a bulk index embeds, in one process (the server's shape).

    python -m bench.search_under_index [--seconds 20] [--notes 2000]

A thread embeds batches of 100 section-sized texts without pause (what indexing a big
upload does), while the main thread searches a brain of ``--notes`` notes, one query after
another. Reported: search p50 and p99 (query embedding included) with no background work,
and under the bulk index with the embedder as shipped (a query runs beside a batch) and
with every call taking the batch's turn (``small_call=0``: what every search paid before).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a file: bench/ must not shadow the stdlib `http`
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from orgbrain import Brain, NoteInput
from orgbrain.adapters.embed_minilm import MiniLMEmbedder

QUESTIONS = [
    "who owns the billing migration?",
    "when do deploys freeze?",
    "what does the on-call rota say about weekends?",
    "which database did we choose for payments?",
]
SECTION = "The platform team decided to move the billing service to a new database. " * 14


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def measure(brain: Brain, seconds: float, bulk: MiniLMEmbedder | None) -> list[float]:
    stop = threading.Event()

    def index_forever() -> None:
        assert bulk is not None
        while not stop.is_set():
            bulk.embed([SECTION] * 100)

    worker = threading.Thread(target=index_forever, daemon=True) if bulk else None
    if worker:
        worker.start()
        time.sleep(1.0)  # the first batch is under way
    took: list[float] = []
    end = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < end:
        t = time.perf_counter()
        brain.search(QUESTIONS[n % len(QUESTIONS)], plan="hybrid")
        took.append((time.perf_counter() - t) * 1000)
        n += 1
    stop.set()
    if worker:
        worker.join()
    return took


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--notes", type=int, default=2000)
    args = ap.parse_args()
    rows = []
    for label, small_call in (("as shipped (a query runs beside a batch)", 4), ("serial", 0)):
        embedder = MiniLMEmbedder(small_call=small_call)
        with tempfile.TemporaryDirectory() as tmp, Brain.open(tmp, embedder=embedder) as brain:
            brain.add_notes(
                [
                    NoteInput(f"Note {i}: team {i % 40} owns system {i % 97}.")
                    for i in range(args.notes)
                ]
            )
            quiet = measure(brain, args.seconds / 2, None)
            loaded = measure(brain, args.seconds, embedder)
        rows.append((label, quiet, loaded))
    print(f"search latency, ms (hybrid plan, {args.notes} notes, query embedding included)")
    print("embedder                                   quiet p50/p99   under bulk index p50/p99")
    for label, quiet, loaded in rows:
        print(
            f"{label:42} {statistics.median(quiet):6.1f} / {percentile(quiet, 99):6.1f}"
            f"   {statistics.median(loaded):8.1f} / {percentile(loaded, 99):8.1f}"
            f"   ({len(loaded)} searches)"
        )


if __name__ == "__main__":
    main()
