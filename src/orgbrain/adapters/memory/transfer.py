"""Records out of and into the in-memory store (``ports.TransferStore``): its rows are
already records (``state.py``), so a move copies them as they are, and an import puts
each item's words and vectors in the search streams as a put does."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ...errors import Conflict, InvalidInput
from ...ports import Job, Record, RecordKind, RecordPage
from ..records import TABLES, check_kind, checked
from .state import ROWS, Part, Row

if TYPE_CHECKING:
    from .items import Checked

__all__ = ["Transfer"]


_REQUIRED: dict[str, frozenset[str]] = {
    kind: frozenset(names.split())
    for kind, names in {
        "items": "id workspace kind class label summary body source_key indexed scope "
        "origin_actor origin_source origin_at created_at updated_at keys",
        "versions": "workspace item_id number label body summary origin_actor origin_source "
        "origin_at replaced_at",
        "edges": "id workspace type src dst dedupe props origin_actor origin_source origin_at",
        "statements": "id workspace type subject_id subject predicate object object_norm scope "
        "item_id text tier confidence valid_from conflicts origin_actor origin_source origin_at",
        "evidence": "workspace statement_id item_id text tier confidence at",
        "events": "id workspace kind at record",
        "proposals": "id workspace run_id actor kind label body scope confidence sensitivity "
        "evidence supersedes state reason writer created_at",
        "jobs": "id workspace kind key actor payload state attempts max_attempts run_after "
        "created_at updated_at",
    }.items()
}
"""The columns a record may not leave empty: the SQL stores' NOT NULL ones."""


class Transfer(Part):
    if TYPE_CHECKING:  # ``Items``' (items.py), on the store that has both parts

        def _check_vectors(self, embedding: Any) -> Checked: ...

        def _reindex(self, row: Row, vectors: Checked) -> None: ...

    def _table(self, kind: RecordKind) -> Iterable[Row]:
        db = self._db
        if kind == "evidence":
            rows = [v for held in db.evidence.values() for v in held.values()]
            return sorted(rows, key=lambda v: v["_pos"])
        held: dict[RecordKind, Iterable[Row]] = {
            "items": db.items.values(),
            "versions": db.versions,
            "edges": db.edges.values(),
            "statements": db.statements.values(),
            "events": db.events.values(),
            "proposals": db.proposals.values(),
            "jobs": [_job_row(job, n) for n, job in enumerate(db.jobs.held(), 1)],
        }
        return held[kind]

    def export_records(self, kind: RecordKind, *, after: int = 0, limit: int = 500) -> RecordPage:
        columns = TABLES[check_kind(kind)].columns
        limit = max(1, limit)
        out: list[Record] = []
        last = 0
        with self._db.lock:
            for row in self._table(kind):
                if row["_pos"] <= after:
                    continue
                record: dict[str, object] = {c: row[c] for c in columns}
                if kind == "items":
                    held = self._db.vectors.get(row["workspace"], {}).get(row["id"])
                    record["vectors"] = None if held is None else held.rows.copy()
                out.append(record)
                last = row["_pos"]
                if len(out) == limit:
                    break
        return RecordPage(tuple(out), last if len(out) == limit else None)

    def import_records(
        self, kind: RecordKind, records: Sequence[Record], *, mark: tuple[str, str] | None = None
    ) -> int:
        check_kind(kind)
        rows = [checked(kind, r) for r in records]
        for row in rows:
            if empty := sorted(c for c in _REQUIRED[kind] if row[c] is None):
                raise InvalidInput(f"a {kind} record's {', '.join(empty)} is empty")
        with self._db.lock:
            # Everything that can refuse is checked before the first row is stored.
            new: list[tuple[Row, Checked]] = []
            seen = {n for r in self._table(kind) for n in self._names(kind, r)}
            keys: set[tuple[str, str]] = set()
            for row, record in zip(rows, records, strict=True):
                names = self._names(kind, row)
                if seen.intersection(names):
                    continue  # already here (or earlier in this page): left as it is
                vectors = None
                if kind == "items":
                    self._check_key(row, keys)
                    answerable = bool(row["indexed"]) and row["tombstoned_at"] is None
                    if answerable and record.get("vectors") is not None:
                        vectors = self._check_vectors(record.get("vectors"))
                seen.update(names)
                new.append((row, vectors))
            for row, vectors in new:
                self._store(kind, row, vectors)
            if kind == "events":  # numbers kept: read in their order
                self._db.events = dict(sorted(self._db.events.items()))
            if mark is not None:
                self._db.marks[mark[0]] = mark[1]
        return len(new)

    @staticmethod
    def _names(kind: RecordKind, row: Row) -> list[tuple[object, ...]]:
        """What makes ``row`` one already here (any one of them, as a unique index)."""
        if kind == "items":  # the key as well: a clash on it alone is refused
            return [(row["id"],)]
        if kind == "versions":
            return [(row["workspace"], row["item_id"], row["number"])]
        if kind == "evidence":
            return [(row["statement_id"], row["item_id"], row["byte_start"])]
        if kind == "edges":
            key = ("edge", row["workspace"], row["type"], row["src"], row["dst"], row["dedupe"])
            return [(row["id"],), key]
        if kind == "jobs":
            return [(row["id"],), ("job", row["workspace"], row["key"])]
        return [(row["id"],)]

    def _check_key(self, row: Row, page: set[tuple[str, str]]) -> None:
        """Refuse an item whose key names another item here (or earlier in the page)."""
        key = (row["workspace"], row["source_key"])
        held = self._db.by_key.get(key) or ("another in this page" if key in page else None)
        page.add(key)
        if held is not None:
            raise Conflict(
                f"item {row['id']}: its key {row['source_key']} names another item ({held}) here"
            )

    def _store(self, kind: RecordKind, row: Row, vectors: Any) -> None:
        db = self._db
        row = {**row, "_pos": row["id"] if kind == "events" else db.next_pos()}
        if kind == "items":
            db.items[row["id"]] = row
            db.by_key[(row["workspace"], row["source_key"])] = row["id"]
            self._reindex(row, vectors)
        elif kind == "versions":
            db.versions.append(row)
        elif kind == "edges":
            db.edges[row["id"]] = row
            key = (row["workspace"], row["type"], row["src"], row["dst"], row["dedupe"])
            db.edge_keys[key] = row["id"]
        elif kind == "statements":
            db.statements[row["id"]] = row
        elif kind == "evidence":
            held = db.evidence.setdefault(row["statement_id"], {})
            held[(row["item_id"], row["byte_start"])] = row
        elif kind == "events":
            row["_record"] = json.loads(row["record"])
            db.events[row["id"]] = row
            db.last_pos = max(db.last_pos, int(row["id"]))
        elif kind == "proposals":
            db.proposals[row["id"]] = row
        else:
            db.jobs.adopt([ROWS.job_from_row(row)])

    def count_records(self, kind: RecordKind) -> dict[str, int]:
        out: dict[str, int] = {}
        with self._db.lock:
            for row in self._table(check_kind(kind)):
                out[row["workspace"]] = out.get(row["workspace"], 0) + 1
        return dict(sorted(out.items()))

    def mark(self, name: str) -> str | None:
        with self._db.lock:
            return self._db.marks.get(name)

    def set_mark(self, name: str, value: str) -> None:
        with self._db.lock:
            self._db.marks[name] = value


def _job_row(job: Job, position: int) -> Row:
    """A job as the SQL stores' ``jobs`` table holds it (``sql/rows.py``'s other way)."""
    return {
        "id": job.id,
        "workspace": job.workspace,
        "kind": job.kind,
        "key": job.key,
        "subject": job.subject,
        "actor": job.actor,
        "payload": json.dumps(dict(job.payload), sort_keys=True, default=str),
        "state": job.state,
        "attempts": job.attempts,
        "max_attempts": job.max_attempts,
        "run_after": job.run_after,
        "lease_owner": job.lease_owner,
        "lease_until": job.lease_until,
        "last_error": job.last_error,
        "created_at": job.created_at,
        "updated_at": job.updated_at,
        "finished_at": job.finished_at,
        "_pos": position,
    }
