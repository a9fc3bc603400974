"""Writing items: a file's bytes (read, keyed, stored) and notes (embedded, answerable).

A file is added in three steps that each say one thing: ``file_key`` decides the identity
(the ``source_key``) and whether an existing item may be updated, ``put_bytes`` streams
the bytes into a fresh version folder (sniffed, hashed and size-checked as they arrive,
never joined into one ``bytes``), and ``store_file`` commits the item over them. A note is
embedded and written in the same transaction as the others of its batch.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import BinaryIO

from .context import BrainContext
from .derive.outbox import owe_derive, relay
from .errors import Forbidden, InvalidInput, NotFound, TooLarge
from .graph import rekey_around
from .ids import new_id
from .indexer import embed_texts
from .ingest.sniff import MEDIA_TYPES, FileFormat, Sniffer
from .model import Edge, Item, storage_class_for

__all__ = [
    "KEY_OWNERS",
    "MAX_NOTE_CHARS",
    "MAX_SUPERSEDES",
    "FileSource",
    "NoteInput",
    "StoredBytes",
    "add_notes",
    "default_file_key",
    "file_key",
    "keyed_item",
    "name_of",
    "put_bytes",
    "record_supersedes",
    "store_file",
    "supersede_edge",
    "superseded_items",
    "version_folder",
]

MAX_NOTE_CHARS = 100_000
MAX_SUPERSEDES = 20
"""The most items one write may say it supersedes."""
_BAD_NAME = re.compile(r"[\x00-\x1f/\\]")
KEY_OWNERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "entity:": ("the graph's entities", ()),
    "file:": ("files and their sections", ("file",)),
}
"""Key prefixes kept for one class, and the classes a write may give such a key: an
entity's key is derivation's alone (``graph.links.entity_source_key``), and a file's
default key (``file:<name>``) is what its sections' keys extend (``<key>#<part>``), so no
note squats a key an entity or a section will have (indexing would make it a section)."""

PROPOSAL_KEY = "proposal:"
PROPOSAL_SOURCES = frozenset({"writeback", "review"})
"""The writes that turn a write-back proposal into its note (``writeback.run`` and
``writeback.review``); transports set a note's source themselves, so no caller claims it."""


@dataclass(frozen=True, slots=True)
class NoteInput:
    """One note to write, as ``Brain.add_note`` takes it."""

    body: str
    kind: str = "note"
    label: str | None = None
    scope: str | None = None
    source_key: str | None = None
    occurred_at: datetime | None = None
    run_id: str | None = None
    source: str = "note"
    supersedes: Sequence[str] = ()
    """Ids of visible items this note replaces (``superseded_items`` says which may be)."""


@dataclass(frozen=True, slots=True)
class StoredBytes:
    """A file's bytes, streamed into the blob store: sniffed, hashed and size-checked as
    they arrived. ``blob_key`` is a fresh version folder's ``raw`` file."""

    name: str
    format: FileFormat
    digest: str
    size: int
    blob_key: str


FileSource = str | Path | bytes | BinaryIO
"""A path, the bytes themselves, or a binary stream (read to its end, never whole)."""

_READ = 1 << 20
RAW = "raw"
"""A version's raw bytes, in its folder; its extracted text is ``raw.txt`` beside it."""


# -- files ------------------------------------------------------------------------------


def name_of(source: FileSource, name: str | None) -> str:
    """The file's clean base name: ``name`` if given, else the path's."""
    if name is None:
        if isinstance(source, str | Path):
            name = Path(source).name
        else:
            raise InvalidInput("a name is needed to add bytes or a stream")
    return clean_name(name)


def file_key(ctx: BrainContext, key: str, scope: str) -> Item | None:
    """The file ``key`` already names in ``scope``, or None (``keyed_item``)."""
    return keyed_item(ctx, key, scope, "file")


def keyed_item(ctx: BrainContext, key: str, scope: str, storage_class: str) -> Item | None:
    """The item a write of a ``storage_class`` item under ``key`` in ``scope`` updates, or
    None for a new one. A key belongs to one storage class and one scope: a write may
    update a file as a file or a note as a note, never turn one class into another nor take
    a derived item's key (an entity's, a section's, ``KEY_OWNERS``), and ``InvalidInput``
    says so. Keys are
    per scope and ``scope`` is one the writer writes (so sees): another scope's items are
    never found here, and a key held there answers exactly as a free one."""
    for prefix, (kept_for, classes) in KEY_OWNERS.items():
        if key.startswith(prefix) and storage_class not in classes:
            raise InvalidInput(f"source key {key!r}: keys starting {prefix} are for {kept_for}")
    existing = ctx.items.get_by_source_key(ctx.workspace, key, ctx.visibility, scope=scope)
    if existing is not None and (
        existing.storage_class != storage_class or storage_class not in ("file", "note")
    ):
        raise InvalidInput(f"source key {key!r} belongs to a {existing.storage_class}")
    return existing


def default_file_key(name: str, scope: str) -> str:
    """The key of a file known only by its name (bytes or a stream): the same name in the
    same scope is the same file (new bytes make a new version of it)."""
    return f"file:{name}" if scope == "org" else f"file:{scope}:{name}"


def path_key(path: Path, root: Path | None, scope: str) -> str:
    """The key of a file added by path: its path from ``root`` (the brain's folder's
    parent unless declared), else its absolute path. So ``a/README.md`` and
    ``b/README.md`` are two items, and ``docs/x.md`` is one item whether it was added
    alone or with its folder."""
    where = path.resolve()
    if root is not None and where.is_relative_to(root.resolve()):
        return default_file_key(where.relative_to(root.resolve()).as_posix(), scope)
    return default_file_key(where.as_posix(), scope)


def put_bytes(ctx: BrainContext, source: FileSource, name: str, item_id: str) -> StoredBytes:
    """Stream ``source`` into a new version folder of ``item_id``'s blobs, sniffing,
    hashing and counting as it goes; bad or oversize bytes leave nothing behind."""
    cap = ctx.settings.max_file_bytes
    sniffer, digest = Sniffer(), hashlib.sha256()

    def tee() -> Iterator[bytes]:
        for chunk in _chunks(source, cap):
            sniffer.feed(chunk)
            digest.update(chunk)
            yield chunk

    folder = f"workspaces/{ctx.workspace}/{item_id}/{new_id('ver')}"
    blob_key = f"{folder}/{RAW}"
    try:
        size = ctx.blobs.put(blob_key, tee(), max_bytes=cap)
        fmt = sniffer.format_of(name)
    except TooLarge:
        sniffer.close()
        raise TooLarge(f"{name} is over the cap of {cap} bytes") from None
    except BaseException:
        sniffer.close()
        ctx.blobs.delete_prefix(folder)
        raise
    return StoredBytes(name, fmt, digest.hexdigest(), size, blob_key)


def _chunks(source: FileSource, cap: int) -> Iterator[bytes]:
    if isinstance(source, bytes):
        yield source
        return
    if isinstance(source, str | Path):
        path = Path(source)
        if not path.is_file():
            raise NotFound(f"no such file: {path}")
        if path.stat().st_size > cap:
            raise TooLarge(f"{path.name} is {path.stat().st_size} bytes; the cap is {cap}")
        with path.open("rb") as f:
            yield from iter(lambda: f.read(_READ), b"")
        return
    yield from iter(lambda: source.read(_READ), b"")


def store_file(
    ctx: BrainContext,
    stored: StoredBytes,
    existing: Item | None,
    *,
    item_id: str,
    key: str,
    kind: str,
    label: str | None,
    scope: str,
    occurred_at: datetime | None,
    run_id: str | None,
) -> Item:
    """Write the unindexed item over the stored bytes. The same bytes in the same scope
    change nothing (the new copy is dropped); new bytes take the item and its sections out
    of answers until reindexed. The previous version stays, bytes and extracted text in
    its own folder, as the store's kept version (readable with ``read_file(version=)``)."""
    version = version_folder(stored.blob_key)
    assert version is not None  # put_bytes writes version folders only
    if existing is not None and existing.content_hash == stored.digest and existing.scope == scope:
        ctx.blobs.delete_prefix(version)
        return existing
    try:
        item = ctx.items.put_item(
            Item(
                id=item_id,
                workspace=ctx.workspace,
                kind=kind,
                storage_class="file",
                label=label or (existing.label if existing else "") or stored.name,
                body="",
                source_key=key,
                indexed=False,
                scope=scope,
                origin=ctx.origin("add", run_id),
                blob_key=stored.blob_key,
                occurred_at=occurred_at,
                name=stored.name,
                media_type=MEDIA_TYPES[stored.format],
                size=stored.size,
                content_hash=stored.digest,
            )
        )
    except BaseException:
        ctx.blobs.delete_prefix(version)
        raise
    if existing is not None:
        ctx.items.unindex_children(ctx.workspace, item.id)
    return item


def version_folder(blob_key: str | None) -> str | None:
    """The folder that holds one version of a file's blobs (``raw`` and its extracted
    ``raw.txt``), or None for a key from before version folders (``<item>/<name>``)."""
    if blob_key is None:
        return None
    folder, _, leaf = blob_key.rpartition("/")
    return folder if leaf == RAW else None


def clean_name(name: str) -> str:
    """The base name of ``name``: at most 255 bytes of UTF-8 (what file systems allow), no
    control characters, slashes or lone surrogates. It is only ever shown and stored in a
    row: blob keys never carry it."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1].strip()
    try:
        size = len(base.encode("utf-8"))
    except UnicodeEncodeError:
        raise InvalidInput(f"invalid file name {name!r}: it is not valid Unicode") from None
    if not base or base in (".", "..") or _BAD_NAME.search(base):
        raise InvalidInput(f"invalid file name {name!r}")
    if size > 255:
        raise InvalidInput(f"a file name is at most 255 bytes of UTF-8; {base[:40]!r}… is {size}")
    return base


# -- supersession ---------------------------------------------------------------------


def superseded_items(
    ctx: BrainContext, ids: Sequence[str], scope: str, item_id: str | None = None
) -> list[Item]:
    """The items a write landing in ``scope`` says it supersedes, checked before anything
    is written: each is a file or note the writer sees (an unknown id and one it may not
    see read alike), not the item being written (``item_id``, when the write updates one),
    and one everybody who sees it will see the new item in: the same scope, or the new
    item is ``org``. So a private note never marks team or org knowledge superseded."""
    if isinstance(ids, str):
        raise InvalidInput("supersedes is a list of item ids")
    wanted = list(dict.fromkeys(ids))
    if len(wanted) > MAX_SUPERSEDES:
        raise InvalidInput(f"a write may supersede at most {MAX_SUPERSEDES} items")
    found = ctx.get_many(wanted) if wanted else {}
    out = []
    for old_id in wanted:
        old = found.get(old_id)
        if old is None:
            raise InvalidInput(f"supersedes: no item {old_id!r} that you can see")
        if old.id == item_id:
            raise InvalidInput(
                f"supersedes: {old.id} is the item this write updates; writing its source "
                "key again keeps the previous version in its history"
            )
        if old.storage_class not in ("file", "note"):
            where = f" (supersede its file {old.parent_id})" if old.parent_id else ""
            raise InvalidInput(
                f"supersedes: {old.id} is a {old.storage_class}; only files and notes are "
                f"superseded{where}"
            )
        if scope not in (old.scope, "org"):
            raise Forbidden(
                f"supersedes: {old.id} is in {old.scope}, and a write in {scope} may not "
                f"supersede it (some who see it could not see what replaced it); write in "
                f"{old.scope} or org"
            )
        out.append(old)
    return out


def record_supersedes(
    ctx: BrainContext, new: Item, olds: Sequence[Item], run_id: str | None
) -> None:
    """Record that ``new`` supersedes each of ``olds`` (checked by ``superseded_items``).
    An item that already has a successor keeps it; the edge still records this claim."""
    for old in olds:
        ctx.statements.supersede_item(supersede_edge(ctx, new.id, old, run_id))
    if olds:  # a superseded turn's words leave its neighbours' keys
        rekey_around(ctx.store, ctx.workspace, [old.id for old in olds])


def supersede_edge(ctx: BrainContext, new_id_: str, old: Item, run_id: str | None) -> Edge:
    """The ``SUPERSEDES`` edge of an explicit claim that ``new_id_`` replaces ``old``."""
    return Edge(
        new_id("edg"),
        ctx.workspace,
        "SUPERSEDES",
        new_id_,
        old.id,
        ctx.origin("supersede", run_id),
        {"reason": "explicit", "dedupe": "supersedes"},
    )


# -- notes ------------------------------------------------------------------------------


def add_notes(ctx: BrainContext, notes: Sequence[NoteInput]) -> list[Item]:
    """Write ``notes`` in one transaction (all or nothing), embedded in batches, with what
    each says it supersedes and the work they owe (their derivation, their neighbours'
    keys: ``derive.outbox``), which is then asked for. Every note is checked before
    anything is written."""
    items = [note_item(ctx, n) for n in notes]
    keys = [i.source_key for i in items]
    if len(set(keys)) != len(keys):
        raise InvalidInput("two notes in one batch share a source key")
    replaced = [
        superseded_items(ctx, n.supersedes, i.scope, i.id)
        for n, i in zip(notes, items, strict=True)
    ]
    vectors = embed_texts(
        ctx.embedder, [f"{i.label}\n{i.body}" for i in items], ctx.settings.embed_batch
    )
    edges = [
        supersede_edge(ctx, item.id, old, note.run_id)
        for note, item, olds in zip(notes, items, replaced, strict=True)
        for old in olds
    ]
    # An edited or moved turn's words change in its neighbours' keys (context_keys.py),
    # and so do a superseded one's.
    owed = owe_derive(ctx, rekey=[e.dst for e in edges])
    saved = ctx.items.put_items(list(zip(items, vectors, strict=True)), supersede=edges, owed=owed)
    relay(ctx, [owed.id])  # after the commit; a crash before it leaves the row to relay
    return saved


def note_item(ctx: BrainContext, n: NoteInput) -> Item:
    text = n.body.strip() if isinstance(n.body, str) else ""
    if not text:
        raise InvalidInput("a note needs a body")
    if len(text) > MAX_NOTE_CHARS:
        raise TooLarge(f"a note is at most {MAX_NOTE_CHARS} characters; got {len(text)}")
    cls = storage_class_for(n.kind)
    if cls in ("file", "section"):
        raise InvalidInput(f"kind {n.kind!r} is reserved for files; add the file instead")
    if cls != "note":
        # Search reads files, sections and notes: a written "entity" would never be found.
        raise InvalidInput(
            f"kind {n.kind!r} is reserved: entities and statements are derived from what "
            "notes and files say; write it as a note (any other kind, e.g. person or fact)"
        )
    scope = ctx.write_scope(n.scope)
    label = (n.label or first_line(text)).strip()
    key = n.source_key or content_key("note", f"{scope}\n{n.kind}\n{text}".encode())
    if key.startswith(PROPOSAL_KEY) and n.source not in PROPOSAL_SOURCES:
        # An approved proposal becomes the note under this key: a note written first
        # under it would be taken over (its id and its history) by the approval.
        raise InvalidInput(f"source key {key!r}: keys starting {PROPOSAL_KEY} are write-back's")
    existing = keyed_item(ctx, key, scope, cls)
    return Item(
        id=existing.id if existing else new_id("not"),
        workspace=ctx.workspace,
        kind=n.kind,
        storage_class=cls,
        label=label,
        body=text,
        source_key=key,
        indexed=True,
        scope=scope,
        origin=ctx.origin(n.source, n.run_id),
        occurred_at=n.occurred_at,
        summary=first_line(text),
    )


def content_key(prefix: str, data: bytes) -> str:
    return f"{prefix}:{hashlib.sha256(data).hexdigest()[:24]}"


def first_line(text: str, limit: int = 120) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"
