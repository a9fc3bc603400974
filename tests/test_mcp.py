"""The MCP server through the SDK's own client: over stdio (a real subprocess) and over
streamable HTTP (the API app on loopback, with real API keys); each on the embedded brain
and on PostgreSQL + S3 (the ``backend`` fixture)."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult

from orgbrain import Brain
from orgbrain.agents.tools import TOOLS
from orgbrain.keys import issue_key
from orgbrain.server import BackgroundServer, create_app
from orgbrain.server.mcp import RUN_ID_HEADER, McpHttpApp
from tests.backends import Backend
from tests.toy import HashEmbedder

ROOT = Path(__file__).resolve().parent.parent
HANDBOOK = b"""# Billing

The billing service is owned by Priya Raman. It charges cards through Stripe.

## Refunds

Refunds over 500 EUR need approval from finance.
"""

# Bob's agent: the stdio server function itself, on a brain with the fast toy embedder
# (in the folder, or where ORGBRAIN_STORE and ORGBRAIN_BLOBS say).
SERVE = """
import sys
from pathlib import Path
from orgbrain import Brain, Principal, Settings
from orgbrain.agents.tools import ToolContext
from orgbrain.server.mcp import serve_stdio
from tests.toy import HashEmbedder

path, user, run_id = sys.argv[1:4]
settings = Settings.from_env(brain=Path(path))
brain = Brain.open(settings.store or path, embedder=HashEmbedder(), settings=settings)
brain = brain.for_principal(Principal(brain.workspace, user, agent=True))
serve_stdio(brain, ToolContext(run_id=run_id, source="mcp"))
"""

# Alice's agent: the `orgbrain mcp` command, principal from the environment.
SERVE_CLI = """
import sys
from orgbrain import Brain
from orgbrain.cli import agent, app, cli
from tests.toy import HashEmbedder

app.open_brain = lambda s: Brain.open(s.store or s.brain, settings=s, embedder=HashEmbedder())
for command in agent.COMMANDS:
    cli.add_command(command)
cli.main(["--brain", sys.argv[1], "mcp"], prog_name="orgbrain")
"""


@dataclass(frozen=True)
class Seeded:
    file_id: str
    note_id: str
    other_id: str


def seed(brain: Brain) -> Seeded:
    file = brain.add_file(HANDBOOK, name="handbook.md", index=True)
    note = brain.add_note("Priya Raman owns the billing service.", label="Billing owner")
    other = brain.add_note("Billing runs on PostgreSQL 16.", label="Billing database")
    return Seeded(file.id, note.id, other.id)


async def call(client: Client, name: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(name, args)
    assert not result.is_error, result.content
    assert isinstance(result.structured_content, dict)
    return result.structured_content


async def fails(client: Client, name: str, args: dict[str, Any]) -> str:
    result: CallToolResult = await client.call_tool(name, args)
    assert result.is_error, result
    code = result.structured_content["error"]["code"]  # type: ignore[index]
    text = result.content[0].text  # type: ignore[union-attr]
    assert text.startswith(f"{code}: "), text
    return str(code)


async def exercise(alice: Client, bob: Client, s: Seeded, alice_run: str) -> None:
    """Every tool through a real client, as two users' agents on one brain."""
    listed = (await alice.list_tools()).tools
    assert {t.name for t in listed} == set(TOOLS)
    for t in listed:
        assert t.input_schema == TOOLS[t.name].input_schema
        assert t.annotations is not None
        assert t.annotations.read_only_hint == TOOLS[t.name].read_only

    found = await call(bob, "brain_search", {"query": "who owns billing", "k": 3})
    hits = found["hits"]
    assert hits and hits[0]["citation"]["text"] and len(hits) <= 3
    # Why, in words an agent can pass on; the gate's numbers stay in ``reason``.
    assert found["why"].startswith('Answers: "') and "'billing'" in found["why"]
    assert not re.search(r"\d\.\d|cosine", found["why"]) and "cosine" in found["reason"]

    mine = await call(
        alice,
        "add_to_brain",
        {
            "body": "Alice's salary review is on 3 March.",
            "kind": "fact",
            "label": "Salary review",
            "scope": "user:alice",
        },
    )
    private = mine["item"]
    assert private["scope"] == "user:alice" and private["origin"]["actor"] == "agent:alice"
    assert private["origin"]["run_id"] == alice_run and private["origin"]["source"] == "mcp"
    found = await call(alice, "brain_search", {"query": "salary review March"})
    assert private["id"] in [h["item"]["id"] for h in found["hits"]]
    # A user's note never reaches another user's agent.
    assert (await call(bob, "brain_search", {"query": "salary review March"}))["hits"] == []
    assert await fails(bob, "brain_read_file", {"item_id": private["id"]}) == "not_found"
    assert await fails(bob, "brain_neighborhood", {"item_id": private["id"]}) == "not_found"
    wider = {"body": "x", "kind": "fact", "label": "l", "scope": "user:bob"}
    assert await fails(alice, "add_to_brain", wider) == "forbidden"

    mention = await call(
        alice,
        "brain_observe_mention",
        {
            "item_id": s.note_id,
            "type": "person",
            "value": "Priya Raman",
            "text": "Priya Raman",
            "start": 0,
            "end": 11,
        },
    )
    entity = mention["entity"]
    assert entity["canonical"] == {"type": "person", "value": "priya raman"}
    linked = await call(
        alice, "brain_link", {"src": s.note_id, "dst": s.other_id, "type": "SAME_AS"}
    )
    assert linked["created"] and linked["edge"]["type"] == "SAME_AS"
    around = await call(bob, "brain_neighborhood", {"item_id": s.note_id, "hops": 2})
    near = {i["id"]: i for i in around["hops"][0]["items"]}
    # The mention and the link made here; beside them, only entities derivation found
    # (`orgbrain mcp` derives in the background while the session lasts).
    assert {entity["id"], s.other_id} <= set(near)
    assert all(i["storage_class"] == "entity" for k, i in near.items() if k != s.other_id)

    read = await call(bob, "brain_read_file", {"item_id": s.file_id, "section": 2})
    assert read["text"].startswith("## Refunds")

    assert await fails(bob, "brain_read_file", {"item_id": "fil_nope"}) == "not_found"
    assert await fails(bob, "brain_search", {"query": "x", "k": 99}) == "invalid_input"
    reserved = {"src": s.note_id, "dst": s.other_id, "type": "HAS_SECTION"}
    assert await fails(alice, "brain_link", reserved) == "forbidden"


def run(main: Any, seconds: float = 120) -> None:
    async def bounded() -> None:
        with anyio.fail_after(seconds):
            await main()

    anyio.run(bounded)


# -- stdio --------------------------------------------------------------------------------


def stdio(script: Path, *args: str, env: dict[str, str] | None = None) -> Client:
    # This checkout's package first, not whichever one is installed (a worktree's tests
    # would otherwise serve another tree's code).
    path = os.pathsep.join([str(ROOT / "src"), str(ROOT)])
    base = {"PYTHONPATH": path, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    return Client(
        StdioServerParameters(
            command=sys.executable,
            args=[str(script), *args],
            env={**base, **(env or {})},
            cwd=str(ROOT),
        )
    )


@pytest.mark.slow
def test_stdio_serves_every_tool_to_two_users_agents(tmp_path: Path, backend: Backend) -> None:
    path = tmp_path / "brain"
    with backend.open(path, embedder=HashEmbedder()) as brain:
        seeded = seed(brain)
    (tmp_path / "serve.py").write_text(SERVE)
    (tmp_path / "serve_cli.py").write_text(SERVE_CLI)
    where = backend.env()
    alice_env = {
        **where,
        "ORGBRAIN_USER": "alice",
        "ORGBRAIN_TEAMS": "pay",
        "ORGBRAIN_RUN_ID": "run-a",
    }

    async def main() -> None:
        async with (
            stdio(tmp_path / "serve_cli.py", str(path), env=alice_env) as alice,
            stdio(tmp_path / "serve.py", str(path), "bob", "run-b", env=where) as bob,
        ):
            await exercise(alice, bob, seeded, "run-a")

    run(main)
    assert (path / "brain.sqlite").exists() != backend.on_postgres
    with backend.open(path, embedder=HashEmbedder()) as brain:
        notes = [i for i in brain.items(kind="fact").items if i.label == "Salary review"]
        assert [n.origin.run_id for n in notes] == ["run-a"]


# -- streamable HTTP ----------------------------------------------------------------------


@asynccontextmanager
async def http_client(url: str, token: str, **headers: str) -> AsyncIterator[Client]:
    hc = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}", **headers})
    async with hc, Client(streamable_http_client(url, http_client=hc)) as client:
        yield client


@pytest.fixture
def served(tmp_path: Path, backend: Backend) -> Any:
    brain = backend.open(tmp_path / "brain", embedder=HashEmbedder())
    keys = backend.key_store(tmp_path / "brain")
    mcp_app = McpHttpApp()
    api = create_app(
        brain, keys, extra_mounts={"/mcp": mcp_app}, lifespans=[lambda _app: mcp_app.running()]
    )
    ws = brain.workspace
    tokens = {
        "alice": issue_key(keys, ws, "alice", "read,write", agent=True).token,
        "bob": issue_key(keys, ws, "bob", "read,write", agent=True).token,
        "carol": issue_key(keys, ws, "carol", "read", agent=True).token,
    }
    with BackgroundServer(api) as server:
        # No background derivation: it would race the neighbourhood check with entities of
        # its own (as the stdio test, where no server runs jobs).
        api.state.orgbrain.worker.stop()
        yield brain, seed(brain), server.url + "/mcp", tokens
    keys.close()
    brain.close()


def test_http_serves_every_tool_scoped_by_api_key(served: Any) -> None:
    brain, seeded, url, tokens = served

    async def main() -> None:
        async with (
            http_client(url, tokens["alice"], **{RUN_ID_HEADER: "run-http"}) as alice,
            http_client(url, tokens["bob"]) as bob,
            http_client(url, tokens["carol"]) as carol,
        ):
            await exercise(alice, bob, seeded, "run-http")
            # A read-only key reads, but every write tool is refused.
            assert (await call(carol, "brain_search", {"query": "billing"}))["hits"]
            write = {"body": "x", "kind": "fact", "label": "l"}
            assert await fails(carol, "add_to_brain", write) == "forbidden"
            link = {"src": seeded.note_id, "dst": seeded.other_id, "type": "RELATES_TO"}
            assert await fails(carol, "brain_link", link) == "forbidden"

    run(main)
    salary = [i for i in brain.items(kind="fact").items if i.label == "Salary review"]
    assert [(i.scope, i.origin.run_id) for i in salary] == [("user:alice", "run-http")]


def test_http_needs_a_valid_key(served: Any) -> None:
    _, _, url, _ = served
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    accept = {"Accept": "application/json, text/event-stream"}
    for headers in ({}, {"Authorization": "Bearer ob_nope"}, {"Authorization": "Basic x"}):
        r = httpx.post(url + "/", json=ping, headers={**accept, **headers})
        assert r.status_code == 401, r.text
        assert r.json()["code"] == "unauthenticated"
        assert r.headers["www-authenticate"].startswith("Bearer")


def test_http_app_runs_its_own_lifespan_when_served_alone() -> None:
    from starlette.requests import Request
    from starlette.testclient import TestClient

    from orgbrain.errors import Unauthenticated
    from orgbrain.server.mcp import CallScope

    def nobody(_request: Request) -> CallScope:
        raise Unauthenticated("no keys here")

    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    app = McpHttpApp(nobody)
    r = TestClient(app).post("/", json=ping)  # not entered: the manager is not running
    assert r.status_code == 503 and r.json()["code"] == "unavailable"
    with TestClient(app) as client:  # entered: the ASGI lifespan starts the manager
        r = client.post("/", json=ping)
        assert r.status_code == 401 and r.json()["detail"] == "no keys here"
    with TestClient(app) as client:  # a second run gets a fresh manager
        assert client.post("/", json=ping).status_code == 401
