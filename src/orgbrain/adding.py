"""Adding a file, step by step: name and key it, check what it supersedes, store its
bytes and item, and index or wait on it as asked (``Brain.add_file`` calls this).

It sits above the jobs layer because ``wait="derived"`` works on the file's derivation
jobs in this thread; like every service it takes a ``BrainContext``, never the facade.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Literal

from . import writes
from .context import BrainContext
from .errors import InvalidInput, OrgBrainError
from .ids import new_id
from .indexer import Indexer
from .jobs import wait_derived
from .model import Item
from .writes import FileSource

__all__ = ["WAITS", "Wait", "add_file", "check_wait"]

Wait = Literal["ack", "derived"]
"""How long a write blocks: until it is durable (``ack``), or until its derivation is
done too (``derived``)."""
WAITS: tuple[Wait, ...] = ("ack", "derived")


def check_wait(wait: object) -> Wait:
    """``wait`` if it is one of ``WAITS``; else ``InvalidInput`` (before anything is written)."""
    if wait == "ack" or wait == "derived":
        return wait
    raise InvalidInput(f"wait is ack or derived, not {wait!r}")


def add_file(
    ctx: BrainContext,
    source: FileSource,
    *,
    name: str | None,
    kind: str,
    label: str | None,
    scope: str | None,
    source_key: str | None,
    occurred_at: datetime | None,
    index: bool,
    run_id: str | None,
    wait: Wait,
    supersedes: Sequence[str],
) -> Item:
    """``Brain.add_file``: what it documents, with ``ctx``'s reader and actor."""
    if check_wait(wait) == "derived" and not index:
        raise InvalidInput(
            "wait='derived' needs index=True: a file is derived from its sections, "
            "which indexing cuts"
        )
    clean = writes.name_of(source, name)
    where = ctx.write_scope(scope)
    if source_key is not None:
        key = source_key
    elif isinstance(source, str | Path) and name is None:
        key = writes.path_key(Path(source), ctx.settings.root, where)
    else:
        key = writes.default_file_key(clean, where)
    existing = writes.file_key(ctx, key, where)
    item_id = existing.id if existing else new_id("fil")
    replaced = writes.superseded_items(ctx, supersedes, where, item_id)
    stored = writes.put_bytes(ctx, source, clean, item_id)
    item = writes.store_file(
        ctx,
        stored,
        existing,
        item_id=item_id,
        key=key,
        kind=kind,
        label=label,
        scope=where,
        occurred_at=occurred_at,
        run_id=run_id,
    )
    if replaced:
        writes.record_supersedes(ctx, item, replaced, run_id)
        item = ctx.get(item.id)
    if index and not item.indexed:
        Indexer(ctx).index(ctx.get(item.id))
        item = ctx.get(item.id)
    elif existing is not None and existing.indexed and not item.indexed:
        item = _reindexed(ctx, item)
    if wait == "derived" and item.indexed:
        wait_derived(ctx, ctx.sections_of(ctx.get(item.id).id), ctx.settings.derive_wait_s)
    return item


def _reindexed(ctx: BrainContext, item: Item) -> Item:
    """A file whose indexed version was replaced by new bytes, indexed at once so it
    keeps answering; new bytes that fail to index leave it failed, as ``index`` would
    (its state says why), and the add itself stands."""
    with contextlib.suppress(OrgBrainError):
        Indexer(ctx).index(ctx.get(item.id))
    return ctx.get(item.id)
