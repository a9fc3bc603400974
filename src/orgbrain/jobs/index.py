"""Indexing as a job: asking for it (durable before the answer), doing it, and the state
an item shows while it waits.

A request's key is the file's id, content hash and scope: asking again for the same
bytes gives the same job (never a second one, and none at all once it is done), while a
file re-added with other bytes since is new work under a new key. The payload carries
who asked (workspace, user, teams, agent flag), so the worker indexes with that reader's
eyes, and the hash it was asked for, so a job for bytes that have since changed ends
failed instead of indexing what nobody asked for.

Outcomes follow ``Indexer.index_many``'s reports: indexed is done; a fault that was not
the file's (the embedder, the store at commit; ``IndexReport.retry``) leaves the file
pending and the job retried with backoff; a bad file has its error recorded on the item
and the job fails with that error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from ..context import BrainContext
from ..errors import InvalidInput, NotFound, Unavailable
from ..indexer import Indexer, IndexReport
from ..model import Item
from ..ports import Job, JobQueue
from ..scopes import Principal
from .worker import Outcome, Settle

__all__ = [
    "INDEX_KIND",
    "INDEX_MAX_ATTEMPTS",
    "Asker",
    "IndexJobs",
    "IndexState",
    "index_key",
    "index_state",
    "index_states",
    "request_index",
]

INDEX_KIND = "index"
INDEX_MAX_ATTEMPTS = 8
"""With the default backoff (5 s doubling, at most 10 min) an embedder may be down for
about ten minutes before an index job gives up; asking again starts it over."""

IndexState = Literal["added", "queued", "indexing", "indexed", "failed"]


def queue_of(ctx: BrainContext) -> JobQueue:
    if ctx.jobs is None:
        raise Unavailable("this brain has no job queue")
    return ctx.jobs


def index_key(item: Item) -> str:
    return f"index:{item.id}:{item.content_hash or '-'}:{item.scope}"


def request_index(ctx: BrainContext, item_id: str) -> Job | None:
    """Queue indexing of the visible file ``item_id`` for ``ctx``'s reader; the job is on
    disk when this returns. None when the file is indexed already."""
    item = ctx.get(item_id)
    if item.storage_class != "file":
        raise InvalidInput(f"{item.id} is a {item.storage_class}; only files are indexed")
    if item.indexed:
        return None
    payload: dict[str, object] = {
        **ctx.asker(),
        "item_id": item.id,
        "content_hash": item.content_hash,
        "scope": item.scope,
    }
    return queue_of(ctx).enqueue(
        ctx.workspace,
        INDEX_KIND,
        index_key(item),
        payload,
        actor=ctx.actor,
        subject=item.id,
        max_attempts=INDEX_MAX_ATTEMPTS,
    )


def index_state(item: Item, job: Job | None) -> IndexState:
    """Where ``item`` stands, given the index job for its current bytes (if any)."""
    if item.indexed:
        return "indexed"
    if item.storage_class == "file" and job is not None and job.key == index_key(item):
        if job.state == "queued":
            return "queued"
        if job.state == "running":
            return "indexing"
        if job.state == "failed":
            return "failed"
    if item.storage_class == "file" and item.index_error:
        return "failed"
    return "added"


def index_states(ctx: BrainContext, items: Sequence[Item]) -> dict[str, IndexState]:
    """Each item's state by id, read from the queue in one look-up (the same answer in
    every process over the brain)."""
    waiting = [i for i in items if i.storage_class == "file" and not i.indexed]
    jobs = queue_of(ctx).find(ctx.workspace, [index_key(i) for i in waiting]) if waiting else {}
    return {i.id: index_state(i, jobs.get(index_key(i))) for i in items}


# -- the handler --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Asker:
    """Who asked for a job, from its payload: the worker reads with their eyes."""

    workspace: str
    actor: str
    principal: Principal | None

    @classmethod
    def of(cls, job: Job) -> Asker:
        p = job.payload
        user = p.get("user_id")
        teams = p.get("team_ids")
        principal = None
        if isinstance(user, str) and user:
            principal = Principal(
                job.workspace,
                user,
                frozenset(str(t) for t in teams) if isinstance(teams, list) else frozenset(),
                bool(p.get("agent", False)),
            )
        return cls(job.workspace, str(p.get("actor") or job.actor), principal)

    def context(self, owner: BrainContext) -> BrainContext:
        if self.principal is not None:
            return replace(owner.for_principal(self.principal), actor=self.actor)
        return replace(owner, workspace=self.workspace, principal=None, actor=self.actor)


class IndexJobs:
    """The ``index`` job kind: up to ``batch`` piled-up requests at once, each asker's
    files embedded together (``Indexer.index_many``), each file committed on its own."""

    kind = INDEX_KIND

    def __init__(self, batch: int = 32) -> None:
        self.batch = batch

    def run(self, ctx: BrainContext, jobs: Sequence[Job], settle: Settle) -> None:
        groups: dict[Asker, list[Job]] = {}
        for job in jobs:
            groups.setdefault(Asker.of(job), []).append(job)
        for asker, group in groups.items():
            self._index(asker.context(ctx), group, settle)

    def _index(self, ctx: BrainContext, jobs: list[Job], settle: Settle) -> None:
        todo: dict[str, tuple[Job, Item]] = {}
        for job in jobs:
            item_id = str(job.payload.get("item_id", ""))
            try:
                item = ctx.get(item_id)
            except NotFound as exc:
                settle(Outcome(job.id, f"{exc.code}: {exc.message}"))
                continue
            if item.storage_class != "file":
                settle(Outcome(job.id, f"invalid_input: {item.id} is not a file"))
            elif index_key(item) != job.key:
                msg = f"conflict: {item.id} changed since indexing was asked for; ask again"
                settle(Outcome(job.id, msg))
            elif item.indexed:
                settle(Outcome(job.id))
            else:
                todo[item.id] = (job, item)

        def settled(report: IndexReport) -> None:
            job = todo[report.item_id][0]
            if report.ok:
                settle(Outcome(job.id))
            else:
                error = f"{report.error_code}: {report.error}"
                settle(Outcome(job.id, error, retry=report.retry))

        # Smallest first: a one-page file commits before a thousand-page one, not after it.
        files = sorted((item for _, item in todo.values()), key=lambda i: i.size or 0)
        Indexer(ctx).index_many(files, progress=settled)
