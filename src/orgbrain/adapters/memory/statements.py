"""The in-memory store's typed graph (``ports.StatementStore`` but forgetting, which is
``purge.py``): entities, statements with their evidence, item supersession."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime

from ...errors import InvalidInput
from ...model import Edge, Evidence, Item, Statement
from ...scopes import Visibility
from ..records import TABLES
from ..sql.forgotten import refused
from .state import ROWS, Part, Row

__all__ = ["Statements"]

_STATEMENT = TABLES["statements"].columns
_EVIDENCE = TABLES["evidence"].columns


class Statements(Part):
    def put_statement(self, statement: Statement) -> tuple[Statement, bool]:
        s = statement
        with self._db.lock:
            if gone := self._forgotten_among(s.workspace, [s.item_id]):
                raise refused(gone)
            created = s.id not in self._db.statements
            if created:
                row = dict(zip(_STATEMENT, ROWS.statement_values(s), strict=True))
                row["_pos"] = self._db.next_pos()
                self._db.statements[s.id] = row
            ev = Evidence(s.item_id, s.byte_range, s.text, s.tier, s.confidence, s.origin.at)
            self._add_evidence(s.workspace, s.id, ev)
            stored = self._db.statements[s.id]
            return ROWS.statement_from_row({**stored, "n": self._live_count(stored)}), created

    def add_evidence(self, workspace: str, statement_id: str, evidence: Evidence) -> bool:
        with self._db.lock:
            if gone := self._forgotten_among(workspace, [evidence.item_id]):
                raise refused(gone)
            return self._add_evidence(workspace, statement_id, evidence)

    def _add_evidence(self, workspace: str, statement_id: str, ev: Evidence) -> bool:
        row = dict(zip(_EVIDENCE, ROWS.evidence_values(workspace, statement_id, ev), strict=True))
        held = self._db.evidence.setdefault(statement_id, {})
        key = (row["item_id"], row["byte_start"])
        if key in held:
            return False
        row["_pos"] = self._db.next_pos()
        held[key] = row
        return True

    def _live_evidence(self, s: Row, visibility: Visibility) -> list[Row]:
        """The statement's evidence in items that are here, not forgotten and visible."""
        out = []
        for v in self._db.evidence.get(s["id"], {}).values():
            if v["workspace"] != s["workspace"]:
                continue
            item = self._visible_row(v["workspace"], v["item_id"], visibility)
            if item is not None and item["tombstoned_at"] is None:
                out.append(v)
        return out

    def _live_count(self, s: Row) -> int:
        return len(self._live_evidence(s, Visibility.everything()))

    def statements(
        self,
        workspace: str,
        visibility: Visibility,
        *,
        ids: Sequence[str] | None = None,
        subject_ids: Sequence[str] | None = None,
        object_ids: Sequence[str] | None = None,
        predicate: str | None = None,
        item_id: str | None = None,
        item_ids: Sequence[str] | None = None,
        types: Sequence[str] | None = None,
        linked_to: Sequence[str] | None = None,
        current: bool | None = None,
        conflicted: bool = False,
        live: bool = True,
        limit: int = 500,
    ) -> list[Statement]:
        if limit < 0:
            raise InvalidInput("limit must be >= 0")
        with self._db.lock:
            wanted = None if ids is None else set(ids)
            for narrowed in (
                None if item_id is None else self._stated_in(workspace, [item_id]),
                None if item_ids is None else self._stated_in(workspace, item_ids),
                None if linked_to is None else self._linked(workspace, linked_to),
            ):
                if narrowed is not None:
                    wanted = narrowed if wanted is None else wanted & narrowed
            found: list[Row] = []
            for s in self._db.statements.values():
                if s["workspace"] != workspace or (wanted is not None and s["id"] not in wanted):
                    continue
                if not _passes(s, subject_ids, object_ids, types, predicate, current, conflicted):
                    continue
                if not visibility.allows(s["scope"]):
                    continue
                if live and not self._live_evidence(s, visibility):
                    continue
                found.append(s)
            found.sort(key=lambda s: (s["valid_from"], s["_pos"]))
            return [ROWS.statement_from_row({**s, "n": self._live_count(s)}) for s in found[:limit]]

    def _stated_in(self, workspace: str, item_ids: Sequence[str]) -> set[str]:
        """The ids of the statements with evidence in any of ``item_ids``."""
        items = set(item_ids)
        return {
            v["statement_id"]
            for held in self._db.evidence.values()
            for v in held.values()
            if v["workspace"] == workspace and v["item_id"] in items
        }

    def _linked(self, workspace: str, ids: Sequence[str]) -> set[str]:
        """Those that one of ``ids`` replaced, and those that replaced one of them."""
        of = set(ids)
        out: set[str] = set()
        for s in self._db.statements.values():
            if s["workspace"] != workspace or s["superseded_by"] is None:
                continue
            if s["superseded_by"] in of:
                out.add(s["id"])
            if s["id"] in of:
                out.add(s["superseded_by"])
        return out

    def evidence(self, workspace: str, statement_id: str, visibility: Visibility) -> list[Evidence]:
        with self._db.lock:
            s = {"id": statement_id, "workspace": workspace}
            return [ROWS.evidence_from_row(v) for v in self._live_evidence(s, visibility)]

    def end_statement(
        self, workspace: str, statement_id: str, valid_to: datetime, superseded_by: str
    ) -> bool:
        with self._db.lock:
            s = self._db.statements.get(statement_id)
            if s is None or s["workspace"] != workspace or s["superseded_by"] is not None:
                return False
            s.update(valid_to=valid_to, superseded_by=superseded_by)
            return True

    def flag_conflict(self, workspace: str, a: str, b: str) -> None:
        with self._db.lock:
            rows = {i: self._db.statements.get(i) for i in (a, b)}
            for one, other in ((a, b), (b, a)):
                row = rows[one]
                if row is None or row["workspace"] != workspace:
                    continue
                held = json.loads(row["conflicts"])
                if other not in held:
                    row["conflicts"] = json.dumps([*held, other])

    def entities_named(
        self, workspace: str, values: Sequence[str], visibility: Visibility
    ) -> list[Item]:
        named = set(values)
        with self._db.lock:
            return [
                self._item(r)
                for r in self._rows_of(workspace)
                if r["class"] == "entity" and r["canonical_value"] in named
                if r["tombstoned_at"] is None and visibility.allows(r["scope"])
            ]

    def supersede_item(self, edge: Edge) -> bool:
        with self._db.lock:
            if gone := self._forgotten_among(edge.workspace, [edge.src, edge.dst]):
                raise refused(gone)
            return self._supersede(edge)


def _passes(
    s: Row,
    subject_ids: Sequence[str] | None,
    object_ids: Sequence[str] | None,
    types: Sequence[str] | None,
    predicate: str | None,
    current: bool | None,
    conflicted: bool,
) -> bool:
    for column, values in (("subject_id", subject_ids), ("object_id", object_ids), ("type", types)):
        if values is not None and s[column] not in values:
            return False
    if predicate is not None and s["predicate"] != predicate:
        return False
    ended = s["superseded_by"] is not None or s["valid_to"] is not None
    if current is not None and ended == current:
        return False
    return not conflicted or s["conflicts"] != "[]"
