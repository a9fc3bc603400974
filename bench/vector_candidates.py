"""The candidates ``bench/vectors.py`` compares: one class per way of answering top-k.

Each builds over the rows of a float32 matrix (ids are row numbers) and answers inner-product
top-k on one thread; graph and IVF indexes also report incremental and save/load costs.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

F32 = NDArray[np.float32]
I64 = NDArray[np.int64]
DIM = 384
CHURN = 1000


def exact_top(x: F32, q: F32, k: int, mask: NDArray[np.bool_] | None = None) -> I64:
    s = x @ q
    if mask is not None:
        s = np.where(mask, s, -np.inf).astype(np.float32)
    top = np.argpartition(-s, k)[:k]
    return top[np.argsort(-s[top])].astype(np.int64)


# -- candidates -------------------------------------------------------------------------


class Candidate:
    """One way to answer top-k inner-product queries over the rows of ``x``."""

    name = ""
    persists = False

    def build(self, x: F32) -> None:
        raise NotImplementedError

    def search(self, q: F32, k: int) -> I64:
        raise NotImplementedError

    def search_filtered(self, q: F32, k: int, mask: NDArray[np.bool_]) -> I64:
        """Top-k among ``mask`` rows: oversample and post-filter unless the index can mask."""
        want = k
        while True:
            want = min(want * 4, len(mask))
            ids = self.search(q, want)
            ids = ids[mask[ids]]
            if len(ids) >= k or want >= len(mask):
                return ids[:k]

    def memory(self) -> int:
        raise NotImplementedError

    def churn(self, x_new: F32, first_id: int, remove: I64) -> tuple[float, float]:
        """Seconds to add ``x_new`` (ids from first_id) and remove ``remove``; nan: unsupported."""
        return float("nan"), float("nan")

    def save_load(self, folder: Path) -> tuple[float, float]:
        return float("nan"), float("nan")


class NumpyMasked(Candidate):
    """The pre-change ``VectorIndex``: one float32 matrix, a class mask, a full matvec."""

    name = f"numpy f32, masked (before), BLAS {os.environ.get('OPENBLAS_NUM_THREADS', '?')} thr"

    def build(self, x: F32) -> None:
        self.x = x
        self.classes = np.zeros(len(x), dtype=np.int8)  # all one class: the mask costs the same
        self.alive = np.ones(len(x), dtype=bool)

    def search(self, q: F32, k: int) -> I64:
        cand = np.flatnonzero(self.alive & (self.classes == 0))
        scores = (self.x @ q)[cand]
        top = np.argpartition(-scores, k)[:k]
        return cand[top[np.argsort(-scores[top])]].astype(np.int64)

    def search_filtered(self, q: F32, k: int, mask: NDArray[np.bool_]) -> I64:
        return exact_top(self.x, q, k, mask)

    def memory(self) -> int:
        return int(self.x.nbytes)

    def churn(self, x_new: F32, first_id: int, remove: I64) -> tuple[float, float]:
        t = time.perf_counter()
        self.x = np.vstack([self.x, x_new])
        t_add = time.perf_counter() - t
        t = time.perf_counter()
        self.alive = np.ones(len(self.x), dtype=bool)
        self.alive[remove] = False
        self.classes = np.zeros(len(self.x), dtype=np.int8)
        return t_add, time.perf_counter() - t


class NumpyClass(Candidate):
    """One contiguous float32 matrix per storage class: no mask, just a matvec."""

    name = f"numpy f32, per-class matrix, BLAS {os.environ.get('OPENBLAS_NUM_THREADS', '?')} thr"

    def build(self, x: F32) -> None:
        self.x = x

    def search(self, q: F32, k: int) -> I64:
        return exact_top(self.x, q, k)

    def search_filtered(self, q: F32, k: int, mask: NDArray[np.bool_]) -> I64:
        return exact_top(self.x, q, k, mask)

    def memory(self) -> int:
        return int(self.x.nbytes)


class VectorIndexShelf(Candidate):
    """orgbrain's ``VectorIndex`` search core (one ``Shelf``), with its rows fed directly."""

    name = "VectorIndex: int8 scan > f32 rescore (chosen)"

    def build(self, x: F32) -> None:
        from orgbrain.adapters.sqlite.shelf import Shelf

        self.shelf = Shelf(DIM)
        self.shelf.load(np.arange(len(x), dtype=np.int64), x, np.zeros(len(x), dtype=np.int32))
        self.mask: NDArray[np.bool_] | None = None

    def search(self, q: F32, k: int) -> I64:
        keys, _ = self.shelf.top(q, k, None)
        return keys

    def search_filtered(self, q: F32, k: int, mask: NDArray[np.bool_]) -> I64:
        if self.mask is not mask:  # scope code 1 for the visible rows
            self.shelf.scopes[: self.shelf.n] = mask.astype(np.int32)
            self.mask = mask
        keys, _ = self.shelf.top(q, k, np.asarray([False, True]))
        return keys

    def memory(self) -> int:
        return self.shelf.nbytes()

    def churn(self, x_new: F32, first_id: int, remove: I64) -> tuple[float, float]:
        t = time.perf_counter()
        for i, v in enumerate(x_new):
            self.shelf.put(first_id + i, v, 0)
        t_add = time.perf_counter() - t
        t = time.perf_counter()
        for r in remove:
            self.shelf.drop(int(r))
        return t_add, time.perf_counter() - t


class BinaryRescore(Candidate):
    """Sign bits, Hamming scan (numkong), exact float32 rescoring of the best ``r``."""

    def __init__(self, r: int) -> None:
        self.r = r
        self.name = f"u1 Hamming scan + f32 rescore of {r}"

    def build(self, x: F32) -> None:
        import numkong as nk

        self.nk = nk
        self.x = x
        self.bits = nk.hammings_pack(np.packbits(x > 0, axis=1))

    def search(self, q: F32, k: int) -> I64:
        h = np.asarray(self.nk.hammings_packed(np.packbits(q > 0)[None], self.bits))[0]
        r = min(max(self.r, k), len(h) - 1)
        cand = np.argpartition(h, r)[:r]
        s = self.x[cand] @ q
        top = np.argsort(-s)[:k]
        return cand[top].astype(np.int64)

    def memory(self) -> int:
        return int(self.x.nbytes + self.x.shape[0] * DIM // 8)


class SignCascade(Candidate):
    """Sign-bit Hamming shortlist of 1/12 of the rows (at least 8,192), int8 dot over it,
    float32 rescoring of the best 256: tried as a first stage for ``VectorIndex``."""

    name = "u1 shortlist > int8 > f32 rescore"

    def build(self, x: F32) -> None:
        from orgbrain.adapters.sqlite.shelf import quantise

        self.x = x
        self.bits = np.packbits(x > 0, axis=1)
        self.codes, self.scales = quantise(x)

    def search(self, q: F32, k: int) -> I64:
        import numkong as nk

        n = len(self.x)
        size = min(n, max(8192, n // 12))
        h = np.asarray(
            nk.cdist(np.packbits(q > 0)[None], self.bits, metric="hamming", dtype="uint1")
        )[0]
        short = np.argpartition(h, size - 1)[:size] if size < n else np.arange(n)
        q8 = np.rint(q * (127 / np.abs(q).max())).astype(np.int8)[None]
        dots = np.asarray(nk.cdist(q8, self.codes[short], metric="dot", out_dtype="float32"))
        approx = dots[0] * self.scales[short]
        take = min(max(4 * k, 256), size)
        cand = short[np.argpartition(-approx, take - 1)[:take]]
        s = self.x[cand] @ q
        return cand[np.argsort(-s)[:k]].astype(np.int64)

    def memory(self) -> int:
        return int(self.x.nbytes + self.bits.nbytes + self.codes.nbytes + self.scales.nbytes)


class USearchHNSW(Candidate):
    persists = True

    def __init__(self, dtype: str, ef: int = 128) -> None:
        self.dtype, self.ef = dtype, ef
        self.name = f"usearch HNSW {dtype} M16 ef{ef}"

    def build(self, x: F32) -> None:
        from usearch.index import Index

        self.index = Index(
            ndim=DIM, metric="ip", dtype=self.dtype, connectivity=16, expansion_add=128
        )
        self.index.expansion_search = self.ef
        self.index.add(np.arange(len(x)), x, threads=os.cpu_count() or 1)

    def search(self, q: F32, k: int) -> I64:
        m = self.index.search(q, k, threads=1)
        return np.asarray(m.keys, dtype=np.int64)

    def memory(self) -> int:
        return int(self.index.memory_usage)

    def churn(self, x_new: F32, first_id: int, remove: I64) -> tuple[float, float]:
        t = time.perf_counter()
        self.index.add(np.arange(first_id, first_id + len(x_new)), x_new, threads=1)
        t_add = time.perf_counter() - t
        t = time.perf_counter()
        self.index.remove(remove)
        return t_add, time.perf_counter() - t

    def save_load(self, folder: Path) -> tuple[float, float]:
        from usearch.index import Index

        path = folder / "u.usearch"
        t = time.perf_counter()
        self.index.save(str(path))
        t_save = time.perf_counter() - t
        t = time.perf_counter()
        Index.restore(str(path))
        return t_save, time.perf_counter() - t


class HnswlibHNSW(Candidate):
    persists = True

    def __init__(self, ef: int = 128) -> None:
        self.ef = ef
        self.name = f"hnswlib HNSW f32 M16 ef{ef}"

    def build(self, x: F32) -> None:
        import hnswlib  # type: ignore[import-not-found]

        self.index = hnswlib.Index(space="ip", dim=DIM)
        self.index.init_index(max_elements=len(x) + CHURN, ef_construction=128, M=16)
        self.index.set_num_threads(os.cpu_count() or 1)
        self.index.add_items(x, np.arange(len(x)))
        self.index.set_num_threads(1)
        self.index.set_ef(self.ef)
        self.n = len(x)

    def search(self, q: F32, k: int) -> I64:
        if k > self.ef:
            self.index.set_ef(k)
        labels, _ = self.index.knn_query(q, k=k)
        self.index.set_ef(self.ef)
        return np.asarray(labels[0], dtype=np.int64)

    def memory(self) -> int:
        return int(self.index.index_file_size())

    def churn(self, x_new: F32, first_id: int, remove: I64) -> tuple[float, float]:
        t = time.perf_counter()
        self.index.add_items(x_new, np.arange(first_id, first_id + len(x_new)))
        t_add = time.perf_counter() - t
        t = time.perf_counter()
        for r in remove:
            self.index.mark_deleted(int(r))
        return t_add, time.perf_counter() - t

    def save_load(self, folder: Path) -> tuple[float, float]:
        import hnswlib

        path = str(folder / "h.bin")
        t = time.perf_counter()
        self.index.save_index(path)
        t_save = time.perf_counter() - t
        t = time.perf_counter()
        other = hnswlib.Index(space="ip", dim=DIM)
        other.load_index(path)
        return t_save, time.perf_counter() - t


class Faiss(Candidate):
    persists = True

    def __init__(self, kind: str, nprobe: int = 16) -> None:
        self.kind, self.nprobe = kind, nprobe
        self.name = {
            "hnsw": "faiss HNSWFlat M16 ef128",
            "ivf": f"faiss IVFFlat nprobe{nprobe}",
            "sq8": "faiss SQ8 flat scan",
        }[kind]

    def build(self, x: F32) -> None:
        import faiss  # type: ignore[import-not-found]

        self.faiss = faiss
        faiss.omp_set_num_threads(os.cpu_count() or 1)
        if self.kind == "hnsw":
            index = faiss.IndexHNSWFlat(DIM, 16, faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efConstruction = 128
            index.hnsw.efSearch = 128
        elif self.kind == "ivf":
            nlist = max(16, int(4 * len(x) ** 0.5))
            index = faiss.IndexIVFFlat(
                faiss.IndexFlatIP(DIM), DIM, nlist, faiss.METRIC_INNER_PRODUCT
            )
            index.train(x[np.random.default_rng(0).permutation(len(x))[: 40 * nlist]])
            index.nprobe = self.nprobe
            index = faiss.IndexIDMap2(index)
        else:
            index = faiss.IndexScalarQuantizer(
                DIM, faiss.ScalarQuantizer.QT_8bit, faiss.METRIC_INNER_PRODUCT
            )
            index.train(x[:20000])
        if isinstance(index, faiss.IndexIDMap2):
            index.add_with_ids(x, np.arange(len(x)))
        else:
            index.add(x)
        faiss.omp_set_num_threads(1)
        self.index = index

    def search(self, q: F32, k: int) -> I64:
        if self.kind == "hnsw" and k > 128:
            self.index.hnsw.efSearch = k
        _, ids = self.index.search(q[None], k)
        if self.kind == "hnsw":
            self.index.hnsw.efSearch = 128
        return np.asarray(ids[0], dtype=np.int64)

    def memory(self) -> int:
        return int(self.faiss.serialize_index(self.index).nbytes)

    def churn(self, x_new: F32, first_id: int, remove: I64) -> tuple[float, float]:
        t = time.perf_counter()
        if self.kind == "ivf":
            self.index.add_with_ids(x_new, np.arange(first_id, first_id + len(x_new)))
        else:
            self.index.add(x_new)
        t_add = time.perf_counter() - t
        if self.kind == "hnsw":
            return t_add, float("nan")  # HNSWFlat cannot remove
        t = time.perf_counter()
        self.index.remove_ids(np.asarray(remove, dtype=np.int64))
        return t_add, time.perf_counter() - t

    def save_load(self, folder: Path) -> tuple[float, float]:
        path = str(folder / "f.index")
        t = time.perf_counter()
        self.faiss.write_index(self.index, path)
        t_save = time.perf_counter() - t
        t = time.perf_counter()
        self.faiss.read_index(path)
        return t_save, time.perf_counter() - t


def candidates(n: int, ann_max: int) -> list[Candidate]:
    out: list[Candidate] = [
        NumpyMasked(),
        NumpyClass(),
        VectorIndexShelf(),
        SignCascade(),
        BinaryRescore(2000),
        BinaryRescore(8000),
    ]
    optional: list[tuple[str, Callable[[], list[Candidate]]]] = [
        ("usearch", lambda: [USearchHNSW(d) for d in ("f32", "f16", "i8")]),
        ("hnswlib", lambda: [HnswlibHNSW()]),
        ("faiss", lambda: [Faiss("hnsw"), Faiss("ivf", 16), Faiss("sq8")]),
    ]
    for module, make in optional:
        try:
            __import__(module)
        except ImportError as exc:
            print(f"(skipping {module}: {exc})", file=sys.stderr)
            continue
        for c in make():
            if n <= ann_max or not c.persists:
                out.append(c)
    return out
