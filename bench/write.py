"""Acknowledged note writes: latency of `Brain.add_note` until fsynced, 1 and 4 writers.

    python -m bench.write [--notes 200] [--no-write]

Two embedders: the real MiniLM (what a user waits for) and a constant one (storage
only: the SQLite WAL commit with synchronous=FULL).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

if __package__ in (None, ""):  # run as a file: bench/ must not shadow the stdlib `http`
    sys.path[0] = str(Path(__file__).resolve().parent.parent)
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from bench._common import append_results, percentile, scifact_texts
from orgbrain import Brain
from orgbrain.adapters.embed_minilm import MiniLMEmbedder
from orgbrain.ports import Embedder, Vector


class ConstantEmbedder:
    """The storage side of a write, with no model's cost: one fixed vector. ``name`` is the
    embedding space it stands in for: a brain records its space and refuses another."""

    dim = 384

    def __init__(self, name: str = "constant") -> None:
        self.name = name

    def embed(self, texts: Sequence[str]) -> Vector:
        out = np.zeros((len(texts), 384), dtype=np.float32)
        out[:, 0] = 1.0
        return out


def run(embedder: Embedder, texts: list[str], writers: int) -> tuple[list[float], float]:
    latencies: list[float] = []
    lock = threading.Lock()
    with tempfile.TemporaryDirectory() as tmp, Brain.open(tmp, embedder=embedder) as brain:
        share = [texts[i::writers] for i in range(writers)]

        def work(mine: list[str]) -> None:
            for text in mine:
                t = time.perf_counter()
                brain.add_note(text)
                dt = (time.perf_counter() - t) * 1000
                with lock:
                    latencies.append(dt)

        threads = [threading.Thread(target=work, args=(s,)) for s in share]
        t0 = time.perf_counter()
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        elapsed = time.perf_counter() - t0
    return latencies, len(texts) / elapsed


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notes", type=int, default=200)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    texts = [f"{t}. {body[:300]}" for t, body in scifact_texts(args.notes)]
    minilm = MiniLMEmbedder()
    minilm.embed(["warm up"])
    rows = ["| embedder | writers | p50 ms | p95 ms | writes/s |", "|---|---|---|---|---|"]
    for label, emb in (("constant (storage only)", ConstantEmbedder()), ("MiniLM", minilm)):
        for writers in (1, 4):
            lat, rate = run(emb, texts, writers)
            row = (
                f"| {label} | {writers} | {percentile(lat, 50):.1f} | "
                f"{percentile(lat, 95):.1f} | {rate:.0f} |"
            )
            rows.append(row)
            print(row, flush=True)
    body = "\n".join(
        [
            f"{len(texts)} notes of ~300 characters (real SciFact text); each `add_note` "
            "returns after its transaction is fsynced (WAL, synchronous=FULL). Writers are "
            "threads sharing one Brain.",
            "",
            *rows,
            "",
            f"Command: `python -m bench.write --notes {args.notes}`.",
        ]
    )
    if not args.no_write:
        append_results("Note writes (acknowledged, fsynced)", body)


if __name__ == "__main__":
    main()
