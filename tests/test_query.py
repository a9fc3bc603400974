"""A query read once (retrieve/query.py) and each hit's evidence read once a search
(retrieve/evidence.py's memo)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from orgbrain import Brain
from orgbrain.model import Item, Origin
from orgbrain.ports import Vector
from orgbrain.retrieve.evidence import EVIDENCE, Memo, Seen, hit_evidence
from orgbrain.retrieve.query import Query
from tests.toy import HashEmbedder

SAT = datetime(2026, 12, 5, 13, 0, tzinfo=UTC)


def _turn(item_id: str, body: str, at: datetime = SAT) -> Item:
    origin = Origin("test", "test", at)
    return Item(item_id, "ws", "turn", "note", "", body, "k", True, "org", origin, occurred_at=at)


def test_a_query_reads_each_part_once_and_embeds_only_when_asked() -> None:
    embedded: list[str] = []

    def embed(text: str) -> Vector:
        embedded.append(text)
        return np.ones(4, dtype=np.float32)

    asked = "Flying with Tom next week, what did Priya decide last week about billing?"
    q = Query(asked, SAT, embed)
    assert q.terms is q.terms and q.names is q.names
    assert q.names == ["tom", "priya"] and q.asked_names == ["priya"]
    assert q.window is not None and q.window.phrase == "next week"
    assert q.time_terms == ["next", "week"] and "billing" in q.untimed
    assert q.asked_type == "decision" and not q.has_code
    assert embedded == []  # nothing asked for the vector yet
    assert q.vector is q.vector
    # Once, of what it asks less its time: no text says "next week".
    assert embedded == ["Flying with Tom, what did Priya decide last week about billing?"]
    assert Query(asked, SAT).vector is None


def test_a_hit_read_twice_in_one_search_is_read_once_and_alike() -> None:
    """The learned stage reads the first hits' names and asks, the gate all of the
    first five's again, in the query's window: what does not depend on the fields read
    or the window is kept, the rest read again."""
    asked = "What did Melanie paint at the lake two weeks ago?"
    q = Query(asked, SAT)
    window = q.window
    assert window is not None
    hits = [
        _turn("a", "Melanie: I painted the lake at sunrise.", window.start),
        _turn("b", "Caroline: What did you paint at the lake, Melanie?"),
    ]
    memo: Memo = {}
    first = hit_evidence(q, hits, {}, reads=frozenset({"names", "asks"}), memo=memo)
    assert memo["a"].named is True and memo["b"].asks is True
    again = hit_evidence(q, hits, {"a": 0.7}, window=window, memo=memo)
    fresh = hit_evidence(q, hits, {"a": 0.7}, window=window)
    assert again == fresh and again != first
    assert again[0].coverage > hit_evidence(q, hits[:1], {})[0].coverage  # its date counts
    # What the memo holds is what is given: read once, not read again.
    told = {"a": Seen(asks=True)}
    assert hit_evidence(q, hits[:1], {}, reads=EVIDENCE, memo=told)[0].asks


class _Counting(HashEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def embed(self, texts: Sequence[str]) -> Vector:
        self.seen.extend(texts)
        return super().embed(texts)


def test_a_search_embeds_its_query_once_and_not_without_vector_streams(tmp_path: Path) -> None:
    counting = _Counting()
    with Brain.open(tmp_path / "brain", embedder=counting) as brain:
        brain.add_note("Billing moves to Stripe in March.")
        counting.seen.clear()
        assert brain.search("billing stripe", plan="bm25").hits
        assert counting.seen == []
        brain.search("what did we decide last week about billing?")
        assert counting.seen == ["what did we decide about billing?"]
