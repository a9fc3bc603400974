"""The in-memory store's event log (``ports.EventStore``): records numbered in order,
read newest first or after a number, and counted. Its running counts are the log itself:
``rolled_counts`` counts the records (no table of days to keep in step in memory)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import UTC, datetime

from ...errors import InvalidInput
from ...model import utcnow
from ..rollup_periods import lenses, rolled_fields
from .state import Part, Row

__all__ = ["Events"]

_FIELD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


class Events(Part):
    def log_event(
        self, workspace: str, kind: str, record: dict[str, object], *, durable: bool = True
    ) -> int:
        actor, subject = record.get("actor"), record.get("item_id")
        text = json.dumps(record, default=str)
        with self._db.lock:
            seq = self._db.next_pos()
            self._db.events[seq] = {
                "id": seq,
                "workspace": workspace,
                "kind": kind,
                "at": utcnow(),
                "actor": None if actor is None else str(actor),
                "subject": None if subject is None else str(subject),
                "record": text,
                "_pos": seq,
                "_record": json.loads(text),  # as a reader gets it back: JSON's types
            }
        return seq

    def events(
        self, workspace: str, kind: str, *, limit: int = 20, actor: str | None = None
    ) -> list[dict[str, object]]:
        out: list[dict[str, object]] = []
        with self._db.lock:
            for r in reversed(self._db.events.values()):
                if len(out) >= limit:
                    break
                if r["workspace"] == workspace and r["kind"] == kind:
                    if actor is None or r["actor"] == actor:
                        out.append(_event(r))
        return out

    def events_after(
        self,
        workspace: str,
        after: int,
        *,
        kinds: Sequence[str] | None = None,
        subject: str | None = None,
        limit: int = 100,
    ) -> list[dict[str, object]]:
        out: list[dict[str, object]] = []
        with self._db.lock:
            for r in self._db.events.values():
                if len(out) >= limit:
                    break
                if r["workspace"] != workspace or r["id"] <= after:
                    continue
                if kinds is not None and r["kind"] not in kinds:
                    continue
                if subject is None or r["subject"] == subject:
                    out.append({**_event(r), "kind": r["kind"]})
        return out

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
        if isinstance(by, str) or not all(isinstance(f, str) and _FIELD.fullmatch(f) for f in by):
            raise InvalidInput(f"event fields are plain names, not {by!r}")
        at = None if since is None else since if since.tzinfo else since.replace(tzinfo=UTC)
        out: dict[tuple[object, ...], int] = {}
        with self._db.lock:
            for r in self._db.events.values():
                if r["workspace"] != workspace or r["kind"] != kind:
                    continue
                if (at is not None and r["at"] < at) or (actor is not None and r["actor"] != actor):
                    continue
                record = r["_record"]
                if scopes is not None and record.get("scope") not in scopes:
                    continue
                key = tuple(record.get(f) for f in by)
                out[key] = out.get(key, 0) + 1
        return out

    def rolled_counts(
        self,
        workspace: str,
        kind: str,
        *,
        since: datetime | None = None,
        actor: str | None = None,
        scopes: Sequence[str] | None = None,
    ) -> dict[tuple[object, ...], int]:
        fields = rolled_fields(kind)
        lenses(actor, scopes)  # refuses an actor and scopes together
        return self.event_counts(workspace, kind, fields, since=since, actor=actor, scopes=scopes)


def _event(r: Row) -> dict[str, object]:
    data: dict[str, object] = dict(r["_record"])
    data.update(id=r["id"], at=r["at"].isoformat())
    return data
