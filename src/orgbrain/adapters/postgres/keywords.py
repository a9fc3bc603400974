"""BM25 in SQL: postings and term statistics tables kept in step with items, and a query
that ranks by BM25 (k1 1.2, b 0.75) with IDF, as the embedded engine does.

PostgreSQL's own ranking (``ts_rank_cd``) has no inverse document frequency, so a rare
term weighs no more than a common one; on SciFact that costs nDCG. Instead each answerable
item's label and body (one text, as FTS5 and tantivy score a row) is cut into terms by the
embedded engine's analyzer (tantivy's: simple tokens, lowercase, ASCII folding, English
Snowball stemming, tokens over 40 bytes dropped), and each term's frequency is stored in
``kw_postings`` with the document's length and scope beside it (migration ``0004``). The
document count and total length per (workspace, class) are rows of deltas in
``kw_stats`` that add up, so writers never queue on one row; a search folds them into one
now and then. Document frequencies are counted from the postings a query reads.

The postings change in the transaction that changes the item, so a search sees exactly
the committed items, from any process: there is nothing to catch up.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Collection, Sequence

import tantivy

from ...ports import ScoredId
from .db import Connection

__all__ = ["StatDeltas", "analyze", "document_terms", "flush_stats", "keyword_search"]

K1 = 1.2
B = 0.75
_FOLD_AT = 64
"""A (workspace, class) whose statistics are spread over more delta rows than this is
folded into one row by the next search that reads them."""

StatDeltas = dict[tuple[str, str], list[int]]
"""(workspace, class) -> [documents added, tokens added] in one transaction."""

_local = threading.local()


def _analyzer() -> tantivy.TextAnalyzer:
    found: tantivy.TextAnalyzer | None = getattr(_local, "analyzer", None)
    if found is None:
        found = (
            tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
            .filter(tantivy.Filter.remove_long(40))
            .filter(tantivy.Filter.lowercase())
            .filter(tantivy.Filter.ascii_fold())
            .filter(tantivy.Filter.stemmer("english"))
            .build()
        )
        _local.analyzer = found
    return found


def analyze(text: str) -> list[str]:
    """The terms of ``text``, in order, repeats kept."""
    return list(_analyzer().analyze(text))


def document_terms(label: str, body: str) -> tuple[Counter[str], int]:
    """An item's terms with their frequencies, and its length in terms (``items.kw_len``):
    label and body as one text, as FTS5 and tantivy score a row."""
    terms = Counter(analyze(f"{label}\n{body}"))
    return terms, sum(terms.values())


def flush_stats(conn: Connection, deltas: StatDeltas) -> None:
    """Record a transaction's changes to the document counts and lengths (one delta row
    per workspace and class it changed)."""
    rows = [(ws, cls, d[0], d[1]) for (ws, cls), d in sorted(deltas.items()) if d != [0, 0]]
    if rows:
        conn.cursor().executemany(
            "INSERT INTO kw_stats (workspace, class, docs, tokens) VALUES (%s, %s, %s, %s)", rows
        )
    deltas.clear()


_SEARCH = """
WITH st AS (
    SELECT count(*) AS parts, coalesce(sum(docs), 0)::float8 AS n,
        coalesce(sum(tokens), 0)::float8 AS toks
    FROM kw_stats WHERE workspace = %(ws)s AND class = %(cls)s
), p AS MATERIALIZED (
    SELECT term, item_pk, tf, dl, scope FROM kw_postings
    WHERE workspace = %(ws)s AND class = %(cls)s AND term = ANY(%(terms)s)
), df AS (
    SELECT term, count(*)::float8 AS df FROM p GROUP BY term
), top AS (
    SELECT p.item_pk, sum(
        ln(1 + (greatest(st.n, df.df) - df.df + 0.5) / (df.df + 0.5))
        * p.tf * (%(k1)s + 1)
        / (p.tf + %(k1)s * (1 - %(b)s + %(b)s * p.dl
            / greatest(st.toks / greatest(st.n, 1), 1e-9)))
    ) AS score
    FROM p JOIN df USING (term) CROSS JOIN st
    WHERE {visible}
    GROUP BY p.item_pk
    ORDER BY score DESC, p.item_pk
    LIMIT %(limit)s
)
SELECT i.id, top.score, (SELECT parts FROM st) AS parts
FROM top JOIN items i ON i.pk = top.item_pk
ORDER BY top.score DESC, top.item_pk
"""

_FOLD = """
WITH gone AS (
    DELETE FROM kw_stats WHERE workspace = %(ws)s AND class = %(cls)s
    RETURNING docs, tokens
)
INSERT INTO kw_stats (workspace, class, docs, tokens)
SELECT %(ws)s, %(cls)s, coalesce(sum(docs), 0), coalesce(sum(tokens), 0) FROM gone
"""


def keyword_search(
    conn: Connection,
    workspace: str,
    storage_class: str,
    terms: Sequence[str],
    limit: int,
    scopes: Collection[str] | None,
) -> list[ScoredId]:
    """The top ``limit`` answerable items of ``storage_class`` by BM25 over ``terms``."""
    tokens = list(dict.fromkeys(analyze(" ".join(terms))))
    if not tokens or limit <= 0 or (scopes is not None and not scopes):
        return []
    params: dict[str, object] = {
        "ws": workspace,
        "cls": storage_class,
        "terms": tokens,
        "limit": limit,
        "k1": K1,
        "b": B,
    }
    visible = "true"
    if scopes is not None:
        visible = "p.scope = ANY(%(scopes)s)"
        params["scopes"] = sorted(scopes)
    rows = conn.execute(_SEARCH.format(visible=visible), params).fetchall()
    if rows and int(rows[0]["parts"]) > _FOLD_AT:
        with conn.transaction():
            conn.execute(_FOLD, {"ws": workspace, "cls": storage_class})
    return [(str(r["id"]), float(r["score"])) for r in rows]
