"""How crowded a query's nearest neighbours are in the synthetic brain's section vectors,
against the real MiniLM vectors they are made from: why HNSW recall@50 on the synthetic
brain depends on how many real sentences it mixes.

    python -m bench.synth_crowding [--sections 100000,1000000] [--real 3000,40000]

For 100 SciFact claims (embedded with MiniLM), the exact cosine similarities of the
nearest 100 sections: the median of the best, of the 50th, and the gaps from the best to
the 50th and from the 50th to the 100th. A small gap means many near-ties around the
50th: an approximate search that keeps most of the similarity still misses many of the
exact 50 (docs/benchmarks.md, "Backends side by side"). The vectors are made as
``bench/_synth.py`` makes them (a normalised mixture ``w·a + (1 - w)·b`` of two real
sentence vectors, w uniform in [0.6, 1], plus noise of norm 0.25), without the items.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parent.parent)
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np
from numpy.typing import NDArray

from bench._synth import DIM, queries, real_vectors
from orgbrain.adapters.embed_minilm import MiniLMEmbedder

TOP = 100


def nearest(q: NDArray[np.float32], n: int, base: NDArray[np.float32]) -> NDArray[np.float32]:
    """The top ``TOP`` similarities of each query over ``n`` mixtures of ``base``."""
    rng = np.random.default_rng(1)
    top = np.full((len(q), TOP), -2.0, dtype=np.float32)
    for start in range(0, n, 100_000):
        k = min(100_000, n - start)
        a, b = rng.integers(0, len(base), k), rng.integers(0, len(base), k)
        w = rng.uniform(0.6, 1.0, k).astype(np.float32)[:, None]
        noise = rng.standard_normal((k, DIM)).astype(np.float32) * np.float32(0.25 / DIM**0.5)
        x = w * base[a] + (1 - w) * base[b] + noise
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        top = -np.sort(-np.concatenate([top, q @ x.T], axis=1), axis=1)[:, :TOP]
    return top


def row(name: str, top: NDArray[np.float32]) -> str:
    med = lambda v: float(np.median(v))  # noqa: E731
    return (
        f"| {name} | {med(top[:, 0]):.3f} | {med(top[:, 49]):.3f} | "
        f"{med(top[:, 0] - top[:, 49]):.3f} | {med(top[:, 49] - top[:, 99]):.3f} |"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sections", default="100000,1000000")
    ap.add_argument("--real", default="3000,40000")
    args = ap.parse_args()
    reals = [int(r) for r in args.real.split(",")]
    _, base = real_vectors(max(reals))
    q = np.asarray(MiniLMEmbedder().embed(queries()[:100]), dtype=np.float32)
    print("| vectors | best | 50th | best - 50th | 50th - 100th |")
    print("|---|---|---|---|---|")
    real = -np.sort(-(q @ base.T), axis=1)[:, :TOP]
    print(row(f"{len(base):,} real sentences (MiniLM)", real), flush=True)
    for n in [int(s) for s in args.sections.split(",")]:
        for r in reals:
            print(row(f"{n:,} sections mixed from {r:,} sentences", nearest(q, n, base[:r])))


if __name__ == "__main__":
    main()
