"""The worker: claims jobs from a context's queue, runs each kind's handler, and settles
every job it claimed as done, retried later, or failed.

A job kind plugs in as a ``JobHandler``: its ``kind``, how many of its jobs it takes at
once (``batch``), and ``run``, which reports each job's ``Outcome`` through ``settle`` as
soon as it is known, so a worker killed mid-batch loses only the jobs not yet settled.
While a handler runs, a heartbeat thread renews the batch's leases; a worker that dies
stops renewing, and once its leases expire another worker claims those jobs again.

One failure rule for every kind: an ``Outcome`` with ``retry`` (the fault was not the
job's: a dependency was down) goes back to the queue after a backoff that doubles with
each attempt, until the job's attempts run out; any other error fails the job at once.
A handler that raises retries every job of its batch it had not settled.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Protocol

from ..context import BrainContext
from ..derive.outbox import relay
from ..errors import Unavailable
from ..ports import Job, JobQueue

__all__ = ["JobHandler", "Outcome", "RetryPolicy", "Settle", "WorkReport", "Worker", "worker_name"]

log = logging.getLogger("orgbrain.jobs")

ERROR_CHARS = 2000


@dataclass(frozen=True, slots=True)
class Outcome:
    """How one job ended: ``error`` None is done; else retried (``retry``) or failed."""

    job_id: str
    error: str | None = None
    retry: bool = False


Settle = Callable[[Outcome], None]


class JobHandler(Protocol):
    """One job kind, as a ``Worker`` runs it (``jobs.index.IndexJobs`` is one)."""

    @property
    def kind(self) -> str: ...

    @property
    def batch(self) -> int:
        """How many jobs of this kind one ``run`` takes."""
        ...

    def run(self, ctx: BrainContext, jobs: Sequence[Job], settle: Settle) -> None:
        """Do ``jobs`` (all of ``kind``) with the owner's context, calling ``settle``
        once per job as soon as its outcome is known."""
        ...


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Seconds before attempt ``n + 1`` after attempt ``n`` failed: ``base_s``, doubling,
    at most ``cap_s``."""

    base_s: float = 5.0
    cap_s: float = 600.0

    def delay(self, attempt: int) -> float:
        return float(min(self.cap_s, self.base_s * 2 ** max(0, attempt - 1)))


@dataclass
class WorkReport:
    """What a worker did: jobs claimed, and how those it settled ended."""

    claimed: int = 0
    done: int = 0
    retried: int = 0
    failed: int = 0
    lost: int = 0  # settled after another worker had taken the job over

    def add(self, other: WorkReport) -> None:
        self.claimed += other.claimed
        self.done += other.done
        self.retried += other.retried
        self.failed += other.failed
        self.lost += other.lost


def worker_name(prefix: str = "worker") -> str:
    """A lease owner unique to this worker: where it runs, and a random tail."""
    return f"{prefix}@{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


@dataclass
class Worker:
    """Runs ``handlers``' jobs from ``ctx.jobs`` with the owner's context ``ctx``.

    ``run_once`` claims one batch per kind; ``drain`` repeats it until nothing is ready;
    ``run`` keeps going until ``stop`` is set, waiting ``poll_s`` (or for ``wake``)
    between empty rounds.
    """

    ctx: BrainContext
    handlers: Sequence[JobHandler]
    name: str = field(default_factory=worker_name)
    lease_s: float = 60.0
    poll_s: float = 1.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)

    def __post_init__(self) -> None:
        if self.ctx.jobs is None:
            raise Unavailable("this brain has no job queue")
        if self.lease_s <= 0 or self.poll_s <= 0:
            raise ValueError("lease_s and poll_s must be positive")

    @property
    def queue(self) -> JobQueue:
        assert self.ctx.jobs is not None
        return self.ctx.jobs

    def run_once(self, keys: tuple[str, Sequence[str]] | None = None) -> WorkReport:
        """One batch per kind; with ``keys`` (a workspace, keys in it), only those jobs.
        A round of every worker first relays work a crash left owed (``derive.outbox``)."""
        if keys is None:
            relay(self.ctx)
        report = WorkReport()
        for handler in self.handlers:
            jobs = self.queue.claim(
                self.name,
                [handler.kind],
                limit=max(1, handler.batch),
                lease_s=self.lease_s,
                keys=keys,
            )
            if jobs:
                report.add(self._run(handler, jobs))
        return report

    def drain(self, stop: threading.Event | None = None) -> WorkReport:
        """Run until no job of these kinds is ready (jobs waiting on a retry or held by a
        live worker's lease are left for later), or until ``stop`` is set."""
        total = WorkReport()
        while stop is None or not stop.is_set():
            report = self.run_once()
            total.add(report)
            if not report.claimed:
                break
        return total

    def run(self, stop: threading.Event, wake: threading.Event | None = None) -> WorkReport:
        total = WorkReport()
        while not stop.is_set():
            try:
                report = self.run_once()
            except Exception:  # the queue blinked (a locked file, say): try again later
                log.exception("worker %s could not claim jobs", self.name)
                report = WorkReport()
            total.add(report)
            if not report.claimed:
                if wake is None:
                    stop.wait(self.poll_s)
                else:
                    wake.wait(self.poll_s)
                    wake.clear()
        return total

    # -- one batch ----------------------------------------------------------------------

    def _run(self, handler: JobHandler, jobs: list[Job]) -> WorkReport:
        report = WorkReport(claimed=len(jobs))
        by_id = {job.id: job for job in jobs}
        open_ids = set(by_id)
        lock = threading.Lock()

        def settle(outcome: Outcome) -> None:
            with lock:
                if outcome.job_id not in open_ids:
                    return  # not ours, or settled already: the first word stands
                open_ids.discard(outcome.job_id)
            self._settle(by_id[outcome.job_id], outcome, report)

        with _Heartbeat(self.queue, self.name, open_ids, lock, self.lease_s):
            try:
                handler.run(self.ctx, jobs, settle)
            except Exception as exc:  # the worker outlives any batch
                log.exception("%s jobs: the handler failed", handler.kind)
                error = f"internal: {type(exc).__name__}: {exc}"
                for job in jobs:
                    settle(Outcome(job.id, error, retry=True))
        for job in jobs:  # a handler that forgot a job: run it again
            settle(Outcome(job.id, "internal: the handler gave no outcome", retry=True))
        return report

    def _settle(self, job: Job, outcome: Outcome, report: WorkReport) -> None:
        q, owner = self.queue, self.name
        if outcome.error is None:
            held = q.complete(job.id, owner)
            if held:
                report.done += 1
                log.info("%s job %s done (attempt %d)", job.kind, job.id, job.attempts)
        else:
            error = outcome.error[:ERROR_CHARS]
            retry_in = self.retry.delay(job.attempts) if outcome.retry else None
            held = q.fail(job.id, owner, error, retry_in=retry_in)
            # The queue retries while attempts remain; the same test tells which it did.
            again = retry_in is not None and job.attempts < job.max_attempts
            if held and again:
                report.retried += 1
                log.warning(
                    "%s job %s: attempt %d of %d failed, next in %.1f s: %s",
                    job.kind,
                    job.id,
                    job.attempts,
                    job.max_attempts,
                    retry_in,
                    error,
                )
            elif held:
                report.failed += 1
                log.warning("%s job %s failed: %s", job.kind, job.id, error)
        if not held:
            report.lost += 1
            log.warning("%s job %s: its lease was lost before it settled", job.kind, job.id)


class _Heartbeat:
    """Renews the leases of the jobs still open every third of a lease, in a thread."""

    def __init__(
        self,
        queue: JobQueue,
        owner: str,
        open_ids: set[str],
        lock: threading.Lock,
        lease_s: float,
    ) -> None:
        self._queue = queue
        self._owner = owner
        self._open = open_ids
        self._lock = lock
        self._lease_s = lease_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"heartbeat-{owner}", daemon=True)

    def __enter__(self) -> _Heartbeat:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()

    def _beat(self) -> None:
        while not self._stop.wait(self._lease_s / 3):
            with self._lock:
                ids = sorted(self._open)
            if not ids:
                continue
            try:
                held = self._queue.extend(ids, self._owner, self._lease_s)
            except Exception:
                log.exception("could not renew the leases of %d jobs", len(ids))
                continue
            if len(held) < len(ids):
                log.warning("%s lost the lease of %d jobs", self._owner, len(ids) - len(held))
