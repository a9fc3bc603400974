"""The store's outbox (``ports.outbox``): a write and the work it owes, and the
supersessions it claims, commit in one transaction, on every store adapter."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from orgbrain.errors import Conflict, InvalidInput
from orgbrain.ids import new_id
from orgbrain.model import ByteRange, Edge, Origin, utcnow
from orgbrain.ports import Owed
from tests.contract.test_store_contract import ALL, StoreFactory, item, make_store, vec

__all__ = ["make_store"]  # the adapters' fixture, used here by name


def owed() -> Owed:
    return Owed(new_id("owe"), "derive", "human:ann", {"asker": {"user_id": "ann"}})


def superseding(new_id_: str, old_id: str) -> Edge:
    origin = Origin("human:ann", "supersede", utcnow())
    return Edge(new_id("edg"), "w1", "SUPERSEDES", new_id_, old_id, origin)


def test_a_write_records_its_owed_work_with_the_stored_ids(make_store: StoreFactory) -> None:
    s = make_store()
    first = s.put_item(item("alpha one", key="same"), vec(1))
    asked = owed()
    # The second note's id is not the row's: the row of its key keeps its own.
    saved = s.put_items(
        [
            (replace(item("alpha two", key="same"), id=new_id("not")), vec(2)),
            (item("beta"), vec(3)),
        ],
        owed=asked,
    )
    assert saved[0].id == first.id
    other = make_store()  # another handle (another process) sees it committed
    (row,) = other.owed()
    assert (row.id, row.kind, row.actor, row.workspace) == (asked.id, "derive", "human:ann", "w1")
    assert row.subjects == (first.id, saved[1].id)
    assert row.payload == {"asker": {"user_id": "ann"}}
    assert other.owed(ids=[asked.id]) == [row] and other.owed(ids=["owe_other"]) == []
    other.settle_owed([asked.id, "owe_unknown"])
    assert s.owed() == []


def test_a_failed_write_owes_nothing(make_store: StoreFactory) -> None:
    s = make_store()
    with pytest.raises(InvalidInput):  # the second vector has the wrong width
        s.put_items([(item("gamma"), vec(1)), (item("delta"), np.ones(3))], owed=owed())
    assert s.owed() == []
    assert s.get_by_source_key("w1", "k:gamma", ALL, scope="org") is None


def test_supersessions_commit_with_the_write(make_store: StoreFactory) -> None:
    s = make_store()
    old = s.put_item(item("the old rule"), vec(1))
    new = item("the new rule")
    (saved,) = s.put_items([(new, vec(2))], supersede=[superseding(new.id, old.id)])
    assert s.get_item("w1", old.id, ALL).superseded_by == saved.id  # type: ignore[union-attr]
    assert saved.supersedes == old.id
    # A claim the store refuses (its old item is forgotten) takes the whole write back.
    gone = s.put_item(replace(item("forgotten"), tombstoned_at=utcnow()))
    newer = item("the newest rule")
    with pytest.raises(Conflict):
        s.put_items([(newer, vec(3))], supersede=[superseding(newer.id, gone.id)], owed=owed())
    assert s.get_by_source_key("w1", newer.source_key, ALL, scope="org") is None
    assert s.owed() == []


def test_indexing_records_its_sections_owed_work(make_store: StoreFactory) -> None:
    s = make_store()
    f = s.put_item(item("handbook", cls="file", key="file:handbook.md", indexed=False))
    sections = [
        (
            replace(
                item(f"part {j}", cls="section", key=f"{f.source_key}#p{j}", parent=f.id),
                byte_range=ByteRange(j, j + 1),
            ),
            vec(10 + j),
        )
        for j in range(2)
    ]
    asked = owed()
    stored = s.commit_index(replace(f, indexed=True), vec(5), sections, "system:test", owed=asked)
    (row,) = s.owed()
    assert row.id == asked.id and row.subjects == tuple(x.id for x in stored)


def test_a_refused_supersession_leaves_a_rewritten_item_as_it_was(
    make_store: StoreFactory,
) -> None:
    s = make_store()
    kept = s.put_item(item("the kept rule", key="rule"), vec(1))
    gone = s.put_item(replace(item("forgotten"), tombstoned_at=utcnow()))
    # Rewrites the kept item (its key) and adds another, both claiming the forgotten one.
    rewrite, extra = item("the rewritten rule", key="rule"), item("an extra rule")
    with pytest.raises(Conflict):
        s.put_items(
            [(rewrite, vec(2)), (extra, vec(3))],
            supersede=[superseding(rewrite.id, gone.id)],
            owed=owed(),
        )
    assert s.get_item("w1", kept.id, ALL) == kept
    assert s.get_by_source_key("w1", "rule", ALL, scope="org") == kept
    assert s.get_by_source_key("w1", extra.source_key, ALL, scope="org") is None
    assert s.get_item("w1", extra.id, ALL) is None
    assert s.versions("w1", kept.id, ALL) == []
    assert s.get_item("w1", gone.id, ALL).superseded_by is None  # type: ignore[union-attr]
    assert s.keyword_search("w1", "note", ["kept"], 5, ALL) != []
    assert s.keyword_search("w1", "note", ["rewritten"], 5, ALL) == []
    assert [i for i, _ in s.vector_search("w1", "note", vec(1), 1, ALL)] == [kept.id]
    assert s.owed() == []
