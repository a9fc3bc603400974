"""The in-memory store's items (``ports.ItemStore``): writes with their versions, reads by
id, key and listing, and the one step that indexes a file. Follows the SQLite store's
``_put`` rule for rule (``sqlite/store.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...errors import Conflict, InvalidInput
from ...ids import new_id
from ...model import Edge, Item, ItemSketch, Origin, utcnow
from ...ports import Owed, Vector
from ...scopes import Visibility
from ..sql.rows import stored_key
from ..sql.versions import COPIED, content_changed
from .outbox import Outbox, as_kept
from .state import ROWS, Row, VectorRow

__all__ = ["MAX_VECTORS", "Items"]

MAX_VECTORS = 64
"""The most vectors one item's embedding may hold (its own and its passages'), as SQLite."""

Checked = np.ndarray[Any, np.dtype[np.float32]] | None


class Items(Outbox):
    embedding_dim: int | None

    # -- writes -------------------------------------------------------------------------

    def put_item(self, item: Item, embedding: Vector | None = None) -> Item:
        return self.put_items([(item, embedding)])[0]

    def put_items(
        self,
        items: Sequence[tuple[Item, Vector | None]],
        *,
        supersede: Sequence[Edge] = (),
        owed: Owed | None = None,
    ) -> list[Item]:
        # What can refuse before the first row changes is checked first; a supersession
        # refused after is undone (``memory/outbox.py``): all or nothing.
        checked = [(item, self._check(item, vec)) for item, vec in items]
        owed = as_kept(owed)
        asked = [item for item, _ in items]
        with self._db.lock:
            with self._undone_on_error(asked):
                rows = [self._write_row(item) for item in asked]
                stored = self._commit_with(asked, [self._item(r) for r in rows], supersede, owed)
            for row, (_, vec) in zip(rows, checked, strict=True):
                self._reindex(row, vec)
            return stored

    def _check(self, item: Item, embedding: Vector | None) -> Checked:
        stored_key(item.scope, item.source_key)  # a key may not look scoped
        if embedding is None or not (item.indexed and item.tombstoned_at is None):
            return None  # out of answers: no vector
        return self._check_vectors(embedding)

    def _check_vectors(self, embedding: Vector) -> Checked:
        """The embedding as rows of float32, or ``InvalidInput`` (as the SQLite store)."""
        vec = np.asarray(embedding, dtype=np.float32)
        dim = int(vec.shape[-1]) if vec.ndim else 0
        if vec.ndim not in (1, 2) or dim == 0 or vec.size == 0:
            raise InvalidInput("an embedding is one vector, or one row per vector")
        if self.embedding_dim is not None and dim != self.embedding_dim:
            raise InvalidInput(f"embedding has {dim} dims, brain has {self.embedding_dim}")
        rows = vec.reshape(-1, dim).copy()
        if rows.shape[0] > MAX_VECTORS:
            raise InvalidInput(f"an item holds at most {MAX_VECTORS} vectors, not {rows.shape[0]}")
        if not np.isfinite(rows).all():
            raise InvalidInput("an embedding holds a NaN or an infinity")
        return rows

    def _put(self, item: Item, vectors: Checked) -> Item:
        row = self._write_row(item)
        self._reindex(row, vectors)
        return self._item(row)

    def _write_row(self, item: Item) -> Row:
        """Write ``item``'s row (and keep the version it replaces), not yet searchable."""
        db, now = self._db, utcnow()
        values: Row = ROWS.item_values(item)
        values["updated_at"] = now
        key = (item.workspace, values["source_key"])
        # The row of this key; else the row of this id (the same item put in another
        # scope: its key moves with it).
        old = self._item_row(item.workspace, db.by_key.get(key))
        old = old or self._item_row(item.workspace, item.id)
        if old is None:
            values.update(created_at=item.created_at or now, keys="", _pos=db.next_pos())
        else:
            values.update(id=old["id"], created_at=old["created_at"], _pos=old["_pos"])
            # Supersession is set once and never moved (``supersede_item``).
            for link in ("supersedes", "superseded_by"):
                values[link] = values[link] or old[link]
            # Keys were chosen for the scope the item had and for a live item.
            same = old["scope"] == values["scope"] and values["tombstoned_at"] is None
            values["keys"] = old["keys"] if same else ""
            self._keep_version(old, values, now)
            db.by_key.pop((old["workspace"], old["source_key"]), None)
        db.items[values["id"]] = values
        db.by_key[key] = values["id"]
        return values

    def _keep_version(self, old: Row, new: Row, at: object) -> None:
        """Keep what ``old`` held if ``new`` replaces a writer's content (``sql/versions.py``)."""
        if not content_changed(old, new):
            return
        numbers = [
            v["number"]
            for v in self._db.versions
            if v["workspace"] == old["workspace"] and v["item_id"] == old["id"]
        ]
        kept = {c: old[c] for c in COPIED}
        kept.update(
            workspace=old["workspace"],
            item_id=old["id"],
            number=max(numbers, default=0) + 1,
            replaced_at=at,
            _pos=self._db.next_pos(),
        )
        self._db.versions.append(kept)

    def _reindex(self, row: Row, vectors: Checked) -> None:
        """Put the row's words and vectors in the search streams, or take them out when
        it is not answerable (unindexed or forgotten) or holds no vector."""
        ws, item_id = row["workspace"], row["id"]
        answerable = bool(row["indexed"]) and row["tombstoned_at"] is None
        index = self._db.keyword_index(ws)
        if answerable:
            text = f"{row['label'] or ''}\n{row['body'] or ''}\n{row['keys'] or ''}"
            index.put(item_id, row["class"], row["scope"], text)
        else:
            index.drop(item_id)
        shelf = self._db.vectors.setdefault(ws, {})
        if answerable and vectors is not None:
            shelf[item_id] = VectorRow(row["class"], row["scope"], vectors)
        else:
            shelf.pop(item_id, None)

    def commit_index(
        self,
        file: Item,
        file_embedding: Vector | None,
        sections: Sequence[tuple[Item, Vector]],
        edge_origin_actor: str,
        *,
        owed: Owed | None = None,
    ) -> list[Item]:
        file_vec = self._check(file, file_embedding)
        checked = [(s, self._check(s, vec)) for s, vec in sections]
        owed = as_kept(owed)
        with self._db.lock:
            current = self._item_row(file.workspace, file.id)
            # Only the version that was read may be marked indexed, and a file forgotten
            # meanwhile stays forgotten.
            if (
                current is None
                or current["tombstoned_at"] is not None
                or (current["content_hash"], current["blob_key"])
                != (file.content_hash, file.blob_key)
            ):
                raise Conflict(
                    f"{file.id} changed while it was being indexed; its new version waits"
                )
            self._check_section_keys(file, [s for s, _ in sections])
            stored_file = self._put(file, file_vec)
            stored: list[Item] = []
            for section, vec in checked:
                s = self._put(section, vec)
                stored.append(s)
                origin = Origin(edge_origin_actor, "index", utcnow())
                edge = Edge(
                    new_id("edg"), file.workspace, "HAS_SECTION", stored_file.id, s.id, origin
                )
                self._put_edge_row(edge)
            keep = {s.id for s in stored}
            stale = [
                r["id"]
                for r in self._rows_of(file.workspace)
                if r["parent_id"] == stored_file.id and r["class"] == "section"
                if r["id"] not in keep
            ]
            self._drop_items(file.workspace, stale)
            self._owe(owed, stored)
            return stored

    def _check_section_keys(self, file: Item, sections: Sequence[Item]) -> None:
        """A section takes only a row that is its own (``sql/sectionkeys.py``)."""
        for s in sections:
            if not s.source_key:
                continue
            r = self._item_row(
                file.workspace,
                self._db.by_key.get((file.workspace, stored_key(s.scope, s.source_key))),
            )
            if r is not None and (r["class"] != "section" or r["parent_id"] != file.id):
                raise InvalidInput(
                    f"{file.name or file.id}: one of its sections' keys is held by "
                    f"{r['class']} {r['id']} (a key starting {file.source_key}#); "
                    "give the file another source key"
                )

    def set_index_error(
        self, workspace: str, item_id: str, error: str | None, *, content_hash: str | None = None
    ) -> None:
        with self._db.lock:
            row = self._item_row(workspace, item_id)
            if row is not None and (content_hash is None or row["content_hash"] == content_hash):
                row.update(index_error=error, updated_at=utcnow())

    def unindex_children(self, workspace: str, parent_id: str) -> None:
        with self._db.lock:
            for row in self._rows_of(workspace):
                if row["parent_id"] == parent_id:
                    row["indexed"] = False
                    self._reindex(row, None)

    # -- reads --------------------------------------------------------------------------

    def get_items(
        self, workspace: str, ids: Sequence[str], visibility: Visibility
    ) -> dict[str, Item]:
        with self._db.lock:
            rows = [self._visible_row(workspace, i, visibility) for i in dict.fromkeys(ids)]
            return {r["id"]: self._item(r) for r in rows if r is not None}

    def get_item(self, workspace: str, item_id: str, visibility: Visibility) -> Item | None:
        return self.get_items(workspace, [item_id], visibility).get(item_id)

    def item_sketches(
        self, workspace: str, ids: Sequence[str], visibility: Visibility
    ) -> dict[str, ItemSketch]:
        return {i: ItemSketch.of(x) for i, x in self.get_items(workspace, ids, visibility).items()}

    def get_by_source_key(
        self, workspace: str, source_key: str, visibility: Visibility, *, scope: str
    ) -> Item | None:
        with self._db.lock:
            item_id = self._db.by_key.get((workspace, stored_key(scope, source_key)))
            row = None if item_id is None else self._visible_row(workspace, item_id, visibility)
            return None if row is None else self._item(row)

    def embedding_of(self, workspace: str, item_id: str) -> Vector | None:
        with self._db.lock:
            held = self._db.vectors.get(workspace, {}).get(item_id)
            return None if held is None else held.rows.copy()
