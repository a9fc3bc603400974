"""The facade's background work: asking for indexing, the queue's state, workers."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..context import BrainContext
from ..errors import Forbidden
from ..jobs import (
    IndexState,
    JobHandler,
    RetryPolicy,
    Worker,
    WorkReport,
    default_handlers,
    get_job,
    index_states,
    list_jobs,
    request_index,
    worker_name,
)
from ..model import Item
from ..ports import Job, JobPage, JobState

__all__ = ["JobsFacade"]


class JobsFacade:
    """``Brain``'s job methods (one class of the facade, by use case)."""

    _ctx: BrainContext

    def request_index(self, item_id: str) -> Job | None:
        """Queue indexing of a visible file: the job is on disk when this returns, and a
        worker (the server's, or ``orgbrain worker``) does it. The same bytes asked for
        again give the same job. None when the file is indexed already."""
        return request_index(self._ctx, item_id)

    def index_state(self, item_id: str) -> IndexState:
        """added, queued, indexing, indexed or failed: from the item and its index job."""
        item = self._ctx.get(item_id)
        return index_states(self._ctx, [item])[item.id]

    def index_states(self, items: Sequence[Item]) -> dict[str, IndexState]:
        """``index_state`` for many visible items at once, by id."""
        return index_states(self._ctx, [i for i in items if self._ctx.visible(i)])

    def jobs(
        self,
        *,
        state: JobState | None = None,
        kind: str | None = None,
        limit: int = 100,
        cursor: str | None = None,
    ) -> JobPage:
        """This workspace's jobs, newest first: all of them for the local owner, a
        principal's own for a principal."""
        return list_jobs(self._ctx, state=state, kind=kind, limit=limit, cursor=cursor)

    def job(self, job_id: str) -> Job:
        """One job the reader may see, or ``NotFound``."""
        return get_job(self._ctx, job_id)

    def job_counts(self) -> dict[JobState, int]:
        """Jobs in each state across the queue (every workspace): for the owner only."""
        self._owner_only("job counts")
        ctx = self._ctx
        if ctx.jobs is None:
            return {"queued": 0, "running": 0, "done": 0, "failed": 0}
        return ctx.jobs.counts()

    def worker(
        self,
        *,
        name: str | None = None,
        lease_s: float = 60.0,
        poll_s: float = 1.0,
        retry: RetryPolicy | None = None,
        handlers: Sequence[JobHandler] | None = None,
    ) -> Worker:
        """A worker over this brain's queue, every workspace (for the local owner only):
        ``drain()`` what is ready, or ``run(stop)`` until told to stop."""
        self._owner_only("workers")
        return Worker(
            replace(self._ctx, principal=None),
            list(handlers) if handlers is not None else default_handlers(),
            name=name or worker_name(),
            lease_s=lease_s,
            poll_s=poll_s,
            retry=retry or RetryPolicy(),
        )

    def run_jobs(self, *, lease_s: float = 60.0, retry: RetryPolicy | None = None) -> WorkReport:
        """Do every job that is ready now, in this thread, and return what happened."""
        return self.worker(lease_s=lease_s, retry=retry).drain()

    def _owner_only(self, what: str) -> None:
        if self._ctx.principal is not None:
            raise Forbidden(f"{what} are for the brain's owner, not a principal")
