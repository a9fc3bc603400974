"""BM25 over one workspace's answerable rows, held in RAM by tantivy, caught up from SQLite.

FTS5 ranks every row that matches any query term before it can return the top 50: at 100k
sections a nine-term claim matches about half of them and the ranking alone costs ~30 ms
(docs/benchmarks.md, "Keyword engine"). tantivy's block-max WAND skips the rows that cannot
reach the top k, so the same search takes about a millisecond.

Like the vector index this is a cache, not a store: SQLite rows are the source of truth.
Every change to an answerable row's searchable fields stamps the row in ``kw_changes``
with a fresh ``kw_seq`` (migration 0004), so catching up reads only what changed since
the last look, whichever process wrote it. Nothing is persisted beside the database; after
a crash or a restart the index is rebuilt from the rows on the first keyword search.

Scoring follows the FTS5 path: BM25 (k1 1.2, b 0.75) over label, body and keys (keyword-
only text, migration 0014) as one text, as FTS5 scores a row; English stemming; the
workspace is the index itself, class and scope are non-scoring filters.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Collection, Iterable, Sequence

import tantivy

from ...analysis import text_compound_parts
from .snapshot import read_snapshot, watermark

__all__ = ["KeywordIndex", "analyzer"]

# (rowid, id, class, scope, label, body, keys, live)
ChangeRow = tuple[int, str, str, str, str | None, str | None, str | None, int]

_ANALYZER = "orgbrain_en"
# The writer's memory budget: the first load of 100k sections fits in one segment.
_WRITER_HEAP = 64 * 1024 * 1024


def analyzer() -> tantivy.TextAnalyzer:
    """The words a keyword search ranks by (the in-memory store tokenises with it too)."""
    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.ascii_fold())
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


def _schema() -> tantivy.Schema:
    b = tantivy.SchemaBuilder()
    b.add_integer_field("rowid", indexed=True, fast=True)
    b.add_text_field("cls", tokenizer_name="raw", index_option="basic")
    b.add_text_field("sc", tokenizer_name="raw", index_option="basic")
    b.add_text_field("text", tokenizer_name=_ANALYZER, index_option="freq")
    return b.build()


class KeywordIndex:
    """Keyword (BM25) search over one workspace's indexed, live items."""

    def __init__(self, workspace: str) -> None:
        self.workspace = workspace
        self._lock = threading.Lock()
        self._analyzer = analyzer()
        self._schema = _schema()
        self._index: tantivy.Index
        self._writer: tantivy.IndexWriter
        self._ids: dict[int, str] = {}
        self._where: dict[int, tuple[str, str]] = {}
        """rowid -> (class, scope), for filtering after a search of the terms alone."""
        self._classes: dict[str, int] = {}
        self._seq = -1
        self._reset()

    def __len__(self) -> int:
        return len(self._ids)

    def search(
        self,
        conn: sqlite3.Connection,
        storage_class: str,
        terms: Sequence[str],
        limit: int,
        scopes: Collection[str] | None,
    ) -> list[tuple[str, float]]:
        """The top ``limit`` rows of ``storage_class`` by BM25 over ``terms``, best first."""
        tokens = list(dict.fromkeys(self._analyzer.analyze(" ".join(terms))))
        if not tokens or limit <= 0 or (scopes is not None and not scopes):
            return []
        q = tantivy.Query
        should = [(tantivy.Occur.Should, q.term_query(self._schema, "text", t)) for t in tokens]
        matching = q.boolean_query(should)
        with self._lock:
            self._catch_up(conn)
            if not self._classes.get(storage_class):
                return []  # no row of the class: nothing to rank (a brain of notes alone)
            searcher = self._index.searcher()
            if self._mostly(storage_class):
                # Filtering inside tantivy costs three quarters of a search at 1M rows;
                # reading the terms alone twice as deep and filtering here returns the
                # same rows (the filter never scores) whenever enough of them are visible.
                depth = 2 * limit + 16
                held, visible = self._visible_hits(searcher, matching, depth, storage_class, scopes)
                if len(visible) >= limit or held < depth:
                    return visible[:limit]
            filters = [(tantivy.Occur.Must, q.term_query(self._schema, "cls", storage_class))]
            if scopes is not None:
                filters.append(
                    (tantivy.Occur.Must, q.term_set_query(self._schema, "sc", [*scopes]))
                )
            query = q.boolean_query(
                [
                    (tantivy.Occur.Must, matching),
                    (tantivy.Occur.Must, q.const_score_query(q.boolean_query(filters), 0.0)),
                ]
            )
            return [
                (self._ids[rowid], score) for rowid, score in self._hits(searcher, query, limit)
            ]

    def _mostly(self, storage_class: str) -> bool:
        """Whether most rows are of ``storage_class`` (then filtering after pays)."""
        return 2 * self._classes.get(storage_class, 0) > len(self._ids)

    def _hits(
        self, searcher: tantivy.Searcher, query: tantivy.Query, limit: int
    ) -> list[tuple[int, float]]:
        """(rowid, score) of the best ``limit`` documents, best first; rows no longer held
        are left out."""
        hits = searcher.search(query, limit, count=False).hits
        rowids = searcher.fast_field_values("rowid", [address for _, address in hits])
        return [
            (int(rowid), float(score))
            for (score, _), rowid in zip(hits, rowids, strict=True)
            if rowid is not None and int(rowid) in self._ids
        ]

    def _visible_hits(
        self,
        searcher: tantivy.Searcher,
        query: tantivy.Query,
        limit: int,
        storage_class: str,
        scopes: Collection[str] | None,
    ) -> tuple[int, list[tuple[str, float]]]:
        """``_hits`` of ``query``, then those of ``storage_class`` and ``scopes``, in one
        pass over the rows (a LoCoMo brain's note stream reads ~400: three passes and the
        tuples between them were two thirds of its search): how many of the rows are
        still held, and the visible ones as (item id, score), best first."""
        hits = searcher.search(query, limit, count=False).hits
        rowids = searcher.fast_field_values("rowid", [address for _, address in hits])
        ids, where = self._ids, self._where
        if scopes is None and self._classes.get(storage_class) == len(ids):
            # Every row held is of the class (a brain of notes alone): all are visible.
            found = [ids.get(int(r)) if r is not None else None for r in rowids]
            visible = [
                (item_id, float(score))
                for (score, _), item_id in zip(hits, found, strict=True)
                if item_id is not None
            ]
            return len(visible), visible
        held = 0
        visible = []
        for (score, _), rowid in zip(hits, rowids, strict=True):
            if rowid is None:
                continue
            rowid = int(rowid)
            item_id = ids.get(rowid)
            if item_id is None:
                continue
            held += 1
            cls, scope = where[rowid]
            if cls == storage_class and (scopes is None or scope in scopes):
                visible.append((item_id, float(score)))
        return held, visible

    # -- catching up from SQLite ---------------------------------------------------------

    def _catch_up(self, conn: sqlite3.Connection) -> None:
        with read_snapshot(conn):  # the watermark and the rows are one snapshot
            seq = watermark(conn, "kw_seq")
            if seq == self._seq:
                return
            if seq < self._seq:  # the file was replaced by an older one: start again
                self._reset()
            if self._seq < 0:
                # The unary + keeps SQLite off the workspace indexes: a first load scans.
                cursor = conn.execute(
                    "SELECT rowid, id, class, scope, label, body, keys, 1 FROM items "
                    "WHERE +workspace = ? AND indexed = 1 AND tombstoned_at IS NULL",
                    (self.workspace,),
                )
            else:
                cursor = conn.execute(
                    "SELECT c.item_rowid, i.id, i.class, i.scope, i.label, i.body, i.keys, "
                    "i.rowid IS NOT NULL AND i.indexed = 1 AND i.tombstoned_at IS NULL "
                    "FROM kw_changes c LEFT JOIN items i ON i.rowid = c.item_rowid "
                    "WHERE c.workspace = ? AND c.seq > ?",
                    (self.workspace, self._seq),
                )
            while batch := cursor.fetchmany(8192):
                self._apply(batch)
        self._writer.commit()
        self._index.reload()
        self._seq = seq

    def _apply(self, rows: Iterable[ChangeRow]) -> None:
        """(rowid, id, class, scope, label, body, keys, live) rows: replace each row's
        document."""
        for rowid, item_id, cls, scope, label, body, keys, live in rows:
            if self._ids.pop(rowid, None) is not None:
                self._writer.delete_documents_by_term("rowid", rowid)
                self._classes[self._where.pop(rowid)[0]] -= 1
            if not live:
                continue  # deleted, tombstoned or taken out of answers
            text = f"{label or ''}\n{body or ''}\n{keys or ''}"
            # A German text is found by its compounds' parts too (analysis/compounds.py).
            text = f"{text}\n{text_compound_parts(text)}"
            self._writer.add_document(tantivy.Document(rowid=rowid, cls=cls, sc=scope, text=text))
            self._ids[rowid] = item_id
            self._where[rowid] = (cls, scope)
            self._classes[cls] = self._classes.get(cls, 0) + 1

    def _reset(self) -> None:
        self._index = tantivy.Index(self._schema)
        self._index.register_tokenizer(_ANALYZER, self._analyzer)
        self._writer = self._index.writer(heap_size=_WRITER_HEAP, num_threads=1)
        self._ids = {}
        self._where = {}
        self._classes = {}
        self._seq = -1
