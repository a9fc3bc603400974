"""Work a write owes after its commit, recorded in the write's own transaction."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

__all__ = ["OutboxStore", "Owed"]


@dataclass(frozen=True, slots=True)
class Owed:
    """One write's owed work (an outbox row): what ``kind`` of work, asked for by whom
    (``actor``, ``payload``), about which items (``subjects``).

    A writer builds it with a fresh ``id`` and no subjects and hands it to the write
    (``ItemStore.put_items``, ``commit_index``); the store records it with the ids it
    wrote, in the same transaction, so the work is owed exactly when the write is on disk.
    ``derive.outbox.relay`` turns it into jobs and settles it."""

    id: str
    kind: str
    actor: str
    payload: Mapping[str, object] = field(default_factory=dict)
    subjects: tuple[str, ...] = ()
    workspace: str = ""
    created_at: datetime | None = None


class OutboxStore(Protocol):
    """The outbox: owed work, read and settled by the relay."""

    def owed(self, *, ids: Sequence[str] | None = None, limit: int = 100) -> list[Owed]:
        """Owed work of every workspace, oldest first (with ``ids``, only those rows)."""
        ...

    def settle_owed(self, ids: Sequence[str]) -> None:
        """Drop these rows: their work is asked for (an unknown id is no error)."""
        ...
