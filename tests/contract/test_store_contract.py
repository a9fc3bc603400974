"""The Store contract: every adapter of the port must pass this suite unchanged."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest

from orgbrain.adapters.memory import MemoryStore, Tables
from orgbrain.adapters.postgres import PostgresStore
from orgbrain.adapters.sqlite import SQLiteStore
from orgbrain.errors import InvalidInput
from orgbrain.ids import new_id
from orgbrain.model import (
    ByteRange,
    Edge,
    Evidence,
    Item,
    ItemSketch,
    Origin,
    Proposal,
    Statement,
    StorageClass,
    utcnow,
)
from orgbrain.ports import ItemFilter, Store
from orgbrain.scopes import Visibility

ALL = Visibility.everything()
DIM = 8

StoreFactory = Callable[[], Store]


@pytest.fixture(
    params=["tantivy", "fts5", "postgres", "memory"],
    ids=lambda p: p if p in ("postgres", "memory") else f"sqlite-{p}",
)
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreFactory]:
    """Each call is another handle on the same brain (another process, say)."""
    made: list[Store] = []
    url = request.getfixturevalue("pg_url") if request.param == "postgres" else None
    tables = Tables()  # the in-memory brain every memory handle shares

    def factory() -> Store:
        if url is not None:
            s: Store = PostgresStore(url)
        elif request.param == "memory":
            s = MemoryStore(tables)
        else:
            s = SQLiteStore(tmp_path / "brain.sqlite", keyword_engine=request.param)
        s.bind_embedder("toy", DIM)
        made.append(s)
        return s

    yield factory
    for s in made:
        s.close()


def vec(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(DIM).astype(np.float32)
    return v / np.linalg.norm(v)


def item(
    body: str,
    *,
    ws: str = "w1",
    cls: StorageClass = "note",
    scope: str = "org",
    key: str | None = None,
    indexed: bool = True,
    parent: str | None = None,
) -> Item:
    return Item(
        id=new_id(cls[:3]),
        workspace=ws,
        kind=cls,
        storage_class=cls,
        label=body.split()[0],
        body=body,
        source_key=key or f"k:{body}",
        indexed=indexed,
        scope=scope,
        origin=Origin("human:test", "test", utcnow()),
        parent_id=parent,
    )


def test_put_and_update_in_place_by_source_key(make_store: StoreFactory) -> None:
    s = make_store()
    a = s.put_item(item("alpha one", key="same"), vec(1))
    b = s.put_item(replace(item("alpha two", key="same"), id=new_id("not")), vec(2))
    assert b.id == a.id and b.body == "alpha two"
    assert s.get_item("w1", a.id, ALL) == b
    assert s.get_by_source_key("w1", "same", ALL, scope="org") == b
    assert len(s.list_items("w1", ItemFilter(), ALL).items) == 1
    assert s.keyword_search("w1", "note", ["one"], 10, ALL) == []
    assert [i for i, _ in s.keyword_search("w1", "note", ["two"], 10, ALL)] == [a.id]


def test_workspaces_never_mix(make_store: StoreFactory) -> None:
    s = make_store()
    a = s.put_item(item("shared words here", ws="w1"), vec(1))
    b = s.put_item(item("shared words here", ws="w2"), vec(1))
    assert s.get_item("w2", a.id, ALL) is None
    assert [i for i, _ in s.keyword_search("w2", "note", ["shared"], 10, ALL)] == [b.id]
    assert [i for i, _ in s.vector_search("w2", "note", vec(1), 10, ALL)] == [b.id]
    assert s.counts("w1")["note"] == 1


def test_visibility_is_applied_inside_the_query(make_store: StoreFactory) -> None:
    s = make_store()
    hidden = [s.put_item(item(f"budget secret {i}", scope="user:bob"), vec(1)) for i in range(5)]
    shown = [s.put_item(item(f"budget plan {i}", scope="team:eng"), vec(2)) for i in range(3)]
    alice = Visibility(frozenset({"org", "team:eng", "user:alice"}))
    kw = s.keyword_search("w1", "note", ["budget"], 3, alice)
    assert {i for i, _ in kw} == {x.id for x in shown}
    vs = s.vector_search("w1", "note", vec(1), 3, alice)
    assert {i for i, _ in vs} == {x.id for x in shown}
    assert s.get_item("w1", hidden[0].id, alice) is None
    assert s.get_items("w1", [hidden[0].id, shown[0].id], alice).keys() == {shown[0].id}
    listed = s.list_items("w1", ItemFilter(), alice).items
    assert {x.id for x in listed} == {x.id for x in shown}


def test_unindexed_items_are_not_answerable(make_store: StoreFactory) -> None:
    s = make_store()
    f = s.put_item(item("quarterly report draft", cls="file", indexed=False), vec(3))
    assert s.keyword_search("w1", "file", ["quarterly"], 10, ALL) == []
    assert s.vector_search("w1", "file", vec(3), 10, ALL) == []
    page = s.list_items("w1", ItemFilter(indexed=False, name_contains="quarterly"), ALL)
    assert [x.id for x in page.items] == [f.id]


def test_vector_search_is_exact(make_store: StoreFactory) -> None:
    s = make_store()
    stored = [s.put_item(item(f"n{i} text"), vec(i)) for i in range(40)]
    q = vec(999)
    got = s.vector_search("w1", "note", q, 5, ALL)
    sims = sorted(((float(vec(i) @ q), stored[i].id) for i in range(40)), reverse=True)[:5]
    assert [i for i, _ in got] == [i for _, i in sims]
    assert all(abs(a - b) < 1e-5 for (_, a), (b, _) in zip(got, sims, strict=True))


def test_other_writers_are_caught_up(make_store: StoreFactory) -> None:
    reader, writer = make_store(), make_store()
    a = writer.put_item(item("first"), vec(1))
    assert [i for i, _ in reader.vector_search("w1", "note", vec(1), 1, ALL)] == [a.id]
    b = writer.put_item(item("second"), vec(2))
    assert reader.vector_search("w1", "note", vec(2), 1, ALL)[0][0] == b.id
    assert [i for i, _ in reader.keyword_search("w1", "note", ["second"], 5, ALL)] == [b.id]
    writer.put_item(replace(b, indexed=False))
    assert b.id not in [i for i, _ in reader.vector_search("w1", "note", vec(2), 5, ALL)]
    assert reader.keyword_search("w1", "note", ["second"], 5, ALL) == []


def test_commit_index_upserts_sections_and_drops_stale(make_store: StoreFactory) -> None:
    s = make_store()
    f = s.put_item(item("handbook", cls="file", key="file:handbook.md", indexed=False))

    def sections(n: int) -> list[tuple[Item, np.ndarray]]:
        return [
            (
                replace(
                    item(
                        f"section {j} of handbook",
                        cls="section",
                        key=f"{f.source_key}#p{j}",
                        parent=f.id,
                    ),
                    byte_range=ByteRange(j * 10, j * 10 + 10),
                ),
                vec(100 + j),
            )
            for j in range(n)
        ]

    first = s.commit_index(replace(f, indexed=True), vec(50), sections(3), "system:test")
    again = s.commit_index(replace(f, indexed=True), vec(50), sections(3), "system:test")
    assert [x.id for x in again] == [x.id for x in first]
    has = [e for e in s.edges_of("w1", f.id, ALL) if e.type == "HAS_SECTION"]
    assert len(has) == 3
    fewer = s.commit_index(replace(f, indexed=True), vec(50), sections(2), "system:test")
    assert [x.id for x in fewer] == [x.id for x in first[:2]]
    assert s.get_item("w1", first[2].id, ALL) is None
    assert len(s.edges_of("w1", f.id, ALL)) == 2
    assert first[2].id not in [i for i, _ in s.vector_search("w1", "section", vec(102), 5, ALL)]
    found = s.keyword_search("w1", "section", ["handbook"], 5, ALL)
    assert {i for i, _ in found} == {x.id for x in first[:2]}
    s.unindex_children("w1", f.id)
    assert s.keyword_search("w1", "section", ["handbook"], 5, ALL) == []
    assert s.get_item("w1", f.id, ALL).indexed  # type: ignore[union-attr]
    assert s.get_item("w1", first[0].id, ALL).byte_range == ByteRange(0, 10)  # type: ignore[union-attr]


def test_edges_show_only_when_both_ends_are_visible(make_store: StoreFactory) -> None:
    s = make_store()
    a = s.put_item(item("public thing"), vec(1))
    b = s.put_item(item("private thing", scope="user:bob"), vec(2))
    o = Origin("agent:x", "test", utcnow())
    e = s.put_edge(Edge(new_id("edg"), "w1", "SAME_AS", a.id, b.id, o))
    assert s.put_edge(Edge(new_id("edg"), "w1", "SAME_AS", a.id, b.id, o)).id == e.id
    assert [x.id for x in s.edges_of("w1", a.id, ALL)] == [e.id]
    alice = Visibility(frozenset({"org", "user:alice"}))
    assert s.edges_of("w1", a.id, alice) == []


def test_edges_of_reads_at_most_limit_oldest_first(make_store: StoreFactory) -> None:
    s = make_store()
    hub = s.put_item(item("hub"), vec(1))
    o = Origin("agent:x", "test", utcnow())
    made = []
    for n in range(5):
        spoke = s.put_item(item(f"spoke {n}"), vec(2 + n))
        made.append(s.put_edge(Edge(new_id("edg"), "w1", "RELATES", hub.id, spoke.id, o)).id)
    assert [e.id for e in s.edges_of("w1", hub.id, ALL, limit=3)] == made[:3]
    assert [e.id for e in s.edges_of("w1", hub.id, ALL, limit=10)] == made
    assert s.edges_of("w1", hub.id, ALL, limit=0) == []
    with pytest.raises(InvalidInput):
        s.edges_of("w1", hub.id, ALL, limit=-1)


def test_item_sketches_are_the_sketches_of_get_items(make_store: StoreFactory) -> None:
    """The narrow read a search scores its candidates from gives, field for field, what
    the full read gives: for items with and without an occurrence time, a run, a parent,
    a supersession and a tombstone, unindexed ones, and through a scope filter."""
    s = make_store()
    o = Origin("human:test", "test", utcnow(), run_id="run-1")
    doc = s.put_item(item("a report", cls="file"), vec(1))
    section = s.put_item(item("its first section", cls="section", parent=doc.id), vec(2))
    old = s.put_item(replace(item("the old plan"), origin=o), vec(3))
    new = s.put_item(
        replace(item("the new plan"), supersedes=old.id, occurred_at=utcnow() - timedelta(days=3)),
        vec(4),
    )
    old = s.put_item(replace(old, superseded_by=new.id), vec(3))
    gone = s.put_item(replace(item("a forgotten note"), tombstoned_at=utcnow()), vec(5))
    raw = s.put_item(item("not indexed yet", indexed=False), None)
    hidden = s.put_item(item("bob's note", scope="user:bob"), vec(6))
    ids = [x.id for x in (doc, section, old, new, gone, raw, hidden)] + ["no-such-item"]
    for vis in (ALL, Visibility(frozenset({"org"}))):
        full = s.get_items("w1", ids, vis)
        sketches = s.item_sketches("w1", ids, vis)
        assert sketches == {i: ItemSketch.of(x) for i, x in full.items()}, vis
        assert (hidden.id in sketches) == (vis is ALL)
    got = s.item_sketches("w1", [new.id, old.id, new.id, section.id], ALL)
    assert got[new.id].when == new.occurred_at and got[old.id].when == old.origin.at
    assert got[old.id].run_id == "run-1" and got[old.id].superseded_by == new.id
    assert got[new.id].supersedes == old.id and got[section.id].parent_id == doc.id
    assert s.item_sketches("w1", [], ALL) == {}
    assert s.item_sketches("w2", ids, ALL) == {}


def test_reads_by_id_see_every_write_from_any_handle(make_store: StoreFactory) -> None:
    """``get_items`` and ``item_sketches`` read again after a write, from the handle that
    wrote or another (the SQLite store holds what it read until an item changes:
    itemcache.py): an update in place, a supersession, a move to another scope, a
    tombstone, a new item."""
    s, other = make_store(), make_store()
    a = s.put_item(item("alpha one", key="a"), vec(1))
    b = s.put_item(item("beta two", key="b"), vec(2))
    org = Visibility(frozenset({"org"}))

    def seen(reader: Store, vis: Visibility = ALL) -> dict[str, tuple[str, str, str | None]]:
        full = reader.get_items("w1", [a.id, b.id, "c"], vis)
        sketches = reader.item_sketches("w1", [a.id, b.id, "c"], vis)
        assert sketches == {i: ItemSketch.of(x) for i, x in full.items()}
        return {i: (x.body, x.scope, x.superseded_by) for i, x in full.items()}

    for reader in (s, other, s, other):  # the second time round from what a handle holds
        assert seen(reader) == {a.id: ("alpha one", "org", None), b.id: ("beta two", "org", None)}
    s.put_item(replace(a, body="alpha changed"), vec(1))
    assert seen(s)[a.id][0] == seen(other)[a.id][0] == "alpha changed"
    o = Origin("human:test", "test", utcnow())
    assert other.supersede_item(Edge(new_id("edg"), "w1", "SUPERSEDES", b.id, a.id, o))
    assert seen(s)[a.id][2] == seen(other)[a.id][2] == b.id
    other.put_item(replace(b, scope="user:bob"), vec(2))
    assert b.id not in seen(s, org) and b.id not in seen(other, org)
    assert seen(s)[b.id][1] == "user:bob"
    s.put_item(replace(s.get_items("w1", [a.id], ALL)[a.id], tombstoned_at=utcnow()), vec(1))
    assert other.item_sketches("w1", [a.id], ALL)[a.id].tombstoned_at is not None
    c = other.put_item(replace(item("gamma three", key="c"), id="c"), vec(3))
    assert seen(s)[c.id][0] == seen(other)[c.id][0] == "gamma three"


def _owners(s: Store, first_id: str) -> tuple[Store, list[Item], Statement]:
    """Three org notes and one of bob's, and an owner statement about the first (not yet
    stored) to vary."""
    notes = [s.put_item(item(f"note {n}"), vec(n)) for n in range(3)]
    notes.append(s.put_item(item("bob's note", scope="user:bob"), vec(7)))
    statement = Statement(
        id=first_id, workspace="w1", type="fact", subject_id=notes[0].id, subject="billing",
        predicate="owner", object="Priya", object_id=None, scope="org", item_id=notes[0].id,
        byte_range=None, text="Priya owns billing", tier="pattern", confidence=0.8,
        valid_from=utcnow() - timedelta(days=3), origin=Origin("human:test", "test", utcnow()),
    )  # fmt: skip
    return s, notes, statement


def test_statements_of_item_ids_are_those_of_each_item_together(
    make_store: StoreFactory,
) -> None:
    s, (a, b, c, hidden), first = _owners(make_store(), "stm_1")
    s.put_statement(first)
    s.put_statement(replace(first, id="stm_2", object="Ann", item_id=b.id))
    s.put_statement(replace(first, id="stm_3", object="Bo", item_id=hidden.id, scope="user:bob"))
    s.add_evidence("w1", "stm_1", Evidence(c.id, None, "again", "pattern", 0.5, utcnow()))
    s.flag_conflict("w1", "stm_1", "stm_2")
    ids = [a.id, b.id, c.id, hidden.id, "no-such-item"]
    for vis in (ALL, Visibility(frozenset({"org"}))):
        for conflicted in (False, True):
            for some in (ids, ids[:1], ids[2:], []):
                got = s.statements("w1", vis, item_ids=some, conflicted=conflicted)
                each = {
                    st.id
                    for i in some
                    for st in s.statements("w1", vis, item_id=i, conflicted=conflicted)
                }
                assert {st.id for st in got} == each, (vis, conflicted, some)
                assert len(got) == len(each)
    assert [st.id for st in s.statements("w1", ALL, item_ids=ids)] == ["stm_1", "stm_2", "stm_3"]
    assert len(s.statements("w1", ALL, item_ids=ids, limit=1)) == 1


def test_statements_linked_to_are_both_sides_of_their_supersession_links(
    make_store: StoreFactory,
) -> None:
    s, (_, b, c, hidden), old = _owners(make_store(), "stm_old")
    s.put_statement(old)
    s.put_statement(replace(old, id="stm_mid", object="Ann", item_id=b.id))
    s.put_statement(replace(old, id="stm_new", object="Bo", item_id=c.id))
    s.put_statement(replace(old, id="stm_aside", object="Cy", item_id=c.id))
    s.put_statement(replace(old, id="stm_bob", object="Di", item_id=hidden.id, scope="user:bob"))
    assert s.end_statement("w1", "stm_old", utcnow(), "stm_mid")
    assert s.end_statement("w1", "stm_mid", utcnow(), "stm_new")
    assert s.end_statement("w1", "stm_bob", utcnow(), "stm_mid")

    def linked(vis: Visibility, ids: list[str]) -> list[str]:
        return sorted(st.id for st in s.statements("w1", vis, linked_to=ids))

    assert linked(ALL, ["stm_mid"]) == ["stm_bob", "stm_new", "stm_old"]
    assert linked(Visibility(frozenset({"org"})), ["stm_mid"]) == ["stm_new", "stm_old"]
    assert linked(ALL, ["stm_old", "stm_new"]) == ["stm_mid"]
    assert linked(ALL, ["stm_aside"]) == linked(ALL, []) == []
    got = s.statements("w1", ALL, linked_to=["stm_mid"], current=True)
    assert [st.id for st in got] == ["stm_new"]


def test_edges_around_is_edges_of_for_each_id_in_one_read(make_store: StoreFactory) -> None:
    s = make_store()
    o = Origin("agent:x", "test", utcnow())
    turns = [s.put_item(item(f"turn {n}"), vec(n)) for n in range(4)]
    hidden = s.put_item(item("hidden turn", scope="user:bob"), vec(9))
    hub = s.put_item(item("hub"), vec(10))

    def edge(kind: str, a: Item, b: Item) -> str:
        return s.put_edge(Edge(new_id("edg"), "w1", kind, a.id, b.id, o)).id

    nexts = [edge("NEXT", turns[n], turns[n + 1]) for n in range(3)]
    edge("NEXT", turns[3], hidden)
    other = edge("RELATES", turns[1], turns[3])
    loop = edge("NEXT", hub, hub)
    spokes = [edge("NEXT", hub, t) for t in turns]
    ids = [t.id for t in turns] + [hub.id, hidden.id, "no-such-item"]
    for vis in (ALL, Visibility(frozenset({"org"}))):
        for types in (None, ["NEXT"]):
            for limit in (None, 1, 2, 16):
                got = s.edges_around("w1", ids, vis, types=types, limit=limit)
                want = {i: s.edges_of("w1", i, vis, types=types, limit=limit) for i in ids}
                assert got == {i: e for i, e in want.items() if e}, (vis, types, limit)
    around = s.edges_around("w1", [turns[1].id, hub.id], ALL, types=["NEXT"], limit=2)
    assert [e.id for e in around[turns[1].id]] == nexts[:2]  # oldest first; not RELATES
    assert [e.id for e in around[hub.id]] == [loop, spokes[0]]  # a loop once
    assert other not in {e.id for es in around.values() for e in es}
    assert s.edges_around("w1", [], ALL) == {}
    assert s.edges_around("w1", ids, ALL, limit=0) == {}
    assert s.edges_around("w2", ids, ALL) == {}
    with pytest.raises(InvalidInput):
        s.edges_around("w1", ids, ALL, limit=-1)


def test_a_lazy_event_is_logged_in_order_like_any_other(make_store: StoreFactory) -> None:
    s = make_store()
    first = s.log_event("w1", "search", {"spoke": True, "actor": "human:a"}, durable=False)
    second = s.log_event("w1", "turn", {"query": "q"})
    third = s.log_event("w1", "search", {"spoke": False}, durable=False)
    assert first < second < third
    assert [e["id"] for e in s.events_after("w1", 0)] == [first, second, third]
    assert s.event_counts("w1", "search", ["spoke"]) == {(True,): 1, (False,): 1}
    t = make_store()  # another handle sees them at once
    assert [e["spoke"] for e in t.events("w1", "search")] == [False, True]


def test_list_items_paginates_with_a_cursor(make_store: StoreFactory) -> None:
    s = make_store()
    ids = [s.put_item(item(f"note {i}"), vec(i)).id for i in range(7)]
    seen: list[str] = []
    cursor = None
    while True:
        page = s.list_items("w1", ItemFilter(), ALL, limit=3, cursor=cursor)
        seen += [x.id for x in page.items]
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert seen == ids
    backwards: list[str] = []
    cursor = None
    while True:
        page = s.list_items("w1", ItemFilter(newest_first=True), ALL, limit=3, cursor=cursor)
        backwards += [x.id for x in page.items]
        if page.next_cursor is None:
            break
        cursor = page.next_cursor
    assert backwards == ids[::-1]


def test_reopen_keeps_everything(make_store: StoreFactory) -> None:
    s = make_store()
    a = s.put_item(item("durable fact"), vec(7))
    s.close()
    t = make_store()
    assert t.get_item("w1", a.id, ALL) == a
    assert t.vector_search("w1", "note", vec(7), 1, ALL)[0][0] == a.id


def test_event_log_is_per_workspace_and_newest_first(make_store: StoreFactory) -> None:
    s = make_store()
    s.log_event("w1", "turn", {"query": "a", "actor": "agent:x"})
    s.log_event("w1", "turn", {"query": "b", "actor": "agent:y"})
    s.log_event("w2", "turn", {"query": "c"})
    assert [e["query"] for e in s.events("w1", "turn")] == ["b", "a"]
    assert [e["query"] for e in s.events("w1", "turn", actor="agent:x")] == ["a"]
    assert [e["query"] for e in s.events("w2", "turn", limit=1)] == ["c"]


def test_keyword_index_follows_every_change(make_store: StoreFactory) -> None:
    s = make_store()
    alice = Visibility(frozenset({"org", "user:alice"}))
    a = s.put_item(item("quokka migration notes"), vec(1))
    assert [i for i, _ in s.keyword_search("w1", "note", ["quokka"], 5, alice)] == [a.id]
    s.put_item(replace(a, scope="user:bob"), vec(1))
    assert s.keyword_search("w1", "note", ["quokka"], 5, alice) == []
    assert [i for i, _ in s.keyword_search("w1", "note", ["quokka"], 5, ALL)] == [a.id]
    s.put_item(replace(a, scope="org", indexed=False))
    assert s.keyword_search("w1", "note", ["quokka"], 5, ALL) == []
    s.put_item(replace(a, scope="org", label="wombat", body="wombat plan"), vec(1))
    assert s.keyword_search("w1", "note", ["quokka"], 5, ALL) == []
    assert [i for i, _ in s.keyword_search("w1", "note", ["wombat"], 5, ALL)] == [a.id]
    assert s.keyword_search("w1", "file", ["wombat"], 5, ALL) == []
    assert s.keyword_search("w1", "note", ["wombat"], 5, Visibility(frozenset())) == []


def test_keyword_ranking_is_bm25(make_store: StoreFactory) -> None:
    s = make_store()
    for i in range(8):
        s.put_item(item(f"common filler text number {i}"), vec(i))
    rare = s.put_item(item("rare common words"), vec(20))
    twice = s.put_item(item("common common common words"), vec(21))
    got = [i for i, _ in s.keyword_search("w1", "note", ["rare", "common"], 10, ALL)]
    assert got[0] == rare.id  # the rarer term weighs more
    assert got[1] == twice.id  # more occurrences of a term rank higher
    scores = [score for _, score in s.keyword_search("w1", "note", ["common"], 10, ALL)]
    assert scores == sorted(scores, reverse=True) and all(x > 0 for x in scores)


def test_keyword_index_survives_a_reused_rowid(make_store: StoreFactory) -> None:
    # SQLite reuses the largest rowid once its row is gone; the index must follow the row.
    s = make_store()
    f = s.put_item(item("manual", cls="file", key="file:m", indexed=False))
    old = s.commit_index(
        replace(f, indexed=True),
        vec(1),
        [(item("zebra crossing", cls="section", key="file:m#p0", parent=f.id), vec(2))],
        "system:test",
    )
    assert [i for i, _ in s.keyword_search("w1", "section", ["zebra"], 5, ALL)] == [old[0].id]
    s.commit_index(replace(f, indexed=True), vec(1), [], "system:test")
    new = s.put_item(item("giraffe crossing", cls="section", key="other", parent=f.id), vec(3))
    assert s.keyword_search("w1", "section", ["zebra"], 5, ALL) == []
    assert [i for i, _ in s.keyword_search("w1", "section", ["crossing"], 5, ALL)] == [new.id]


def test_tombstoned_items_leave_every_stream(make_store: StoreFactory) -> None:
    s = make_store()
    a = s.put_item(item("obsolete pricing rule"), vec(5))
    b = s.put_item(item("current pricing rule"), vec(6))
    s.put_item(replace(a, tombstoned_at=utcnow()), vec(5))
    assert [i for i, _ in s.vector_search("w1", "note", vec(5), 5, ALL)] == [b.id]
    assert [i for i, _ in s.keyword_search("w1", "note", ["pricing"], 5, ALL)] == [b.id]
    assert s.get_item("w1", a.id, ALL).tombstoned_at is not None  # type: ignore[union-attr]


def proposal(pid: str, *, ws: str = "w1", scope: str = "org", run: str = "r1") -> Proposal:
    return Proposal(
        id=pid,
        workspace=ws,
        run_id=run,
        actor="agent:writer",
        kind="decision",
        label="",
        body=f"body of {pid}",
        scope=scope,
        confidence=0.7,
        sensitivity=("a password",),
        evidence=("the line it came from",),
        supersedes=("not_old",),
        state="pending",
        reason="confidence 0.70 < 0.75",
        created_at=utcnow(),
        writer="offline",
    )


def test_proposals_are_stored_once_listed_by_scope_state_and_run(make_store: StoreFactory) -> None:
    s = make_store()
    first, created = s.put_proposal(proposal("p1"))
    assert created and first.state == "pending" and first.confidence == 0.7
    again, created_again = s.put_proposal(replace(proposal("p1"), body="another body"))
    assert not created_again and again.body == "body of p1"  # the first one stands
    assert (again.sensitivity, again.evidence, again.supersedes) == (
        ("a password",),
        ("the line it came from",),
        ("not_old",),
    )
    s.put_proposal(proposal("p2", scope="user:sam"))
    s.put_proposal(proposal("p3", scope="team:core", run="r2"))
    s.put_proposal(proposal("p4", ws="w2"))
    assert [p.id for p in s.proposals("w1")] == ["p1", "p2", "p3"]  # oldest first
    assert [p.id for p in s.proposals("w1", scopes=["user:sam", "team:core"])] == ["p2", "p3"]
    assert s.proposals("w1", scopes=[]) == []
    assert [p.id for p in s.proposals("w1", run_id="r2")] == ["p3"]
    assert [p.id for p in s.proposals("w1", states=["pending"], limit=1)] == ["p1"]
    assert s.proposal("w1", "p4") is None and s.proposal("w2", "p4") is not None


def test_a_proposal_is_decided_once_and_written_once(make_store: StoreFactory) -> None:
    s = make_store()
    s.put_proposal(proposal("p1"))
    at = utcnow()
    assert s.decide_proposal(
        "w1", "p1", "approved", decided_by="human:rita", decided_at=at, reason="ok", body="edited"
    )
    assert not s.decide_proposal(
        "w1", "p1", "rejected", decided_by="human:bob", decided_at=at, reason="no"
    )
    p = s.proposal("w1", "p1")
    assert p is not None
    assert (p.state, p.decided_by, p.review_reason, p.body, p.label) == (
        "approved",
        "human:rita",
        "ok",
        "edited",
        "",
    )
    assert p.decided_at == at
    s.proposal_written("w1", "p1", "not_1")
    s.proposal_written("w1", "p1", "not_2")
    assert s.proposal("w1", "p1").item_id == "not_1"  # type: ignore[union-attr]
    assert [x.id for x in s.proposals("w1", states=["approved"])] == ["p1"]


def test_pending_proposals_count_the_inbox_and_its_oldest(make_store: StoreFactory) -> None:
    s = make_store()
    assert s.pending_proposals("w1") == (0, None)
    old = utcnow() - timedelta(days=3)
    s.put_proposal(replace(proposal("p1", scope="user:sam"), created_at=old))
    s.put_proposal(proposal("p2"))
    s.put_proposal(proposal("p3", scope="team:core"))
    s.put_proposal(replace(proposal("p4"), created_at=old - timedelta(days=1), state="written"))
    s.put_proposal(proposal("p5", ws="w2"))
    assert s.pending_proposals("w1") == (3, old)
    assert s.pending_proposals("w1", scopes=["org", "team:core"])[0] == 2
    assert s.pending_proposals("w1", scopes=[]) == (0, None)
    s.decide_proposal(
        "w1", "p1", "rejected", decided_by="human:sam", decided_at=utcnow(), reason="no"
    )
    n, oldest = s.pending_proposals("w1")
    assert n == 2 and oldest is not None and oldest > old
    assert s.pending_proposals("w2")[0] == 1


def test_event_counts_group_fields_since_a_time_by_actor_and_scope(
    make_store: StoreFactory,
) -> None:
    s = make_store()
    s.log_event("w1", "search", {"surface": "http", "spoke": True, "actor": "human:a"})
    s.log_event("w1", "search", {"surface": "http", "spoke": False, "actor": "human:b"})
    time.sleep(0.01)
    mid = utcnow()
    time.sleep(0.01)
    s.log_event("w1", "search", {"surface": "http", "spoke": True, "actor": "human:a"})
    s.log_event("w1", "search", {"surface": "mcp", "spoke": True, "ms": 12, "actor": "human:a"})
    s.log_event("w1", "search", {"surface": "cli"})  # no spoke field
    s.log_event("w1", "turn", {"surface": "http", "spoke": True})
    s.log_event("w2", "search", {"surface": "http", "spoke": True})
    assert s.event_counts("w1", "search", ["surface", "spoke"]) == {
        ("http", True): 2,
        ("http", False): 1,
        ("mcp", True): 1,
        ("cli", None): 1,
    }
    assert s.event_counts("w1", "search", ["surface"], since=mid) == {
        ("http",): 1,
        ("mcp",): 1,
        ("cli",): 1,
    }
    naive = mid.replace(tzinfo=None)  # a time without a zone is UTC
    assert s.event_counts("w1", "search", ["surface"], since=naive) == {
        ("http",): 1,
        ("mcp",): 1,
        ("cli",): 1,
    }
    assert s.event_counts("w1", "search", ["ms"], actor="human:a") == {(None,): 2, (12,): 1}
    assert s.event_counts("w1", "search", []) == {(): 5}
    assert s.event_counts("w1", "search", ["surface"], since=utcnow() + timedelta(1)) == {}
    assert s.event_counts("w3", "search", ["surface"]) == {}
    s.log_event("w1", "gate", {"decision": "written", "scope": "org"})
    s.log_event("w1", "gate", {"decision": "inbox", "scope": "user:sam"})
    s.log_event("w1", "gate", {"decision": "inbox", "scope": "team:core"})
    assert s.event_counts("w1", "gate", ["decision"], scopes=["org", "team:core"]) == {
        ("written",): 1,
        ("inbox",): 1,
    }
    assert s.event_counts("w1", "gate", ["decision"], scopes=[]) == {}
    for bad in (["surface; drop table events"], ["$.surface"], "surface", [""]):
        with pytest.raises(InvalidInput):
            s.event_counts("w1", "search", bad)


# -- keys (set_keys): keyword-only text -------------------------------------------------


def found_by_keyword(store: Store, words: str, vis: Visibility = ALL) -> list[str]:
    return [i for i, _ in store.keyword_search("w1", "note", words.split(), 10, vis)]


def test_keys_are_searched_and_never_returned_cited_or_embedded(
    make_store: StoreFactory,
) -> None:
    store = make_store()
    reply = store.put_item(item("Yes, last Tuesday!", key="t2"), vec(1))
    store.put_item(item("unrelated lunch plans", key="t3"), vec(2))
    assert found_by_keyword(store, "zebracorn") == []
    store.set_keys("w1", {reply.id: "did you see the zebracorn at the parade?"})
    assert found_by_keyword(store, "zebracorn parade") == [reply.id]
    assert found_by_keyword(store, "tuesday") == [reply.id]  # its own words still count
    got = store.get_item("w1", reply.id, ALL)
    assert got == replace(reply, updated_at=got.updated_at if got else None)
    assert got is not None and "zebracorn" not in repr(got)
    listed = store.list_items("w1", ItemFilter(), ALL)
    assert all("zebracorn" not in repr(i) for i in listed.items)
    emb = store.embedding_of("w1", reply.id)
    assert emb is not None and np.allclose(emb.reshape(-1), vec(1))  # the vector is its own
    assert [i for i, _ in store.vector_search("w1", "note", vec(1), 1, ALL)] == [reply.id]
    # Unchanged keys again, or unknown ids, change nothing.
    store.set_keys("w1", {reply.id: "did you see the zebracorn at the parade?", "not_x": "a"})
    assert found_by_keyword(store, "zebracorn") == [reply.id]
    store.set_keys("w1", {reply.id: ""})
    assert found_by_keyword(store, "zebracorn") == []


def test_keys_follow_every_change_in_every_process(make_store: StoreFactory) -> None:
    a, b = make_store(), make_store()
    reply = a.put_item(item("Yes, last Tuesday!", key="t2"), vec(1))
    assert found_by_keyword(b, "zebracorn") == []  # b's index has caught up once
    a.set_keys("w1", {reply.id: "zebracorn parade"})
    assert found_by_keyword(b, "zebracorn") == [reply.id]
    a.set_keys("w1", {reply.id: "unicorn"})
    assert found_by_keyword(b, "zebracorn") == [] and found_by_keyword(b, "unicorn") == [reply.id]


def test_keys_are_scoped_like_their_item(make_store: StoreFactory) -> None:
    store = make_store()
    mine = store.put_item(item("my reply", key="t2", scope="user:ann"), vec(1))
    store.set_keys("w1", {mine.id: "zebracorn"})
    assert found_by_keyword(store, "zebracorn", Visibility(frozenset({"org"}))) == []
    assert found_by_keyword(store, "zebracorn", Visibility(frozenset({"org", "user:ann"}))) == [
        mine.id
    ]


def test_a_put_keeps_keys_unless_the_item_moves_scope_or_is_forgotten(
    make_store: StoreFactory,
) -> None:
    store = make_store()
    reply = store.put_item(item("Yes, last Tuesday!", key="t2"), vec(1))
    store.set_keys("w1", {reply.id: "zebracorn"})
    edited = store.put_item(replace(reply, body="Yes, last Wednesday!"), vec(1))
    assert found_by_keyword(store, "zebracorn") == [edited.id] and found_by_keyword(
        store, "wednesday"
    ) == [edited.id]
    # Keys were chosen for where the item was: a move to another scope empties them.
    moved = store.put_item(replace(edited, scope="user:ann"), vec(1))
    assert moved.scope == "user:ann"
    assert found_by_keyword(store, "zebracorn") == [] and found_by_keyword(store, "wednesday") == [
        moved.id
    ]
    store.set_keys("w1", {moved.id: "zebracorn"})
    assert found_by_keyword(store, "zebracorn") == [moved.id]
    gone = store.put_item(replace(moved, tombstoned_at=utcnow()))
    assert found_by_keyword(store, "zebracorn") == []
    back = store.put_item(replace(gone, tombstoned_at=None), vec(1))
    assert (
        found_by_keyword(store, "wednesday") == [back.id]
        and found_by_keyword(store, "zebracorn") == []
    )


def test_marks_are_set_and_read(make_store: StoreFactory) -> None:
    a, b = make_store(), make_store()
    assert a.mark("chore") is None
    a.set_mark("chore", "done")
    assert b.mark("chore") == "done"
