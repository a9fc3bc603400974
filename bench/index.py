"""Index throughput: the full add+index path vs the raw embedder on the same texts.

    python -m bench.index [--files 60] [--rounds 2] [--no-write]

Prints sections/s of both and their ratio (target >= 0.85) and appends to
docs/benchmarks.md. Real SciFact abstracts are packed into text files so the flat chunker
cuts ~1000-character sections. The full path is what a user runs for a folder of files
(`orgbrain add DIR --index`): add every file, then `Brain.index_pending()`. The raw side
embeds the same texts with `embed_texts`; an untimed pass first checks that the indexer
hands the embedder exactly those passages.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):  # run as a file: bench/ must not shadow the stdlib `http`
    sys.path[0] = str(Path(__file__).resolve().parent.parent)
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np

from bench._common import append_results, peak_rss_mb, scifact_texts
from orgbrain import Brain
from orgbrain.adapters.embed_minilm import MiniLMEmbedder
from orgbrain.indexer import embed_texts, passages
from orgbrain.ingest import chunk, extract
from orgbrain.ports import Vector


def make_files(n: int, per_file: int = 8) -> list[tuple[str, bytes]]:
    docs = list(scifact_texts(n * per_file))
    files = []
    for i in range(n):
        part = docs[i * per_file : (i + 1) * per_file]
        text = "\n\n".join(f"{t}\n{body}" for t, body in part)
        files.append((f"bench{i:04d}.txt", text.encode()))
    return files


def indexer_texts(files: list[tuple[str, bytes]]) -> list[str]:
    """The texts the indexer embeds for these files (sections, then the file itself)."""
    texts: list[str] = []
    for name, data in files:
        ex = extract(data, "txt")
        texts += [f"{name}\n{c.text}" for c in chunk(ex)]
        texts.append(f"{name}\n{ex.text}")
    return texts


class RecordingEmbedder:
    """One constant unit vector per text, keeping every text it is asked to embed."""

    name = "bench-recording"
    dim = 384

    def __init__(self) -> None:
        self.seen: list[str] = []

    def embed(self, texts: Sequence[str]) -> Vector:
        self.seen += texts
        return np.ones((len(texts), self.dim), dtype=np.float32) / np.sqrt(self.dim)


def index_folder(brain: Brain, files: list[tuple[str, bytes]]) -> None:
    for name, data in files:
        brain.add_file(data, name=name)
    reports = brain.index_pending()
    assert all(r.ok for r in reports), [r.error for r in reports if not r.ok]


def check_same_texts(files: list[tuple[str, bytes]], texts: list[str]) -> None:
    recorder = RecordingEmbedder()
    with tempfile.TemporaryDirectory() as tmp, Brain.open(tmp, embedder=recorder) as brain:
        index_folder(brain, files)
    expected = [piece for text in texts for piece in passages(text)]
    assert recorder.seen == expected, "the raw side would embed other texts than the indexer"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=60)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--no-write", action="store_true", help="print only")
    args = ap.parse_args()

    embedder = MiniLMEmbedder()
    files = make_files(args.files)
    texts = indexer_texts(files)
    n_sections = len(texts) - len(files)
    check_same_texts(files, texts)
    embedder.embed(["warm up"] * 8)

    raw_rates, full_rates = [], []
    for r in range(args.rounds):
        t = time.perf_counter()
        embed_texts(embedder, texts, 100)
        raw_rates.append(n_sections / (time.perf_counter() - t))

        with tempfile.TemporaryDirectory() as tmp, Brain.open(tmp, embedder=embedder) as brain:
            t = time.perf_counter()
            index_folder(brain, files)
            full_rates.append(n_sections / (time.perf_counter() - t))
            assert brain.counts()["section"] == n_sections
        print(
            f"round {r + 1}: raw {raw_rates[-1]:.1f} sections/s, full {full_rates[-1]:.1f}, "
            f"ratio {full_rates[-1] / raw_rates[-1]:.3f}"
        )

    raw, full = max(raw_rates), max(full_rates)
    ratio = full / raw
    lines = [
        f"{len(files)} text files, {n_sections} sections (~1000 chars, real SciFact text), "
        f"best of {args.rounds} rounds, raw and full interleaved in one run.",
        "",
        "| path | sections/s |",
        "|---|---|",
        f"| raw embedder (`embed_texts`, batches of 100) | {raw:.1f} |",
        f"| full: add every file, then `index_pending` (sniff, extract, chunk, embed across "
        f"files, commit per file) | {full:.1f} |",
        f"| **ratio** (target >= 0.85) | **{ratio:.3f}** |",
        "",
        f"Peak RSS {peak_rss_mb():.0f} MB. Command: `python -m bench.index --files {args.files}`.",
    ]
    print("\n".join(lines))
    if not args.no_write:
        append_results("Index throughput", "\n".join(lines))


if __name__ == "__main__":
    main()
