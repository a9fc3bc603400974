"""Read injection with the real model on a small seeded brain; failures fail open."""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Iterator, Sequence
from importlib import resources
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from orgbrain import Brain, Principal
from orgbrain.adapters.blobs_local import LocalBlobStore
from orgbrain.adapters.sqlite import SQLiteStore
from orgbrain.adapters.tokenize_wordpiece import WordPieceTokenizer, default_tokenizer
from orgbrain.cli import agent as agent_cli
from orgbrain.cli import app, cli
from orgbrain.compose import build_context
from orgbrain.inject import (
    Candidate,
    InjectPolicy,
    render_block,
)
from orgbrain.keys import MemoryKeyStore, issue_key
from orgbrain.model import StorageClass
from orgbrain.ports import Embedder, ScoredId, Vector
from orgbrain.scopes import Visibility
from orgbrain.server import BackgroundServer, create_app, routes_context
from orgbrain.settings import Settings
from tests.toy import HashEmbedder

QUESTION = "Who owns the billing migration, and when is the cut-over?"
SMALL_TALK = ("yo", "thanks!", "ok")


@pytest.fixture(scope="module")
def seeded_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("seeded") / "brain"


@pytest.fixture(scope="module")
def seeded(seeded_root: Path, embedder: Embedder) -> Iterator[Brain]:
    """The bundled sample organisation, indexed, plus a few notes (one of them private)."""
    b = Brain.open(seeded_root, embedder=embedder)
    for entry in sorted(resources.files("orgbrain").joinpath("sample").iterdir(), key=str):
        if entry.is_file() and not entry.name.startswith((".", "_")):
            b.add_file(entry.read_bytes(), name=entry.name)
    assert all(r.ok for r in b.index_pending())
    b.add_note("Deploys are frozen on Fridays after 15:00 UTC.", kind="rule", label="Deploy freeze")
    b.add_note(
        "The billing cut-over rehearsal is on 2026-12-03; Tomás Ortega leads it.",
        kind="fact",
        label="Cut-over rehearsal",
    )
    b.add_note(
        "Alice's private reminder: renegotiate her Stripe fee before the billing cut-over.",
        kind="reminder",
        label="Alice's Stripe reminder",
        scope="user:alice",
    )
    try:
        yield b
    finally:
        b.close()


def as_user(b: Brain, user: str) -> Brain:
    return b.for_principal(Principal(b.workspace, user, agent=True))


def last_turn(b: Brain) -> dict[str, object]:
    return b.events("turn", limit=1)[0]


# -- speaking and staying quiet ---------------------------------------------------------


def test_a_relevant_question_injects_cited_items_within_budget(seeded: Brain) -> None:
    ctx = seeded.context_for_turn(QUESTION)
    assert ctx.decision == "injected"
    assert 1 <= len(ctx.items) <= InjectPolicy().max_items
    assert 0 < ctx.tokens <= ctx.budget == 1400
    assert ctx.tokens == WordPieceTokenizer().count(ctx.text)
    assert ctx.text.startswith("<brain-context>") and ctx.text.endswith("</brain-context>")
    labels = [i.label for i in ctx.items]
    assert any("ADR-007" in label or "Billing" in label for label in labels[:3]), labels
    for n, item in enumerate(ctx.items, start=1):
        assert f"[{n}] {item.citation} (" in ctx.text
        assert item.origin == "search"
        assert item.score is not None and item.score >= 0.6 * ctx.items[0].score  # type: ignore[operator]
    section = next(i for i in ctx.items if i.storage_class == "section")
    assert "bytes" in section.citation
    row = last_turn(seeded)
    assert row["id"] == ctx.event_id and row["decision"] == "injected"
    assert row["query"] == QUESTION and row["actor"] == "human:local"
    assert row["scores"] == list(ctx.scores) and row["tokens"] == ctx.tokens
    assert [i["id"] for i in row["injected"]] == [i.id for i in ctx.items]  # type: ignore[union-attr]
    assert isinstance(row["latency_ms"], float) and row["latency_ms"] > 0


@pytest.mark.parametrize("message", SMALL_TALK)
def test_small_talk_injects_nothing(seeded: Brain, message: str) -> None:
    ctx = seeded.context_for_turn(message)
    assert (ctx.decision, ctx.text, ctx.items, ctx.tokens) == ("nothing", "", (), 0)
    assert "floor" in ctx.reason
    row = last_turn(seeded)
    assert (row["query"], row["decision"], row["injected"]) == (message, "nothing", [])
    assert "floor" in str(row["reason"]) and row["top_score"] == ctx.top_score < 0.02


def test_a_private_note_is_injected_only_for_its_owner(seeded: Brain) -> None:
    q = "What should I renegotiate with Stripe before the billing cut-over?"
    alice = as_user(seeded, "alice").context_for_turn(q)
    bob = as_user(seeded, "bob").context_for_turn(q)
    assert "Alice's Stripe reminder" in [i.label for i in alice.items]
    assert "Alice's Stripe reminder" not in [i.label for i in bob.items]
    assert "renegotiate her Stripe fee" not in bob.text
    assert last_turn(seeded)["actor"] == "agent:bob"
    # Each principal's log view holds only its own turns.
    assert {t["actor"] for t in as_user(seeded, "bob").recent_turns(50)} == {"agent:bob"}


# -- anchors ----------------------------------------------------------------------------


def test_anchors_come_first_and_invisible_ones_are_dropped(seeded: Brain) -> None:
    freeze = next(i for i in seeded.items(kind="rule").items if i.label == "Deploy freeze")
    private = next(i for i in seeded.items(kind="reminder").items)
    bob = as_user(seeded, "bob")
    ctx = bob.context_for_turn("yo", [freeze.id, private.id, "not_unknown", freeze.id])
    assert [(i.id, i.origin, i.score) for i in ctx.items] == [(freeze.id, "anchor", None)]
    assert ctx.decision == "injected" and "Deploys are frozen" in ctx.text
    assert ctx.dropped_anchors == (private.id, "not_unknown")
    row = last_turn(seeded)
    assert row["dropped_anchors"] == [
        {"id": private.id, "why": "unknown or not visible"},
        {"id": "not_unknown", "why": "unknown or not visible"},
    ]

    with_hits = seeded.context_for_turn(QUESTION, [freeze.id])
    assert with_hits.items[0].id == freeze.id and with_hits.items[0].origin == "anchor"
    assert all(i.origin == "search" for i in with_hits.items[1:]) and len(with_hits.items) > 1


def test_at_most_four_anchors_and_eight_items(seeded: Brain) -> None:
    sections = seeded.items(storage_class="section", limit=6).items
    ids = [s.id for s in sections]
    ctx = seeded.context_for_turn(QUESTION, ids)
    assert [i.id for i in ctx.items[:4]] == ids[:4]
    assert len(ctx.items) <= 8 and ctx.tokens <= ctx.budget
    assert ctx.dropped_anchors == tuple(ids[4:])
    assert last_turn(seeded)["dropped_anchors"] == [
        {"id": i, "why": "over the 4-anchor cap"} for i in ids[4:]
    ]


# -- the budget -------------------------------------------------------------------------


def test_a_small_budget_cuts_bodies_not_citations(seeded: Brain) -> None:
    full = seeded.context_for_turn(QUESTION)
    assert full.tokens > 300
    for budget in (full.tokens - 50, 250):
        ctx = seeded.context_for_turn(QUESTION, policy=InjectPolicy(token_budget=budget))
        assert ctx.decision == "injected" and 0 < ctx.tokens <= budget < full.tokens
        assert ctx.tokens == default_tokenizer().count(ctx.text)
        for n, item in enumerate(ctx.items, start=1):
            assert f"[{n}] {item.citation} (" in ctx.text
        assert [i.id for i in ctx.items] == [i.id for i in full.items][: len(ctx.items)]
        cut = any(i.truncated for i in ctx.items)
        assert cut or len(ctx.items) < len(full.items)
        for item in ctx.items:
            # A body cut short ends in the ellipsis; one cut away entirely leaves its head.
            assert item.body in ctx.text
            assert item.body.endswith(" …") == (item.truncated and bool(item.body))


def test_render_block_shares_the_budget_fairly(toy: Brain) -> None:
    tok = WordPieceTokenizer()
    short = toy.add_note("Standup is at 09:30.", label="Standup")
    long_a = toy.add_note("alpha " * 2000, label="Long A")
    long_b = toy.add_note("beta " * 2000, label="Long B")
    candidates = [Candidate(i, "search", 0.03) for i in (short, long_a, long_b)]
    text, items, tokens = render_block(candidates, 600, tok)
    assert tokens == tok.count(text) <= 600
    assert [i.id for i in items] == [short.id, long_a.id, long_b.id]
    assert not items[0].truncated and items[0].body == "Standup is at 09:30."
    assert items[1].truncated and items[2].truncated
    assert abs(tok.count(items[1].body) - tok.count(items[2].body)) <= 3
    # Headings alone over budget: items go from the end; nothing fits, nothing is said.
    _, few, _ = render_block(candidates, 110, tok)
    assert 0 < len(few) < 3
    assert render_block(candidates, 10, tok) == ("", (), 0)
    assert render_block([], 1400, tok) == ("", (), 0)


# -- failing open -----------------------------------------------------------------------


class SearchDownStore(SQLiteStore):
    """The real SQLite store with a broken search index: every search raises."""

    def keyword_search(
        self,
        workspace: str,
        storage_class: StorageClass,
        terms: Sequence[str],
        limit: int,
        visibility: Visibility,
    ) -> list[ScoredId]:
        raise sqlite3.OperationalError("database disk image is malformed")

    def vector_search(
        self,
        workspace: str,
        storage_class: StorageClass,
        vector: Vector,
        limit: int,
        visibility: Visibility,
    ) -> list[ScoredId]:
        raise sqlite3.OperationalError("database disk image is malformed")


@pytest.fixture
def toy(tmp_path: Path) -> Iterator[Brain]:
    b = Brain.open(tmp_path / "toy", embedder=HashEmbedder())
    try:
        yield b
    finally:
        b.close()


def test_a_failing_search_gives_an_empty_context_and_a_log_row(tmp_path: Path) -> None:
    store = SearchDownStore(tmp_path / "brain.sqlite")
    b = Brain(build_context(store, LocalBlobStore(tmp_path / "blobs"), HashEmbedder()))
    try:
        note = b.add_note("Billing is owned by Priya.", label="Billing")
        ctx = b.context_for_turn("who owns billing?", [note.id])
        assert (ctx.decision, ctx.text, ctx.items, ctx.tokens) == ("failed", "", (), 0)
        assert "OperationalError" in ctx.reason and ctx.event_id is not None
        row = last_turn(b)
        assert row["decision"] == "failed" and row["query"] == "who owns billing?"
        assert "database disk image is malformed" in str(row["error"])
    finally:
        b.close()


def test_a_closed_store_fails_open(toy: Brain, caplog: pytest.LogCaptureFixture) -> None:
    toy.close()
    with caplog.at_level(logging.WARNING, logger="orgbrain.inject"):
        ctx = toy.context_for_turn("who owns billing?")
    assert (ctx.decision, ctx.text, ctx.event_id) == ("failed", "", None)
    messages = [r.getMessage() for r in caplog.records]
    assert any("read injection failed" in m for m in messages)
    assert any("could not log turn" in m and "who owns billing?" in m for m in messages)


def test_odd_input_never_raises(toy: Brain) -> None:
    assert toy.context_for_turn(None).decision == "nothing"  # type: ignore[arg-type]
    assert toy.context_for_turn("   ", [123]).reason == "empty message: no search"  # type: ignore[list-item]
    assert toy.context_for_turn("x" * 50_000).decision in ("nothing", "injected")
    assert toy.context_for_turn("yo", None).dropped_anchors == ()  # type: ignore[arg-type]
    assert toy.context_for_turn("yo", "not_abc").dropped_anchors == ()


# -- the surfaces: CLI and HTTP ---------------------------------------------------------


def test_cli_context_and_log(
    seeded: Brain,
    seeded_root: Path,
    embedder: Embedder,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    for command in agent_cli.COMMANDS:
        monkeypatch.setitem(cli.commands, command.name or "", command)

    def open_brain(settings: Settings) -> Brain:
        return Brain.open(settings.brain, settings=settings, embedder=embedder)

    monkeypatch.setattr(app, "open_brain", open_brain)
    path = str(seeded_root)
    runner = CliRunner()
    env = {"ORGBRAIN_USER": "", "ORGBRAIN_TEAMS": "", "ORGBRAIN_AGENT": ""}
    out = runner.invoke(cli, ["--brain", path, "context", QUESTION, "--json"], env=env)
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["decision"] == "injected" and 0 < data["tokens"] <= 1400
    assert data["items"] and all(i["citation"] for i in data["items"])
    quiet = runner.invoke(cli, ["--brain", path, "context", "yo"], env=env)
    assert quiet.exit_code == 0 and quiet.stdout == "" and "nothing" in quiet.stderr
    turns = runner.invoke(cli, ["--brain", path, "log", "-n", "2", "--json"], env=env)
    assert [t["query"] for t in json.loads(turns.stdout)["turns"]] == ["yo", QUESTION]
    table = runner.invoke(cli, ["--brain", path, "log"], env=env)
    assert table.exit_code == 0 and "nothing" in table.stdout
    as_bob = runner.invoke(
        cli, ["--brain", path, "log", "--json"], env={**env, "ORGBRAIN_USER": "bob"}
    )
    assert {t["actor"] for t in json.loads(as_bob.stdout)["turns"]} <= {"agent:bob"}
    bad = runner.invoke(cli, ["--brain", path, "context", "x", "--team", "t"], env=env)
    assert bad.exit_code == 2 and "needs --user" in bad.stderr


def test_http_context_route(seeded: Brain) -> None:
    keys = MemoryKeyStore()
    app_ = create_app(seeded, keys)
    app_.include_router(routes_context.router)
    alice = issue_key(keys, seeded.workspace, "alice", "read").token
    bob = issue_key(keys, seeded.workspace, "bob", "read").token
    q = {"message": "What should I renegotiate with Stripe before the billing cut-over?"}
    with BackgroundServer(app_) as server, httpx.Client(base_url=server.url) as http:

        def post(token: str | None, body: dict[str, object]) -> httpx.Response:
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            return http.post("/v1/context", json=body, headers=headers)

        mine = post(alice, q).json()
        theirs = post(bob, q).json()
        assert mine["decision"] == "injected" and mine["tokens"] <= mine["budget"]
        assert "Alice's Stripe reminder" in [i["label"] for i in mine["items"]]
        assert "Alice's Stripe reminder" not in [i["label"] for i in theirs["items"]]
        assert post(bob, {"message": "yo"}).json()["decision"] == "nothing"
        assert post(None, q).status_code == 401
        too_many = post(alice, {**q, "anchors": ["a", "b", "c", "d", "e"]})
        assert too_many.status_code == 422
        assert too_many.json()["code"] == "invalid_request"
    actors = [t["actor"] for t in seeded.events("turn", limit=3)]
    assert actors == ["human:bob", "human:bob", "human:alice"]
