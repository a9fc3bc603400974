"""The Store contract for keys (``set_keys``): keyword-only text, on every adapter."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from orgbrain.model import utcnow
from orgbrain.ports import ItemFilter, Store
from orgbrain.scopes import Visibility
from tests.contract.test_store_contract import (  # noqa: F401  (the fixture)
    ALL,
    StoreFactory,
    item,
    make_store,
    vec,
)


def found(store: Store, words: str, vis: Visibility = ALL) -> list[str]:
    return [i for i, _ in store.keyword_search("w1", "note", words.split(), 10, vis)]


def test_keys_are_searched_and_never_returned_cited_or_embedded(
    make_store: StoreFactory,
) -> None:
    store = make_store()
    reply = store.put_item(item("Yes, last Tuesday!", key="t2"), vec(1))
    store.put_item(item("unrelated lunch plans", key="t3"), vec(2))
    assert found(store, "zebracorn") == []
    store.set_keys("w1", {reply.id: "did you see the zebracorn at the parade?"})
    assert found(store, "zebracorn parade") == [reply.id]
    assert found(store, "tuesday") == [reply.id]  # its own words still count
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
    assert found(store, "zebracorn") == [reply.id]
    store.set_keys("w1", {reply.id: ""})
    assert found(store, "zebracorn") == []


def test_keys_follow_every_change_in_every_process(make_store: StoreFactory) -> None:
    a, b = make_store(), make_store()
    reply = a.put_item(item("Yes, last Tuesday!", key="t2"), vec(1))
    assert found(b, "zebracorn") == []  # b's index has caught up once
    a.set_keys("w1", {reply.id: "zebracorn parade"})
    assert found(b, "zebracorn") == [reply.id]
    a.set_keys("w1", {reply.id: "unicorn"})
    assert found(b, "zebracorn") == [] and found(b, "unicorn") == [reply.id]


def test_keys_are_scoped_like_their_item(make_store: StoreFactory) -> None:
    store = make_store()
    mine = store.put_item(item("my reply", key="t2", scope="user:ann"), vec(1))
    store.set_keys("w1", {mine.id: "zebracorn"})
    assert found(store, "zebracorn", Visibility(frozenset({"org"}))) == []
    assert found(store, "zebracorn", Visibility(frozenset({"org", "user:ann"}))) == [mine.id]


def test_a_put_keeps_keys_unless_the_item_moves_scope_or_is_forgotten(
    make_store: StoreFactory,
) -> None:
    store = make_store()
    reply = store.put_item(item("Yes, last Tuesday!", key="t2"), vec(1))
    store.set_keys("w1", {reply.id: "zebracorn"})
    edited = store.put_item(replace(reply, body="Yes, last Wednesday!"), vec(1))
    assert found(store, "zebracorn") == [edited.id] and found(store, "wednesday") == [edited.id]
    # Keys were chosen for where the item was: a move to another scope empties them.
    moved = store.put_item(replace(edited, scope="user:ann"), vec(1))
    assert moved.scope == "user:ann"
    assert found(store, "zebracorn") == [] and found(store, "wednesday") == [moved.id]
    store.set_keys("w1", {moved.id: "zebracorn"})
    assert found(store, "zebracorn") == [moved.id]
    gone = store.put_item(replace(moved, tombstoned_at=utcnow()))
    assert found(store, "zebracorn") == []
    back = store.put_item(replace(gone, tombstoned_at=None), vec(1))
    assert found(store, "wednesday") == [back.id] and found(store, "zebracorn") == []


def test_marks_are_set_and_read(make_store: StoreFactory) -> None:
    a, b = make_store(), make_store()
    assert a.mark("chore") is None
    a.set_mark("chore", "done")
    assert b.mark("chore") == "done"
