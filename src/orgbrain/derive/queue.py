"""Asking for derivation: one durable job per item and version of its text.

A job's key is the item's id and a digest of what derivation reads (label, body, scope,
``occurred_at``): the same item unchanged is derived once, a changed one again. The
payload carries who wrote it, so the worker derives with the writer's eyes (an entity or
statement never lands in a scope the writer could not write). The handler that does the
work is ``orgbrain.jobs.derive.DeriveJobs``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

from ..context import BrainContext
from ..model import Item
from ..ports import Job, JobQueue

__all__ = [
    "DERIVED_CLASSES",
    "DERIVE_KIND",
    "derive_key",
    "derive_state",
    "enqueue_derive",
    "request_derive",
]

DERIVE_KIND = "derive"
DERIVE_MAX_ATTEMPTS = 5
DERIVED_CLASSES = ("note", "section")


def derive_key(item: Item) -> str:
    material = "\n".join(
        (item.label, item.body, item.scope, str(item.occurred_at), item.content_hash or "")
    )
    return f"derive:{item.id}:{hashlib.sha256(material.encode()).hexdigest()[:16]}"


def request_derive(ctx: BrainContext, items: Sequence[Item]) -> list[Job]:
    """Queue derivation of ``items`` (notes and sections; others are skipped): each job is
    on disk when this returns. Without a queue, nothing is asked for."""
    if ctx.jobs is None:
        return []
    return enqueue_derive(ctx.jobs, ctx.workspace, ctx.actor, ctx.asker(), items)


def enqueue_derive(
    jobs: JobQueue,
    workspace: str,
    actor: str,
    asker: Mapping[str, object],
    items: Sequence[Item],
) -> list[Job]:
    """``request_derive`` for a writer known by its ``asker`` payload (``BrainContext.asker``),
    as the outbox's relay knows it."""
    wanted = [i for i in items if i.storage_class in DERIVED_CLASSES and i.tombstoned_at is None]
    if not wanted:
        return []
    return jobs.enqueue_many(
        workspace,
        DERIVE_KIND,
        [(derive_key(i), {**asker, "item_id": i.id}, i.id) for i in wanted],
        actor=actor,
        max_attempts=DERIVE_MAX_ATTEMPTS,
    )


def derive_state(ctx: BrainContext, items: Sequence[Item]) -> dict[str, str]:
    """Each item's derivation state by id: queued, running, done, failed, or none."""
    wanted = {derive_key(i): i.id for i in items if i.storage_class in DERIVED_CLASSES}
    found = ctx.jobs.find(ctx.workspace, list(wanted)) if ctx.jobs and wanted else {}
    out = {i.id: "none" for i in items}
    for key, item_id in wanted.items():
        job = found.get(key)
        if job is not None:
            out[item_id] = job.state
    return out
