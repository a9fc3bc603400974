"""The in-memory store's outbox (``ports.OutboxStore``), and what commits with a write of
items: the supersessions it claims and the work it owes, all or nothing, as the SQL stores
do in one transaction (``sql/outbox.py``).

There is no transaction to roll back here, so a write that can still be refused after its
rows are written (a supersession of a forgotten item) is undone by hand
(``_undone_on_error``): every claim is checked before the first is recorded, and the rows,
keys and versions the write changed are put back.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace

from ...model import Edge, Item, utcnow
from ...ports import Owed
from ..sql.forgotten import refused
from ..sql.rows import stored_key
from .state import Part, Row

__all__ = ["Outbox", "as_kept"]


def as_kept(owed: Owed | None) -> Owed | None:
    """``owed`` with its payload as the SQL stores keep it (through JSON), so the relay
    reads the same values here; a write takes it before it changes anything, as this is
    the part of recording it that can fail."""
    if owed is None:
        return None
    payload = json.loads(json.dumps(dict(owed.payload), sort_keys=True, default=str))
    return replace(owed, payload=payload)


class Outbox(Part):
    """``OutboxStore``, and what commits with a write of items (``put_items``)."""

    def owed(self, *, ids: Sequence[str] | None = None, limit: int = 100) -> list[Owed]:
        with self._db.lock:
            rows = self._db.outbox.values()
            wanted = None if ids is None else set(ids)
            return [r for r in rows if wanted is None or r.id in wanted][:limit]

    def settle_owed(self, ids: Sequence[str]) -> None:
        with self._db.lock:
            for owed_id in ids:
                self._db.outbox.pop(owed_id, None)

    def _owe(self, owed: Owed | None, stored: Sequence[Item]) -> None:
        """Record ``owed`` (as ``as_kept`` gave it) about ``stored`` (nothing stored,
        nothing owed); the caller holds the lock."""
        if owed is None or not stored:
            return
        self._db.outbox[owed.id] = replace(
            owed,
            subjects=tuple(i.id for i in stored),
            workspace=stored[0].workspace,
            created_at=utcnow(),
        )

    def _commit_with(
        self,
        asked: Sequence[Item],
        stored: Sequence[Item],
        supersede: Sequence[Edge],
        owed: Owed | None,
    ) -> list[Item]:
        """After the rows of ``asked`` are written (as ``stored``, in order): the
        supersessions they claim, each ``src`` read as the id its item is stored under,
        and the owed work. Every claim is checked before one is recorded, so a refusal
        (``Conflict``) leaves nothing of them. Returns ``stored`` as committed."""
        stored_as = {a.id: s.id for a, s in zip(asked, stored, strict=True)}
        edges = [replace(e, src=stored_as.get(e.src, e.src)) for e in supersede]
        for edge in edges:
            if gone := self._forgotten_among(edge.workspace, [edge.src, edge.dst]):
                raise refused(gone)
        out = {s.id: s for s in stored}
        for edge in edges:
            self._supersede(edge)
            if (new := out.get(edge.src)) is not None and new.supersedes is None:
                out[edge.src] = replace(new, supersedes=edge.dst)  # as the row has it
        self._owe(owed, stored)
        return [out[s.id] for s in stored]

    @contextmanager
    def _undone_on_error(self, items: Sequence[Item]) -> Iterator[None]:
        """Put back the item rows, keys and versions that writing ``items`` may change if
        the block raises; the caller holds the lock, and indexes the rows for search only
        after the block.

        A write of an item changes the row of its key or of its id (``Items._write_row``),
        and those rows' keys: an item written earlier in the same block is one of these
        too, so these are all it can touch."""
        db = self._db
        rows: dict[str, Row | None] = {}
        keys: set[tuple[str, str]] = set()
        for item in items:
            key = (item.workspace, stored_key(item.scope, item.source_key))
            keys.add(key)
            for item_id in (db.by_key.get(key), item.id):
                if item_id is not None and item_id not in rows:
                    row = rows[item_id] = db.items.get(item_id)
                    if row is not None:
                        keys.add((row["workspace"], row["source_key"]))
        held = {key: db.by_key.get(key) for key in keys}
        versions = len(db.versions)
        try:
            yield
        except BaseException:
            for item_id, row in rows.items():
                if row is None:
                    db.items.pop(item_id, None)
                else:
                    db.items[item_id] = row  # in its place: the id was never popped
            for key, item_id in held.items():
                if item_id is None:
                    db.by_key.pop(key, None)
                else:
                    db.by_key[key] = item_id
            del db.versions[versions:]
            raise
