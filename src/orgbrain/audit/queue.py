"""Asking for an audit pass: one durable job per file and version of its bytes, queued
once the file's sections are derived, so a file is always derived, then audited.

Derivation asks (``AuditRequests.derived``, called by the ``derive`` job for each
section it finished, before that job is settled): when none of the file's other
sections waits in the queue for its derivation, the audit is asked for. The sections
still being derived by some worker at that moment are waited for by the audit job itself
(``derivation_pending``). Asking twice gives the one job (its key is the file's id and
content hash), and a worker that dies before asking leaves its derive job unsettled, so
the section is derived again and asks then: the request is never lost. The handler is
``orgbrain.jobs.audit.AuditJobs``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ..context import BrainContext
from ..derive import derive_key
from ..model import Item
from ..ports import ItemFilter, Job

__all__ = [
    "AUDIT_KIND",
    "AUDIT_MAX_ATTEMPTS",
    "AuditRequests",
    "audit_key",
    "audit_state",
    "derivation_pending",
    "file_sections",
    "request_audit",
]

AUDIT_KIND = "audit"
AUDIT_MAX_ATTEMPTS = 8
"""Enough for a pass that waits on a section still being derived elsewhere, and for a
chat server that is down a few minutes (5 s backoff, doubling)."""


def audit_key(file: Item) -> str:
    return f"audit:{file.id}:{file.content_hash or '-'}"


def file_sections(ctx: BrainContext, file: Item) -> list[Item]:
    """The visible current sections of ``file``, in reading order."""
    found = ctx.each_item(ItemFilter(storage_class="section", parent_id=file.id))
    return sorted(found, key=lambda s: (s.ordinal if s.ordinal is not None else 0, s.id))


def derivation_pending(ctx: BrainContext, sections: Sequence[Item]) -> list[Job]:
    """The derive jobs of ``sections`` that are not finished (queued or running)."""
    if ctx.jobs is None or not sections:
        return []
    found = ctx.jobs.find(ctx.workspace, [derive_key(s) for s in sections])
    return [j for j in found.values() if j.state in ("queued", "running")]


def request_audit(ctx: BrainContext, file: Item) -> Job | None:
    """Queue the audit of ``file``'s current bytes (on disk when this returns); the job
    that already has its key if asked before. None without a queue, for a file not
    indexed, or when the settings turn the audit off (``ORGBRAIN_AUDIT_STEPS=0``)."""
    if ctx.jobs is None or ctx.settings.audit_steps <= 0:
        return None
    if file.storage_class != "file" or not file.indexed or file.tombstoned_at is not None:
        return None
    return ctx.jobs.enqueue(
        ctx.workspace,
        AUDIT_KIND,
        audit_key(file),
        {**ctx.asker(), "item_id": file.id, "content_hash": file.content_hash},
        actor=ctx.actor,
        subject=file.id,
        max_attempts=AUDIT_MAX_ATTEMPTS,
    )


class AuditRequests:
    """What one batch of derive jobs asks for: ``derived(section)`` after each section
    it finished. ``running`` are the batch's own derive job keys (claimed, so not
    queued); each file's other sections are looked up once per batch."""

    def __init__(self, ctx: BrainContext, running: Collection[str]) -> None:
        self.ctx = ctx
        self.running = set(running)
        self._waiting: dict[str, bool] = {}

    def derived(self, section: Item) -> Job | None:
        ctx = self.ctx
        if section.storage_class != "section" or not section.parent_id or ctx.jobs is None:
            return None
        if ctx.settings.audit_steps <= 0:
            return None
        file = ctx.get_many([section.parent_id]).get(section.parent_id)
        if file is None or not file.indexed:
            return None
        waiting = self._waiting.get(file.id)
        if waiting is None:
            sections = file_sections(ctx, file)
            keys = [derive_key(s) for s in sections]
            found = ctx.jobs.find(ctx.workspace, [k for k in keys if k not in self.running])
            waiting = any(j.state == "queued" for j in found.values())
            self._waiting[file.id] = waiting
        return None if waiting else request_audit(ctx, file)


def audit_state(ctx: BrainContext, item: Item) -> tuple[str, str | None]:
    """The audit of ``item``'s current bytes: none, queued, running, done or failed, and
    the job's last error (why it failed, or why an attempt did)."""
    if ctx.jobs is None or item.storage_class != "file":
        return "none", None
    job = ctx.jobs.find(ctx.workspace, [audit_key(item)]).get(audit_key(item))
    if job is None:
        return "none", None
    return job.state, job.last_error
