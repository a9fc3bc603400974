"""The server's workers: ``threads`` threads running the brain's job queue in-process.

The queue is durable and lives in the brain's file, so the server keeps nothing of its
own: a request is a job on disk before it is acknowledged, an item's ``queued`` or
``indexing`` state is read from the jobs table (the same in every process), and a job
that was running when the process died is claimed again once its lease expires, here or
by any ``orgbrain worker`` over the same brain.
"""

from __future__ import annotations

import logging
import threading
import time

from ..brain import Brain
from ..jobs import RetryPolicy, Worker, worker_name

__all__ = ["WorkerPool"]

log = logging.getLogger("orgbrain.worker")


class WorkerPool:
    """Worker threads over ``brain``'s queue (``brain`` is the shared, unscoped brain)."""

    def __init__(
        self,
        brain: Brain,
        *,
        threads: int = 1,
        lease_s: float = 60.0,
        poll_s: float = 1.0,
        retry: RetryPolicy | None = None,
    ) -> None:
        self._brain = brain
        self._threads_wanted = max(0, threads)  # 0: the queue is left to `orgbrain worker`
        self._lease_s = lease_s
        self._poll_s = poll_s
        self._retry = retry
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._threads: list[threading.Thread] = []

    def start(self) -> None:
        self._stop.clear()
        for n in range(len(self._threads), self._threads_wanted):
            worker = self._brain.worker(
                name=worker_name(f"server-{n}"),
                lease_s=self._lease_s,
                poll_s=self._poll_s,
                retry=self._retry,
            )
            t = threading.Thread(
                target=self._run, args=(worker,), name=f"orgbrain-worker-{n}", daemon=True
            )
            t.start()
            self._threads.append(t)

    def _run(self, worker: Worker) -> None:
        report = worker.run(self._stop, self._wake)
        log.info("worker %s stopped: %s", worker.name, report)

    @property
    def alive(self) -> bool:
        """Every worker thread wanted is running (a stopped or dead one makes the server
        unready); a pool of none, whose jobs ``orgbrain worker`` processes run, is alive."""
        if self._threads_wanted == 0:
            return True
        return bool(self._threads) and all(t.is_alive() for t in self._threads)

    def wake(self) -> None:
        """A job was just queued in this process: look now instead of at the next poll."""
        self._wake.set()

    def stop(self, timeout: float = 30.0) -> None:
        """Finish the batches in hand and stop. Jobs not started stay queued; a batch that
        outlives ``timeout`` keeps its leases, and its jobs run again once they expire."""
        self._stop.set()
        self._wake.set()
        for t in self._threads:
            t.join(timeout)
        self._threads.clear()

    def wait_idle(self, timeout: float = 60.0) -> bool:
        """Block until no job is queued or running (for tests and orderly shutdown)."""
        deadline = time.monotonic() + timeout
        while True:
            counts = self._brain.job_counts()
            if counts["queued"] == 0 and counts["running"] == 0:
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.05)
