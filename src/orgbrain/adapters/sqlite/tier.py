"""The approximate tier of one large shelf: which graph it searches, and keeping it fresh.

A shelf of more than ``APPROX_ABOVE`` live rows is searched through an HNSW graph
(``graph.py``) once one is ready; until then, and whenever the graph is in doubt, the
exact scan answers. The graph is loaded from the file beside the database, or built from
the shelf's rows in a background thread (one builder across processes, ``BuildLock``)
and saved there, so a restart does not rebuild it. Every change is picked up the way the
shelf picks it up, by ``vec_seq``:

- rows read at a ``vec_seq`` past the graph's watermark are "fresh": scanned exactly on
  every search, so no acknowledged write is missed; past ``REBUILD_SHARE`` of the graph
  a new graph is built in the background, the old one serving meanwhile;
- rows deleted, tombstoned or re-scoped since are what the shelf says they are now: a
  candidate is only rescored from the shelf, never trusted from the graph;
- a graph whose watermark is past the database's (the file outlived its database), or
  whose sampled vectors differ from the rows (another database's file), is dropped and
  rebuilt; so is one whose bytes fail their CRC (``GraphFile.load``);
- another process's newer graph is noticed by the file's time stamp and loaded.

All of it runs under the owning ``VectorIndex``'s lock except the load, build and save,
which run in the worker thread and hand over their graph under that lock.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from .graph import LABEL_BITS, BuildLock, Graph, GraphFile, build_graph, labels_of
from .shelf import Shelf

__all__ = ["Snapshot", "Tier"]

log = logging.getLogger(__name__)

REBUILD_SHARE = 0.02
"""Fresh rows past this share of the graph (and past a twentieth of the threshold) make
the next graph; until it is ready they are scanned exactly."""
LOOK_EVERY_S = 5.0
"""How often a process looks at the file for another process's newer graph."""
_SAMPLE = 16

I64 = NDArray[np.int64]
Slots = NDArray[np.intp]
Snapshot = Callable[[], tuple[I64, NDArray[np.float16], int]]
"""The shelf's live keys and f16 vectors and the ``vec_seq`` they were read at, taken
under the index's lock."""


@dataclass
class _Ready:
    graph: Graph
    loaded: bool  # from the file (checked against the rows before use), not built here


class Tier:
    """The graph one shelf searches, and the worker that loads or builds the next one."""

    def __init__(
        self,
        file: GraphFile | None,
        lock: threading.Lock,
        snapshot: Snapshot,
        approx_above: int,
    ) -> None:
        self.file = file
        self.graph: Graph | None = None
        self._fresh: Slots = np.zeros(0, dtype=np.intp)
        self._fresh_at: tuple[int, int] | None = None  # (vec_seq, shelf) it was computed at
        self._lock = lock  # the owning index's
        self._snapshot = snapshot
        self._approx_above = approx_above
        self._ready: _Ready | None = None
        self._worker: threading.Thread | None = None
        self._stamp: int | None = None
        self._next_look = 0.0
        self._closed = threading.Event()
        self._build_lock = BuildLock(file.lock) if file is not None else None

    # -- what the shelf reads (``shelf.Approximate``) ---------------------------------------

    def __len__(self) -> int:
        return len(self.graph) if self.graph is not None else 0

    @property
    def fresh(self) -> Slots:
        return self._fresh

    def candidates(self, query: NDArray[np.float32], count: int, expansion: int) -> I64:
        assert self.graph is not None
        return self.graph.candidates(query, count, expansion)

    # -- keeping it current (under the index's lock) ----------------------------------------

    def usable(self, shelf: Shelf, seq: int) -> Tier | None:
        """After a catch-up to ``seq``: install what the worker made, drop a graph in
        doubt, start the worker if work is due; self if a graph can serve the search."""
        if self._ready is not None:
            ready, self._ready = self._ready, None
            if self._acceptable(ready, shelf, seq):
                self.graph, self._fresh_at = ready.graph, None
        if self.graph is not None and self.graph.watermark > seq:
            log.warning(
                "vector graph is newer than its database (%s > %s): rebuilding",
                self.graph.watermark,
                seq,
            )
            self._drop_file()
            self.graph = None
        # Slots move when a shelf is compacted (after a change, so at a new vec_seq) or
        # reloaded (a new shelf): recompute the fresh slots then.
        if self.graph is not None and self._fresh_at != (seq, id(shelf)):
            self._fresh = shelf.written_after(self.graph.watermark)
            self._fresh_at = (seq, id(shelf))
        self._tend(shelf)
        return self if self.graph is not None else None

    def _acceptable(self, ready: _Ready, shelf: Shelf, seq: int) -> bool:
        graph = ready.graph
        if self.graph is not None and graph.watermark <= self.graph.watermark:
            return False  # not newer than what is installed
        if not ready.loaded:
            return True
        if graph.watermark > seq or not _matches_rows(graph, shelf):
            log.warning("vector graph %s does not match the database: rebuilding", graph.build)
            self._drop_file()
            return False
        return True

    def _drop_file(self) -> None:
        if self.file is not None:
            self.file.discard()
        self._stamp = None
        self._next_look = 0.0

    def _tend(self, shelf: Shelf) -> None:
        if self._worker is not None and self._worker.is_alive():
            return
        now = time.monotonic()
        if self.graph is None:
            if now >= self._next_look:
                self._start(build=True)
            return
        live_fresh = int(np.count_nonzero(shelf.alive[self._fresh]))
        if live_fresh > max(self._approx_above // 20, REBUILD_SHARE * len(self.graph)):
            self._start(build=True)
        elif self.file is not None and now >= self._next_look:
            self._next_look = now + LOOK_EVERY_S
            if self.file.stamp() != self._stamp:
                self._start(build=False)

    def _start(self, *, build: bool) -> None:
        self._next_look = time.monotonic() + LOOK_EVERY_S
        self._worker = threading.Thread(
            target=self._work, args=(build,), name="orgbrain-vector-graph", daemon=True
        )
        self._worker.start()

    # -- the worker ----------------------------------------------------------------------------

    def _work(self, build: bool) -> None:
        _lower_priority()
        try:
            if self.file is not None:
                stamp = self.file.stamp()
                loaded = self.file.load() if stamp != self._stamp else None
                self._stamp = stamp
                if loaded is not None:
                    if self.graph is None or loaded.watermark > self.graph.watermark:
                        self._hand_over(_Ready(loaded, loaded=True))
                        return
            if build:
                self._build()
        except Exception:  # a failed build leaves the exact scan serving; try again later
            log.exception("building the vector graph failed; searching exactly meanwhile")
            self._next_look = time.monotonic() + 60.0

    def _build(self) -> None:
        if self._build_lock is None:
            self._build_once()
            return
        with self._build_lock as mine:
            if mine:
                self._build_once()
            # else another process is building: its file is loaded when it lands

    def _build_once(self) -> None:
        with self._lock:
            keys, vectors, seq = self._snapshot()
        started = time.perf_counter()
        graph = build_graph(labels_of(keys), vectors, seq, cancelled=self._closed.is_set)
        del vectors
        if graph is None:
            return
        log.info(
            "built a vector graph of %d rows in %.0f s", len(graph), time.perf_counter() - started
        )
        if self.file is not None:
            self.file.save(graph)
            self._stamp = self.file.stamp()
        self._hand_over(_Ready(graph, loaded=False))

    def _hand_over(self, ready: _Ready) -> None:
        with self._lock:
            self._ready = ready

    def settle(self, timeout: float | None = None) -> bool:
        """Wait for the worker; True if there was one."""
        worker = self._worker
        if worker is None or not worker.is_alive():
            return False
        worker.join(timeout)
        return True

    def close(self) -> None:
        self._closed.set()


def _matches_rows(graph: Graph, shelf: Shelf) -> bool:
    """Whether a sample of the graph's vectors are the rows' (those unchanged since)."""
    keys = graph.index.keys
    picks = np.random.default_rng().choice(len(graph), min(_SAMPLE, len(graph)), replace=False)
    labels = np.asarray([keys[int(i)] for i in picks], dtype=np.uint64)
    stored = graph.vectors_of(labels)
    mask = np.uint64((1 << LABEL_BITS) - 1)
    for label, vec in zip(labels.tolist(), stored, strict=True):
        rows = shelf.vectors_of(label >> LABEL_BITS, graph.watermark)
        within = label & int(mask)
        if rows is None:
            continue  # changed or gone since: it is read from the shelf anyway
        if within >= rows.shape[0]:
            return False
        row = rows[within]
        cosine = float(row @ vec) / (float(np.linalg.norm(row) * np.linalg.norm(vec)) or 1.0)
        if cosine < 0.99:
            return False
    return True


def _lower_priority() -> None:
    """The build is background work: below the searches, where the OS lets a thread be."""
    try:
        os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 10)
    except (AttributeError, OSError):
        pass
