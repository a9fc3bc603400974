"""BM25 over one workspace's answerable items, in dicts: the keyword stream of the
in-memory store.

It ranks as the SQLite store's tantivy index does (``sqlite/keywords.py``): the same
analyzer (words, lowercased, ASCII-folded, English-stemmed), BM25 with k1 1.2 and b 0.75
over label, body and keys as one text, the workspace as the corpus, class and scope as
filters that never score. Exact lengths stand where tantivy keeps a lossy one byte, so
scores may differ in the last digits, never in what matches.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Sequence

from ...analysis import text_compound_parts
from ..sqlite.keywords import analyzer

__all__ = ["KeywordIndex"]

_K1 = 1.2
_B = 0.75


class KeywordIndex:
    """Postings of one workspace's answerable items (the caller holds the store's lock)."""

    def __init__(self) -> None:
        self._analyzer = analyzer()
        self._docs: dict[str, tuple[Counter[str], int, str, str]] = {}
        """id -> (term counts, length in terms, class, scope)."""
        self._postings: dict[str, set[str]] = {}
        self._total = 0

    def put(self, item_id: str, storage_class: str, scope: str, text: str) -> None:
        self.drop(item_id)
        # A German text is found by its compounds' parts too, as in tantivy's index.
        terms = Counter(self._analyzer.analyze(f"{text}\n{text_compound_parts(text)}"))
        length = sum(terms.values())
        self._docs[item_id] = (terms, length, storage_class, scope)
        self._total += length
        for term in terms:
            self._postings.setdefault(term, set()).add(item_id)

    def drop(self, item_id: str) -> None:
        doc = self._docs.pop(item_id, None)
        if doc is None:
            return
        self._total -= doc[1]
        for term in doc[0]:
            held = self._postings[term]
            held.discard(item_id)
            if not held:
                del self._postings[term]

    def search(
        self,
        storage_class: str,
        terms: Sequence[str],
        limit: int,
        scopes: Collection[str] | None,
    ) -> list[tuple[str, float]]:
        """The best ``limit`` items of ``storage_class`` in ``scopes`` by BM25 over
        ``terms``, best first (ties in write order)."""
        tokens = list(dict.fromkeys(self._analyzer.analyze(" ".join(terms))))
        if not tokens or limit <= 0 or not self._docs:
            return []
        n = len(self._docs)
        mean = self._total / n or 1.0
        scores: dict[str, float] = {}
        for token in tokens:
            held = self._postings.get(token)
            if not held:
                continue
            idf = math.log(1 + (n - len(held) + 0.5) / (len(held) + 0.5))
            for item_id in held:
                tf_of, length, cls, scope = self._docs[item_id]
                if cls != storage_class or (scopes is not None and scope not in scopes):
                    continue
                tf = tf_of[token]
                norm = tf + _K1 * (1 - _B + _B * length / mean)
                scores[item_id] = scores.get(item_id, 0.0) + idf * tf * (_K1 + 1) / norm
        order = {item_id: i for i, item_id in enumerate(self._docs)}
        best = sorted(scores.items(), key=lambda kv: (-kv[1], order[kv[0]]))
        return best[:limit]
