"""What changed, on every surface: an item's story, statements, conflicts and the event
stream over HTTP (server-sent events), the CLI, the client and MCP, with derivation run by
the real job handler and a small real extractor (one rule per statement type)."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from click.testing import CliRunner

from orgbrain import Brain, Client, Principal
from orgbrain.agents.tools import ITEM_BODY_CHARS
from orgbrain.cli import app, cli
from orgbrain.cli import memory as memory_cli
from orgbrain.client.sse import parse_sse
from orgbrain.extraction import Claim, Extraction, Found
from orgbrain.jobs import DeriveJobs, JobHandler, WorkReport
from orgbrain.keys import issue_key
from orgbrain.server import BackgroundServer, create_app
from orgbrain.server.mcp import McpHttpApp
from orgbrain.settings import Settings
from tests.backends import Backend
from tests.test_mcp import call, fails, http_client
from tests.test_server import Served, serve
from tests.toy import HashEmbedder

OWNS = re.compile(r"(?P<who>[A-Z][a-z]+) owns (?P<what>[a-z][a-z ]*?)\.")
PREFERS = re.compile(r"(?P<who>[A-Z][a-z]+) prefers (?P<what>[a-z][a-z ]*?)\.")
MAY = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
JUNE = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)
JULY = datetime(2026, 7, 1, 9, 0, tzinfo=UTC)


class RuleExtractor:
    """``<Name> owns <thing>.`` is a fact about the thing (owner: Name); ``<Name> prefers
    <thing>.`` a preference of the person. Offsets are exact."""

    def extract(self, text: str, *, known: Sequence[tuple[str, str]] = ()) -> Extraction:
        entities: list[Found] = []
        claims: list[Claim] = []
        for m in OWNS.finditer(text):
            who = Found("person", m["who"], m.start("who"), m.end("who"))
            what = Found("topic", m["what"], m.start("what"), m.end("what"))
            entities.append(who)
            claims.append(
                Claim("fact", what, "owner", m["who"], who, m.start(), m.end(), None, None,
                      "pattern", 0.9)
            )  # fmt: skip
        for m in PREFERS.finditer(text):
            who = Found("person", m["who"], m.start("who"), m.end("who"))
            entities.append(who)
            claims.append(
                Claim("preference", who, "prefers", m["what"], None, m.start(), m.end(), None,
                      None, "pattern", 0.9)
            )  # fmt: skip
        return Extraction(tuple(entities), tuple(claims))


def derive(brain: Brain) -> WorkReport:
    """Every ready derivation job, through the real handler with the rule extractor."""
    return brain.worker(handlers=[DeriveJobs(extractor=RuleExtractor())]).drain()


@dataclass(frozen=True)
class World:
    priya: str  # org: Priya owns billing (May)
    mei: str  # org: Mei owns billing (May, another item): a conflict with priya's
    omar: str  # org: Omar owns search (June)
    lena: str  # org: Lena owns search (July): supersedes omar's
    secret: str  # user:alice: Priya prefers tea


def write_world(brain: Brain, workspace: str) -> World:
    alice = brain.for_principal(Principal(workspace, "alice"))
    bob = brain.for_principal(Principal(workspace, "bob"))
    w = World(
        priya=alice.add_note("Priya owns billing.", occurred_at=MAY).id,
        mei=bob.add_note("Mei owns billing.", occurred_at=MAY).id,
        omar=alice.add_note("Omar owns search.", occurred_at=JUNE).id,
        lena=bob.add_note("Lena owns search.", occurred_at=JULY).id,
        secret=alice.add_note("Priya prefers tea.", scope="user:alice", occurred_at=MAY).id,
    )
    report = derive(brain)
    assert report.done == 5 and report.failed == 0, report
    return w


@pytest.fixture
def served(tmp_path: Path, backend: Backend) -> Iterator[Served]:
    """The server the HTTP and client tests run against, once on each backend."""
    with serve(tmp_path / "brain", backend=backend) as s:
        # The server's own workers would derive with the default extractor (not on this
        # branch): this test derives with its own, through the same job handler.
        s.ctx.worker.stop()
        yield s


@pytest.fixture
def world(served: Served) -> World:
    return write_world(served.brain, "acme")


def sse(c: httpx.Client, params: dict[str, Any], **headers: str) -> list[dict[str, Any]]:
    with c.stream("GET", "/v1/events", params=params, headers=headers) as r:
        assert r.status_code == 200, r.read()
        assert r.headers["content-type"].startswith("text/event-stream")
        out = []
        for e in parse_sse(r.iter_bytes()):
            data = json.loads(e.data)
            assert e.id == str(data["id"]) and e.event == data["kind"]
            out.append(data)
        return out


# -- HTTP ---------------------------------------------------------------------------------


def test_story_over_http_shows_ack_steps_statements_and_supersession(
    served: Served, world: World
) -> None:
    with served.http(served.key(user="alice")) as c:
        r = c.get(f"/v1/items/{world.omar}/story")
        assert r.status_code == 200, r.text
        story = r.json()
        assert story["item"]["id"] == world.omar and story["derivation"] == "done"
        assert datetime.fromisoformat(story["acknowledged_at"]) <= datetime.fromisoformat(
            story["steps"][0]["at"]
        )
        steps = [s["step"] for s in story["steps"]]
        assert steps == [
            "mentions",
            "statements",
            "restated",
            "judged",
            "similar",
            "sequence",
            "derived",
        ]
        ids = [s["id"] for s in story["steps"]]
        assert ids == sorted(ids)
        made = story["steps"][1]["produced"]
        assert made["statements"] == 1 and len(made["statement_ids"]) == 1
        [held] = story["statements"]
        assert (held["subject"], held["predicate"], held["object"]) == ("search", "owner", "Omar")
        assert held["current"] is False and held["valid_to"] is not None
        body = b"Omar owns search."
        assert (held["byte_range"]["start"], held["byte_range"]["end"]) == (0, len(body))
        [link] = story["superseded_by"]
        assert link["new"]["id"] == world.lena and link["old"]["id"] == world.omar
        assert link["reason"] == "derived" and link["origin"]["source"] == "derive"
        newer = c.get(f"/v1/items/{world.lena}/story").json()
        assert [x["old"]["id"] for x in newer["supersedes"]] == [world.omar]
        assert newer["statements"][0]["current"] is True


def test_statements_and_conflicts_over_http(served: Served, world: World) -> None:
    with served.http(served.key(user="alice")) as c:
        billing = c.get("/v1/statements", params={"about": "billing"}).json()["statements"]
        assert sorted(s["object"] for s in billing) == ["Mei", "Priya"]
        assert all(s["current"] and s["conflicts"] for s in billing)
        search = c.get("/v1/statements", params={"about": "search", "current": "all"}).json()
        assert [s["object"] for s in search["statements"]] == ["Omar", "Lena"]
        old = c.get("/v1/statements", params={"about": "search", "current": "false"}).json()
        assert [s["object"] for s in old["statements"]] == ["Omar"]
        prefs = c.get("/v1/statements", params={"about": "Priya", "type": "preference"}).json()
        assert [s["object"] for s in prefs["statements"]] == ["tea"]
        held = c.get("/v1/statements", params={"item_id": world.mei}).json()["statements"]
        assert [s["object"] for s in held] == ["Mei"]
        assert c.get("/v1/statements").status_code == 400
        [conflict] = c.get("/v1/conflicts").json()["conflicts"]
        pair = {conflict["a"]["item_id"], conflict["b"]["item_id"]}
        assert pair == {world.priya, world.mei}
        assert conflict["a"]["predicate"] == conflict["b"]["predicate"] == "owner"


def test_event_stream_is_ordered_and_resumes_from_last_event_id(
    served: Served, world: World
) -> None:
    with served.http(served.key(user="alice")) as c:
        events = sse(c, {})
        ids = [e["id"] for e in events]
        assert ids == sorted(set(ids)) and len(ids) == 5 * 7  # six steps and derived, each
        assert {e["kind"] for e in events} == {"derive", "derived"}
        assert {e["item_id"] for e in events} == set(vars(world).values())
        middle = ids[9]
        assert [e["id"] for e in sse(c, {"after": middle})] == ids[10:]
        # Last-Event-ID (what EventSource sends when it reconnects) wins over ?after=.
        resumed = sse(c, {"after": 0}, **{"Last-Event-ID": str(middle)})
        assert [e["id"] for e in resumed] == ids[10:]
        done = sse(c, {"kind": "derived"})
        assert [e["item_id"] for e in done] == [
            e["item_id"] for e in events if e["kind"] == "derived"
        ]
        assert len(sse(c, {"limit": 3})) == 3
        assert c.get("/v1/events", params={"after": -1}).status_code == 422


def test_a_following_stream_sends_new_events_as_they_come(served: Served, world: World) -> None:
    with served.http(served.key(user="alice")) as c:
        last = sse(c, {})[-1]["id"]
        got: list[dict[str, Any]] = []

        def follow() -> None:
            got.extend(sse(c, {"after": last, "follow": "true", "timeout": 5, "limit": 5}))

        reader = threading.Thread(target=follow)
        t0 = time.monotonic()
        reader.start()
        time.sleep(0.5)
        note = served.brain.for_principal(Principal("acme", "alice")).add_note(
            "Ada owns payroll.", occurred_at=JULY
        )
        derive(served.brain)
        reader.join(10)
        assert not reader.is_alive()
        assert time.monotonic() - t0 < 5  # closed by its limit, not its timeout
        assert [e["item_id"] for e in got] == [note.id] * 5  # the first 5 of its 6
        assert [e["id"] for e in got] == sorted(e["id"] for e in got) and got[0]["id"] > last


def test_another_users_private_note_stays_private(served: Served, world: World) -> None:
    with served.http(served.key(user="bob")) as c:
        assert c.get(f"/v1/items/{world.secret}/story").status_code == 404
        assert c.get("/v1/statements", params={"item_id": world.secret}).status_code == 404
        prefs = c.get("/v1/statements", params={"about": "Priya", "type": "preference"})
        assert prefs.json()["statements"] == []
        seen = {e["item_id"] for e in sse(c, {})}
        assert world.secret not in seen and world.priya in seen
    with served.http(served.key(workspace="elsewhere", user="alice")) as c:
        assert sse(c, {}) == [] and c.get("/v1/conflicts").json()["conflicts"] == []
        assert c.get(f"/v1/items/{world.priya}/story").status_code == 404


def test_the_openapi_schema_describes_the_stream(served: Served) -> None:
    schema = served.http(None).get("/openapi.json").json()
    op = schema["paths"]["/v1/events"]["get"]
    assert "text/event-stream" in op["responses"]["200"]["content"]
    params = {p["name"]: p for p in op["parameters"]}
    assert {"after", "kind", "follow", "timeout", "limit", "Last-Event-ID"} <= set(params)
    assert params["follow"]["schema"]["default"] is False
    assert "Last-Event-ID" in op["description"]
    for path in ("/v1/items/{item_id}/story", "/v1/statements", "/v1/conflicts"):
        assert path in schema["paths"]


# -- the client ---------------------------------------------------------------------------


def test_client_reads_stories_statements_conflicts_and_events(served: Served, world: World) -> None:
    with Client(served.url, served.key(user="alice")) as client:
        story = client.story(world.lena)
        assert story.derivation == "done" and story.steps[-1].step == "derived"
        assert story.supersedes[0].old.id == world.omar
        found = client.statements(about="search", current=None)
        assert [s.object for s in found] == ["Omar", "Lena"] and not found[0].current
        assert found[1].valid_from == JULY
        [d] = client.conflicts()
        assert {d.a.object, d.b.object} == {"Priya", "Mei"}
        events = list(client.events())
        assert len(events) == 35 and events == sorted(events, key=lambda e: e.id)
        rest = list(client.events(after=events[27].id, kinds=["derived"]))
        assert [e.kind for e in rest] == ["derived"] and rest[0].id == events[34].id
        with pytest.raises(Exception) as info:
            client.story("not_missing")
        assert getattr(info.value, "code", None) == "not_found"


# -- MCP ----------------------------------------------------------------------------------


def test_mcp_statements_and_story_through_the_real_client(tmp_path: Path, backend: Backend) -> None:
    brain = backend.open(tmp_path / "brain", embedder=HashEmbedder())
    keys = backend.key_store(tmp_path / "brain")
    mcp_app = McpHttpApp()
    api = create_app(
        brain, keys, extra_mounts={"/mcp": mcp_app}, lifespans=[lambda _app: mcp_app.running()]
    )
    ws = brain.workspace
    alice_key = issue_key(keys, ws, "alice", "read", agent=True).token
    bob_key = issue_key(keys, ws, "bob", "read", agent=True).token
    try:
        world = write_world(brain, ws)  # derived before the server (and its workers) start
        with BackgroundServer(api) as server:
            url = server.url + "/mcp"

            async def go() -> None:
                async with http_client(url, alice_key) as alice, http_client(url, bob_key) as bob:
                    args = {"about": "Priya", "types": ["preference"]}
                    prefs = await call(alice, "brain_statements", args)
                    assert [s["object"] for s in prefs["statements"]] == ["tea"]
                    theirs = await call(bob, "brain_statements", {"about": "Priya"})
                    assert [s["object"] for s in theirs["statements"]] == ["Priya"]
                    story = await call(bob, "brain_story", {"item_id": world.omar})
                    assert story["superseded_by"][0]["new"]["id"] == world.lena
                    assert len(story["item"]["body"]) <= ITEM_BODY_CHARS
                    assert await fails(bob, "brain_story", {"item_id": world.secret}) == (
                        "not_found"
                    )

            anyio.run(go)
    finally:
        keys.close()
        brain.close()


# -- the CLI ------------------------------------------------------------------------------


@pytest.fixture
def cli_brain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Any]]:
    folder = tmp_path / "brain"

    def open_brain(settings: Settings) -> Brain:
        return Brain.open(settings.brain, settings=settings, embedder=HashEmbedder())

    def handler() -> JobHandler:
        return DeriveJobs(extractor=RuleExtractor())

    monkeypatch.setattr(app, "open_brain", open_brain)
    monkeypatch.setattr(memory_cli, "derive_handler", handler)
    runner = CliRunner()

    def run(*args: str) -> Any:
        result = runner.invoke(cli, ["--brain", str(folder), *args])
        assert result.exit_code == 0, (result.output, result.exception)
        return result

    run("init")
    yield folder, run


def test_cli_derive_inspect_statements_and_conflicts(cli_brain: tuple[Path, Any]) -> None:
    folder, run = cli_brain
    brain = Brain.open(folder, embedder=HashEmbedder())
    try:
        first = brain.add_note("Omar owns search.", occurred_at=JUNE)
        second = brain.add_note("Lena owns search.", occurred_at=JULY)
        brain.add_note("Priya owns billing.", occurred_at=MAY)
        brain.add_note("Mei owns billing. Mei prefers tea.", occurred_at=MAY)
    finally:
        brain.close()
    out = json.loads(run("derive", "--json").stdout)
    assert out["report"]["done"] == 4 and out["report"]["failed"] == 0
    assert run("derive").stdout.strip() == "nothing to derive"

    text = run("inspect", first.id).stdout
    assert "acknowledged" in text and "derivation    done" in text
    for step in ("mentions", "statements", "restated", "judged", "similar", "sequence", "derived"):
        assert f"  {step}" in text, step
    assert "[superseded by stm_" in text and "Omar owns search." in text
    assert f"{second.id} (Lena owns search.) supersedes {first.id}" in text
    assert f"bytes [0, {len(b'Omar owns search.')})" in text
    story = json.loads(run("inspect", second.id, "--json").stdout)
    assert story["supersedes"][0]["old"]["id"] == first.id

    current = json.loads(run("statements", "search", "--json").stdout)["statements"]
    assert [s["object"] for s in current] == ["Lena"]
    every = run("statements", "search", "--all").stdout
    assert "Omar" in every and "Lena" in every and "superseded" in every
    prefs = json.loads(run("statements", "Mei", "--type", "preference", "--json").stdout)
    assert [s["object"] for s in prefs["statements"]] == ["tea"]

    conflicts = run("conflicts").stdout
    assert "billing owner: " in conflicts and "Priya" in conflicts and "Mei" in conflicts
    [pair] = json.loads(run("conflicts", "--json").stdout)["conflicts"]
    assert {pair["a"]["object"], pair["b"]["object"]} == {"Priya", "Mei"}
