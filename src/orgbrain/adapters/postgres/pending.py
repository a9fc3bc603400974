"""What a write transaction adds to the derived tables, written once at its end: every
posting in one COPY, every vector in one batch, and one statistics delta per workspace and
class. A bulk write (``put_items``, ``commit_index``) then costs a statement or two per
item, not one per table per item."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from .db import Connection
from .keywords import StatDeltas, flush_stats

__all__ = ["Pending"]


@dataclass
class Pending:
    """Rows waiting for the end of one transaction, by item."""

    postings: dict[int, tuple[str, str, str, Counter[str], int]] = field(default_factory=dict)
    vectors: dict[int, tuple[str, str, str, np.ndarray]] = field(default_factory=dict)
    deltas: StatDeltas = field(default_factory=dict)

    def add_postings(
        self, pk: int, workspace: str, cls: str, scope: str, terms: Counter[str], length: int
    ) -> None:
        self.postings[pk] = (workspace, cls, scope, terms, length)
        self._count(workspace, cls, 1, length)

    def drop_postings(
        self, conn: Connection, pk: int, workspace: str, cls: str, length: int
    ) -> None:
        """Take an item out of the keyword index: written ones now, waiting ones here."""
        if self.postings.pop(pk, None) is None:
            conn.execute("DELETE FROM kw_postings WHERE item_pk = %s", (pk,))
        self._count(workspace, cls, -1, -length)

    def add_vectors(self, pk: int, workspace: str, cls: str, scope: str, rows: np.ndarray) -> None:
        self.vectors[pk] = (workspace, cls, scope, rows)

    def drop_vectors(self, conn: Connection, pk: int) -> None:
        if self.vectors.pop(pk, None) is None:
            conn.execute("DELETE FROM item_vectors WHERE item_pk = %s", (pk,))

    def _count(self, workspace: str, cls: str, docs: int, tokens: int) -> None:
        d = self.deltas.setdefault((workspace, cls), [0, 0])
        d[0] += docs
        d[1] += tokens

    def flush(self, conn: Connection) -> None:
        if self.postings:
            with conn.cursor().copy(
                "COPY kw_postings (item_pk, term, workspace, class, scope, tf, dl) FROM STDIN"
            ) as copy:
                for pk, (ws, cls, scope, terms, length) in self.postings.items():
                    for term, tf in terms.items():
                        copy.write_row((pk, term, ws, cls, scope, tf, length))
        if self.vectors:
            conn.cursor().executemany(
                "INSERT INTO item_vectors (item_pk, n, workspace, class, scope, embedding) "
                "VALUES (%s, %s, %s, %s, %s, %s)",
                [
                    (pk, n, ws, cls, scope, row)
                    for pk, (ws, cls, scope, rows) in self.vectors.items()
                    for n, row in enumerate(rows)
                ],
            )
        flush_stats(conn, self.deltas)
        self.postings.clear()
        self.vectors.clear()
