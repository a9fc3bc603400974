"""What forgetting an item takes out of the store besides its own row, for both SQL stores:
the copies derivation made of its words (statements, mention edges, entities nothing else
names) and the links that would still point at it. A forgotten entity takes the
statements about it (its subject or object) with it: each says its name.

A forgotten item keeps its own row (tombstoned, for the record), but nothing derived from
it stays: a statement, an entity's name or a mention's text is a copy of its words that
would otherwise answer in its place. With ``erase`` every edge touching it and its
derivation log go too, since their properties and records may quote it.

Supersession links are cut the same way (issue 12, 7b). A successor whose ``supersedes``
named a forgotten item would show its id to every reader of the successor, and the
predecessor it replaced would stay out of answers, replaced by something nobody can read.
So a forgotten item is treated as never written: each link moves to the next claim still
standing (another live ``SUPERSEDES`` edge), or is cleared. The edges themselves stay on
``forget`` (an edge shows only when both ends are visible), and go on ``erase``.
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import Sequence
from typing import Any

from .dialect import Connection, Part

__all__ = ["Purge"]

ERASED = "(erased)"
DERIVE_EVENTS = ("derive", "derived")
"""The log kinds that record an item's derivation (``derive/steps.py``)."""


class Purge(Part):
    """``purge_derived``: the store's side of forgetting beyond the item's own row."""

    @abstractmethod
    def _drop_items(self, conn: Connection, workspace: str, ids: Sequence[str]) -> None:
        """Delete the rows ``ids`` and every edge touching them, with their vectors and
        keyword postings (each backend keeps those its own way)."""

    def purge_derived(self, workspace: str, item_ids: Sequence[str], *, erase: bool) -> list[str]:
        ids = sorted(set(item_ids))
        if not ids:
            return []
        d = self._dialect
        mine, mine_p = d.any_of("src", ids)
        with self._tx() as conn:
            named = [
                r["dst"]
                for r in conn.execute(
                    d.sql(
                        "SELECT DISTINCT dst FROM edges WHERE workspace = ? "
                        f"AND type = 'MENTIONS' AND {mine}"
                    ),
                    [workspace, *mine_p],
                ).fetchall()
            ]
            self._drop_statements(conn, workspace, ids)
            self._drop_statements_about(conn, workspace, ids)
            touching, touching_p = d.any_of("dst", ids)
            if erase:
                conn.execute(
                    d.sql(f"DELETE FROM edges WHERE workspace = ? AND ({mine} OR {touching})"),
                    [workspace, *mine_p, *touching_p],
                )
                about, about_p = d.any_of("subject", ids)
                kinds, kinds_p = d.any_of("kind", DERIVE_EVENTS)
                conn.execute(
                    d.sql(f"DELETE FROM events WHERE workspace = ? AND {kinds} AND {about}"),
                    [workspace, *kinds_p, *about_p],
                )
                # A write-back proposal that became the item holds its words as proposed.
                made, made_p = d.any_of("item_id", ids)
                conn.execute(
                    d.sql(
                        "UPDATE proposals SET label = ?, body = '', evidence = '[]' "
                        f"WHERE workspace = ? AND {made}"
                    ),
                    [ERASED, workspace, *made_p],
                )
            else:
                conn.execute(
                    d.sql(
                        f"DELETE FROM edges WHERE workspace = ? AND type = 'MENTIONS' AND {mine}"
                    ),
                    [workspace, *mine_p],
                )
            self._cut_supersession(conn, workspace, ids)
            lone = [e for e in sorted(set(named) - set(ids)) if self._lone(conn, workspace, e)]
            if lone:
                self._drop_items(conn, workspace, lone)
        return lone

    def _drop_statements(self, conn: Connection, workspace: str, ids: Sequence[str]) -> None:
        """Take the items' evidence out of every statement; a statement left with none
        goes, and one that still stands elsewhere is told in its next evidence's words."""
        d = self._dialect
        cond, more = d.any_of("item_id", ids)
        stated = sorted(
            r["statement_id"]
            for r in conn.execute(
                d.sql(
                    f"SELECT DISTINCT statement_id FROM statement_evidence "
                    f"WHERE workspace = ? AND {cond}"
                ),
                [workspace, *more],
            ).fetchall()
        )
        conn.execute(
            d.sql(f"DELETE FROM statement_evidence WHERE workspace = ? AND {cond}"),
            [workspace, *more],
        )
        gone: list[str] = []
        for sid in stated:
            left = conn.execute(
                d.sql(
                    "SELECT item_id, byte_start, byte_end, text, tier, confidence "
                    "FROM statement_evidence WHERE workspace = ? AND statement_id = ? "
                    f"ORDER BY {d.pos} LIMIT 1"
                ),
                (workspace, sid),
            ).fetchone()
            if left is None:
                conn.execute(
                    d.sql("DELETE FROM statements WHERE workspace = ? AND id = ?"),
                    (workspace, sid),
                )
                gone.append(sid)
                continue
            values = [left[c] for c in ("item_id", "byte_start", "byte_end", "text", "tier")]
            conn.execute(
                d.sql(
                    "UPDATE statements SET item_id = ?, byte_start = ?, byte_end = ?, text = ?, "
                    f"tier = ?, confidence = ? WHERE workspace = ? AND id = ? AND {cond}"
                ),
                [*values, left["confidence"], workspace, sid, *more],
            )
        if gone:
            self._unlink_statements(conn, workspace, gone)

    def _drop_statements_about(self, conn: Connection, workspace: str, ids: Sequence[str]) -> None:
        """Drop every statement whose subject or object is one of ``ids`` (a forgotten
        entity): each says its name, whichever item it was read from."""
        d = self._dialect
        subject, subject_p = d.any_of("subject_id", ids)
        obj, obj_p = d.any_of("object_id", ids)
        about = [
            str(r["id"])
            for r in conn.execute(
                d.sql(f"SELECT id FROM statements WHERE workspace = ? AND ({subject} OR {obj})"),
                [workspace, *subject_p, *obj_p],
            ).fetchall()
        ]
        if not about:
            return
        mine, mine_p = d.any_of("statement_id", about)
        conn.execute(
            d.sql(f"DELETE FROM statement_evidence WHERE workspace = ? AND {mine}"),
            [workspace, *mine_p],
        )
        own, own_p = d.any_of("id", about)
        conn.execute(
            d.sql(f"DELETE FROM statements WHERE workspace = ? AND {own}"), [workspace, *own_p]
        )
        self._unlink_statements(conn, workspace, about)

    def _unlink_statements(self, conn: Connection, workspace: str, gone: list[str]) -> None:
        """What the dropped statements ``gone`` replaced holds again; nothing names them."""
        d = self._dialect
        by, by_p = d.any_of("superseded_by", gone)
        conn.execute(
            d.sql(
                "UPDATE statements SET superseded_by = NULL, valid_to = NULL "
                f"WHERE workspace = ? AND {by}"
            ),
            [workspace, *by_p],
        )
        was, was_p = d.any_of("replaces", gone)
        conn.execute(
            d.sql(f"UPDATE statements SET replaces = NULL WHERE workspace = ? AND {was}"),
            [workspace, *was_p],
        )
        for sid in gone:
            rows = conn.execute(
                d.sql(
                    "SELECT id, conflicts FROM statements WHERE workspace = ? "
                    f"AND {d.find}(conflicts, ?) > 0"
                ),
                (workspace, sid),
            ).fetchall()
            for r in rows:
                kept = [c for c in json.loads(r["conflicts"]) if c != sid]
                conn.execute(
                    d.sql("UPDATE statements SET conflicts = ? WHERE workspace = ? AND id = ?"),
                    (json.dumps(kept), workspace, r["id"]),
                )

    def _cut_supersession(self, conn: Connection, workspace: str, ids: Sequence[str]) -> None:
        """Point each link at a forgotten item to the first other claim still standing
        (the oldest live ``SUPERSEDES`` edge, not from or to a forgotten item), or clear it."""
        d = self._dialect
        for column, near, far in (("superseded_by", "dst", "src"), ("supersedes", "src", "dst")):
            pointed, pointed_p = d.any_of(column, ids)
            own, own_p = d.any_of("id", ids)
            other, other_p = d.any_of(f"e.{far}", ids)
            sql = (
                f"UPDATE items SET {column} = (SELECT e.{far} FROM edges e JOIN items o "
                f"ON o.workspace = e.workspace AND o.id = e.{far} WHERE e.workspace = ? "
                f"AND e.type = 'SUPERSEDES' AND e.{near} = items.id AND o.tombstoned_at IS NULL "
                f"AND NOT {other} ORDER BY e.{d.pos} LIMIT 1) "
                f"WHERE workspace = ? AND {pointed} AND NOT {own}"
            )
            params: list[Any] = [workspace, *other_p, workspace, *pointed_p, *own_p]
            conn.execute(d.sql(sql), params)

    def _drop_if_lone(self, conn: Connection, workspace: str, entity_id: str) -> bool:
        """Drop ``entity_id`` if nothing live names it (``_lone``); whether it went."""
        if not self._lone(conn, workspace, entity_id):
            return False
        self._drop_items(conn, workspace, [entity_id])
        return True

    def _lone(self, conn: Connection, workspace: str, entity_id: str) -> bool:
        """Whether ``entity_id`` is an entity nothing else names: no edge to a live item
        (one from an item forgotten earlier does not count), no statement."""
        d = self._dialect
        row = conn.execute(
            d.sql(
                "SELECT 1 FROM items i WHERE i.workspace = ? AND i.id = ? AND i.class = 'entity' "
                "AND NOT EXISTS (SELECT 1 FROM edges e JOIN items o ON o.workspace = e.workspace "
                "AND o.id = (CASE WHEN e.src = i.id THEN e.dst ELSE e.src END) "
                "WHERE e.workspace = i.workspace AND (e.src = i.id OR e.dst = i.id) "
                "AND o.tombstoned_at IS NULL) "
                "AND NOT EXISTS (SELECT 1 FROM statements s WHERE s.workspace = i.workspace "
                "AND (s.subject_id = i.id OR s.object_id = i.id))"
            ),
            (workspace, entity_id),
        ).fetchone()
        return row is not None
