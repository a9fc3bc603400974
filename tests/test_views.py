"""One wire vocabulary: an item reads the same over HTTP, as an MCP tool result, from
``orgbrain ... --json`` and through ``orgbrain.Client``; embeddings stay out unless asked
for; error codes cross every boundary as fields and map back through one ``from_code``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner

import orgbrain.server  # noqa: F401  (loads every error class the server defines)
from orgbrain import Brain, CorruptFile, Forbidden, NotFound, Unavailable
from orgbrain.cli import app, cli
from orgbrain.client import Client
from orgbrain.errors import OrgBrainError
from orgbrain.keys import MemoryKeyStore, issue_key
from orgbrain.server import BackgroundServer, create_app
from orgbrain.server.mcp import McpHttpApp
from orgbrain.settings import Settings
from orgbrain.views import ErrorView, IndexReportView, ItemView, SearchResultView
from tests.filegen import truncated_pdf
from tests.test_mcp import HANDBOOK, call, fails, http_client, run
from tests.toy import HashEmbedder


@dataclass(frozen=True)
class Stack:
    """One brain behind every surface: the HTTP API with MCP at /mcp, and the CLI."""

    folder: Path
    brain: Brain
    url: str
    token: str
    keys: MemoryKeyStore


@pytest.fixture
def stack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Stack]:
    folder = tmp_path / "brain"
    brain = Brain.open(folder, embedder=HashEmbedder())
    keys = MemoryKeyStore()
    mcp_app = McpHttpApp()
    api = create_app(
        brain, keys, extra_mounts={"/mcp": mcp_app}, lifespans=[lambda _app: mcp_app.running()]
    )
    token = issue_key(keys, brain.workspace, "alice", "read,write").token

    def open_brain(settings: Settings) -> Brain:
        return Brain.open(settings.brain, settings=settings, embedder=HashEmbedder())

    monkeypatch.setattr(app, "open_brain", open_brain)
    with BackgroundServer(api) as server:
        yield Stack(folder, brain, server.url, token, keys)
    brain.close()


def cli_json(stack: Stack, *args: str) -> Any:
    result = CliRunner().invoke(cli, ["--brain", str(stack.folder), *args, "--json"])
    assert result.exit_code == 0, (result.output, result.exception)
    return json.loads(result.stdout)


def test_an_item_reads_the_same_on_every_surface(stack: Stack) -> None:
    brain = stack.brain
    file = brain.add_file(HANDBOOK, name="handbook.md", index=True)
    section = brain.sections(file.id)[1]
    when = datetime(2024, 5, 1, 9, 30, tzinfo=UTC)
    note = brain.add_note("Priya Raman owns billing.", label="Owner", occurred_at=when)
    broken = brain.add_file(truncated_pdf(), name="broken.pdf")
    with pytest.raises(CorruptFile):
        brain.index(broken.id)

    # MCP: every tool that returns an item, through a real MCP client over HTTP.
    from_mcp: dict[str, dict[str, Any]] = {}

    async def tools() -> None:
        async with http_client(stack.url + "/mcp", stack.token) as agent:
            whole = await call(agent, "brain_read_file", {"item_id": file.id})
            part = await call(agent, "brain_read_file", {"item_id": file.id, "section": 2})
            mention = {"item_id": note.id, "type": "person", "value": "Priya", "text": "Priya"}
            named = await call(agent, "brain_observe_mention", mention)
            around = await call(agent, "brain_neighborhood", {"item_id": note.id})
            failed = await call(agent, "brain_neighborhood", {"item_id": broken.id})
            found = await call(agent, "brain_search", {"query": "refunds approval finance"})
            assert found["hits"]
            shown = [
                whole["item"],
                part["item"],
                named["entity"],
                around["center"],
                *around["hops"][0]["items"],
                failed["center"],
                *(hit["item"] for hit in found["hits"]),
            ]
            from_mcp.update((item["id"], item) for item in shown)

    run(tools)
    assert {file.id, section.id, note.id, broken.id} <= set(from_mcp)

    with (
        httpx.Client(
            base_url=stack.url, headers={"Authorization": f"Bearer {stack.token}"}
        ) as http,
        Client(stack.url, stack.token) as client,
    ):
        for item_id, over_mcp in from_mcp.items():
            over_http = http.get(f"/v1/items/{item_id}").json()
            over_cli = cli_json(stack, "show", item_id)["item"]
            through_client = ItemView.of(client.get(item_id)).model_dump(mode="json")
            assert over_mcp == over_http == over_cli == through_client, item_id
            assert "embedding" not in over_http
            # The client's dataclass is the brain's own, field for field.
            assert client.get(item_id) == brain.get(item_id)

    failed = cli_json(stack, "show", broken.id)["item"]
    assert failed["state"] == "failed" and failed["index_error_code"] == "corrupt_file"
    assert failed["index_error"].startswith("corrupt_file: ")
    assert from_mcp[note.id]["occurred_at"] == "2024-05-01T09:30:00Z"
    assert section.byte_range is not None
    span = {"start": section.byte_range.start, "end": section.byte_range.end}
    assert from_mcp[section.id]["byte_range"] == span


def test_search_results_round_trip_through_the_client(stack: Stack) -> None:
    stack.brain.add_file(HANDBOOK, name="handbook.md", index=True)
    with Client(stack.url, stack.token) as client:
        result = client.search("refunds approval finance", k=3)
    assert result.hits
    view = SearchResultView.of(result)
    assert SearchResultView.model_validate(view.model_dump(mode="json")) == view
    assert view.to_model() == result


def test_embedding_is_absent_unless_asked_for(stack: Stack) -> None:
    note = stack.brain.add_note("Deploys freeze on Fridays.", label="Freeze")
    vector = tuple(float(i) / 384 for i in range(384))
    loaded = replace(note, embedding=vector)
    assert "embedding" not in ItemView.of(loaded).model_dump(mode="json")
    assert "embedding" not in json.loads(ItemView.of(loaded).model_dump_json())
    asked = ItemView.of(loaded, embedding=True)
    assert asked.model_dump(mode="json")["embedding"] == list(vector)
    assert asked.to_model() == loaded
    shown = cli_json(stack, "show", note.id)["item"]
    listed = cli_json(stack, "items")["items"]
    assert "embedding" not in shown and all("embedding" not in i for i in listed)
    with httpx.Client(base_url=stack.url, headers={"Authorization": f"Bearer {stack.token}"}) as h:
        assert "embedding" not in h.get(f"/v1/items/{note.id}").json()


def test_from_code_maps_every_code_in_the_tree() -> None:
    tree: list[type[OrgBrainError]] = []
    pending: list[type[OrgBrainError]] = [OrgBrainError]
    while pending:
        cls = pending.pop()
        tree.append(cls)
        pending += cls.__subclasses__()
    codes = [cls.code for cls in tree]
    assert len(codes) == len(set(codes)), "two classes share a code"
    assert {"invalid_request", "range_not_satisfiable", "corrupt_file"} <= set(codes)
    for cls in tree:
        exc = OrgBrainError.from_code(cls.code, "why")
        assert type(exc) is cls and exc.code == cls.code and exc.message == "why"
        assert type(ErrorView.of(exc).to_error()) is cls
    unknown = OrgBrainError.from_code("no_such_code", "why")
    assert type(unknown) is OrgBrainError and unknown.code == "no_such_code"
    assert type(OrgBrainError.from_code(None, "why")) is OrgBrainError
    fallback = OrgBrainError.from_code("internal", "boom", fallback=Unavailable)
    assert type(fallback) is Unavailable and fallback.code == "internal"


def test_client_errors_carry_their_code(stack: Stack) -> None:
    with Client(stack.url, stack.token) as client:
        with pytest.raises(NotFound) as missing:
            client.get("not_" + "0" * 19)
        assert missing.value.code == "not_found"
        with pytest.raises(Forbidden) as forbidden:
            client.add_note("x", scope="team:ops")
        assert forbidden.value.code == "forbidden"
        broken = client.add_file(truncated_pdf(), name="broken.pdf")
        with pytest.raises(CorruptFile) as corrupt:
            client.index(broken.id)
        assert corrupt.value.code == "corrupt_file"
        assert not corrupt.value.message.startswith("corrupt_file")
    # A code the client has no class for keeps its name; the status picks the class.
    with Client(stack.url, stack.token, transport=Crashed(), retry_wait=0) as client:
        with pytest.raises(Unavailable) as crashed:
            client.items()
    assert crashed.value.code == "internal" and crashed.value.message == "internal error"


class Crashed(httpx.BaseTransport):
    """A server that answers every request the way a crashed handler does."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return httpx.Response(500, json={"code": "internal", "detail": "internal error"})


def test_errors_are_fields_on_mcp_and_cli(stack: Stack) -> None:
    async def tools() -> None:
        async with http_client(stack.url + "/mcp", stack.token) as agent:
            assert await fails(agent, "brain_read_file", {"item_id": "fil_nope"}) == "not_found"
            result = await agent.call_tool("brain_read_file", {"item_id": "fil_nope"})
            assert result.structured_content == {
                "error": {"code": "not_found", "message": "no item fil_nope"}
            }

    run(tools)
    runner = CliRunner()
    missing = runner.invoke(cli, ["--brain", str(stack.folder), "show", "fil_nope", "--json"])
    assert missing.exit_code == 3
    assert json.loads(missing.stdout) == {
        "error": {"code": "not_found", "message": "no item fil_nope"}
    }
    assert missing.stderr.strip() == "error: no item fil_nope"
    plain = runner.invoke(cli, ["--brain", str(stack.folder), "show", "fil_nope"])
    assert plain.exit_code == 3 and plain.stdout == ""


def test_index_reports_carry_their_error_as_fields(stack: Stack, tmp_path: Path) -> None:
    pdf = tmp_path / "broken.pdf"
    pdf.write_bytes(truncated_pdf())
    result = CliRunner().invoke(
        cli, ["--brain", str(stack.folder), "add", str(pdf), "--index", "--json"]
    )
    assert result.exit_code == 2
    report = json.loads(result.stdout)["index_reports"][0]
    assert report["ok"] is False and report["error"]["code"] == "corrupt_file"
    assert IndexReportView.model_validate(report).to_model().error_code == "corrupt_file"
