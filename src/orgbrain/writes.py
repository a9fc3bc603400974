"""Writing items: a file's bytes (read, keyed, stored) and notes (embedded, answerable).

A file is added in three steps that each say one thing: ``read_source`` takes the bytes
and checks their size, ``file_key`` decides the identity (the ``source_key``) and whether
an existing item may be updated, and ``store_file`` puts the blob and the item. A note is
embedded and written in the same transaction as the others of its batch.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from .context import BrainContext
from .errors import InvalidInput, NotFound, TooLarge
from .ids import new_id
from .indexer import embed_texts
from .ingest.sniff import MEDIA_TYPES, FileFormat, detect_format
from .model import Item, storage_class_for
from .scopes import Visibility

__all__ = [
    "MAX_NOTE_CHARS",
    "FileInput",
    "NoteInput",
    "add_notes",
    "file_key",
    "read_source",
    "store_file",
]

MAX_NOTE_CHARS = 100_000
_BAD_NAME = re.compile(r"[\x00-\x1f/\\]")


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


@dataclass(frozen=True, slots=True)
class FileInput:
    """A file's bytes, read and checked: its clean name, format and digest."""

    name: str
    data: bytes
    format: FileFormat
    digest: str


# -- files ------------------------------------------------------------------------------


def read_source(source: str | Path | bytes, name: str | None, cap: int) -> FileInput:
    """The bytes of a path or of ``source`` itself, size-checked, sniffed and hashed."""
    if isinstance(source, bytes):
        if name is None:
            raise InvalidInput("a name is needed to add bytes")
        data = source
    else:
        path = Path(source)
        if not path.is_file():
            raise NotFound(f"no such file: {path}")
        if path.stat().st_size > cap:
            raise TooLarge(f"{path.name} is {path.stat().st_size} bytes; the cap is {cap}")
        data = path.read_bytes()
        name = name or path.name
    clean = clean_name(name)
    if len(data) > cap:
        raise TooLarge(f"{clean} is {len(data)} bytes; the cap is {cap}")
    fmt = detect_format(data, clean)
    return FileInput(clean, data, fmt, hashlib.sha256(data).hexdigest())


def file_key(ctx: BrainContext, name: str, scope: str, source_key: str | None) -> Item | None:
    """The item ``source_key`` (default ``file:<name>``, scoped unless org) already names,
    if the writer may update it; ``InvalidInput`` when the key is taken by something the
    writer cannot see or by an item that is not a file."""
    key = source_key or default_file_key(name, scope)
    existing = ctx.store.get_by_source_key(ctx.workspace, key, Visibility.everything())
    if existing is not None and not ctx.visibility.allows(existing.scope):
        raise InvalidInput(f"source key {key!r} is taken")
    if existing is not None and existing.storage_class != "file":
        raise InvalidInput(f"source key {key!r} belongs to a {existing.storage_class}")
    return existing


def default_file_key(name: str, scope: str) -> str:
    return f"file:{name}" if scope == "org" else f"file:{scope}:{name}"


def store_file(
    ctx: BrainContext,
    file: FileInput,
    existing: Item | None,
    *,
    key: str,
    kind: str,
    label: str | None,
    scope: str,
    occurred_at: datetime | None,
    run_id: str | None,
) -> Item:
    """Put the blob and the unindexed item; the same bytes in the same scope change
    nothing, new bytes take the item (and its sections) out of answers until reindexed."""
    if existing is not None and existing.content_hash == file.digest and existing.scope == scope:
        return existing
    ws = ctx.workspace
    item_id = existing.id if existing else new_id("fil")
    blob_key = f"workspaces/{ws}/{item_id}/{file.name}"
    if existing is not None and existing.blob_key and existing.blob_key != blob_key:
        ctx.blobs.delete_prefix(existing.blob_key)
    ctx.blobs.put(blob_key, [file.data], max_bytes=ctx.settings.max_file_bytes)
    item = ctx.store.put_item(
        Item(
            id=item_id,
            workspace=ws,
            kind=kind,
            storage_class="file",
            label=label or (existing.label if existing else "") or file.name,
            body="",
            source_key=key,
            indexed=False,
            scope=scope,
            origin=ctx.origin("add", run_id),
            blob_key=blob_key,
            occurred_at=occurred_at,
            name=file.name,
            media_type=MEDIA_TYPES[file.format],
            size=len(file.data),
            content_hash=file.digest,
        )
    )
    if existing is not None:
        ctx.store.unindex_children(ws, item.id)
    return item


def clean_name(name: str) -> str:
    base = name.replace("\\", "/").rsplit("/", 1)[-1].strip()
    if not base or base in (".", "..") or _BAD_NAME.search(base) or len(base) > 255:
        raise InvalidInput(f"invalid file name {name!r}")
    return base


# -- notes ------------------------------------------------------------------------------


def add_notes(ctx: BrainContext, notes: Sequence[NoteInput]) -> list[Item]:
    """Write ``notes`` in one transaction (all or nothing), embedded in batches."""
    items = [note_item(ctx, n) for n in notes]
    keys = [i.source_key for i in items]
    if len(set(keys)) != len(keys):
        raise InvalidInput("two notes in one batch share a source key")
    vectors = embed_texts(
        ctx.embedder, [f"{i.label}\n{i.body}" for i in items], ctx.settings.embed_batch
    )
    return ctx.store.put_items(list(zip(items, vectors, strict=True)))


def note_item(ctx: BrainContext, n: NoteInput) -> Item:
    text = n.body.strip() if isinstance(n.body, str) else ""
    if not text:
        raise InvalidInput("a note needs a body")
    if len(text) > MAX_NOTE_CHARS:
        raise TooLarge(f"a note is at most {MAX_NOTE_CHARS} characters; got {len(text)}")
    cls = storage_class_for(n.kind)
    if cls in ("file", "section"):
        raise InvalidInput(f"kind {n.kind!r} is reserved for files; add the file instead")
    scope = ctx.write_scope(n.scope)
    label = (n.label or first_line(text)).strip()
    key = n.source_key or content_key("note", f"{scope}\n{n.kind}\n{text}".encode())
    existing = ctx.store.get_by_source_key(ctx.workspace, key, Visibility.everything())
    taken = existing is not None and (
        existing.storage_class in ("file", "section") or not ctx.visibility.allows(existing.scope)
    )
    if taken:
        raise InvalidInput(f"source key {key!r} is taken")
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
