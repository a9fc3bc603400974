"""What forgetting an item takes out of the in-memory store besides its own row
(``ports.StatementStore.purge_derived``): the rules of ``sql/purge.py``, whose docstring
says why, over dicts. Nothing is left behind in memory to scrub after an erase."""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..sql.purge import DERIVE_EVENTS, ERASED
from .state import Part

__all__ = ["Purge"]


class Purge(Part):
    def purge_derived(self, workspace: str, item_ids: Sequence[str], *, erase: bool) -> list[str]:
        ids = set(item_ids)
        if not ids:
            return []
        db = self._db
        with db.lock:
            mine = [e for e in db.edges.values() if e["workspace"] == workspace]
            named = {e["dst"] for e in mine if e["type"] == "MENTIONS" and e["src"] in ids}
            self._drop_evidence_of(workspace, ids)
            self._drop_statements_about(workspace, ids)
            if erase:
                self._drop_edges(e["id"] for e in mine if e["src"] in ids or e["dst"] in ids)
                for seq in [
                    seq
                    for seq, r in db.events.items()
                    if r["workspace"] == workspace and r["kind"] in DERIVE_EVENTS
                    if r["subject"] in ids
                ]:
                    del db.events[seq]
                # A write-back proposal that became the item holds its words as proposed.
                for p in db.proposals.values():
                    if p["workspace"] == workspace and p["item_id"] in ids:
                        p.update(label=ERASED, body="", evidence="[]")
            else:
                self._drop_edges(
                    e["id"] for e in mine if e["type"] == "MENTIONS" and e["src"] in ids
                )
            self._cut_supersession(workspace, ids)
            return [e for e in sorted(named - ids) if self._drop_if_lone(workspace, e)]

    def _drop_evidence_of(self, workspace: str, ids: set[str]) -> None:
        """Take the items' evidence out of every statement; a statement left with none
        goes, and one that still stands elsewhere is told in its next evidence's words."""
        gone: list[str] = []
        for sid, held in list(self._db.evidence.items()):
            mine = [k for k, v in held.items() if v["workspace"] == workspace and k[0] in ids]
            if not mine:
                continue
            for k in mine:
                del held[k]
            s = self._db.statements.get(sid)
            if not held:
                del self._db.evidence[sid]
                if s is not None:
                    del self._db.statements[sid]
                    gone.append(sid)
                continue
            if s is not None and s["item_id"] in ids:
                left = min(held.values(), key=lambda v: v["_pos"])
                s.update(
                    {c: left[c] for c in ("item_id", "byte_end", "text", "tier", "confidence")}
                )
                s["byte_start"] = left["byte_start"]
        self._unlink_statements(workspace, gone)

    def _drop_statements_about(self, workspace: str, ids: set[str]) -> None:
        """Drop every statement whose subject or object is one of ``ids`` (a forgotten
        entity): each says its name, whichever item it was read from."""
        about = [
            s["id"]
            for s in self._db.statements.values()
            if s["workspace"] == workspace and (s["subject_id"] in ids or s["object_id"] in ids)
        ]
        for sid in about:
            del self._db.statements[sid]
            self._db.evidence.pop(sid, None)
        self._unlink_statements(workspace, about)

    def _unlink_statements(self, workspace: str, gone: list[str]) -> None:
        """What the dropped statements ``gone`` replaced holds again; nothing names them."""
        if not gone:
            return
        dropped = set(gone)
        for s in self._db.statements.values():
            if s["workspace"] != workspace:
                continue
            if s["superseded_by"] in dropped:
                s.update(superseded_by=None, valid_to=None)
            if s["replaces"] in dropped:
                s["replaces"] = None
            conflicts = json.loads(s["conflicts"])
            if dropped.intersection(conflicts):
                s["conflicts"] = json.dumps([c for c in conflicts if c not in dropped])

    def _cut_supersession(self, workspace: str, ids: set[str]) -> None:
        """Point each link at a forgotten item to the first other claim still standing
        (the oldest live ``SUPERSEDES`` edge, not from or to a forgotten item), or clear it."""
        edges = [
            e for e in self._db.edges.values()
            if e["workspace"] == workspace and e["type"] == "SUPERSEDES"
        ]  # fmt: skip
        for column, near, far in (("superseded_by", "dst", "src"), ("supersedes", "src", "dst")):
            for row in self._rows_of(workspace):
                if row[column] not in ids or row["id"] in ids:
                    continue
                row[column] = next(
                    (
                        e[far]
                        for e in edges
                        if e[near] == row["id"] and e[far] not in ids
                        if (o := self._item_row(workspace, e[far])) is not None
                        and o["tombstoned_at"] is None
                    ),
                    None,
                )
