"""Asking for an audit pass: one durable job per file and version of its bytes, queued
once the file's sections are derived, so a file is always derived, then audited.

Derivation asks (``AuditRequests``, in the ``derive`` job): the job that finishes a
file's last section not yet derived asks, before it is settled, so a worker that dies
first leaves that job to be derived again and to ask then. Two workers finishing a
file's last two sections at once each see the other's still running; each looks again
once its own is settled, and the later look asks. Asking twice gives the one job (its
key is the file's id and content hash). The audit job itself checks that no section of
its file is left to derive (``derivation_pending``) and waits for one that is. The
handler is ``orgbrain.jobs.audit.AuditJobs``.
"""

from __future__ import annotations

from collections.abc import Sequence

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
    """What one batch of derive jobs asks for. ``derived(section, key, ok)`` after each
    section's job is done (``ok``: finished, not to be retried), before it is settled;
    ``settled()`` once the batch is. A file's audit is asked for when no other section
    of it is left to derive: its other sections' jobs are looked up once per batch,
    then struck off as this batch finishes them; the file whose last other sections
    were being derived elsewhere is looked up again after the settle, so of two workers
    finishing a file's last sections at once the later one asks."""

    def __init__(self, ctx: BrainContext) -> None:
        self.ctx = ctx
        self._left: dict[str, set[str]] = {}  # file id -> keys of its unfinished sections
        self._files: dict[str, Item] = {}
        self._asked: set[str] = set()

    def derived(self, section: Item, key: str, ok: bool) -> Job | None:
        ctx = self.ctx
        if section.storage_class != "section" or not section.parent_id or ctx.jobs is None:
            return None
        if ctx.settings.audit_steps <= 0:
            return None
        file = self._file(section.parent_id)
        if file is None:
            return None
        left = self._left.get(file.id)
        if left is None:
            left = self._left[file.id] = self._unfinished(file) - {key}
        if ok:
            left.discard(key)
        else:
            left.add(key)  # retried: it asks when it is done
        return self._ask(file) if not left else None

    def settled(self) -> list[Job]:
        """Look again at the files whose last sections were being derived elsewhere."""
        out = []
        for file_id, left in self._left.items():
            file = self._files.get(file_id)
            if left and file is not None and file_id not in self._asked:
                if not self._unfinished(file):
                    job = self._ask(file)
                    if job is not None:
                        out.append(job)
        return out

    def _file(self, file_id: str) -> Item | None:
        if file_id not in self._files:
            file = self.ctx.get_many([file_id]).get(file_id)
            if file is None or not file.indexed:
                return None
            self._files[file_id] = file
        return self._files[file_id]

    def _unfinished(self, file: Item) -> set[str]:
        return {j.key for j in derivation_pending(self.ctx, file_sections(self.ctx, file))}

    def _ask(self, file: Item) -> Job | None:
        self._asked.add(file.id)
        return request_audit(self.ctx, file)


def audit_state(ctx: BrainContext, item: Item) -> tuple[str, str | None]:
    """The audit of ``item``'s current bytes: none, queued, running, done or failed, and
    the job's last error (why it failed, or why an attempt did)."""
    if ctx.jobs is None or item.storage_class != "file":
        return "none", None
    job = ctx.jobs.find(ctx.workspace, [audit_key(item)]).get(audit_key(item))
    if job is None:
        return "none", None
    return job.state, job.last_error
