"""The in-memory store's edges and counts (``ports.EdgeStore``): an edge shows only when
both its ends are visible, oldest first."""

from __future__ import annotations

from collections.abc import Sequence

from ...errors import InvalidInput
from ...model import Edge
from ...scopes import Visibility
from ..sql.forgotten import refused
from .state import ROWS, Part, Row

__all__ = ["Edges"]


class Edges(Part):
    def put_edge(self, edge: Edge) -> Edge:
        with self._db.lock:
            gone = self._forgotten_among(edge.workspace, [edge.src, edge.dst])
            if not gone:
                return self._put_edge_row(edge)
            # A refused mention's entity goes when nothing else names it: made for this
            # mention, it would keep the forgotten item's words.
            if edge.type == "MENTIONS" and edge.src in gone:
                self._drop_if_lone(edge.workspace, edge.dst)
        raise refused(gone)

    def _shown(self, e: Row, types: Sequence[str] | None, visibility: Visibility) -> bool:
        if types and e["type"] not in types:
            return False
        if visibility.scopes is None:
            return True
        ends = (self._visible_row(e["workspace"], e[end], visibility) for end in ("src", "dst"))
        return all(r is not None for r in ends)

    def edges_of(
        self,
        workspace: str,
        item_id: str,
        visibility: Visibility,
        *,
        types: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> list[Edge]:
        return self.edges_around(workspace, [item_id], visibility, types=types, limit=limit).get(
            item_id, []
        )

    def edges_around(
        self,
        workspace: str,
        item_ids: Sequence[str],
        visibility: Visibility,
        *,
        types: Sequence[str] | None = None,
        limit: int | None = None,
    ) -> dict[str, list[Edge]]:
        if limit is not None and limit < 0:
            raise InvalidInput("limit must be >= 0")
        ids = set(item_ids)
        out: dict[str, list[Edge]] = {}
        if not ids or limit == 0:
            return out
        with self._db.lock:
            for e in self._db.edges.values():
                if e["workspace"] != workspace or not (e["src"] in ids or e["dst"] in ids):
                    continue
                if not self._shown(e, types, visibility):
                    continue
                for end in dict.fromkeys((e["src"], e["dst"])):  # a loop once
                    if end in ids and (limit is None or len(out.get(end, ())) < limit):
                        out.setdefault(end, []).append(ROWS.edge_from_row(e))
        return {i: out[i] for i in sorted(out)}

    def workspaces(self) -> list[str]:
        with self._db.lock:
            return sorted({r["workspace"] for r in self._db.items.values()})

    def counts(self, workspace: str) -> dict[str, int]:
        out: dict[str, int] = {}
        with self._db.lock:
            for r in self._rows_of(workspace):
                if r["tombstoned_at"] is not None:  # out of every read: counted apart
                    out["forgotten"] = out.get("forgotten", 0) + 1
                    continue
                cls = r["class"]
                out[cls] = out.get(cls, 0) + 1
                if r["indexed"]:
                    out[f"{cls}_indexed"] = out.get(f"{cls}_indexed", 0) + 1
            out["edges"] = sum(1 for e in self._db.edges.values() if e["workspace"] == workspace)
        return out
