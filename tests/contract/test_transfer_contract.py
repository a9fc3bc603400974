"""The Store contract for moving house (``export_records``, ``import_records``,
``count_records``, ``mark``): every adapter, as the source and as the destination."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import numpy as np
import psycopg
import pytest

from orgbrain.adapters.memory import MemoryStore, Tables
from orgbrain.adapters.postgres import PostgresJobQueue, PostgresStore
from orgbrain.adapters.sqlite import SQLiteStore
from orgbrain.adapters.sqlite.jobs import SQLiteJobQueue
from orgbrain.errors import InvalidInput
from orgbrain.ids import new_id
from orgbrain.model import ByteRange, Edge, Evidence, Item, Origin, Statement, utcnow
from orgbrain.ports import RECORD_KINDS, ItemFilter, JobQueue, Record, RecordKind, Store
from orgbrain.scopes import Visibility
from tests.contract.test_store_contract import DIM, item, proposal, vec
from tests.pg import schema_url

ALL = Visibility.everything()

Opened = tuple[Store, JobQueue]
Opener = Callable[[], Opened]


def _sqlite(path: Path) -> Opener:
    def open_() -> Opened:
        store = SQLiteStore(path / "brain.sqlite", keyword_engine="tantivy")
        store.bind_embedder("toy", DIM)
        return store, SQLiteJobQueue(path / "brain.sqlite")

    path.mkdir(parents=True, exist_ok=True)
    return open_


def _memory() -> Opener:
    tables = Tables()

    def open_() -> Opened:
        store = MemoryStore(tables)
        store.bind_embedder("toy", DIM)
        return store, tables.jobs  # the queue lives with the brain's rows

    return open_


def _postgres(url: str) -> Opener:
    def open_() -> Opened:
        store = PostgresStore(url)
        store.bind_embedder("toy", DIM)
        return store, PostgresJobQueue(url)

    return open_


@pytest.fixture
def schemas(request: pytest.FixtureRequest) -> Iterator[Callable[[], str]]:
    """Fresh PostgreSQL schemas (each a brain), dropped after the test."""
    made: list[str] = []
    server: str | None = None

    def new() -> str:
        nonlocal server
        server = server or request.getfixturevalue("pg_server")
        name = f"t_{uuid.uuid4().hex[:16]}"
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {name}")
        made.append(name)
        return schema_url(server, name)

    yield new
    if server is not None:
        with psycopg.connect(server, autocommit=True) as conn:
            for name in made:
                conn.execute(f"DROP SCHEMA {name} CASCADE")


@pytest.fixture
def stores(
    request: pytest.FixtureRequest, tmp_path: Path, schemas: Callable[[], str]
) -> Iterator[Callable[[str], Opened]]:
    """``stores(kind)`` opens a new, empty brain of that kind (``sqlite``, ``postgres``,
    ``memory``)."""
    opened: list[Opened] = []

    def make(kind: str) -> Opened:
        if kind == "postgres":
            pair = _postgres(schemas())()
        elif kind == "memory":
            pair = _memory()()
        else:
            pair = _sqlite(tmp_path / f"brain{len(opened)}")()
        opened.append(pair)
        return pair

    yield make
    for store, jobs in opened:
        jobs.close()
        store.close()


def fill(store: Store, jobs: JobQueue) -> dict[str, Item]:
    """A brain with every kind of record: items (sections, a private note, a forgotten
    one, a version), edges, supersession, statements with evidence, events, proposals and
    jobs in every state."""
    o = Origin("human:ann", "test", utcnow(), "run_1")
    f = store.put_item(replace(item("handbook refunds policy", cls="file"), origin=o), vec(1))
    f = replace(
        f, blob_key=f"workspaces/w1/{f.id}/v1/raw", text_key=f"workspaces/w1/{f.id}/v1/raw.txt"
    )
    f = store.put_item(f, vec(1))
    sec = replace(
        item("refunds over 500 need finance", cls="section", parent=f.id),
        byte_range=ByteRange(3, 40),
        occurred_at=utcnow() - timedelta(days=3),
    )
    [section] = store.commit_index(f, vec(1), [(sec, np.stack([vec(2), vec(3)]))], "system:idx")
    note = store.put_item(item("old travel note", key="note:travel"), vec(4))
    newer = store.put_item(replace(item("new travel note", key="note:travel"), id=note.id), vec(5))
    private = store.put_item(item("bob private budget", scope="user:bob"), vec(6))
    gone = store.put_item(item("forgotten thing"), vec(7))
    store.put_item(replace(gone, tombstoned_at=utcnow()))
    other = store.put_item(item("second workspace note", ws="w2"), vec(8))
    replacement = store.put_item(item("travel by train now", key="note:train"), vec(9))
    store.supersede_item(
        Edge(new_id("edg"), "w1", "SUPERSEDES", replacement.id, newer.id, o, {"reason": "x"})
    )
    store.put_edge(Edge(new_id("edg"), "w1", "MENTIONS", section.id, note.id, o, {"dedupe": "a"}))
    store.set_keys("w1", {replacement.id: "zebracorn parade"})  # keyword-only text
    s1 = Statement(
        id="stm_1", workspace="w1", type="fact", subject_id=note.id, subject="travel",
        predicate="uses", object="Car", object_id=None, scope="org", item_id=note.id,
        byte_range=None, text="travel uses car", tier="pattern", confidence=0.8,
        valid_from=utcnow() - timedelta(days=9), origin=o,
    )  # fmt: skip
    s2 = replace(s1, id="stm_2", object="Train", item_id=replacement.id, byte_range=ByteRange(0, 9))
    store.put_statement(s1)
    store.put_statement(s2)
    store.add_evidence(
        "w1", "stm_2", Evidence(section.id, ByteRange(1, 4), "again", "pattern", 0.5, utcnow())
    )
    store.end_statement("w1", "stm_1", utcnow(), "stm_2")
    store.flag_conflict("w1", "stm_1", "stm_2")
    for n in range(3):
        store.log_event("w1", "turn", {"n": n, "actor": "human:ann", "item_id": note.id})
    store.log_event("w2", "search", {"query": "q"})
    store.put_proposal(proposal("p1"))
    store.put_proposal(proposal("p2", scope="user:sam"))
    store.decide_proposal(
        "w1", "p1", "approved", decided_by="human:rev", decided_at=utcnow(), reason="ok"
    )
    jobs.enqueue("w1", "index", "index:a", {"x": 1}, actor="human:ann", subject=f.id)
    done = jobs.enqueue("w1", "derive", "derive:a", {"y": [1, 2]}, actor="human:ann")
    [claimed] = jobs.claim("worker-1", ["derive"])
    assert claimed.id == done.id and jobs.complete(done.id, "worker-1")
    jobs.enqueue("w2", "audit", "audit:a", {}, actor="system:x", max_attempts=1)
    [running] = jobs.claim("worker-2", ["audit"])
    jobs.fail(running.id, "worker-2", "boom")
    return {
        "file": f,
        "section": section,
        "note": note,
        "private": private,
        "gone": gone,
        "other": other,
        "replacement": replacement,
    }


def copy_all(src: Store, dst: Store, *, page: int = 2) -> dict[RecordKind, int]:
    added: dict[RecordKind, int] = {}
    for kind in RECORD_KINDS:
        after = 0
        added[kind] = 0
        while True:
            got = src.export_records(kind, after=after, limit=page)
            added[kind] += dst.import_records(
                kind, got.records, mark=("move", f"{kind}:{got.next_after}")
            )
            if got.next_after is None:
                break
            after = got.next_after
    return added


def everything(store: Store, jobs: JobQueue, made: dict[str, Item]) -> dict[str, object]:
    """What a brain answers, read through the ports, for comparison."""
    ids = [x.id for x in made.values()]
    out: dict[str, object] = {}
    for ws in ("w1", "w2"):
        out[f"items:{ws}"] = store.get_items(ws, ids, ALL)
        out[f"list:{ws}"] = store.list_items(ws, ItemFilter(tombstoned=True), ALL).items
        out[f"counts:{ws}"] = store.counts(ws)
        out[f"events:{ws}"] = store.events_after(ws, 0)
        out[f"proposals:{ws}"] = store.proposals(ws)
        out[f"statements:{ws}"] = store.statements(ws, ALL, live=False)
        out[f"jobs:{ws}"] = jobs.list_jobs(ws).jobs
    for x in made.values():
        ws = x.workspace
        out[f"vec:{x.id}"] = None if (e := store.embedding_of(ws, x.id)) is None else e.tolist()
        out[f"edges:{x.id}"] = store.edges_of(ws, x.id, ALL)
        out[f"versions:{x.id}"] = store.versions(ws, x.id, ALL)
    out["evidence"] = [store.evidence("w1", s, ALL) for s in ("stm_1", "stm_2")]
    # Ids, not scores: each adapter has its own BM25 (the same ranking, other numbers).
    out["kw"] = [i for i, _ in store.keyword_search("w1", "note", ["travel"], 10, ALL)]
    out["kw_keys"] = [i for i, _ in store.keyword_search("w1", "note", ["zebracorn"], 5, ALL)]
    out["kw_sections"] = [i for i, _ in store.keyword_search("w1", "section", ["refunds"], 5, ALL)]
    out["vs"] = [i for i, _ in store.vector_search("w1", "section", vec(3), 5, ALL)]
    out["vs_notes"] = [i for i, _ in store.vector_search("w1", "note", vec(9), 5, ALL)]
    out["hidden"] = store.keyword_search(
        "w1", "note", ["budget"], 5, Visibility(frozenset({"org"}))
    )
    out["records"] = {kind: store.count_records(kind) for kind in RECORD_KINDS}
    return out


@pytest.mark.parametrize(
    ("source", "target"),
    [
        ("sqlite", "sqlite"),
        ("postgres", "postgres"),
        ("sqlite", "postgres"),
        ("postgres", "sqlite"),
        ("memory", "memory"),
        ("sqlite", "memory"),
        ("memory", "sqlite"),
    ],
)
def test_a_brain_moves_record_by_record_and_answers_the_same(
    stores: Callable[[str], Opened], source: str, target: str
) -> None:
    src, src_jobs = stores(source)
    made = fill(src, src_jobs)
    dst, dst_jobs = stores(target)
    added = copy_all(src, dst)
    assert added == {k: sum(src.count_records(k).values()) for k in RECORD_KINDS}
    assert all(added[k] for k in RECORD_KINDS)
    before, after = everything(src, src_jobs, made), everything(dst, dst_jobs, made)
    assert before["kw_keys"] == [made["replacement"].id]  # keys travel with their item
    for key, value in before.items():
        assert after[key] == value, key
    assert dst.mark("move") == "jobs:None"
    # Again, page by page: nothing is added twice.
    assert copy_all(src, dst, page=3) == dict.fromkeys(RECORD_KINDS, 0)
    assert everything(dst, dst_jobs, made) == after
    # The destination goes on numbering its events after the ones it was given.
    last = max(int(str(e["id"])) for e in src.events_after("w1", 0) + src.events_after("w2", 0))
    assert dst.log_event("w1", "turn", {"n": 9}) > last
    # A moved job is claimed where it was left: queued, its lease and attempts kept.
    [job] = dst_jobs.claim("worker-9", ["index"])
    assert job.key == "index:a" and job.attempts == 1


def test_a_page_is_stored_whole_or_not_at_all(stores: Callable[[str], Opened]) -> None:
    for kind in ("sqlite", "postgres", "memory"):
        src, src_jobs = stores(kind)
        fill(src, src_jobs)
        dst, _ = stores(kind)
        page = src.export_records("items", limit=50).records
        broken: list[Record] = [*page[:-1], {k: v for k, v in page[-1].items() if k != "scope"}]
        with pytest.raises(InvalidInput, match="scope"):
            dst.import_records("items", broken, mark=("move", "x"))
        assert dst.count_records("items") == {} and dst.mark("move") is None
        with pytest.raises(InvalidInput, match="unknown record kind"):
            dst.export_records("nothing", limit=1)  # type: ignore[arg-type]
        naive = {**page[0], "created_at": utcnow().replace(tzinfo=None)}
        with pytest.raises(InvalidInput, match="aware"):
            dst.import_records("items", [naive])
        assert dst.count_records("items") == {}
