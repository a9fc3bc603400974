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
"""

from __future__ import annotations

from dataclasses import replace

from .context import BrainContext
from .errors import InvalidInput
from .graph import rekey_around
from .model import ByteRange, Forgotten, Item
from .writes import version_folder

__all__ = ["MAX_REASON_CHARS", "forget"]

MAX_REASON_CHARS = 2000
ERASED = "(erased)"
FORGOTTEN = "forgotten:"


def forget(ctx: BrainContext, item_id: str, reason: str, *, erase: bool = False) -> Forgotten:
    """Tombstone ``item_id`` (and its sections) with ``reason``; with ``erase``, also
    delete its raw bytes and extracted text and blank what the row held. Scoped like a
    write: the reader must see the item and may write its scope."""
    why = reason.strip() if isinstance(reason, str) else ""
    if not why:
        raise InvalidInput("say why: forgetting needs a reason (it is kept in the log)")
    if len(why) > MAX_REASON_CHARS:
        raise InvalidInput(f"a reason is at most {MAX_REASON_CHARS} characters")
    item = ctx.get(item_id)
    if item.storage_class == "section":
        raise InvalidInput(
            f"{item.id} is a section of {item.parent_id}: forget the file (a section is cut "
            "from it again on the next index)"
        )
    ctx.write_scope(item.scope)  # Forbidden unless the reader writes where the item lives
    now = ctx.clock()
    targets = [item, *ctx.sections_of(item.id)] if item.storage_class == "file" else [item]
    gone = [_erased(t) if erase else _freed(t) for t in targets]
    ctx.store.put_items([(replace(t, tombstoned_at=now), None) for t in gone])
    # Its words leave the keys of the turns around it (graph/context_keys.py).
    rekey_around(ctx.store, ctx.workspace, [t.id for t in targets])
    if erase:
        # Every version's bytes and text go too; a crash before the blobs are deleted
        # leaves blobs no row names, which the sweep removes.
        kept = ctx.store.erase_versions(ctx.workspace, item.id)
        for blob in sorted({*_blobs_of(item.blob_key, item.text_key), *_folders(kept)}):
            ctx.blobs.delete_prefix(blob)
    # Last, so that an erase's scrub of the store's files covers everything above.
    dropped = ctx.store.purge_derived(ctx.workspace, [t.id for t in targets], erase=erase)
    record: dict[str, object] = {
        "item_id": item.id,
        "storage_class": item.storage_class,
        "items": len(targets),
        "entities_dropped": len(dropped),
        "erased": erase,
        "reason": why,
        "actor": ctx.actor,
    }
    event_id = ctx.store.log_event(ctx.workspace, "forget", record)
    return Forgotten(
        item.id, item.storage_class, len(targets), erase, why, ctx.actor, now, event_id
    )


def _freed(item: Item) -> Item:
    """The row with its source key given up (kept inside the new one, for the record): the
    key's next write makes a new item instead of reviving this one with its versions."""
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
