"""Forgetting: a tombstone that takes an item (and a file's sections) out of every stream,
every read and every derived index at once; erasing also deletes its bytes and text.

Both are additive in the sense the seeds mean: the row stays, with who did it, when and
why in the workspace's log (``forget`` events). A forgotten item keeps its content (and
its previous versions) for the record; an erased one keeps only the audit record: its
label, body, name, source key, previous versions and every version's blobs are gone (for
a leaked secret or personal data that must not be kept).

Either way its source key is freed: a later write of the same key (a file of the same
name) is a new item with a new id and a first version of its own, never the forgotten
item brought back with its old versions readable. And what derivation copied of its
words goes (``Store.purge_derived``): statements, mention edges, entities nothing else
names, and the supersession links that would show its id (see ``adapters/sql/purge.py``).

Forgetting is several writes (the tombstone, the keys around it, an erase's versions and
blobs, the purge), and a crash can stop it between any two. Each step can run again, so
an interrupted forget is finished by forgetting (or erasing) the item again, and by the
sweep (``finish_forgets``): an item stays forgotten from its tombstone on, and the
``forget`` event, logged last, says the rest was done. The one write that a derivation
still running may add after the purge is refused by the store (a tombstoned item gets no
new statement, evidence or edge).
"""

from __future__ import annotations

from dataclasses import replace

from .context import BrainContext
from .errors import InvalidInput, NotFound
from .graph import rekey_around
from .model import ByteRange, Forgotten, Item
from .ports import ItemFilter
from .scopes import Visibility
from .writes import version_folder

__all__ = ["MAX_REASON_CHARS", "finish_forgets", "forget", "forgotten_since"]

MAX_REASON_CHARS = 2000
ERASED = "(erased)"
FORGOTTEN = "forgotten:"
FINISHED = "finished by the sweep: the forget was interrupted"
"""The reason a sweep logs for a forget it finished (the first one's was never logged)."""


def forget(ctx: BrainContext, item_id: str, reason: str, *, erase: bool = False) -> Forgotten:
    """Tombstone ``item_id`` (and its sections) with ``reason``; with ``erase``, also
    delete its raw bytes and extracted text and blank what the row held. Scoped like a
    write: the reader must see the item and may write its scope. A forgotten item reads
    as absent (``NotFound``) but for two things: a forget a crash interrupted is finished
    by forgetting (or erasing) it again, and a forgotten item can be erased."""
    why = reason.strip() if isinstance(reason, str) else ""
    if not why:
        raise InvalidInput("say why: forgetting needs a reason (it is kept in the log)")
    if len(why) > MAX_REASON_CHARS:
        raise InvalidInput(f"a reason is at most {MAX_REASON_CHARS} characters")
    item = ctx.items.get_item(ctx.workspace, item_id, ctx.visibility)
    if item is None or item.workspace != ctx.workspace or not ctx.visibility.allows(item.scope):
        raise NotFound(f"no item {item_id}")
    if item.storage_class == "section":
        raise InvalidInput(
            f"{item.id} is a section of {item.parent_id}: forget the file (a section is cut "
            "from it again on the next index)"
        )
    ctx.write_scope(item.scope)  # Forbidden unless the reader writes where the item lives
    erasing = erase and not _was_erased(item)
    if item.tombstoned_at is not None and not erasing and _finished(ctx, item.id):
        raise NotFound(f"no item {item_id}")  # forgotten once is forgotten
    return _carry_out(ctx, item, why, erase=erase or _was_erased(item))


def finish_forgets(ctx: BrainContext, workspaces: list[str]) -> int:
    """Finish every forget of ``workspaces`` that a crash interrupted (a tombstoned item
    with no ``forget`` event); returns how many. Running a forget's steps twice (one
    still under way in another process) leaves the same result, logged twice."""
    done = 0
    for ws in workspaces:
        wctx = replace(ctx, workspace=ws, principal=None)
        unfinished = [
            item
            for item in _each(wctx, ItemFilter(forgotten_only=True))
            if item.storage_class != "section" and not _finished(wctx, item.id)
        ]
        for item in unfinished:
            _carry_out(wctx, item, FINISHED, erase=_was_erased(item))
            done += 1
    return done


def forgotten_since(ctx: BrainContext, item_id: str, *, wrote: bool) -> bool:
    """Whether ``item_id`` was forgotten after a derivation job for it was asked for (a
    job with nothing to do). If the job ``wrote`` before the store refused its writes,
    the purge runs again, for what it wrote between the purge and the refused write (a
    step's log event, the entity a refused mention made): after an erase, that scrubs
    the store's files again."""
    found = ctx.items.get_item(ctx.workspace, item_id, Visibility.everything())
    if found is None or found.tombstoned_at is None:
        return False
    if wrote:
        ctx.statements.purge_derived(ctx.workspace, [item_id], erase=_was_erased(found))
    return True


def _carry_out(ctx: BrainContext, item: Item, why: str, *, erase: bool) -> Forgotten:
    """Every step of forgetting ``item``, each safe to run again (module docstring)."""
    now = item.tombstoned_at or ctx.clock()  # forgotten again, it keeps its first time
    targets = [item]
    if item.storage_class == "file":
        targets += _each(
            ctx, ItemFilter(storage_class="section", parent_id=item.id, tombstoned=True)
        )
    gone = [_erased(t) if erase else _freed(t) for t in targets]
    ctx.items.put_items([(replace(t, tombstoned_at=t.tombstoned_at or now), None) for t in gone])
    # Its words leave the keys of the turns around it (graph/context_keys.py).
    rekey_around(ctx.store, ctx.workspace, [t.id for t in targets])
    if erase:
        # Every version's bytes and text go too: the item's whole folder (which an erase
        # interrupted after the row was blanked no longer names), and any key it named
        # elsewhere. A crash before the blobs are deleted is finished by the next erase.
        kept = ctx.versions.erase_versions(ctx.workspace, item.id)
        mine = f"workspaces/{ctx.workspace}/{item.id}"
        for blob in sorted({mine, *_blobs_of(item.blob_key, item.text_key), *_folders(kept)}):
            ctx.blobs.delete_prefix(blob)
    # Last, so that an erase's scrub of the store's files covers everything above.
    dropped = ctx.statements.purge_derived(ctx.workspace, [t.id for t in targets], erase=erase)
    record: dict[str, object] = {
        "item_id": item.id,
        "storage_class": item.storage_class,
        "items": len(targets),
        "entities_dropped": len(dropped),
        "erased": erase,
        "reason": why,
        "actor": ctx.actor,
    }
    event_id = ctx.events.log_event(ctx.workspace, "forget", record)
    return Forgotten(
        item.id, item.storage_class, len(targets), erase, why, ctx.actor, now, event_id
    )


def _each(ctx: BrainContext, filter: ItemFilter) -> list[Item]:
    """Every item ``filter`` lists that the reader may see, forgotten ones included."""
    out: list[Item] = []
    cursor: str | None = None
    while True:
        page = ctx.items.list_items(
            ctx.workspace, filter, ctx.visibility, limit=1000, cursor=cursor
        )
        out += [i for i in page.items if ctx.visibility.allows(i.scope)]
        if page.next_cursor is None:
            return out
        cursor = page.next_cursor


def _finished(ctx: BrainContext, item_id: str) -> bool:
    """Whether a forget of ``item_id`` got to its end: its ``forget`` event, logged last."""
    return bool(
        ctx.events.events_after(ctx.workspace, 0, kinds=["forget"], subject=item_id, limit=1)
    )


def _was_erased(item: Item) -> bool:
    return item.tombstoned_at is not None and item.source_key == f"erased:{item.id}"


def _freed(item: Item) -> Item:
    """The row with its source key given up (kept inside the new one, for the record): the
    key's next write makes a new item instead of reviving this one with its versions."""
    if item.source_key.startswith(f"{FORGOTTEN}{item.id}:"):
        return item  # freed already, by a forget that is being finished
    return replace(item, source_key=f"{FORGOTTEN}{item.id}:{item.source_key}")


def _erased(item: Item) -> Item:
    """The row with nothing of the content left: no text, no name, no key that names it."""
    return replace(
        item,
        label=ERASED,
        summary="",
        body="",
        name=None if item.name is None else ERASED,
        source_key=f"erased:{item.id}",
        blob_key=None,
        text_key=None,
        byte_range=None if item.byte_range is None else ByteRange(0, 0),
        content_hash=None,
        indexed=False,
        canonical=None,
    )


def _blobs_of(blob_key: str | None, text_key: str | None) -> list[str]:
    """The version folder (raw bytes and extracted text), or both keys of an older layout."""
    folder = version_folder(blob_key)
    return [folder] if folder else [k for k in (blob_key, text_key) if k]


def _folders(keys: list[str]) -> list[str]:
    """What to delete for the blob keys kept versions named: their version folders."""
    return [version_folder(k) or k for k in keys]
