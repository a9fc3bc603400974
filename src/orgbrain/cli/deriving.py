"""Derivation where the write happens. An embedded brain has no background worker: a
command that indexed files derives their sections (entities, statements, supersession)
and runs their audit passes before it returns, under a progress bar, so the work is never
left in the queue for the next, unrelated command to pay for. A server's workers, or
``orgbrain worker``, run the queue for writes made anywhere else."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..brain import Brain
from ..context import BrainContext
from ..jobs import DeriveJobs, JobHandler, Outcome, Settle, WorkReport
from ..model import Item
from ..ports import Job
from .progress import progress

__all__ = ["Counted", "derive_files", "derive_handler"]

LISTED = 1000
"""How many queued jobs the progress bar counts at most (the bar only slows past it)."""


def derive_handler() -> JobHandler:
    """The derive job kind as this process runs it; tests give it their own extractor."""
    return DeriveJobs()


class Counted:
    """A job handler that calls ``step`` as each job settles (for the progress line)."""

    def __init__(self, inner: JobHandler, step: Callable[[str], None]) -> None:
        self.inner = inner
        self.step = step
        self.kind = inner.kind
        self.batch = inner.batch

    def run(self, ctx: BrainContext, jobs: Sequence[Job], settle: Settle) -> None:
        def counted(outcome: Outcome) -> None:
            settle(outcome)
            self.step(outcome.job_id)

        self.inner.run(ctx, jobs, counted)


def derive_files(brain: Brain, files: Sequence[Item], *, quiet: bool) -> WorkReport:
    """Derive the indexed ``files``' sections in this process, and whatever derivation was
    queued before them (the queue runs oldest first); the files' audit passes are left to
    ``report_derivation``, which runs them once their sections are derived."""
    indexed = [f for f in files if f.indexed]
    if not indexed:
        return WorkReport()
    # The indexer asked for these already; asking again is free and covers a brain
    # indexed by a version that did not.
    asked = brain.request_derive([s for f in indexed for s in brain.sections(f.id)])
    if all(job.state in ("done", "failed") for job in asked):
        return WorkReport()  # derived before (the same bytes added again): nothing to run
    waiting = len(brain.jobs(state="queued", kind="derive", limit=LISTED).jobs)
    with progress(waiting, f"deriving {len(indexed)} files", enabled=not quiet) as step:
        handler = Counted(derive_handler(), lambda _job: step(""))
        return brain.worker(handlers=[handler]).drain()
