"""The ``audit`` job kind (asked for by ``orgbrain.audit.AuditRequests`` when a file's
sections are derived): one pass per file version, with the eyes and write rights of
whoever asked for the file's indexing."""

from __future__ import annotations

import time
from collections.abc import Sequence

from ..audit import (
    AUDIT_KIND,
    Auditor,
    audit_key,
    auditor_for,
    derivation_pending,
    file_sections,
    run_audit,
)
from ..context import BrainContext
from ..errors import NotFound, OrgBrainError, Unavailable
from ..model import Item
from ..ports import Job
from .derive import known_entities
from .index import Asker
from .own import work_on_own
from .worker import Outcome, Settle

__all__ = ["DERIVE_GRACE_S", "AuditJobs", "audited_within"]

DERIVE_GRACE_S = 5.0
"""How long a pass waits for its file's sections being derived right now."""


class AuditJobs:
    """The ``audit`` job kind; ``auditor`` (tests) replaces the one the settings pick."""

    kind = AUDIT_KIND

    def __init__(
        self, batch: int = 4, auditor: Auditor | None = None, grace_s: float = DERIVE_GRACE_S
    ) -> None:
        self.batch = batch
        self._auditor = auditor
        self.grace_s = grace_s

    def run(self, ctx: BrainContext, jobs: Sequence[Job], settle: Settle) -> None:
        for job in jobs:
            settle(self._one(Asker.of(job).context(ctx), job))

    def _derivation_left(self, ctx: BrainContext, file: Item) -> list[Job]:
        """The file's sections still to derive. Ones being derived now are waited for a
        moment (the job that asked for this audit settles just after asking); queued
        ones, or a wait that runs out, put the audit back in the queue for later."""
        deadline = time.monotonic() + self.grace_s
        while True:
            pending = derivation_pending(ctx, file_sections(ctx, file))
            if not pending or any(j.state == "queued" for j in pending):
                return pending
            if time.monotonic() > deadline:
                return pending
            time.sleep(0.02)

    def _one(self, ctx: BrainContext, job: Job) -> Outcome:
        try:
            file = ctx.get(str(job.payload.get("item_id", "")))
        except NotFound as exc:
            return Outcome(job.id, f"{exc.code}: {exc.message}")
        if audit_key(file) != job.key or not file.indexed:
            return Outcome(job.id)  # other bytes since: their own pass audits them
        pending = self._derivation_left(ctx, file)
        if pending:
            why = f"waiting for the derivation of {len(pending)} section(s) of {file.id}"
            return Outcome(job.id, f"unavailable: {why}", retry=True)
        try:
            auditor = self._auditor or auditor_for(ctx, known_entities(ctx))
            run_audit(ctx, file, auditor, pass_key=job.key)
        except Unavailable as exc:
            return Outcome(job.id, f"{exc.code}: {exc.message}", retry=True)
        except OrgBrainError as exc:
            return Outcome(job.id, f"{exc.code}: {exc.message}")
        return Outcome(job.id)


def audited_within(ctx: BrainContext, files: Sequence[Item], timeout: float) -> bool:
    """Work on the files' audit passes in this thread, and on no other job (a process with
    no background worker, such as the embedded CLI, would leave them queued) until each
    is done or failed: False when one goes on past ``timeout`` seconds, or has failed an
    attempt (it is retried later). Files with no audit asked for (not indexed, audit
    turned off) count as done."""
    keys = [audit_key(f) for f in files if f.storage_class == "file" and f.indexed]
    return work_on_own(ctx, AuditJobs(), keys, timeout).finished
