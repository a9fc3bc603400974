"""Asking for a write-back pass: one durable job per run (its key is the run id), so a
run is written back once at most however often it is asked; the caller gets the job at
once and the pass runs later (fire and forget). The handler is
``orgbrain.jobs.writeback.WriteBackJobs``."""

from __future__ import annotations

from ..context import BrainContext
from ..errors import Unavailable
from ..model import RunProducts
from ..ports import Job
from .products import products_dict

__all__ = ["WRITEBACK_KIND", "WRITEBACK_MAX_ATTEMPTS", "request_writeback", "writeback_key"]

WRITEBACK_KIND = "writeback"
WRITEBACK_MAX_ATTEMPTS = 5


def writeback_key(run_id: str) -> str:
    return f"writeback:{run_id}"


def request_writeback(ctx: BrainContext, products: RunProducts) -> tuple[Job, bool]:
    """The run's write-back job (on disk when this returns), and whether it is new."""
    if ctx.jobs is None:
        raise Unavailable("this brain has no job queue")
    key = writeback_key(products.run_id)
    existing = ctx.jobs.find(ctx.workspace, [key]).get(key)
    if existing is not None and existing.state != "failed":
        return existing, False  # one pass per run; a failed one may be asked for again
    payload = {**ctx.asker(), "run_id": products.run_id, "products": products_dict(products)}
    job = ctx.jobs.enqueue(
        ctx.workspace,
        WRITEBACK_KIND,
        key,
        payload,
        actor=ctx.actor,
        max_attempts=WRITEBACK_MAX_ATTEMPTS,
    )
    return job, True
