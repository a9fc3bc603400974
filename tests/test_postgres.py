"""The PostgreSQL backend beyond the contract suites: a whole brain on it (real model),
the HTTP service and the CLI over it, worker processes sharing its queue, the vector
search's filtered fallback and HNSW indexes, and every statement bounded in time."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path

import httpx
import numpy as np
import psycopg
import pytest
from click.testing import CliRunner

from orgbrain import Brain, Settings, deadline
from orgbrain.adapters.postgres import PostgresJobQueue, PostgresStore
from orgbrain.adapters.postgres.db import Database
from orgbrain.adapters.postgres.keys import PostgresKeyStore
from orgbrain.adapters.postgres.vectors import approximate_sql
from orgbrain.cli import cli
from orgbrain.errors import Unavailable
from orgbrain.ids import new_id
from orgbrain.keys import issue_key
from orgbrain.model import Item, Origin, utcnow
from orgbrain.ports import Embedder
from orgbrain.scopes import Visibility
from orgbrain.server import BackgroundServer, ServerConfig, create_app
from tests.toy import HashEmbedder

ROOT = Path(__file__).resolve().parent.parent
ALL = Visibility.everything()

HANDBOOK = b"""# Billing

The billing service is owned by Priya Raman. It charges cards through Stripe.

## Refunds

Refunds over 500 EUR need approval from finance.

# Search

The search service indexes listings nightly; Mei Chen owns it.
"""


def note(body: str, *, scope: str = "org", ws: str = "w1") -> Item:
    return Item(
        id=new_id("not"),
        workspace=ws,
        kind="note",
        storage_class="note",
        label=body.split()[0],
        body=body,
        source_key=f"k:{new_id('k')}",
        indexed=True,
        scope=scope,
        origin=Origin("human:test", "test", utcnow()),
    )


# -- a whole brain ------------------------------------------------------------------------


def test_a_brain_on_postgres_adds_indexes_searches_and_forgets(
    pg_url: str, tmp_path: Path, embedder: Embedder
) -> None:
    settings = Settings(brain=tmp_path / "blobs-here")
    with Brain.open(pg_url, embedder=embedder, settings=settings) as brain:
        f = brain.add_file(HANDBOOK, name="handbook.md", index=True)
        assert f.indexed and len(brain.sections(f.id)) == 3
        brain.add_note("The on-call rotation changes every Monday at 09:00 UTC.")
        hits = brain.search("Who approves large refunds?").hits
        assert hits and "finance" in hits[0].item.body
        assert hits[0].citation.byte_range is not None
        text = b"".join(brain.read_file(f.id, section=hits[0].item.id))
        assert b"approval from finance" in text
        again = brain.add_file(HANDBOOK + b"\nAppendix.\n", name="handbook.md", index=True)
        assert again.id == f.id and [v.number for v in brain.history(f.id).versions] == [1]
        brain.forget(f.id, reason="test")
        assert all(h.item.parent_id != f.id for h in brain.search("refunds finance").hits)
    # Blobs went to the settings' brain folder; the rest is in the database.
    assert (tmp_path / "blobs-here" / "blobs").is_dir()
    with Brain.open(pg_url, embedder=embedder, settings=settings) as brain:
        assert brain.counts()["note"] == 1


# -- the HTTP service and the CLI ---------------------------------------------------------


def test_the_http_service_serves_a_postgres_brain_with_keys_in_it(
    pg_url: str, tmp_path: Path
) -> None:
    settings = Settings(brain=tmp_path / "brain", store=pg_url)
    brain = Brain.open(pg_url, embedder=HashEmbedder(), settings=settings)
    keys = PostgresKeyStore(pg_url)
    token = issue_key(keys, "acme", "alice", "read,write").token
    app = create_app(brain, keys, config=ServerConfig.from_settings(settings, deadline_s=10))
    try:
        with BackgroundServer(app) as server:
            headers = {"Authorization": f"Bearer {token}"}
            c = httpx.Client(base_url=server.url, headers=headers, timeout=30)
            added = c.post("/v1/files", files={"file": ("handbook.md", HANDBOOK)}).json()
            fid = added["id"]
            assert c.post(f"/v1/files/{fid}/index").status_code == 202
            state = ""
            for _ in range(400):  # the server's own worker indexes it, through the queue
                state = c.get(f"/v1/items/{fid}").json()["state"]
                if state in ("indexed", "failed"):
                    break
                time.sleep(0.05)
            assert state == "indexed"
            found = c.post("/v1/search", json={"query": "refunds approval finance"}).json()
            assert any("finance" in h["item"]["body"] for h in found["hits"])
            assert c.get("/readyz").status_code == 200
    finally:
        keys.close()
        brain.close()


def test_the_cli_runs_on_the_store_its_option_names(
    pg_url: str, tmp_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orgbrain import compose

    monkeypatch.setattr(compose, "make_embedder", lambda _settings: embedder)
    runner = CliRunner()
    base = ["--store", pg_url, "--brain", str(tmp_path / "b")]

    def run(*args: str) -> str:
        result = runner.invoke(cli, [*base, *args])
        assert result.exit_code == 0, (result.output, result.exception)
        return result.stdout

    assert "brain ready at postgresql://" in run("init")
    (tmp_path / "handbook.md").write_bytes(HANDBOOK)
    added = json.loads(run("add", "--index", str(tmp_path / "handbook.md"), "--json"))
    assert len(added["added"]) == 1 and not added["failed"]
    assert json.loads(run("items", "--json"))["items"][0]["indexed"] is True
    run("note", "Invoices are archived for ten years.")
    hits = json.loads(run("search", "how long are invoices kept", "--json"))["hits"]
    assert "ten years" in hits[0]["item"]["body"]
    token = run("keys", "create", "--workspace", "default", "--principal", "user:ann")
    keys = PostgresKeyStore(pg_url)
    try:
        assert [k.user_id for k in keys.list_keys()] == ["ann"] and token.startswith("ob_")
    finally:
        keys.close()
    # The same commands through ORGBRAIN_STORE, and nothing written in a brain.sqlite.
    env_run = runner.invoke(
        cli, ["--brain", str(tmp_path / "b"), "items", "--json"], env={"ORGBRAIN_STORE": pg_url}
    )
    assert env_run.exit_code == 0, env_run.output
    assert len(json.loads(env_run.stdout)["items"]) == 2  # the file and the note
    assert not (tmp_path / "b" / "brain.sqlite").exists()


# -- worker processes share one queue -----------------------------------------------------

COUNTING_WORKER = textwrap.dedent(
    f"""
    import os, sys, time
    from pathlib import Path
    sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / "src")!r}]
    from orgbrain import Brain, Settings
    from orgbrain.jobs import Outcome
    from tests.toy import HashEmbedder

    class Count:
        kind = "test.count"
        batch = 2

        def run(self, ctx, jobs, settle):
            for job in jobs:
                with open(sys.argv[2], "a") as log:
                    log.write(f"{{job.id}} {{os.getpid()}}\\n")
                time.sleep(0.02)
                settle(Outcome(job.id))

    settings = Settings(brain=Path(sys.argv[4]))
    brain = Brain.open(sys.argv[1], embedder=HashEmbedder(), settings=settings)
    print("ready", flush=True)
    while not Path(sys.argv[3]).exists():  # all start claiming at once
        time.sleep(0.005)
    print(brain.worker(handlers=[Count()], lease_s=5).drain().done, flush=True)
    """
)


def test_worker_processes_on_postgres_never_run_a_job_twice(pg_url: str, tmp_path: Path) -> None:
    log, go, folder = tmp_path / "runs.log", tmp_path / "go", tmp_path / "brain"
    queue = PostgresJobQueue(pg_url)
    jobs = [queue.enqueue("default", "test.count", f"k{n}", {}, actor="t") for n in range(40)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", COUNTING_WORKER, pg_url, str(log), str(go), str(folder)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(3)
    ]
    try:
        for p in procs:
            assert p.stdout is not None
            assert p.stdout.readline().strip() == "ready", p.stderr.read() if p.stderr else ""
        go.touch()
        done = [int(p.communicate(timeout=120)[0].strip()) for p in procs]
    finally:
        for p in procs:
            p.kill()
    runs = [line.split() for line in log.read_text().splitlines()]
    by_job = Counter(job_id for job_id, _ in runs)
    assert sorted(by_job) == sorted(j.id for j in jobs)
    assert set(by_job.values()) == {1}  # every job ran, none twice
    assert sum(done) == 40
    assert len({pid for _, pid in runs}) >= 2  # the processes really shared the work
    for j in jobs:
        stored = queue.get(j.id)
        assert stored is not None and (stored.state, stored.attempts) == ("done", 1)
    queue.close()


# -- vectors ------------------------------------------------------------------------------


def unit(v: np.ndarray) -> np.ndarray:
    return (v / np.linalg.norm(v)).astype(np.float32)


def test_each_class_has_an_hnsw_index_and_the_first_read_uses_it(pg_url: str) -> None:
    store = PostgresStore(pg_url)
    store.bind_embedder("toy", 16)
    rng = np.random.default_rng(1)
    store.put_items([(note(f"n{i} text"), unit(rng.standard_normal(16))) for i in range(2000)])
    with psycopg.connect(pg_url, autocommit=True) as conn:
        names = {r[0] for r in conn.execute("SELECT indexname FROM pg_indexes")}
        assert {f"item_vectors_hnsw_{c}" for c in ("file", "section", "note")} <= names
        conn.execute("ANALYZE item_vectors")
        from pgvector.psycopg import register_vector

        register_vector(conn)
        plan = conn.execute(
            "EXPLAIN " + approximate_sql(16, "note", filtered=True),
            {"ws": "w1", "q": unit(rng.standard_normal(16)), "rows": 10, "scopes": ["org"]},
        ).fetchall()
    assert "item_vectors_hnsw_note" in " ".join(r[0] for r in plan)
    store.close()


def test_filtered_search_still_returns_limit_visible_rows(pg_url: str) -> None:
    """Thousands of hidden rows nearer the query than every visible one: the approximate
    scan's candidates are all filtered out, and the exact read fills the answer."""
    store = PostgresStore(pg_url)
    store.bind_embedder("toy", 16)
    rng = np.random.default_rng(2)
    q = unit(rng.standard_normal(16))
    near = [unit(q + 0.05 * rng.standard_normal(16)) for _ in range(3000)]
    far = [unit(rng.standard_normal(16)) for _ in range(30)]
    store.put_items([(note(f"hidden {i}", scope="user:bob"), v) for i, v in enumerate(near)])
    shown = store.put_items([(note(f"shown {i}"), v) for i, v in enumerate(far)])
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("ANALYZE item_vectors")
    alice = Visibility(frozenset({"org", "user:alice"}))
    got = store.vector_search("w1", "note", q, 10, alice)
    exact = sorted(((float(v @ q), it.id) for it, v in zip(shown, far, strict=True)), reverse=True)
    assert [i for i, _ in got] == [i for _, i in exact[:10]]
    assert all(abs(a - b) < 1e-5 for (_, a), (b, _) in zip(got, exact[:10], strict=True))
    # Unfiltered, the nearest are the hidden ones (the index answers by itself).
    assert len(store.vector_search("w1", "note", q, 10, ALL)) == 10
    store.close()


def test_an_item_of_several_vectors_scores_its_best_and_is_listed_once(pg_url: str) -> None:
    store = PostgresStore(pg_url)
    store.bind_embedder("toy", 8)
    rng = np.random.default_rng(3)
    vecs = np.stack([unit(rng.standard_normal(8)) for _ in range(3)])
    many = store.put_item(note("many passages"), vecs)
    other = store.put_item(note("one passage"), unit(rng.standard_normal(8)))
    got = store.vector_search("w1", "note", vecs[2], 5, ALL)
    assert [i for i, _ in got] == [many.id, other.id]
    assert abs(got[0][1] - 1.0) < 1e-5
    assert np.allclose(store.embedding_of("w1", many.id), vecs)  # type: ignore[arg-type]
    store.close()


# -- time bounds --------------------------------------------------------------------------


def test_every_statement_is_bounded_by_the_timeout_and_the_request_deadline(
    pg_url: str,
) -> None:
    db = Database(pg_url, timeout_s=0.3)
    db.open()
    try:
        started = time.monotonic()
        with pytest.raises(Unavailable, match="took too long"):
            with db.read() as conn:
                conn.execute("SELECT pg_sleep(5)")
        with pytest.raises(Unavailable, match="took too long"):
            with db.tx() as conn:
                conn.execute("SELECT pg_sleep(5)")
        assert time.monotonic() - started < 3
    finally:
        db.close()
    roomy = Database(pg_url, timeout_s=30)
    roomy.open()
    try:
        started = time.monotonic()
        with deadline.within(0.3), pytest.raises(Unavailable, match="took too long"):
            with roomy.tx() as conn:
                conn.execute("SELECT pg_sleep(5)")
        assert time.monotonic() - started < 3
        with deadline.within(0.01):
            time.sleep(0.02)
            with pytest.raises(Unavailable, match="deadline has passed"):
                with roomy.read() as conn:
                    conn.execute("SELECT 1")
        with roomy.read() as conn:  # outside a request, only the timeout bounds it
            assert conn.execute("SELECT 1 AS one").fetchone() == {"one": 1}
    finally:
        roomy.close()


def test_a_closed_store_and_an_unreachable_one_are_unavailable(pg_url: str, tmp_path: Path) -> None:
    store = PostgresStore(pg_url)
    store.close()
    with pytest.raises(Unavailable):
        store.get_item("w1", "x", ALL)
    nowhere = f"postgresql://nobody@/postgres?host={tmp_path}&connect_timeout=2"
    with pytest.raises(Unavailable):
        PostgresStore(nowhere)


def test_a_requests_deadline_cancels_its_statements_in_the_servers_threads(pg_url: str) -> None:
    from fastapi import FastAPI
    from fastapi.testclient import TestClient

    from orgbrain.errors import OrgBrainError
    from orgbrain.server.app import DeadlineMiddleware
    from orgbrain.server.problems import error_response

    db = Database(pg_url, timeout_s=30)
    db.open()
    outcome: list[tuple[str, float]] = []
    app = FastAPI()
    # As the real server does: on a busy machine the statement, bounded by what is left
    # of the deadline, can be cancelled before the middleware's own timer answers.
    app.add_exception_handler(OrgBrainError, lambda _r, exc: error_response(exc))  # type: ignore[arg-type]

    @app.get("/slow")
    def slow() -> dict[str, str]:  # a sync route: run in a worker thread
        started = time.monotonic()
        try:
            with db.read() as conn:
                conn.execute("SELECT pg_sleep(5)")
        except Unavailable as exc:
            outcome.append((str(exc), time.monotonic() - started))
            raise
        return {}

    app.add_middleware(DeadlineMiddleware, seconds=0.5)
    try:
        with TestClient(app, raise_server_exceptions=False) as client:
            assert client.get("/slow").status_code == 503
            for _ in range(100):  # the route's thread ends on its own, soon after
                if outcome:
                    break
                time.sleep(0.05)
        assert outcome and "took too long" in outcome[0][0] and outcome[0][1] < 3
    finally:
        db.close()


def test_the_store_setting_takes_only_a_postgresql_url_and_never_prints_its_password() -> None:
    from orgbrain.compose import describe_store
    from orgbrain.errors import InvalidInput

    url = "postgresql://ann:s3cret@db.internal:5433/brain?sslmode=require"
    assert Settings.from_env({"ORGBRAIN_STORE": url}).store == url
    assert Settings.from_env({"ORGBRAIN_STORE": ""}).store is None  # empty: embedded
    assert Settings.from_env({}, store="postgres://h/db").store == "postgres://h/db"
    with pytest.raises(InvalidInput, match="postgresql:// URL"):
        Settings.from_env({"ORGBRAIN_STORE": "/srv/brain"})
    shown = describe_store(url)
    assert "s3cret" not in shown and shown.startswith("postgresql://ann@db.internal:5433/brain")
