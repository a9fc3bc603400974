"""The in-memory store's two ranked streams (``ports.SearchStore``): keyword (BM25,
``keywords.py``) and exact cosine over every answerable item's vectors."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ...model import StorageClass
from ...ports import ScoredId, Vector
from ...scopes import Visibility
from .state import Part

__all__ = ["Search"]


class Search(Part):
    def set_keys(self, workspace: str, keys: Mapping[str, str]) -> None:
        with self._db.lock:
            for item_id, text in sorted(keys.items()):
                row = self._item_row(workspace, item_id)
                if row is None or row["keys"] == text:
                    continue
                row["keys"] = text
                if row["indexed"] and row["tombstoned_at"] is None:
                    words = f"{row['label'] or ''}\n{row['body'] or ''}\n{text}"
                    self._db.keyword_index(workspace).put(
                        item_id, row["class"], row["scope"], words
                    )

    def keyword_search(
        self,
        workspace: str,
        storage_class: StorageClass,
        terms: Sequence[str],
        limit: int,
        visibility: Visibility,
    ) -> list[ScoredId]:
        if not terms:
            return []
        with self._db.lock:
            index = self._db.keywords.get(workspace)
            if index is None:
                return []
            return index.search(storage_class, terms, limit, visibility.scopes)

    def vector_search(
        self,
        workspace: str,
        storage_class: StorageClass,
        vector: Vector,
        limit: int,
        visibility: Visibility,
    ) -> list[ScoredId]:
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        with self._db.lock:
            held = [
                (item_id, v.rows)
                for item_id, v in self._db.vectors.get(workspace, {}).items()
                if v.storage_class == storage_class and visibility.allows(v.scope)
            ]
        if not held or limit <= 0:
            return []
        # An item of several vectors scores its best one.
        best = [float(np.max(rows @ query)) for _, rows in held]
        order = sorted(range(len(held)), key=lambda i: -best[i])[:limit]
        return [(held[i][0], best[i]) for i in order]
