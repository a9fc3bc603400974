"""The facade's living-memory side: derivation asked for and waited on, write stories,
supersession chains, statements and conflicts, and the event feed."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

from .. import derive
from ..audit import audit_story
from ..context import BrainContext
from ..derive import derive_key, derive_state, request_derive
from ..errors import InvalidInput, Unavailable
from ..graph import normalise_value
from ..jobs import audited_within, index_states, wait_derived
from ..model import Disagreement, Item, Statement, StatementType, Story, Superseding
from ..ports import ItemFilter, Job

__all__ = ["DERIVE_WAIT_S", "MAX_EVENTS", "MemoryFacade"]

DERIVE_WAIT_S = 30.0
"""How long ``wait="derived"`` blocks by default before saying derivation goes on."""
MAX_EVENTS = 1000
"""The most events one ``events_after`` call returns."""


class MemoryFacade:
    """``Brain``'s derivation and read-what-changed methods (one class of the facade)."""

    _ctx: BrainContext

    def request_derive(self, items: Sequence[Item]) -> list[Job]:
        """Queue derivation of visible notes and sections (on disk when this returns)."""
        return request_derive(self._ctx, [i for i in items if self._ctx.visible(i)])

    def derive_all(self) -> int:
        """Queue derivation of every visible note and section not derived in its current
        form (a brain written before derivation existed, or after a failure); returns
        how many jobs were asked for."""
        ctx = self._ctx
        todo = [
            i for i in ctx.each_item(ItemFilter(storage_classes=("note", "section"), indexed=True))
        ]
        states = derive_state(ctx, todo)
        return len(request_derive(ctx, [i for i in todo if states[i.id] in ("none", "failed")]))

    def wait_derived(self, items: Sequence[Item], timeout: float = DERIVE_WAIT_S) -> None:
        """Block until the items' derivation is done, working on it in this thread."""
        wait_derived(self._ctx, items, timeout)

    def derived_within(self, items: Sequence[Item], timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the items' derivation (a file's: its indexing
        by a worker, then its sections'): False when it goes on after that. The items are
        written either way; a transport says so instead of failing an acknowledged write.
        A file whose indexing failed has nothing to derive (its state says why)."""
        ctx = self._ctx
        deadline = time.monotonic() + timeout
        todo = [i for i in items if i.storage_class != "file"]
        for file in (i for i in items if i.storage_class == "file"):
            while (state := index_states(ctx, [ctx.get(file.id)])[file.id]) not in (
                "indexed",
                "failed",
            ):
                if time.monotonic() > deadline:
                    return False
                time.sleep(0.05)
            if state == "indexed":
                todo += ctx.sections_of(file.id)
        try:
            wait_derived(ctx, todo, max(0.0, deadline - time.monotonic()))
        except Unavailable:
            return False
        return True

    def audited_within(self, files: Sequence[Item], timeout: float) -> bool:
        """Work on the files' audit passes in this thread until done: False when one goes
        on past ``timeout`` seconds (it stays queued for a worker)."""
        return audited_within(self._ctx, files, timeout)

    def story(self, item_id: str) -> Story:
        """A visible item's write story: acknowledgement, derivation steps, statements,
        what it supersedes and what superseded it; for a file, its audit pass."""
        ctx = self._ctx
        item = ctx.get(item_id)
        state = derive_state(ctx, [item])[item.id]
        error = None
        if ctx.jobs is not None and state == "failed":
            job = ctx.jobs.find(ctx.workspace, [derive_key(item)]).get(derive_key(item))
            error = job.last_error if job else None
        told = derive.story(ctx, item.id, state, error)
        audit, steps, audit_error = audit_story(ctx, item)
        return replace(told, audit=audit, audit_steps=steps, audit_error=audit_error)

    def chain(self, item_id: str) -> tuple[Item, list[Superseding], list[Superseding]]:
        """The supersession chain through an item both ways, each link with its origin."""
        return derive.chain(self._ctx, item_id)

    def statements(
        self,
        *,
        about: str | None = None,
        item_id: str | None = None,
        types: Sequence[StatementType] | None = None,
        current: bool | None = True,
        limit: int = 200,
    ) -> list[Statement]:
        """Statements about an entity (its id, or a name: every visible entity of that
        name), or held by an item; current ones only unless ``current`` is None/False."""
        ctx = self._ctx
        if item_id is not None:
            item = ctx.get(item_id)
            return ctx.statements.statements(
                ctx.workspace, ctx.visibility, item_id=item.id, types=types, current=current
            )[:limit]
        if about is None:
            raise InvalidInput("say which entity (about=) or item (item_id=)")
        ids = self.entity_ids(about)
        return derive.statements_about(ctx, ids, types=types, current=current, limit=limit)

    def entity_ids(self, name_or_id: str) -> list[str]:
        """The visible entities an id or a name names (a name may name several types)."""
        ctx = self._ctx
        if name_or_id.startswith("ent_"):
            return [ctx.get(name_or_id).id]
        found = ctx.statements.entities_named(
            ctx.workspace, [normalise_value(name_or_id)], ctx.visibility
        )
        return [e.id for e in found]

    def conflicts(self, limit: int = 200) -> list[Disagreement]:
        """Current statements that disagree, in pairs."""
        return derive.conflicts(self._ctx, limit)

    def events_after(
        self, after: int, *, kinds: Sequence[str] | None = None, limit: int = 100
    ) -> list[dict[str, object]]:
        """This workspace's events after sequence number ``after``, oldest first: what
        ``GET /v1/events`` streams. A principal sees events about items it can see."""
        return self.events_page(after, kinds=kinds, limit=limit)[0]

    def events_page(
        self, after: int, *, kinds: Sequence[str] | None = None, limit: int = 100
    ) -> tuple[list[dict[str, object]], int]:
        """``events_after``, and the sequence number to read on from: past the last event
        looked at, seen or not, so a reader that may see none of a page still moves on."""
        if limit < 1 or limit > MAX_EVENTS:
            raise InvalidInput(f"limit must be 1..{MAX_EVENTS}")
        ctx = self._ctx
        events = ctx.events.events_after(ctx.workspace, after, kinds=kinds, limit=limit)
        last = max((int(str(e["id"])) for e in events), default=after)
        if ctx.principal is None:
            return events, last
        subjects = sorted({str(e["item_id"]) for e in events if e.get("item_id")})
        seen = ctx.get_many(subjects)
        return [e for e in events if e.get("item_id") and str(e["item_id"]) in seen], last
