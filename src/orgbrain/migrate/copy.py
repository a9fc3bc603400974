"""Moving house: copy a brain, record by record, into another store (and its blobs into
another blob store), resumably.

The order is fixed (``RECORD_KINDS``: items, versions, edges, statements, evidence,
events, proposals, jobs; then API keys), a page of ``batch`` records at a time. A page
of items or versions has its blobs copied first (streamed: a blob never sits whole in
memory), then the page is imported in one transaction of the new store together with
the checkpoint: the kind and position the next page starts from, under the mark
``migration`` (written first of all, before any blob, so the destination is claimed).
A move killed at any point starts again from the last checkpoint; the page it was in is
imported again, and imports leave what is already there as it is, so nothing is copied
twice. Ids, version numbers, event numbers, times, origins, scopes and
the stored vectors come over as they were (no embedding is run).

A destination that holds anything (records, keys or blobs) is refused unless its
checkpoint names this very source (a move of it that was cut short): nothing is written.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..context import BrainContext
from ..derive.outbox import relay
from ..errors import Conflict, NotFound, Unavailable
from ..keys import KeyStore
from ..move_report import MoveOptions, MoveReport
from ..ports import RECORD_KINDS, BlobStore, Record, RecordKind, TransferStore
from .verify import verify

__all__ = ["MARK", "House", "Progress", "move", "source_fingerprint"]

MARK = "migration"
"""The name the new store keeps the move's checkpoint under (``Store.mark``)."""

_DONE = "done"
_BLOB_KINDS: tuple[RecordKind, ...] = ("items", "versions")

Progress = Callable[[str, int, int], None]
"""Told ``(what, done, total)`` after each page of a record kind (or of ``keys``): how
many this run has seen of the source's ``total``; the last call of each has done = total."""


@dataclass(frozen=True, slots=True)
class House:
    """One end of a move: a brain's ports, its API keys, and how to name it in messages
    (no password)."""

    ctx: BrainContext
    keys: KeyStore
    name: str


@dataclass(frozen=True, slots=True)
class _Checkpoint:
    source: str
    origin: str
    kind: str
    after: int

    def dump(self) -> str:
        return json.dumps(
            {"source": self.source, "from": self.origin, "kind": self.kind, "after": self.after}
        )


def source_fingerprint(store: TransferStore) -> str:
    """What tells this brain from another: the name of its first record (ids are random,
    and a brain's first record stays while it is moved), hashed."""
    for kind in RECORD_KINDS:
        first = store.export_records(kind, limit=1).records
        if first:
            named = json.dumps([kind, *_name(kind, first[0])], default=str)
            return hashlib.sha256(named.encode()).hexdigest()[:32]
    return "empty"


def _name(kind: RecordKind, record: Record) -> list[object]:
    if kind == "versions":
        return [record.get("item_id"), record.get("number")]
    if kind == "evidence":
        return [record.get("statement_id"), record.get("item_id"), record.get("byte_start")]
    return [record.get("id")]


def move(
    source: House,
    target: House,
    options: MoveOptions | None = None,
    *,
    progress: Progress | None = None,
) -> MoveReport:
    """Copy everything ``source`` holds into ``target``, or what a cut-short move of it
    left, then verify the two (``verify``)."""
    opts = options or MoveOptions()
    started = time.monotonic()
    # Work a write still owes (an outbox row a crash left after its commit) is not a
    # record kind: asked for now, it travels as the jobs it becomes.
    relay(source.ctx)
    fingerprint = source_fingerprint(source.ctx.transfer)
    checkpoint, resumed = _resume_point(source, target, fingerprint, opts.copy_blobs)
    if not resumed:  # claim the destination before anything lands in it, blobs included
        target.ctx.transfer.import_records(RECORD_KINDS[0], [], mark=(MARK, checkpoint.dump()))
    copied: dict[str, int] = dict.fromkeys(RECORD_KINDS, 0)
    blobs = _BlobCopier(source.ctx.blobs, target.ctx.blobs)
    left = RECORD_KINDS[RECORD_KINDS.index(checkpoint.kind) :] if checkpoint.kind != _DONE else ()
    for kind in left:
        after = checkpoint.after if kind == checkpoint.kind else 0
        copied[kind] = _copy_kind(source, target, kind, after, fingerprint, blobs, opts, progress)
    copied["blobs"], copied["blob_bytes"] = blobs.copied, blobs.bytes
    copied["keys"] = _copy_keys(source.keys, target.keys, progress)
    notes = []
    if blobs.absent:
        notes.append(f"{blobs.absent} blob(s) named by the source were not in it to copy")
    return MoveReport(
        source=source.name,
        target=target.name,
        resumed=resumed,
        copied=copied,
        verification=verify(source.ctx, target.ctx, source.keys, target.keys, opts),
        seconds=round(time.monotonic() - started, 3),
        notes=tuple(notes),
    )


def _resume_point(
    source: House, target: House, fingerprint: str, blobs: bool
) -> tuple[_Checkpoint, bool]:
    """Where this move starts (and whether it goes on with an earlier one): the beginning
    of an empty destination, or where a move of this source into it stopped; else
    ``Conflict`` (nothing written)."""
    found = target.ctx.transfer.mark(MARK)
    if found is None:
        held = _holdings(target, blobs)
        if held:
            raise Conflict(
                f"{target.name} is not empty ({held}) and holds no move of {source.name}: "
                "move into an empty database and blob store; nothing was written"
            )
        return _Checkpoint(fingerprint, source.name, RECORD_KINDS[0], 0), False
    state = json.loads(found)
    if state.get("source") != fingerprint:
        raise Conflict(
            f"{target.name} holds a move of another brain ({state.get('from', 'unknown')}), "
            f"not of {source.name}; nothing was written"
        )
    kind = str(state.get("kind"))
    if kind != _DONE and kind not in RECORD_KINDS:
        raise Conflict(f"{target.name}: its move checkpoint names no known kind ({kind!r})")
    return _Checkpoint(fingerprint, source.name, kind, int(state.get("after") or 0)), True


def _holdings(house: House, blobs: bool) -> str:
    """What a destination already holds, in words ('' when nothing); its blobs only when
    the move is to copy blobs there."""
    for kind in RECORD_KINDS:
        if house.ctx.transfer.count_records(kind):
            return f"it holds {kind}"
    if house.keys.list_keys():
        return "it holds API keys"
    if blobs and next(iter(house.ctx.blobs.keys("workspaces")), None) is not None:
        return "its blob store holds blobs"
    return ""


def _copy_kind(
    source: House,
    target: House,
    kind: RecordKind,
    after: int,
    fingerprint: str,
    blobs: _BlobCopier,
    opts: MoveOptions,
    progress: Progress | None,
) -> int:
    total = sum(source.ctx.transfer.count_records(kind).values())
    following = RECORD_KINDS[RECORD_KINDS.index(kind) + 1 :]
    added = seen = 0
    while True:
        page = source.ctx.transfer.export_records(kind, after=after, limit=opts.batch)
        if kind in _BLOB_KINDS and opts.copy_blobs:
            blobs.copy(page.records)
        if page.next_after is None:
            step = (following[0] if following else _DONE), 0
        else:
            step = kind, page.next_after
        mark = _Checkpoint(fingerprint, source.name, *step).dump()
        added += target.ctx.transfer.import_records(kind, page.records, mark=(MARK, mark))
        seen += len(page.records)
        if progress is not None:
            progress(kind, total if page.next_after is None else seen, total)
        if page.next_after is None:
            return added
        after = page.next_after


class _BlobCopier:
    """Copies the blobs records name, each once: streamed from the source, skipped when
    the destination already holds it whole (puts are atomic: a blob there is whole)."""

    _REMEMBER = 4096  # keys known to be there, so a file's sections ask nothing again

    def __init__(self, source: BlobStore, target: BlobStore) -> None:
        self.source, self.target = source, target
        self.copied = self.bytes = self.absent = 0
        self._there: OrderedDict[str, None] = OrderedDict()

    def copy(self, records: Iterable[Record]) -> None:
        for key in dict.fromkeys(k for r in records for k in _blob_keys(r)):
            if key in self._there:
                continue
            self._copy_one(key)
            self._there[key] = None
            if len(self._there) > self._REMEMBER:
                self._there.popitem(last=False)

    def _copy_one(self, key: str) -> None:
        try:
            size = self.source.size(key)
        except NotFound:
            self.absent += 1
            return
        if self.target.exists(key) and self.target.size(key) == size:
            return
        written = self.target.put(key, self.source.stream(key))
        if written != size:
            raise Unavailable(f"blob {key}: wrote {written} bytes of {size}; run the move again")
        self.copied += 1
        self.bytes += written


def _blob_keys(record: Record) -> list[str]:
    return [str(record[c]) for c in ("blob_key", "text_key") if record.get(c)]


def _copy_keys(source: KeyStore, target: KeyStore, progress: Progress | None) -> int:
    """Every API key, revoked ones too, with its hash (tokens keep working)."""
    keys = source.list_keys()
    added = 0
    for n, key in enumerate(keys, 1):
        if target.find(key.id) is None:
            stored = source.find(key.id)
            if stored is not None:
                target.add(stored.key, stored.secret_hash)
                added += 1
        if progress is not None and (n == len(keys) or n % 100 == 0):
            progress("keys", n, len(keys))
    return added
