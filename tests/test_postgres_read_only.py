"""A server pointed at a read-only PostgreSQL (a streaming replica; here a session set
read only, which refuses writes with the same SQLSTATE 25006): it opens, searches, leaves
upkeep to the primary, and refuses a write with a clear error (docs/postgres.md, "Read
replicas")."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import httpx
import psycopg
import pytest

from orgbrain import Brain
from orgbrain.adapters.postgres.keys import PostgresKeyStore
from orgbrain.errors import Unavailable
from orgbrain.keys import issue_key
from orgbrain.server import BackgroundServer, ServerConfig, create_app
from orgbrain.settings import Settings
from tests.toy import HashEmbedder


def read_only(url: str) -> str:
    """``url`` with every transaction of its sessions read only, as on a hot standby."""
    return url + quote(" -cdefault_transaction_read_only=on", safe="")


def opened(url: str, folder: Path) -> Brain:
    settings = Settings(brain=folder, store=url, workspace="acme")
    return Brain.open(url, embedder=HashEmbedder(), settings=settings)


def test_a_read_only_database_is_searched_and_refuses_writes(pg_url: str, tmp_path: Path) -> None:
    with opened(pg_url, tmp_path / "primary") as primary:
        note = primary.add_note("Alice: the zebracorn parade is on Tuesday", kind="message")
        # As a brain holds it before the primary has run the contextual keys' back-fill.
        primary._ctx.store.set_mark("context_keys", "pending")
    with opened(read_only(pg_url), tmp_path / "replica") as replica:
        assert replica._ctx.store.read_only
        assert [h.item.id for h in replica.search("zebracorn parade").hits] == [note.id]
        assert replica._ctx.store.mark("context_keys") == "pending"  # the primary's to do
        with pytest.raises(Unavailable, match="read only"):
            replica.add_note("Bob: and on Wednesday?", kind="message")
    with opened(pg_url, tmp_path / "primary") as primary:
        assert not primary._ctx.store.read_only
        assert primary._ctx.store.mark("context_keys") == "done"
        assert [h.item.body for h in primary.search("wednesday").hits] == []


def test_a_read_only_database_behind_the_code_refuses_to_open(pg_url: str, tmp_path: Path) -> None:
    with opened(pg_url, tmp_path / "primary"):
        pass
    with psycopg.connect(pg_url, autocommit=True) as conn:  # as if the primary were older
        conn.execute("DELETE FROM migrations WHERE name = '0014_context_keys'")
    with pytest.raises(Unavailable, match="0014_context_keys"):
        opened(read_only(pg_url), tmp_path / "replica")


def test_a_server_on_a_read_only_database_answers_searches_and_refuses_writes(
    pg_url: str, tmp_path: Path
) -> None:
    with opened(pg_url, tmp_path / "primary") as primary:
        primary.add_note("The zebracorn parade is on Tuesday")
        keys = PostgresKeyStore(pg_url)
        token = issue_key(keys, "acme", "alice", "read,write").token
        keys.close()
    ro = read_only(pg_url)
    settings = Settings(brain=tmp_path / "replica", store=ro, workspace="acme")
    brain = opened(ro, tmp_path / "replica")
    keys = PostgresKeyStore(ro)
    app = create_app(brain, keys, config=ServerConfig.from_settings(settings))
    try:
        with (
            BackgroundServer(app) as server,
            httpx.Client(
                base_url=server.url, headers={"Authorization": f"Bearer {token}"}, timeout=30
            ) as c,
        ):
            hits = c.post("/v1/search", json={"query": "zebracorn parade"}).json()["hits"]
            assert [h["item"]["body"] for h in hits] == ["The zebracorn parade is on Tuesday"]
            r = c.post("/v1/notes", json={"body": "and on Wednesday?"})
            assert r.status_code == 503 and "read only" in r.json()["detail"], r.text
    finally:
        keys.close()
        brain.close()
