"""Moving house (``orgbrain migrate``): every record out of one store, into another."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, get_args

__all__ = ["RECORD_KINDS", "Record", "RecordKind", "RecordPage", "TransferStore"]


RecordKind = Literal[
    "items", "versions", "edges", "statements", "evidence", "events", "proposals", "jobs"
]
"""What a store holds, kind by kind, as a move to another store carries it
(``Store.export_records``); in the order a move copies them."""
RECORD_KINDS: tuple[RecordKind, ...] = get_args(RecordKind)

Record = Mapping[str, object]
"""One stored row as a move carries it between stores of any kind: its columns by name
(times as aware datetimes, flags as booleans, JSON columns as their text), an event's
sequence number as ``id``, and an item's stored vectors as ``vectors`` (rows of float32,
its own first; None when it has none)."""


@dataclass(frozen=True, slots=True)
class RecordPage:
    records: tuple[Record, ...]
    next_after: int | None
    """Where the next page starts (pass it as ``after``); None when this was the last."""


class TransferStore(Protocol):
    """Records exported and imported kind by kind, and marks of passes done."""

    def export_records(self, kind: RecordKind, *, after: int = 0, limit: int = 500) -> RecordPage:
        """Up to ``limit`` records of ``kind``, every workspace's, forgotten ones too, in
        the order they are stored, from just past position ``after`` (0: the first)."""
        ...

    def import_records(
        self, kind: RecordKind, records: Sequence[Record], *, mark: tuple[str, str] | None = None
    ) -> int:
        """Store exported records exactly as they were (ids, numbers, times, origins,
        scopes, vectors), in one transaction, with the keyword and vector indexes that
        follow from them; a record already here (its id, or its numbered place) is left
        as it is, so importing a page again adds nothing. With ``mark`` (name, value),
        record that value under the name in the same transaction (``mark``). Returns how
        many records were new."""
        ...

    def count_records(self, kind: RecordKind) -> dict[str, int]:
        """How many records of ``kind`` each workspace holds (forgotten ones too)."""
        ...

    def mark(self, name: str) -> str | None:
        """The value last recorded under ``name`` (``import_records``, ``set_mark``, or a
        migration that asks for a one-off pass), or None."""
        ...

    def set_mark(self, name: str, value: str) -> None:
        """Record ``value`` under ``name`` (a one-off pass done, say)."""
        ...
