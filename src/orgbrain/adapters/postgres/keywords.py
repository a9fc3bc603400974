"""BM25 in SQL: postings and term statistics tables kept in step with items, and a search
that ranks by BM25 (k1 1.2, b 0.75) with IDF, as the embedded engine does, reading a
bounded number of postings per query term however large the brain grows.

PostgreSQL's own ranking (``ts_rank_cd``) has no inverse document frequency, so a rare
term weighs no more than a common one; on SciFact that costs nDCG. Instead each answerable
item's label, body and keys (one text, as FTS5 and tantivy score a row; keys are keyword-
only text, migration ``0014``) is cut into terms by the
embedded engine's analyzer (tantivy's: simple tokens, lowercase, ASCII folding, English
Snowball stemming, tokens over 40 bytes dropped), and each term's frequency is stored in
``kw_postings`` with the document's length and scope beside it (migration ``0004``). The
document count and total length per (workspace, class) are rows of deltas in
``kw_stats`` that add up, so writers never queue on one row; a search folds them into one
now and then.

A search (migration ``0011``) reads each query term's visible postings best first, by
their impact (``schema.KW_IMPACT``: BM25's term-frequency part at a fixed average
length), at most ``DEPTH_MIN`` of them: a rarer term is read whole, a common one's best
postings only. Summing what was read gives each candidate a partial score and a bound
(the partial score plus, for each term cut short that it was not read under, the weight
where that term was cut); the best candidates by that bound are completed from their own
postings and ranked by their exact BM25. That is exact whenever every term was read whole
(fewer than ``DEPTH_MIN`` visible postings), and otherwise an approximation: an item that
is in no term's best postings is not considered, however many of the common terms it
holds. A term's document frequency is counted by the search when the term is in fewer
than ``DF_EXACT`` documents, and for a commoner term read from ``kw_df``, where a search
records it whole and counts it again once the class has grown or shrunk by ``DF_DRIFT``.

The postings change in the transaction that changes the item, so a search sees exactly
the committed items, from any process: there is nothing to catch up. The searches' own
upkeep writes (folding statistics, recording document frequencies) are skipped on a read
replica, which then counts common terms each time.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Collection, Sequence

import psycopg
import tantivy

from ...ports import ScoredId
from .db import Connection
from .schema import KW_IMPACT

__all__ = ["StatDeltas", "analyze", "document_terms", "flush_stats", "keyword_search"]

K1 = 1.2
B = 0.75
DEPTH_MIN = 1000
"""Each query term's postings are read at most this deep (visible ones, in impact order),
or ``DEPTH_PER_HIT`` times the items asked for if that is more."""
DEPTH_PER_HIT = 10
RESCORE_EXTRA = 50
"""The candidates completed and ranked exactly: twice the items asked for, or this many
more if that is more."""
DF_EXACT = 4096
"""A term in fewer documents than this has its document frequency counted by each search;
a commoner one's is read from ``kw_df``."""
DF_DRIFT = 0.1
"""A recorded document frequency is counted again once the class's document count has
moved by more than this fraction since it was counted."""
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


def document_terms(label: str, body: str, keys: str = "") -> tuple[Counter[str], int]:
    """An item's terms with their frequencies, and its length in terms (``items.kw_len``):
    label, body and keys (keyword-only text, migration ``0014``) as one text, as FTS5 and
    tantivy score a row."""
    terms = Counter(analyze(f"{label}\n{body}\n{keys}"))
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


_FOLD = """
WITH gone AS (
    DELETE FROM kw_stats WHERE workspace = %(ws)s AND class = %(cls)s
    RETURNING docs, tokens
)
INSERT INTO kw_stats (workspace, class, docs, tokens)
SELECT %(ws)s, %(cls)s, coalesce(sum(docs), 0), coalesce(sum(tokens), 0) FROM gone
"""


_STATS = """
SELECT count(*) AS parts, coalesce(sum(docs), 0)::float8 AS n,
    coalesce(sum(tokens), 0)::float8 AS toks
FROM kw_stats WHERE workspace = %(ws)s AND class = %(cls)s
"""

_COUNT = """
SELECT q.term, (
    SELECT count(*) FROM (
        SELECT 1 FROM kw_postings k
        WHERE k.workspace = %(ws)s AND k.class = %(cls)s AND k.term = q.term
        LIMIT %(cap)s
    ) x
) AS c
FROM unnest(%(terms)s::text[]) AS q(term)
"""

_TOP = (
    """
WITH q AS (
    SELECT * FROM unnest(%(terms)s::text[], %(idf)s::float8[]) AS q(term, idf)
), hits AS (
    SELECT q.term, h.item_pk,
        q.idf * h.tf * %(k1p)s / (h.tf + %(k1b)s + %(norm)s * h.dl) AS w
    FROM q CROSS JOIN LATERAL (
        SELECT k.item_pk, k.tf, k.dl FROM kw_postings k
        WHERE k.workspace = %(ws)s AND k.class = %(cls)s AND k.term = q.term AND {visible}
        ORDER BY """
    + KW_IMPACT.replace("tf", "k.tf").replace("dl", "k.dl")
    + """ DESC
        LIMIT %(depth)s
    ) h
), cut AS (
    SELECT term, min(w) AS w FROM hits GROUP BY term HAVING count(*) >= %(depth)s
), cand AS (
    SELECT item_pk, sum(w) AS partial, array_agg(term) AS terms FROM hits GROUP BY item_pk
)
SELECT c.item_pk, c.partial, c.terms,
    c.partial + coalesce((SELECT sum(cut.w) FROM cut WHERE cut.term <> ALL(c.terms)), 0)
        AS bound,
    (SELECT coalesce(array_agg(term), '{{}}') FROM cut) AS cut_terms
FROM cand c
ORDER BY bound DESC, c.item_pk
LIMIT %(best)s
"""
)
"""Each term's best ``depth`` visible postings weighed by BM25; the ``best`` candidates by
their bound (their partial sum, plus each cut-short term's last weight where they were
not read), with the terms they were read under and the terms cut short."""

_REST = """
SELECT item_pk, term, tf, dl FROM kw_postings
WHERE item_pk = ANY(%(pks)s) AND term = ANY(%(terms)s)
"""


def keyword_search(
    conn: Connection,
    workspace: str,
    storage_class: str,
    terms: Sequence[str],
    limit: int,
    scopes: Collection[str] | None,
) -> list[ScoredId]:
    """The top ``limit`` answerable items of ``storage_class`` by BM25 over ``terms``.

    Each term's postings are read in impact order, at most ``depth`` visible ones; a term
    with fewer is read whole, so its scores are exact. The candidates' partial sums plus,
    for each term cut short they were not read under, the weight at the cut bound what
    they can reach; the best of them by that bound are completed from their own postings
    and ranked by their exact BM25.
    """
    tokens = list(dict.fromkeys(analyze(" ".join(terms))))
    if not tokens or limit <= 0 or (scopes is not None and not scopes):
        return []
    params: dict[str, object] = {
        "ws": workspace,
        "cls": storage_class,
        "terms": tokens,
        "cap": DF_EXACT,
        "best": max(2 * limit, limit + RESCORE_EXTRA),
        "depth": max(DEPTH_MIN, DEPTH_PER_HIT * limit),
    }
    visible = "true"
    if scopes is not None:
        visible = "k.scope = ANY(%(scopes)s)"
        params["scopes"] = sorted(scopes)
    with conn.transaction():
        st = conn.execute(_STATS, params).fetchone()
        assert st is not None
        n, toks, parts = float(st["n"]), float(st["toks"]), int(st["parts"])
        df = _document_frequencies(conn, params, n)
        scorer = _Scorer(n, toks, df)
        ordered = sorted(scorer.idf)
        params.update(terms=ordered, idf=[scorer.idf[t] for t in ordered])
        params.update(k1p=K1 + 1, k1b=K1 * (1 - B), norm=scorer.norm)
        rows = conn.execute(_TOP.format(visible=visible), params).fetchall() if df else []
        score = {int(r["item_pk"]): float(r["partial"]) for r in rows}
        read = {int(r["item_pk"]): set(r["terms"]) for r in rows}
        missing = sorted(rows[0]["cut_terms"]) if rows else []
        if missing:
            rest = conn.execute(_REST, {"pks": list(score), "terms": missing}).fetchall()
            for r in rest:
                pk, term = int(r["item_pk"]), str(r["term"])
                if term not in read[pk]:
                    score[pk] += scorer.weight(term, int(r["tf"]), int(r["dl"]))
        top = sorted((-s, pk) for pk, s in score.items())[:limit]
        ids = (
            conn.execute(
                "SELECT pk, id FROM items WHERE pk = ANY(%s)", ([pk for _, pk in top],)
            ).fetchall()
            if top
            else []
        )
    if parts > _FOLD_AT:
        _best_effort(conn, _FOLD, {"ws": workspace, "cls": storage_class})
    by_pk = {int(r["pk"]): str(r["id"]) for r in ids}
    return [(by_pk[pk], -neg) for neg, pk in top if pk in by_pk]


class _Scorer:
    """BM25 of one posting, with the collection's statistics at the time of the search."""

    def __init__(self, n: float, toks: float, df: dict[str, int]) -> None:
        avgdl = max(toks / max(n, 1.0), 1e-9)
        self.norm = K1 * B / avgdl
        self.idf = {t: math.log(1 + (max(n, d) - d + 0.5) / (d + 0.5)) for t, d in df.items()}

    def weight(self, term: str, tf: int, dl: int) -> float:
        return self.idf[term] * tf * (K1 + 1) / (tf + K1 * (1 - B) + self.norm * dl)


def _document_frequencies(conn: Connection, params: dict[str, object], n: float) -> dict[str, int]:
    """Each query term's document count in the workspace and class: counted when under
    ``DF_EXACT``, else from ``kw_df`` (counted whole and recorded when missing, or when
    the class's document count has moved by more than ``DF_DRIFT`` since)."""
    counts = {str(r["term"]): int(r["c"]) for r in conn.execute(_COUNT, params).fetchall()}
    common = sorted(t for t, c in counts.items() if c >= DF_EXACT)
    df = {t: c for t, c in counts.items() if 0 < c < DF_EXACT}
    if not common:
        return df
    ws, cls = params["ws"], params["cls"]
    cached = conn.execute(
        "SELECT term, df, docs FROM kw_df WHERE workspace = %s AND class = %s AND term = ANY(%s)",
        (ws, cls, common),
    ).fetchall()
    fresh = {
        str(r["term"]): int(r["df"])
        for r in cached
        if abs(float(r["docs"]) - n) <= DF_DRIFT * max(float(r["docs"]), 1.0)
    }
    df.update(fresh)
    stale = [t for t in common if t not in fresh]
    if stale:
        counted = conn.execute(
            "SELECT term, count(*) AS c FROM kw_postings WHERE workspace = %s AND class = %s "
            "AND term = ANY(%s) GROUP BY term",
            (ws, cls, stale),
        ).fetchall()
        rows = sorted((ws, cls, str(r["term"]), int(r["c"]), int(n)) for r in counted)
        df.update({str(r["term"]): int(r["c"]) for r in counted})
        _best_effort_many(conn, _REMEMBER_DF, rows)
    return df


_REMEMBER_DF = """
INSERT INTO kw_df (workspace, class, term, df, docs) VALUES (%s, %s, %s, %s, %s)
ON CONFLICT (workspace, class, term) DO UPDATE
SET df = excluded.df, docs = excluded.docs, counted_at = now()
"""


def _best_effort(conn: Connection, sql: str, params: dict[str, object]) -> None:
    """A search's upkeep write (folding statistics): skipped where the server is a read
    replica, and never a reason for the search to fail."""
    try:
        with conn.transaction():
            conn.execute(sql, params)
    except (psycopg.errors.ReadOnlySqlTransaction, psycopg.errors.LockNotAvailable):
        pass


def _best_effort_many(conn: Connection, sql: str, rows: Sequence[tuple[object, ...]]) -> None:
    if not rows:
        return
    try:
        with conn.transaction():
            conn.cursor().executemany(sql, rows)
    except psycopg.errors.ReadOnlySqlTransaction:
        pass
