"""The ``derive`` job kind (asked for by ``orgbrain.derive.request_derive``), and waiting
for it when a writer asks ``wait="derived"``. Each section it finishes may ask for its
file's audit pass (``orgbrain.audit.AuditRequests``), before the section's job is
settled, so the request is never lost to a crash."""

from __future__ import annotations

from collections.abc import Sequence

from ..audit import AuditRequests
from ..context import BrainContext
from ..derive import DERIVE_KIND, DERIVED_CLASSES, derive_item, derive_key
from ..errors import InvalidInput, NotFound, OrgBrainError, Unavailable
from ..extraction import TIERS, Extractor, default_extractor
from ..forget import forgotten_since
from ..model import Item
from ..ports import ItemFilter, Job
from .index import Asker
from .own import work_on_own
from .worker import Outcome, Settle

__all__ = ["DeriveJobs", "extractor_for", "known_entities", "wait_derived"]

KNOWN_ENTITIES = 5000
"""The most entities of a workspace the extractor is told about (known names)."""


def wait_derived(ctx: BrainContext, items: Sequence[Item], timeout: float = 30.0) -> None:
    """Block until every item's derivation is done (or failed), doing these items' jobs in
    this thread meanwhile, one at a time, and no other (``jobs.own.work_on_own``). The
    deadline is checked after each job, so one job is never cut short: raises
    ``Unavailable`` once ``timeout`` seconds have passed, or as soon as a job failed an
    attempt (it is retried later); the writes themselves were acknowledged before this
    was called."""
    keys = [derive_key(i) for i in items if i.storage_class in DERIVED_CLASSES]
    waited = work_on_own(ctx, DeriveJobs(batch=1), keys, timeout)
    if waited.stuck is not None:
        stuck = waited.stuck
        raise Unavailable(
            f"derivation of {stuck.subject} failed an attempt ({stuck.last_error}); "
            "the write itself is acknowledged and derivation will be retried"
        )
    if not waited.finished:
        left = sorted(str(j.subject) for j in waited.pending)
        raise Unavailable(
            f"derivation of {', '.join(left)} not done within {timeout:g} s; "
            "the write itself is acknowledged and derivation goes on"
        )


def extractor_for(ctx: BrainContext) -> Extractor:
    """The extractor the settings ask for (``ORGBRAIN_EXTRACT_TIERS``, default patterns
    and the LLM when a chat model is configured)."""
    tiers = tuple(t.strip() for t in ctx.settings.extract_tiers.split(",") if t.strip())
    unknown = sorted(set(tiers) - set(TIERS))
    if unknown:
        raise InvalidInput(f"unknown extractor tier {unknown[0]!r}: use {', '.join(TIERS)}")
    embedder = ctx.embedder if "classifier" in tiers else None
    return default_extractor(ctx.chat, embedder=embedder, tiers=("pattern", *tiers))


class DeriveJobs:
    """The ``derive`` job kind: each item's steps (``steps.derive_item``), one at a time,
    oldest first, with the writer's eyes."""

    kind = DERIVE_KIND

    def __init__(self, batch: int = 16, extractor: Extractor | None = None) -> None:
        self.batch = batch
        self._extractor = extractor

    def run(self, ctx: BrainContext, jobs: Sequence[Job], settle: Settle) -> None:
        extractor = self._extractor or extractor_for(ctx)
        groups: dict[Asker, list[Job]] = {}
        for job in jobs:
            groups.setdefault(Asker.of(job), []).append(job)
        for asker, group in groups.items():
            actx = asker.context(ctx)
            known = known_entities(actx)
            audits = AuditRequests(actx)
            for job in group:
                outcome, item = self._one(actx, job, extractor, known)
                if item is not None:
                    audits.derived(item, job.key, ok=not outcome.retry)
                settle(outcome)
            audits.settled()

    def _one(
        self, ctx: BrainContext, job: Job, extractor: Extractor, known: list[tuple[str, str]]
    ) -> tuple[Outcome, Item | None]:
        """The job's outcome, and the item it derived (None when it derived nothing)."""
        item_id = str(job.payload.get("item_id", ""))
        try:
            item = ctx.get(item_id)
        except NotFound as exc:
            if forgotten_since(ctx, item_id, wrote=False):
                return Outcome(job.id), None
            return Outcome(job.id, f"{exc.code}: {exc.message}"), None
        if derive_key(item) != job.key or item.tombstoned_at is not None:
            return Outcome(job.id), None  # changed since: its own job derives the new text
        try:
            derive_item(ctx, item, extractor, known)
        except Unavailable as exc:
            return Outcome(job.id, f"{exc.code}: {exc.message}", retry=True), item
        except OrgBrainError as exc:
            if forgotten_since(ctx, item.id, wrote=True):  # the store refused its copies
                return Outcome(job.id), None
            return Outcome(job.id, f"{exc.code}: {exc.message}"), item
        return Outcome(job.id), item


def known_entities(ctx: BrainContext) -> list[tuple[str, str]]:
    page = ctx.items.list_items(
        ctx.workspace, ItemFilter(storage_class="entity"), ctx.visibility, limit=KNOWN_ENTITIES
    )
    return [(i.kind, i.label) for i in page.items]
