"""The store's append-only event log and the running counts kept with it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from types import MappingProxyType
from typing import Protocol

__all__ = ["EVENT_ROLLUPS", "EventStore"]


EVENT_ROLLUPS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "search": ("surface", "spoke", "latency_ms", "error"),
        "gate": ("decision",),
        "review": ("outcome", "waited_s"),
        "writeback": (),
    }
)
"""The event kinds a ``Store`` keeps running counts of, and the fields it counts them by
(``Store.rolled_counts``): per UTC day and month, by anyone, per actor and per ``scope``,
kept in the same transaction as each event (docs/loop.md, "Counting at scale")."""


class EventStore(Protocol):
    """Each workspace's event log: appended records, read back newest or after a number, counted."""

    def log_event(
        self, workspace: str, kind: str, record: dict[str, object], *, durable: bool = True
    ) -> int:
        """Append a JSON record to the workspace's log (e.g. kind "turn"); returns its id.

        ``durable=False`` is for statistics (a search event): committed and readable at
        once, in order, but not flushed to disk on its own, so a crash of the machine (not
        of the process) may lose it until the next durable write flushes the log."""
        ...

    def events(
        self, workspace: str, kind: str, *, limit: int = 20, actor: str | None = None
    ) -> list[dict[str, object]]:
        """The most recent records of ``kind``, newest first, each with ``id`` and ``at``."""
        ...

    def events_after(
        self,
        workspace: str,
        after: int,
        *,
        kinds: Sequence[str] | None = None,
        subject: str | None = None,
        limit: int = 100,
    ) -> list[dict[str, object]]:
        """Records after sequence number ``after`` (of ``kinds``, about item ``subject``),
        oldest first, each with ``id`` (its sequence number, increasing), ``kind``, ``at``."""
        ...

    def event_counts(
        self,
        workspace: str,
        kind: str,
        by: Sequence[str],
        *,
        since: datetime | None = None,
        actor: str | None = None,
        scopes: Sequence[str] | None = None,
    ) -> dict[tuple[object, ...], int]:
        """How many records of ``kind`` there are per distinct value of their fields
        ``by`` (a tuple in that order; a field a record lacks is None, and a value keeps
        its JSON type: ``true`` is ``True``), counting only those logged at or after
        ``since``, by ``actor``, and whose ``scope`` field is one of ``scopes``.
        ``by`` names plain top-level fields (letters, digits, ``_``); else InvalidInput."""
        ...

    def rolled_counts(
        self,
        workspace: str,
        kind: str,
        *,
        since: datetime | None = None,
        actor: str | None = None,
        scopes: Sequence[str] | None = None,
    ) -> dict[tuple[object, ...], int]:
        """Exactly ``event_counts(workspace, kind, EVENT_ROLLUPS[kind], since=since,
        actor=actor, scopes=scopes)``, read from the running counts kept with each event
        (whole days and months) and the events of the part of a day ``since`` falls in: its
        cost grows with the days in the window and the distinct values counted, not with
        the events. ``kind`` is one of ``EVENT_ROLLUPS``, and ``actor`` and ``scopes`` are
        not given together; else InvalidInput."""
        ...
