"""A synthetic brain of N sections built from real text, for the search benchmarks.

Building N sections through the indexer would take hours on two cores, so the brain is
written straight through the store: a few thousand real SciFact sentences are embedded once
with the real model (cached in ``bench/out/``), and each section is a real sentence, or two
of them joined, whose vector is a normalised noisy mixture of theirs. Sections hang off
files of 20 sections; 80% are org-wide, 10% in team:eng, 9% private to another user and
1% in team:legal.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from orgbrain.adapters.sqlite import SQLiteStore
from orgbrain.ids import new_id
from orgbrain.model import ByteRange, Item, Origin, utcnow

from ._common import DATA, ROOT

__all__ = ["DIM", "MODEL", "WORKSPACE", "batches", "build", "queries", "real_vectors"]

F32 = NDArray[np.float32]
CACHE = ROOT / "bench" / "out" / "http_sentences.npz"
MODEL = "all-MiniLM-L6-v2"
DIM = 384
PER_FILE = 20
WORKSPACE = "bench"


# -- data ---------------------------------------------------------------------------------


def sentences(n: int) -> list[str]:
    out: list[str] = []
    with (DATA / "scifact" / "corpus.jsonl").open() as f:
        for line in f:
            doc = json.loads(line)
            # SciFact often joins sentences with no space ("disabilities.A line ..."):
            # split after a sentence's end whether or not a space follows.
            for s in [doc["title"], *re.split(r"(?<=[a-z0-9)][.!?])\s*(?=[A-Z])", doc["text"])]:
                if 40 <= len(s) <= 400:
                    out.append(s)
    pick = np.random.default_rng(0).choice(len(out), min(n, len(out)), replace=False)
    return [out[i] for i in sorted(pick)]


def real_vectors(n: int) -> tuple[list[str], F32]:
    """``n`` SciFact sentences and their MiniLM vectors, embedded once and cached."""
    if CACHE.exists():
        z = np.load(CACHE, allow_pickle=False)
        if len(z["texts"]) >= n:
            return [str(t) for t in z["texts"][:n]], z["vectors"][:n]
    from orgbrain.adapters.embed_minilm import MiniLMEmbedder

    texts = sentences(n)
    t0 = time.perf_counter()
    vectors = np.asarray(MiniLMEmbedder().embed(texts), dtype=np.float32)
    print(f"embedded {len(texts)} sentences in {time.perf_counter() - t0:.0f} s", flush=True)
    CACHE.parent.mkdir(parents=True, exist_ok=True)
    np.savez(CACHE, texts=np.array(texts), vectors=vectors)
    return texts, vectors


def queries() -> list[str]:
    with (DATA / "scifact" / "queries.jsonl").open() as f:
        return [json.loads(line)["text"] for line in f]


# -- the brain ----------------------------------------------------------------------------


def batches(
    n_sections: int, texts: list[str], base: F32, size: int = 2000
) -> Iterator[list[tuple[Item, F32]]]:
    """The brain's ``n_sections`` sections and their files, ``size`` at a time (a file
    follows its sections), the same texts, vectors and scopes on every call (ids differ)."""
    rng = np.random.default_rng(1)
    origin = Origin("bench:http", "bench", utcnow())
    batch: list[tuple[Item, F32]] = []
    file_id = ""
    file_vecs: list[F32] = []
    scope_of_file = "org"
    for i in range(n_sections):
        if i < len(texts):
            body, vec = texts[i], base[i]
        else:
            a, b = rng.integers(0, len(texts), 2)
            w = float(rng.uniform(0.6, 1.0))
            noise = rng.standard_normal(DIM).astype(np.float32) * np.float32(0.25 / DIM**0.5)
            mixed = w * base[a] + (1 - w) * base[b] + noise
            body, vec = f"{texts[a]} {texts[b]}", mixed / np.linalg.norm(mixed)
        roll = rng.random()
        scope = (
            "org"
            if roll < 0.8
            else "team:eng"
            if roll < 0.9
            else "user:someone"
            if roll < 0.99
            else "team:legal"
        )
        if i % PER_FILE == 0:
            if file_vecs:
                batch.append(_file(file_id, scope_of_file, file_vecs, origin))
            file_id, scope_of_file, file_vecs = new_id("fil"), scope, []
        file_vecs.append(vec)
        batch.append((_section(file_id, scope_of_file, i, body, origin), vec.astype(np.float32)))
        if len(batch) >= size:
            yield batch
            batch = []
    if file_vecs:
        batch.append(_file(file_id, scope_of_file, file_vecs, origin))
    if batch:
        yield batch


def build(folder: Path, n_sections: int, texts: list[str], base: F32) -> float:
    """Write ``n_sections`` sections (and their files) straight through the store."""
    t0 = time.perf_counter()
    store = SQLiteStore(folder / "brain.sqlite")
    store.bind_embedder(MODEL, DIM)
    for batch in batches(n_sections, texts, base):
        store.put_items(batch)
    counts = store.counts(WORKSPACE)
    store.close()
    assert counts.get("section") == n_sections, counts
    return time.perf_counter() - t0


def _section(file_id: str, scope: str, i: int, body: str, origin: Origin) -> Item:
    ordinal = i % PER_FILE
    return Item(
        id=new_id("sec"),
        workspace=WORKSPACE,
        kind="section",
        storage_class="section",
        label=f"paper {i // PER_FILE} §{ordinal + 1}",
        body=body,
        source_key=f"file:paper{i // PER_FILE}.md#{ordinal}",
        indexed=True,
        scope=scope,
        origin=origin,
        blob_key=f"workspaces/{WORKSPACE}/{file_id}/paper{i // PER_FILE}.md",
        text_key=f"workspaces/{WORKSPACE}/{file_id}/paper{i // PER_FILE}.md",
        byte_range=ByteRange(0, len(body.encode())),
        parent_id=file_id,
        ordinal=ordinal,
        name=f"paper{i // PER_FILE}.md",
        media_type="text/markdown",
    )


def _file(file_id: str, scope: str, vecs: list[F32], origin: Origin) -> tuple[Item, F32]:
    mean = np.mean(vecs, axis=0)
    n = file_id
    item = Item(
        id=file_id,
        workspace=WORKSPACE,
        kind="file",
        storage_class="file",
        label=f"paper {n}",
        body="",
        source_key=f"file:{n}.md",
        indexed=True,
        scope=scope,
        origin=origin,
        blob_key=f"workspaces/{WORKSPACE}/{file_id}/{n}.md",
        name=f"{n}.md",
        media_type="text/markdown",
    )
    return item, (mean / np.linalg.norm(mean)).astype(np.float32)
