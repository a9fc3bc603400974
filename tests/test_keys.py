"""API keys: the format, hashing, authentication, one contract for every KeyStore, and the
``orgbrain keys`` commands."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from orgbrain import Brain, InvalidInput, NotFound, Unauthenticated
from orgbrain.adapters.postgres.keys import PostgresKeyStore
from orgbrain.adapters.sqlite.keys import SQLiteKeyStore
from orgbrain.cli.keys import keys as keys_command
from orgbrain.errors import Forbidden
from orgbrain.keys import (
    KeyStore,
    MemoryKeyStore,
    authenticate,
    hash_secret,
    issue_key,
    parse_permissions,
    parse_principal,
    parse_token,
    revoke_key,
)
from tests.toy import HashEmbedder

StoreFactory = Callable[[], KeyStore]


@pytest.fixture(params=["memory", "sqlite", "postgres"])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreFactory]:
    """Each call opens the same store again (a fresh connection for SQLite and
    PostgreSQL)."""
    opened: list[KeyStore] = []
    memory = MemoryKeyStore()
    url = request.getfixturevalue("pg_url") if request.param == "postgres" else None

    def make() -> KeyStore:
        store: KeyStore
        if url is not None:
            store = PostgresKeyStore(url)
        elif request.param == "memory":
            store = memory
        else:
            store = SQLiteKeyStore(tmp_path / "brain.sqlite")
        opened.append(store)
        return store

    yield make
    for s in opened:
        s.close()


# -- the pure parts -----------------------------------------------------------------------


def test_token_format_and_parsing() -> None:
    store = MemoryKeyStore()
    issued = issue_key(store, "acme", "user:alice", "read")
    prefix, key_id, secret = issued.token.split("_")
    assert prefix == "ob" and key_id == issued.key.id and len(secret) == 64
    assert parse_token(issued.token) == (key_id, secret)
    assert issued.token not in repr(issued)
    for bad in ("", "ob_", "ob_abc_def", "xx_" + key_id + "_" + secret, issued.token + "z"):
        with pytest.raises(Unauthenticated):
            parse_token(bad)
    others = {issue_key(store, "acme", "alice", "read").token for _ in range(50)}
    assert len(others) == 50


def test_only_a_hash_is_kept() -> None:
    store = MemoryKeyStore()
    issued = issue_key(store, "acme", "alice", "read")
    _, key_id, secret = issued.token.split("_")
    found = store.find(key_id)
    assert found is not None and found.secret_hash == hash_secret(key_id, secret)
    assert secret not in found.secret_hash and secret not in repr(found)


def test_permissions_principals_and_workspaces_are_validated() -> None:
    assert parse_permissions("read, WRITE") == {"read", "write"}
    assert parse_permissions(["admin"]) == {"admin"}
    for bad in ("", "root", "read,root", ","):
        with pytest.raises(InvalidInput):
            parse_permissions(bad)
    assert parse_principal("user:alice") == parse_principal("alice") == "alice"
    for bad in ("team:eng", "user:", "al ice", "user:a/b"):
        with pytest.raises(InvalidInput):
            parse_principal(bad)
    store = MemoryKeyStore()
    with pytest.raises(InvalidInput):
        issue_key(store, "bad workspace", "alice", "read")
    with pytest.raises(InvalidInput):
        issue_key(store, "acme", "alice", "read", teams=["a b"])
    key = issue_key(store, "acme", "alice", "read", teams=["team:eng", "ops", ""]).key
    assert key.team_ids == {"eng", "ops"}
    assert key.principal.visibility.scopes == frozenset(
        {"org", "team:eng", "team:ops", "user:alice"}
    )


def test_authenticate_accepts_only_an_active_exact_key() -> None:
    store = MemoryKeyStore()
    issued = issue_key(store, "acme", "alice", "read,write", agent=True)
    key = authenticate(store, issued.token)
    assert key == issued.key and key.principal.agent
    assert key.allows("write") and not key.allows("admin")
    with pytest.raises(Forbidden):
        key.require("admin")
    _, key_id, secret = issued.token.split("_")
    flipped = secret[:-1] + ("0" if secret[-1] != "0" else "1")
    for bad in (None, "", f"ob_{key_id}_{flipped}", f"ob_{'f' * 16}_{secret}"):
        with pytest.raises(Unauthenticated):
            authenticate(store, bad)
    revoke_key(store, key_id)
    with pytest.raises(Unauthenticated, match="revoked"):
        authenticate(store, issued.token)


# -- one contract for every store ---------------------------------------------------------


def test_store_contract(make_store: StoreFactory) -> None:
    store = make_store()
    a = issue_key(store, "acme", "alice", "read,write,admin", teams=["eng"], label="laptop")
    b = issue_key(store, "acme", "bob", "read")
    c = issue_key(store, "globex", "carol", "read", agent=True)
    again = make_store()
    assert [k.id for k in again.list_keys("acme")] == [a.key.id, b.key.id]
    assert [k.id for k in again.list_keys()] == [a.key.id, b.key.id, c.key.id]
    assert again.list_keys("nowhere") == []
    assert again.workspaces() == ["acme", "globex"]
    found = again.find(a.key.id)
    assert found is not None and found.key == a.key
    assert authenticate(again, c.token).agent

    with pytest.raises(NotFound):
        revoke_key(again, c.key.id, workspace="acme")
    with pytest.raises(NotFound):
        revoke_key(again, "0" * 16)
    first = revoke_key(again, b.key.id, workspace="acme")
    assert first.revoked_at is not None and not first.active
    assert revoke_key(again, b.key.id).revoked_at == first.revoked_at
    assert not make_store().list_keys("acme")[1].active
    assert make_store().workspaces() == ["acme", "globex"]
    with pytest.raises(InvalidInput):
        store.add(a.key, "x")


def test_a_signed_out_session_is_known_to_every_opening_until_it_expires(
    make_store: StoreFactory,
) -> None:
    store = make_store()
    key = issue_key(store, "acme", "alice", "read").key
    now = datetime.now(UTC)
    assert not store.session_ended("s1")
    store.end_session("s1", key.id, now + timedelta(hours=12))
    store.end_session("s1", key.id, now + timedelta(hours=12))  # again: no harm
    other = make_store()
    assert other.session_ended("s1") and not other.session_ended("s2")
    # One that would have expired by now is forgotten at the next sign-out.
    other.end_session("old", key.id, now - timedelta(seconds=1))
    other.end_session("s2", key.id, now + timedelta(hours=1))
    assert not make_store().session_ended("old")
    assert make_store().session_ended("s1") and make_store().session_ended("s2")


def test_keys_share_the_brains_file_and_migration_table(tmp_path: Path) -> None:
    folder = tmp_path / "brain"
    keys = SQLiteKeyStore.for_brain(folder)
    issued = issue_key(keys, "default", "alice", "read")
    keys.close()
    with Brain.open(folder, embedder=HashEmbedder()) as brain:
        brain.add_note("brains and keys in one file")
    conn = sqlite3.connect(folder / "brain.sqlite")
    names = [r[0] for r in conn.execute("SELECT name FROM migrations ORDER BY name")]
    assert "keys_0001_api_keys" in names and "0001_items_edges" in names
    conn.close()
    raw = (folder / "brain.sqlite").read_bytes()
    wal = folder / "brain.sqlite-wal"
    raw += wal.read_bytes() if wal.exists() else b""
    assert issued.token.split("_")[2].encode() not in raw
    reopened = SQLiteKeyStore.for_brain(folder)
    assert authenticate(reopened, issued.token).user_id == "alice"
    reopened.close()
    (tmp_path / "file").write_text("x")
    with pytest.raises(InvalidInput):
        SQLiteKeyStore.for_brain(tmp_path / "file")


# -- the commands -------------------------------------------------------------------------


def test_keys_commands_create_list_revoke(tmp_path: Path) -> None:
    folder = tmp_path / "brain"
    runner = CliRunner()
    base = ["--brain", str(folder)]
    created = runner.invoke(
        keys_command,
        [
            *base,
            "create",
            "--workspace",
            "acme",
            "--principal",
            "user:alice",
            "--teams",
            "eng,ops",
            "--agent",
            "--perm",
            "read,write,admin",
        ],
    )
    assert created.exit_code == 0, created.output
    token = created.stdout.strip()
    assert token.startswith("ob_") and "shown once" in created.stderr
    key_id = token.split("_")[1]

    listed = runner.invoke(keys_command, [*base, "list"])
    assert listed.exit_code == 0 and key_id in listed.stdout
    assert "teams=eng,ops" in listed.stdout and "perm=admin,read,write" in listed.stdout
    assert token.split("_")[2] not in listed.stdout

    as_json = runner.invoke(keys_command, [*base, "list", "--json", "--workspace", "acme"])
    rows = json.loads(as_json.stdout)["keys"]
    assert rows[0]["id"] == key_id and rows[0]["agent"] is True
    assert "secret_hash" not in as_json.stdout and token.split("_")[2] not in as_json.stdout

    wrong_ws = runner.invoke(keys_command, [*base, "revoke", key_id, "--workspace", "globex"])
    assert wrong_ws.exit_code != 0
    revoked = runner.invoke(keys_command, [*base, "revoke", key_id])
    assert revoked.exit_code == 0 and f"revoked {key_id}" in revoked.stdout
    store = SQLiteKeyStore.for_brain(folder)
    with pytest.raises(Unauthenticated):
        authenticate(store, token)
    store.close()

    made = runner.invoke(
        keys_command,
        [*base, "create", "--workspace", "acme", "--principal", "bob", "--json"],
    )
    data = json.loads(made.stdout)
    assert data["token"].startswith("ob_") and data["key"]["permissions"] == ["read"]
    bad = runner.invoke(
        keys_command,
        [*base, "create", "--workspace", "acme", "--principal", "bob", "--perm", "root"],
    )
    assert bad.exit_code != 0


def test_keys_commands_follow_orgbrain_brain_env(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "from-env"
    monkeypatch.setenv("ORGBRAIN_BRAIN", str(folder))
    runner = CliRunner()
    made = runner.invoke(
        keys_command, ["create", "--workspace", "w", "--principal", "u", "--perm", "read"]
    )
    assert made.exit_code == 0, made.output
    assert (folder / "brain.sqlite").exists()
    listed = runner.invoke(keys_command, ["list"])
    assert made.stdout.strip().split("_")[1] in listed.stdout


def test_a_key_for_an_empty_workspace_says_so(tmp_path: Path) -> None:
    """The README's serving recipe once made a key for `acme` while `add` wrote to
    `default`: every search was silent with no hint. `keys create` now says so."""
    from click.testing import CliRunner

    from orgbrain import Brain
    from orgbrain.cli import cli
    from tests.toy import HashEmbedder

    with Brain.open(tmp_path / "b", embedder=HashEmbedder()) as brain:
        brain.add_note("Billing is owned by Priya.")
    runner = CliRunner()
    base = ["--brain", str(tmp_path / "b"), "keys", "create", "--principal", "user:alice"]
    empty = runner.invoke(cli, [*base, "--workspace", "acme"])
    assert empty.exit_code == 0
    assert "workspace acme holds no items" in empty.stderr and "default (1 items)" in empty.stderr
    full = runner.invoke(cli, [*base, "--workspace", "default"])
    assert full.exit_code == 0 and "holds no items" not in full.stderr
