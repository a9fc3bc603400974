"""One long-lived worker thread that a search lends its query embedding to, so the work
that does not need the vector (the graph, the query's terms, the keyword streams) runs on
the calling thread meanwhile.

numpy's kernels release the GIL, so on two cores the embedding (~5 ms, about half a
search) and that work overlap (docs/benchmarks.md, "the query embedding beside the
keyword streams"). Only the embedder runs on the worker: the store is used from the
calling thread alone, so a connection (SQLite's, or a PostgreSQL session) never sees two
threads at once.

The worker is lent to one call at a time and never queues: when it is busy (another
thread's search holds it) or the process may run on one core only, the work runs on the
calling thread when its result is asked for, as it did before. A worker started before a
``fork`` is not the child's: the child starts its own.
"""

from __future__ import annotations

import contextvars
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from typing import Generic, TypeVar

__all__ = ["Offload", "Pending", "shared_offload"]

T = TypeVar("T")


class Pending(Generic[T]):
    """A value being computed: on the worker (``future``), or, without one, on the
    calling thread at the first ``result()``."""

    __slots__ = ("_fn", "_future", "_value")

    def __init__(self, fn: Callable[[], T], future: Future[T] | None) -> None:
        self._fn: Callable[[], T] | None = None if future is not None else fn
        self._future = future
        self._value: T | None = None

    @property
    def offloaded(self) -> bool:
        """Whether the value is computed on the worker thread."""
        return self._future is not None

    def result(self) -> T:
        """The value, waiting for the worker if it is still computing; an exception the
        computation raised is raised here, the same object."""
        if self._future is not None:
            return self._future.result()
        if self._fn is not None:
            fn, self._fn = self._fn, None
            self._value = fn()
        return self._value  # type: ignore[return-value]


class Offload:
    """Lends one worker thread to one call at a time.

    ``enabled``: whether to use the worker at all (default: when the process may run on
    more than one core; on one, overlapping only adds a thread switch).
    """

    def __init__(self, *, enabled: bool | None = None) -> None:
        self.enabled = _cores() > 1 if enabled is None else enabled
        self._guard = threading.Lock()  # creating the pool
        self._pool: ThreadPoolExecutor | None = None
        self._pid = 0
        self._free = threading.Lock()  # held while the worker computes

    def start(self, fn: Callable[[], T]) -> Pending[T]:
        """``fn`` begun on the worker when it is free, else left to the caller's
        ``result()``."""
        if not self.enabled:
            return Pending(fn, None)
        pool = self._worker()
        if not self._free.acquire(blocking=False):
            return Pending(fn, None)
        try:
            # In the caller's context: the request's deadline (``orgbrain.deadline``) and
            # its telemetry are context variables.
            future = pool.submit(self._run, partial(contextvars.copy_context().run, fn))
        except BaseException:
            self._free.release()
            raise
        return Pending(fn, future)

    def _run(self, fn: Callable[[], T]) -> T:
        try:
            return fn()
        finally:
            self._free.release()

    def _worker(self) -> ThreadPoolExecutor:
        pid = os.getpid()
        if self._pool is not None and self._pid == pid:
            return self._pool
        with self._guard:
            if self._pool is None or self._pid != pid:
                # In a forked child the parent's thread is gone (and its lock may have
                # been held when it forked): start over.
                self._free = threading.Lock()
                self._pool = ThreadPoolExecutor(1, thread_name_prefix="orgbrain-offload")
                self._pid = pid
            return self._pool


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


_SHARED = Offload()


def shared_offload() -> Offload:
    """The process's one worker, shared by every searcher."""
    return _SHARED
