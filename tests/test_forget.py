"""Forgetting and erasing, on every surface: Python, CLI, HTTP, the Client and MCP. A
forgotten item (and a file's sections) leaves every stream, read and derived index at once
and leaves an audit record; an erased one also loses its bytes, text and name."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import httpx
import pytest

from orgbrain import Brain, InvalidInput, NotFound, Principal
from orgbrain.client import Client
from orgbrain.keys import issue_key
from tests.test_mcp import HANDBOOK, call, fails, http_client, run
from tests.test_views import Stack, cli_json, stack  # noqa: F401  (the fixture)
from tests.toy import HashEmbedder

FACT = "The deploy freeze starts Fridays at 15:00 UTC."


def gone_everywhere(brain: Brain, item_id: str, words: str) -> None:
    """Nothing of the item answers: not by id, listing, search (each stream), edges,
    neighbourhood, read or injection."""
    with pytest.raises(NotFound):
        brain.get(item_id)
    with pytest.raises(NotFound):
        b"".join(brain.read_file(item_id))
    assert item_id not in {i.id for i in brain.items(limit=1000).items}
    for plan in ("bm25", "dense", "hybrid"):
        hits = brain.search(words, plan=plan, k=8).hits
        assert all(item_id not in (h.item.id, h.item.parent_id) for h in hits), plan
    turn = brain.context_for_turn(words)
    assert all(i.id != item_id for i in turn.items)


def test_forget_a_file_takes_its_sections_out_of_everything(tmp_path: Path) -> None:
    with Brain.open(tmp_path / "b", embedder=HashEmbedder()) as brain:
        file = brain.add_file(HANDBOOK, name="handbook.md", index=True)
        sections = brain.sections(file.id)
        note = brain.add_note(FACT, label="Freeze")
        brain.link(note.id, file.id, "SEE_ALSO")
        assert brain.search("Priya billing", plan="bm25").hits

        done = brain.forget(file.id, reason="superseded by the new handbook")
        assert (done.item_id, done.items, done.erased) == (file.id, 1 + len(sections), False)
        gone_everywhere(brain, file.id, "Priya billing Stripe")
        for s in sections:
            with pytest.raises(NotFound):
                brain.get(s.id)
        assert brain.edges(note.id) == []  # an edge shows only when both ends are visible
        assert brain.neighborhood(note.id).hops[0].items == ()
        (record,) = brain.events("forget")
        assert record["item_id"] == file.id and record["reason"] == "superseded by the new handbook"
        assert record["actor"] == "human:local" and record["erased"] is False
        with pytest.raises(NotFound):  # forgotten once is forgotten
            brain.forget(file.id, reason="again")
        assert brain.get(note.id).body == FACT  # nothing else moved


def test_forget_needs_a_reason_and_the_writers_scope(tmp_path: Path) -> None:
    with Brain.open(tmp_path / "b", embedder=HashEmbedder()) as brain:
        ops = brain.for_principal(Principal(brain.workspace, "olu", frozenset({"ops"})))
        bob = brain.for_principal(Principal(brain.workspace, "bob"))
        team = ops.add_note("Pager rota: Olu this week.", scope="team:ops")
        with pytest.raises(InvalidInput, match="needs a reason"):
            ops.forget(team.id, reason="   ")
        with pytest.raises(NotFound):  # bob cannot see it: it reads as absent
            bob.forget(team.id, reason="mine now")
        file = brain.add_file(HANDBOOK, name="h.md", index=True)
        section = brain.sections(file.id)[0]
        with pytest.raises(InvalidInput, match="forget the file"):
            brain.forget(section.id, reason="just this part")
        assert ops.forget(team.id, reason="rota moved to the pager tool").items == 1
        assert ops.events("forget")[0]["actor"] == "human:olu"


def test_erase_deletes_bytes_text_and_name_and_keeps_the_audit_record(tmp_path: Path) -> None:
    root = tmp_path / "b"
    with Brain.open(root, embedder=HashEmbedder()) as brain:
        secret = b"# Keys\n\nThe production API key is sk-live-0123456789abcdef.\n"
        file = brain.add_file(secret, name="leaked-keys.md", index=True)
        assert file.blob_key is not None
        version = root / "blobs" / Path(file.blob_key).parent
        assert version.is_dir()
        done = brain.erase(file.id, reason="a leaked secret")
        assert done.erased and done.items >= 2
        assert not version.exists()
        gone_everywhere(brain, file.id, "production API key sk-live")
        (record,) = brain.events("forget")
        assert record["erased"] is True and record["reason"] == "a leaked secret"
    with sqlite3.connect(root / "brain.sqlite") as conn:
        rows = repr(conn.execute("SELECT * FROM items").fetchall())
        indexed = conn.execute("SELECT rowid FROM items_fts WHERE items_fts MATCH 'sk'")
        assert indexed.fetchall() == []  # the keyword index forgot the words too
    assert "sk-live" not in rows and "leaked-keys.md" not in rows and "production" not in rows


def test_forget_and_erase_over_cli_http_client_and_mcp(stack: Stack) -> None:  # noqa: F811
    brain = stack.brain
    a = brain.add_note("Alpha fact about billing.", label="a")
    b = brain.add_note("Bravo fact about billing.", label="b")
    c = brain.add_file(b"Charlie owns the wiki.\n", name="c.txt", index=True)
    d = brain.add_note("Delta fact about billing.", label="d")

    by_cli = cli_json(stack, "forget", a.id, "--reason", "wrong")
    assert by_cli["item_id"] == a.id and by_cli["erased"] is False and by_cli["reason"] == "wrong"

    headers = {"Authorization": f"Bearer {stack.token}"}
    r = httpx.delete(f"{stack.url}/v1/items/{b.id}", params={"reason": "stale"}, headers=headers)
    assert r.status_code == 200 and r.json()["item_id"] == b.id
    again = httpx.delete(f"{stack.url}/v1/items/{b.id}", params={"reason": "x"}, headers=headers)
    assert again.status_code == 404 and again.json()["code"] == "not_found"
    no_reason = httpx.delete(f"{stack.url}/v1/items/{d.id}", headers=headers)
    assert no_reason.status_code == 422
    reader = issue_key(stack.keys, brain.workspace, "rita", "read").token
    denied = httpx.delete(
        f"{stack.url}/v1/items/{d.id}",
        params={"reason": "x"},
        headers={"Authorization": f"Bearer {reader}"},
    )
    assert denied.status_code == 403

    with Client(stack.url, stack.token) as client:
        erased = client.erase(c.id, reason="personal data")
        assert erased.erased and erased.item_id == c.id
        with pytest.raises(NotFound):
            client.get(c.id)

    async def main() -> None:
        async with http_client(stack.url + "/mcp", stack.token) as agent:
            out = await call(agent, "brain_forget", {"item_id": d.id, "reason": "outdated"})
            assert out["item_id"] == d.id and out["actor"] == "human:alice"
            assert await fails(agent, "brain_forget", {"item_id": d.id, "reason": "x"}) == (
                "not_found"
            )

    run(main)
    assert brain.search("billing fact", plan="bm25").hits == ()
    assert [e["item_id"] for e in brain.events("forget", limit=10)] == [d.id, c.id, b.id, a.id]
