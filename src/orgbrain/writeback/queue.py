"""Asking for a write-back pass: one durable job per run (its key is the asker and the run
id), so a run is written back once at most however often it is asked; the caller gets the
job at once and the pass runs later (fire and forget). The handler is
``orgbrain.jobs.writeback.WriteBackJobs``.

A run id is the asker's own: two actors' runs of one id are two passes, so a run id
someone else used answers exactly as a free one (no oracle of others' runs, and no way to
take over their pass)."""

from __future__ import annotations

from ..context import BrainContext
from ..errors import Unavailable
from ..model import RunProducts
from ..ports import Job
from .products import products_dict

__all__ = [
    "WRITEBACK_KIND",
    "WRITEBACK_MAX_ATTEMPTS",
    "find_writeback",
    "request_writeback",
    "writeback_key",
]

WRITEBACK_KIND = "writeback"
WRITEBACK_MAX_ATTEMPTS = 5


def writeback_key(run_id: str, actor: str) -> str:
    """The job key of ``actor``'s run ``run_id`` (an actor, ``human:<id>``, holds no ``/``)."""
    return f"writeback:{actor}/{run_id}"


def _legacy_key(run_id: str) -> str:
    # Before run ids were the asker's own, one key per run id held every actor's pass.
    return f"writeback:{run_id}"


def find_writeback(ctx: BrainContext, run_id: str) -> Job | None:
    """``ctx``'s actor's pass of ``run_id``, if one was asked for (another actor's never)."""
    if ctx.jobs is None:
        raise Unavailable("this brain has no job queue")
    key, legacy = writeback_key(run_id, ctx.actor), _legacy_key(run_id)
    found = ctx.jobs.find(ctx.workspace, [key, legacy])
    job = found.get(key)
    if job is None and (old := found.get(legacy)) is not None and old.actor == ctx.actor:
        job = old
    return job


def request_writeback(ctx: BrainContext, products: RunProducts) -> tuple[Job, bool]:
    """The run's write-back job (on disk when this returns), and whether it is new."""
    if ctx.jobs is None:
        raise Unavailable("this brain has no job queue")
    existing = find_writeback(ctx, products.run_id)
    if existing is not None and existing.state != "failed":
        return existing, False  # one pass per run; a failed one may be asked for again
    payload = {**ctx.asker(), "run_id": products.run_id, "products": products_dict(products)}
    job = ctx.jobs.enqueue(
        ctx.workspace,
        WRITEBACK_KIND,
        existing.key if existing is not None else writeback_key(products.run_id, ctx.actor),
        payload,
        actor=ctx.actor,
        max_attempts=WRITEBACK_MAX_ATTEMPTS,
    )
    return job, True
