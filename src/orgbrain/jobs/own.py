"""A writer that waits for its own writes' background work (derivation, audit,
write-back) does those jobs in this thread, one batch at a time, and no other: a backlog
queued before it (``index --no-wait``, writes that did not wait) is the workers' to do,
never billed to this writer. A worker elsewhere may take some of them (leases keep any
job from running twice)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..context import BrainContext
from ..ports import Job
from .worker import JobHandler, Worker, worker_name

__all__ = ["CLAIM_KEYS", "Waited", "work_on_own"]

CLAIM_KEYS = 500
"""The most keys one claim names (SQLite binds few parameters)."""


@dataclass(frozen=True, slots=True)
class Waited:
    """How a wait ended: ``pending`` (queued or running) empty when every job is done or
    failed; else ``stuck`` is one that failed an attempt (retried later), or, None, the
    deadline passed."""

    pending: list[Job]
    stuck: Job | None = None

    @property
    def finished(self) -> bool:
        return not self.pending


def work_on_own(
    ctx: BrainContext, handler: JobHandler, keys: Sequence[str], timeout: float
) -> Waited:
    """Do the jobs of ``handler``'s kind with these ``keys`` (in ``ctx``'s workspace) until
    each is done or failed. The deadline is checked before each batch, so no job starts
    after it and none is cut short; a job that failed an attempt ends the wait at once
    (no use waiting out its backoff)."""
    queue = ctx.jobs
    if queue is None or not keys:
        return Waited([])
    deadline = time.monotonic() + timeout
    worker = Worker(replace(ctx, principal=None), [handler], name=worker_name())
    while True:
        found = queue.find(ctx.workspace, keys).values()
        pending = [j for j in found if j.state in ("queued", "running")]
        if not pending:
            return Waited([])
        stuck = next((j for j in pending if j.state == "queued" and j.last_error), None)
        # Checked before each claim: no job starts after the deadline (a zero timeout
        # starts none: the writes stay queued for a worker), and none is cut short.
        if stuck is not None or time.monotonic() > deadline:
            return Waited(pending, stuck)
        mine = (ctx.workspace, [j.key for j in pending[:CLAIM_KEYS]])
        if worker.run_once(keys=mine).claimed == 0:
            time.sleep(0.05)  # the rest are held by another worker's live lease
