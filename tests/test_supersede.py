"""Explicit supersession and time as input, on every surface: Python, HTTP (a real server
on loopback), the client, the CLI and the agent tool over a real MCP client. Every
refusal stores nothing; ``wait`` is accepted, validated and passed through (whether a
real derivation finishes is the derivation tests' business)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner, Result

from orgbrain import Brain, Principal
from orgbrain.agents.tools import ToolContext, call_tool
from orgbrain.cli import app, cli
from orgbrain.cli.options import parse_when
from orgbrain.client import Client
from orgbrain.errors import Forbidden, InvalidInput, NotFound, OrgBrainError, Unavailable
from orgbrain.keys import MemoryKeyStore, issue_key
from orgbrain.ports import Embedder
from orgbrain.server import BackgroundServer, create_app
from orgbrain.server.mcp import McpHttpApp
from orgbrain.settings import Settings
from tests.test_mcp import call, fails, http_client
from tests.test_server import Served, serve

OLD = "The on-call rotation changes every Monday at 09:00 UTC."
NEW = "The on-call rotation changes every Tuesday at 09:00 UTC."
NEWER = "The on-call rotation changes every Wednesday at 09:00 UTC."


def member(brain: Brain, user: str, *teams: str) -> Brain:
    return brain.for_principal(Principal(brain.workspace, user, frozenset(teams)))


def stored(brain: Brain) -> tuple[dict[str, int], int]:
    """What the brain holds: item counts (edges included) and the jobs asked for."""
    owner = brain.for_workspace(brain.workspace)
    return owner.counts(), len(owner.jobs(limit=1000).jobs)


def settled(brain: Brain, timeout: float = 30.0) -> Brain:
    """``brain`` once its background work (derivation, audit) is done, so counts hold still."""
    deadline = time.monotonic() + timeout
    while brain.jobs(state="queued").jobs or brain.jobs(state="running").jobs:
        assert time.monotonic() < deadline, "background jobs did not finish"
        time.sleep(0.05)
    return brain


# -- Python -----------------------------------------------------------------------------


def test_a_chain_shows_both_ways_with_each_links_origin(brain: Brain) -> None:
    a = brain.add_note(OLD)
    b = brain.acting_as("agent:planner").add_note(NEW, supersedes=[a.id], run_id="run-7")
    c = brain.add_file(NEWER.encode(), name="oncall.md", supersedes=[b.id])
    assert (b.supersedes, c.supersedes) == (a.id, b.id)
    assert brain.get(a.id).superseded_by == b.id and brain.get(b.id).superseded_by == c.id
    assert brain.get(a.id).body == OLD  # the old item stays readable

    middle = brain.history(b.id)
    (back,) = middle.supersedes
    (forward,) = middle.superseded_by
    assert (back.new.id, back.old.id, back.reason) == (b.id, a.id, "explicit")
    assert (back.origin.actor, back.origin.source, back.origin.run_id) == (
        "agent:planner",
        "supersede",
        "run-7",
    )
    assert (forward.new.id, forward.old.id, forward.origin.actor) == (c.id, b.id, "human:local")
    # The chain walks on: from the oldest, both successors, nearest first.
    oldest = brain.history(a.id)
    assert [(s.new.id, s.old.id) for s in oldest.superseded_by] == [(b.id, a.id), (c.id, b.id)]
    assert [(s.new.id, s.old.id) for s in brain.history(c.id).supersedes] == [
        (c.id, b.id),
        (b.id, a.id),
    ]


def test_a_second_claim_is_recorded_but_the_first_successor_stays(brain: Brain) -> None:
    a = brain.add_note(OLD)
    b = brain.add_note(NEW, supersedes=[a.id])
    c = brain.add_note(NEWER, supersedes=[a.id])
    assert c.supersedes == a.id
    assert brain.get(a.id).superseded_by == b.id
    links = brain.history(a.id).superseded_by
    assert [link.new.id for link in links] == [b.id, c.id]
    # The same claim again (a retried write) is one link.
    brain.add_note(NEWER, supersedes=[a.id])
    assert len(brain.history(a.id).superseded_by) == 2


def test_bad_supersedes_are_refused_and_nothing_is_stored(brain: Brain) -> None:
    org = brain.add_note(OLD)
    team = member(brain, "alice", "pay").add_note("Payroll runs on the 25th.", scope="team:pay")
    mine = brain.add_note("Keep the old VPN config.", source_key="vpn")
    f = brain.add_file(b"# Handbook\n\nRefunds need finance approval.\n", name="h.md", index=True)
    section = brain.sections(f.id)[0]
    before = stored(brain)
    bob = member(brain, "bob")
    alice = member(brain, "alice", "pay")

    cases: list[tuple[Brain, dict[str, Any], type[OrgBrainError], str]] = [
        (brain, {"supersedes": ["not_nope"]}, InvalidInput, "no item 'not_nope'"),
        # bob cannot see the team's note: the same answer as an unknown id.
        (bob, {"supersedes": [team.id]}, InvalidInput, f"no item {team.id!r}"),
        # A team note may not mark org knowledge superseded; a private one, not a team's.
        (alice, {"scope": "team:pay", "supersedes": [org.id]}, Forbidden, "write in org"),
        (alice, {"scope": "user:alice", "supersedes": [team.id]}, Forbidden, "team:pay or org"),
        # (A file cannot take a note's key at all.)
        (brain, {"source_key": "vpn", "supersedes": [mine.id]}, InvalidInput, "updates|belongs"),
        (brain, {"supersedes": [section.id]}, InvalidInput, f"its file {f.id}"),
        (brain, {"supersedes": org.id}, InvalidInput, "a list"),
        (brain, {"supersedes": [f"not_{n}" for n in range(21)]}, InvalidInput, "at most 20"),
        # The first id is fine, the second is not: nothing at all is written.
        (brain, {"supersedes": [org.id, "not_nope"]}, InvalidInput, "not_nope"),
    ]
    for who, kwargs, error, message in cases:
        with pytest.raises(error, match=message):
            who.add_note("A new fact about rotations.", **kwargs)
        with pytest.raises(error, match=message):
            who.add_file(b"new bytes", name="new.md", **kwargs)
    with pytest.raises(InvalidInput, match="updates"):
        brain.add_file(b"# Handbook\n\nNew words.\n", name="h.md", supersedes=[f.id])
    assert stored(brain) == before
    assert brain.get(org.id).superseded_by is None
    files = brain.settings.brain / "blobs" / "workspaces" / brain.workspace
    assert {p.name for p in files.iterdir()} == {f.id}  # no bytes of a refused file

    # What the rule allows: the same scope, or org over a team's item.
    ok = alice.add_note("Payroll runs on the 26th.", scope="team:pay", supersedes=[team.id])
    assert ok.supersedes == team.id
    wider = alice.add_note("Payroll is monthly.", supersedes=[team.id])
    assert wider.scope == "org" and wider.supersedes == team.id


def test_wait_is_checked_before_anything_is_written(brain: Brain) -> None:
    before = stored(brain)
    with pytest.raises(InvalidInput, match="ack or derived"):
        brain.add_note(OLD, wait="later")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="ack or derived"):
        brain.add_file(b"bytes", name="a.md", wait="soon")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput, match="needs index=True"):
        brain.add_file(b"bytes", name="a.md", wait="derived")
    assert stored(brain) == before


# -- time as input ----------------------------------------------------------------------


def test_when_is_a_date_at_midnight_utc_or_a_zoned_date_time() -> None:
    assert parse_when("2024-05-01") == datetime(2024, 5, 1, tzinfo=UTC)
    assert parse_when("2024-05-01T09:00:00Z") == datetime(2024, 5, 1, 9, tzinfo=UTC)
    assert parse_when(" 2024-05-01t11:30:00.5+02:00 ") == datetime(
        2024, 5, 1, 9, 30, 0, 500000, tzinfo=UTC
    )
    assert parse_when("2024-05-01 09:00-01:00").tzinfo == UTC
    for garbage in ("yesterday", "2024-13-01", "2024-05-01T09:00:00", "20240501T0900Z", ""):
        with pytest.raises(InvalidInput):
            parse_when(garbage)
    tz = timezone(timedelta(hours=2))
    assert parse_when("2024-05-01T00:00:00+02:00") == datetime(2024, 5, 1, tzinfo=tz)


# -- HTTP and the client ----------------------------------------------------------------


@pytest.fixture
def served(tmp_path: Path, embedder: Embedder) -> Iterator[Served]:
    # derive_wait_s=0: a wait for derivation always runs out, so 202 is deterministic.
    with serve(tmp_path / "brain", embedder=embedder, derive_wait_s=0) as s:
        yield s


def test_http_notes_take_supersedes_and_wait(served: Served) -> None:
    owner = served.brain.for_workspace("acme")
    with served.http(served.key(teams=["pay"])) as c:
        old = c.post("/v1/notes", json={"body": OLD}).json()
        r = c.post("/v1/notes", json={"body": NEW, "supersedes": [old["id"]]})
        assert r.status_code == 201, r.text
        new = r.json()
        assert new["supersedes"] == old["id"]
        assert c.get(f"/v1/items/{old['id']}").json()["superseded_by"] == new["id"]

        history = c.get(f"/v1/items/{old['id']}/history").json()
        assert history["version"] == 1 and history["versions"] == []
        (link,) = history["superseded_by"]
        assert (link["new_id"], link["old_id"], link["reason"], link["standing"]) == (
            new["id"],
            old["id"],
            "explicit",
            True,
        )
        assert (link["origin"]["actor"], link["origin"]["source"]) == ("human:alice", "supersede")

        before = stored(settled(owner))
        for body, status, code in (
            ({"body": NEWER, "supersedes": ["not_nope"]}, 400, "invalid_input"),
            ({"body": NEWER, "scope": "team:pay", "supersedes": [old["id"]]}, 403, "forbidden"),
            ({"body": NEWER, "supersedes": old["id"]}, 422, "invalid_request"),
            ({"body": NEWER, "wait": "later"}, 422, "invalid_request"),
        ):
            r = c.post("/v1/notes", json=body)
            assert (r.status_code, r.json()["code"]) == (status, code), r.text
        assert stored(owner) == before

        r = c.post("/v1/notes", json={"body": NEWER, "wait": "derived"})
        assert r.status_code == 202, r.text
        accepted = r.json()
        assert accepted["derived"] is False and "goes on" in accepted["detail"]
        assert r.headers["Location"] == f"/v1/items/{accepted['item']['id']}"
        assert c.get(r.headers["Location"]).json()["body"] == NEWER  # written all the same
        ack = c.post("/v1/notes", json={"body": "Standup is at 09:30.", "wait": "ack"})
        assert ack.status_code == 201


def test_http_files_take_supersedes_occurred_at_wait_and_versions(served: Served) -> None:
    with served.http(served.key()) as c:
        old = c.post("/v1/notes", json={"body": OLD}).json()
        form = {"supersedes": [old["id"]], "occurred_at": "2024-05-01T09:00:00Z"}
        r = c.post("/v1/files", files={"file": ("oncall.md", NEW.encode())}, data=form)
        assert r.status_code == 201, r.text
        f = r.json()
        assert f["supersedes"] == old["id"] and f["occurred_at"].startswith("2024-05-01T09:00")

        bad = c.post(
            "/v1/files",
            files={"file": ("x.md", b"x")},
            data={"supersedes": ["not_nope"]},
        )
        assert (bad.status_code, bad.json()["code"]) == (400, "invalid_input")
        for params in ({"wait": "derived"}, {"wait": "later", "index": "true"}):
            r = c.post("/v1/files", files={"file": ("y.md", b"y")}, params=params)
            assert r.status_code == 422, r.text
        assert not [i for i in c.get("/v1/items").json()["items"] if i["name"] in ("x.md", "y.md")]

        r = c.post(
            "/v1/files",
            files={"file": ("oncall.md", NEWER.encode())},
            params={"index": "true", "wait": "derived"},
        )
        assert r.status_code == 202, r.text
        assert r.json()["item"]["id"] == f["id"] and r.json()["derived"] is False

        # The first version's bytes by number; the current one by its number too.
        r = c.get(f"/v1/items/{f['id']}/content", params={"version": 1})
        assert r.status_code == 200 and r.content == NEW.encode()
        assert r.headers["content-length"] == str(len(NEW.encode()))
        r = c.get(f"/v1/items/{f['id']}/content", params={"version": 2})
        assert r.content == NEWER.encode()
        assert c.get(f"/v1/items/{f['id']}/content", params={"version": 3}).status_code == 404
        r = c.get(f"/v1/items/{f['id']}/content", params={"version": 1, "section": 1})
        assert r.status_code == 400
        history = c.get(f"/v1/items/{f['id']}/history").json()
        assert history["version"] == 2 and [v["number"] for v in history["versions"]] == [1]
        assert history["versions"][0]["size"] == len(NEW.encode())


def test_the_client_passes_supersedes_wait_and_reads_history(
    served: Served, tmp_path: Path
) -> None:
    with Client(served.url, served.key()) as client:
        old = client.add_note(OLD, source_key="oncall")
        client.add_note(NEW, source_key="oncall")
        new = client.add_note(NEWER, supersedes=[old.id])
        assert new.supersedes == old.id
        with pytest.raises(Unavailable, match="is written"):
            client.add_note("Standup is at 09:30.", wait="derived")
        assert [i.body for i in client.items(kind="note").items if "Standup" in i.body]
        with pytest.raises(InvalidInput, match="a list"):
            client.add_note(NEWER, supersedes=old.id)
        with pytest.raises(NotFound):
            client.history("not_nope")

        history = client.history(old.id)
        assert history.version == 2 and history.versions[0].body == OLD
        assert [link.new_id for link in history.superseded_by] == [new.id]
        assert history.versions[0].to_model().number == 1

        path = tmp_path / "oncall.md"
        path.write_text(OLD)
        f = client.add_file(path, supersedes=[new.id])
        assert f.supersedes == new.id
        path.write_text(NEW)
        client.add_file(path)
        assert b"".join(client.read_file(f.id, version=1)) == OLD.encode()
        with pytest.raises(InvalidInput):
            client.add_file(path, wait="derived")  # without index


# -- the CLI ----------------------------------------------------------------------------


@pytest.fixture
def run(tmp_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch) -> Any:
    def open_brain(settings: Settings) -> Brain:
        return Brain.open(settings.brain, settings=settings, embedder=embedder)

    monkeypatch.setattr(app, "open_brain", open_brain)
    monkeypatch.setenv("ORGBRAIN_DERIVE_WAIT_S", "0")  # the wait always runs out here
    monkeypatch.delenv("ORGBRAIN_DEBUG", raising=False)
    brain = str(tmp_path / "brain")
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None) -> Result:
        return runner.invoke(cli, ["--brain", brain, *args], input=input)

    assert invoke("init").exit_code == 0
    return invoke


def test_cli_note_and_add_take_supersedes_occurred_at_and_wait(run: Any, tmp_path: Path) -> None:
    first = run("note", OLD, "--no-wait")
    assert first.exit_code == 0 and "warning" not in first.stderr
    old = first.stdout.strip()

    second = run("note", NEW, "--supersedes", old, "--occurred-at", "2024-05-01", "--json")
    assert second.exit_code == 0, second.output
    shown = json.loads(second.stdout)
    assert shown["supersedes"] == old and shown["occurred_at"].startswith("2024-05-01T00:00:00")
    # The default waits for derivation; here the wait runs out: written, and said so.
    assert "derivation was not done" in second.stderr

    for args, message in (
        (("--supersedes", "not_nope"), "no item 'not_nope'"),
        (("--occurred-at", "last tuesday"), "is not a date"),
        (("--wait", "derived", "--no-wait"), "not both"),
    ):
        result = run("note", NEWER, *args)
        assert result.exit_code == 2 and message in result.stderr, result.output
    assert run("note", NEWER, "--wait", "later").exit_code == 2  # click refuses the choice
    listed = json.loads(run("items", "--json").stdout)["items"]
    assert [i["body"] for i in listed] == [OLD, NEW]

    doc = tmp_path / "oncall.md"
    doc.write_text(NEWER)
    added = run("add", str(doc), "--supersedes", old, "--occurred-at", "2024-06-01T10:00:00Z")
    assert added.exit_code == 0, added.output
    refused = run("add", str(doc), "--wait", "derived")
    assert refused.exit_code == 2 and "--index" in refused.stderr
    # Indexing derives here whatever the wait budget: nothing is left to warn about.
    indexed = run("add", str(doc), "--index")
    assert indexed.exit_code == 0 and "derivation was not done" not in indexed.stderr
    quiet = run("add", str(doc), "--index", "--no-wait")
    assert quiet.exit_code == 0 and "warning" not in quiet.stderr

    history = run("history", old)
    assert history.exit_code == 0, history.output
    assert "superseded by" in history.stdout and "explicit; human:local via supersede" in (
        history.stdout
    )
    as_json = json.loads(run("history", old, "--json").stdout)
    # The two explicit ones; derivation may add its own (the section's Wednesday over the
    # Tuesday note, whose derivation the zero wait left queued).
    explicit = [s for s in as_json["superseded_by"] if s["reason"] == "explicit"]
    assert len(explicit) == 2
    assert explicit[0]["standing"] is True

    doc.write_text(OLD)
    run("add", str(doc), "--no-wait")
    file_id = next(i["id"] for i in json.loads(run("items", "--json").stdout)["items"] if i["name"])
    assert run("read", file_id, "--version", "1").stdout == NEWER
    assert run("read", file_id).stdout == OLD
    assert run("read", file_id, "--version", "9").exit_code == 3


# -- the agent tool, over a real MCP client ---------------------------------------------


def test_the_agent_tool_supersedes_and_reads_history_over_mcp(tmp_path: Path) -> None:
    from tests.toy import HashEmbedder

    brain = Brain.open(tmp_path / "brain", embedder=HashEmbedder())
    keys = MemoryKeyStore()
    mcp_app = McpHttpApp()
    api = create_app(
        brain, keys, extra_mounts={"/mcp": mcp_app}, lifespans=[lambda _app: mcp_app.running()]
    )
    token = issue_key(keys, brain.workspace, "alice", "read,write", agent=True).token
    old = brain.add_note(OLD)
    team = member(brain, "carol", "ops").add_note("Ops rota is weekly.", scope="team:ops")
    fact = {"body": NEW, "kind": "fact", "label": "On-call"}

    async def main() -> None:
        async with http_client(server.url + "/mcp", token) as alice:
            written = await call(alice, "add_to_brain", {**fact, "supersedes": [old.id]})
            assert written["item"]["supersedes"] == old.id
            history = await call(alice, "brain_history", {"item_id": old.id})
            (link,) = history["superseded_by"]
            assert (link["new_id"], link["origin"]["actor"]) == (
                written["item"]["id"],
                "agent:alice",
            )
            unseen = {**fact, "body": NEWER, "supersedes": [team.id]}
            assert await fails(alice, "add_to_brain", unseen) == "invalid_input"
            private = {**fact, "body": NEWER, "scope": "user:alice", "supersedes": [old.id]}
            assert await fails(alice, "add_to_brain", private) == "forbidden"

    try:
        with BackgroundServer(api) as server:
            anyio.run(main)
        assert not [i for i in brain.items().items if i.body == NEWER]
        # The same registry, called directly, says the same.
        direct = call_tool(brain, "brain_history", {"item_id": old.id}, ToolContext())
        assert direct["superseded_by"][0]["standing"] is True
    finally:
        brain.close()
