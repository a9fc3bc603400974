"""The agent tools called directly: schemas from signatures, every tool, scopes, errors."""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from orgbrain import Brain, Principal
from orgbrain.agents import tools as agent_tools
from orgbrain.agents.tools import TOOLS, ToolContext, call_tool, error_payload, render_tools
from orgbrain.cli import agent as agent_cli
from orgbrain.cli import cli
from orgbrain.errors import OrgBrainError
from tests.filegen import make_pdf
from tests.toy import HashEmbedder

DOCS = Path(__file__).resolve().parent.parent / "docs" / "agents.md"
NAMES = {
    "brain_search",
    "add_to_brain",
    "brain_observe_mention",
    "brain_link",
    "brain_neighborhood",
    "brain_read_file",
    "brain_forget",
    "brain_history",
    "brain_statements",
    "brain_story",
    "brain_write_back",
    "brain_inbox",
    "brain_approve",
    "brain_reject",
}
HANDBOOK = b"""# Billing

The billing service is owned by Priya Raman. It charges cards through Stripe.

## Refunds

Refunds over 500 EUR need approval from finance.
"""
CTX = ToolContext(run_id="run-42")


@pytest.fixture
def toy(tmp_path: Path) -> Iterator[Brain]:
    b = Brain.open(tmp_path / "brain", embedder=HashEmbedder())
    try:
        yield b
    finally:
        b.close()


def alice(b: Brain) -> Brain:
    return b.for_principal(Principal(b.workspace, "alice", frozenset({"pay"}), agent=True))


def bob(b: Brain) -> Brain:
    return b.for_principal(Principal(b.workspace, "bob", agent=True))


def code_of(brain: Brain, name: str, args: dict[str, Any]) -> str:
    with pytest.raises(OrgBrainError) as info:
        call_tool(brain, name, args, CTX)
    return error_payload(info.value)["code"]


# -- the registry and its schemas -------------------------------------------------------


def test_the_six_tools_are_registered() -> None:
    assert set(TOOLS) == NAMES
    for t in TOOLS.values():
        assert t.description and len(t.description) < 400, t.name


def test_schemas_come_from_the_signatures() -> None:
    for t in TOOLS.values():
        params = list(inspect.signature(t.func).parameters.values())
        assert [p.name for p in params[:2]] == ["brain", "ctx"]
        schema = t.input_schema
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert list(schema["properties"]) == [p.name for p in params[2:]], t.name
        required = [p.name for p in params[2:] if p.default is inspect.Parameter.empty]
        assert schema.get("required", []) == required, t.name
        assert "title" not in schema
        for prop in schema["properties"].values():
            assert "title" not in prop and prop.get("description"), (t.name, prop)
    search = TOOLS["brain_search"].input_schema["properties"]
    assert search["k"] == {
        "default": 5,
        "description": "At most this many hits (1-8).",
        "maximum": 8,
        "minimum": 1,
        "type": "integer",
    }
    assert TOOLS["brain_neighborhood"].input_schema["properties"]["hops"]["maximum"] == 2


def test_the_package_exports_are_real() -> None:
    from orgbrain import graph, inject

    for module in (graph, graph.links, inject, agent_tools):
        assert len(set(module.__all__)) == len(module.__all__), module.__name__
        assert all(hasattr(module, name) for name in module.__all__), module.__name__


def test_every_format_renders_the_same_schemas() -> None:
    by_format = {fmt: render_tools(fmt) for fmt in ("openai", "anthropic", "mcp")}
    openai = {t["function"]["name"]: t["function"]["parameters"] for t in by_format["openai"]}
    anthropic = {t["name"]: t["input_schema"] for t in by_format["anthropic"]}
    mcp = {t["name"]: t["inputSchema"] for t in by_format["mcp"]}
    assert openai == anthropic == mcp and set(mcp) == NAMES
    assert all(t["type"] == "function" for t in by_format["openai"])
    hints = {t["name"]: t["annotations"]["readOnlyHint"] for t in by_format["mcp"]}
    assert hints == {
        "brain_search": True,
        "add_to_brain": False,
        "brain_observe_mention": False,
        "brain_link": False,
        "brain_neighborhood": True,
        "brain_read_file": True,
        "brain_forget": False,
        "brain_history": True,
        "brain_statements": True,
        "brain_story": True,
        "brain_write_back": False,
        "brain_inbox": True,
        "brain_approve": False,
        "brain_reject": False,
    }
    with pytest.raises(OrgBrainError, match="unknown tool format"):
        render_tools("langchain")  # type: ignore[arg-type]


def test_docs_list_every_tool_and_command() -> None:
    text = DOCS.read_text(encoding="utf-8")
    regenerate = 'python -c "from orgbrain.agents.tools import tools_markdown as t; print(t())"'
    assert agent_tools.tools_markdown() in text, f"docs/agents.md drifted; paste {regenerate}"
    for name in NAMES:
        assert f"`{name}(" in text, name
    for command in agent_cli.COMMANDS:
        assert f"orgbrain {command.name}" in text, command.name


def test_tools_command_prints_each_format(monkeypatch: pytest.MonkeyPatch) -> None:
    for command in agent_cli.COMMANDS:
        monkeypatch.setitem(cli.commands, command.name or "", command)
    runner = CliRunner()
    for fmt in ("openai", "anthropic", "mcp"):
        result = runner.invoke(cli, ["tools", "--format", fmt])
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout) == render_tools(fmt)
    assert runner.invoke(cli, ["tools", "--format", "xml"]).exit_code == 2


# -- arguments are validated against the schema -----------------------------------------


def test_bad_arguments_are_invalid_input(toy: Brain) -> None:
    assert code_of(toy, "brain_search", {"query": "x", "k": 9}) == "invalid_input"
    assert code_of(toy, "brain_search", {"query": ""}) == "invalid_input"
    assert code_of(toy, "brain_search", {"k": 3}) == "invalid_input"
    assert code_of(toy, "brain_search", {"query": "x", "colour": "red"}) == "invalid_input"
    assert code_of(toy, "brain_neighborhood", {"item_id": "x", "hops": 3}) == "invalid_input"
    assert code_of(toy, "no_such_tool", {}) == "not_found"
    assert code_of(toy, "brain_search", ["query"]) == "invalid_input"  # type: ignore[arg-type]
    with pytest.raises(OrgBrainError, match=r"k: Input should be less than or equal to 8"):
        call_tool(toy, "brain_search", {"query": "x", "k": 9}, CTX)


def test_unknown_ids_are_not_found(toy: Brain) -> None:
    note = toy.add_note("The wiki moved to Notion.", label="Wiki")
    for name, args in (
        ("brain_read_file", {"item_id": "fil_nope"}),
        ("brain_neighborhood", {"item_id": "not_nope"}),
        ("brain_link", {"src": note.id, "dst": "not_nope", "type": "RELATES_TO"}),
        ("brain_observe_mention", {"item_id": "x", "type": "tool", "value": "a", "text": "a"}),
    ):
        assert code_of(toy, name, args) == "not_found", name


def test_internal_errors_do_not_leak_details() -> None:
    assert error_payload(RuntimeError("/secret/path")) == {
        "code": "internal",
        "message": "internal error (RuntimeError)",
    }


# -- the tools ----------------------------------------------------------------------------


def test_search_cites_and_cuts_bodies(toy: Brain) -> None:
    toy.add_file(HANDBOOK, name="handbook.md", index=True)
    toy.add_note("Refund policy: " + "refunds need finance approval. " * 300, label="Refunds")
    out = call_tool(toy, "brain_search", {"query": "refunds finance approval"}, CTX)
    assert out["hits"] and len(out["hits"]) <= 5
    for hit in out["hits"]:
        assert len(hit["item"]["body"]) <= agent_tools.SEARCH_BODY_CHARS
        assert hit["citation"]["text"] and hit["citation"]["item_id"] == hit["item"]["id"]
    section = next(h for h in out["hits"] if h["item"]["storage_class"] == "section")
    assert section["citation"]["byte_range"] and section["citation"]["file_id"]
    assert len(call_tool(toy, "brain_search", {"query": "refunds", "k": 1}, CTX)["hits"]) == 1


def test_add_to_brain_writes_through_with_its_origin(toy: Brain) -> None:
    agent = alice(toy)
    out = call_tool(
        agent,
        "add_to_brain",
        {"body": "Payments deploys need two approvals.", "kind": "rule", "label": "Deploys"},
        CTX,
    )
    item = out["item"]
    assert (item["kind"], item["storage_class"], item["scope"]) == ("rule", "note", "org")
    assert item["origin"]["actor"] == "agent:alice" and item["origin"]["run_id"] == "run-42"
    assert item["origin"]["source"] == "agent-tool"
    hits = call_tool(agent, "brain_search", {"query": "payments deploys approvals"}, CTX)
    assert hits["hits"][0]["item"]["id"] == item["id"]
    team = call_tool(
        agent, "add_to_brain", {"body": "b", "kind": "fact", "label": "l", "scope": "team:pay"}, CTX
    )
    assert team["item"]["scope"] == "team:pay"
    for scope in ("user:bob", "team:other"):
        args = {"body": "x", "kind": "fact", "label": "l", "scope": scope}
        assert code_of(agent, "add_to_brain", args) == "forbidden"
    assert (
        code_of(agent, "add_to_brain", {"body": "x", "kind": "fact", "label": "l", "scope": "all"})
        == "invalid_input"
    )
    for kind in ("entity", "file", "section"):
        assert code_of(agent, "add_to_brain", {"body": "x", "kind": kind, "label": "l"}) == (
            "invalid_input"
        )


def test_a_users_note_never_reaches_another_users_agent(toy: Brain) -> None:
    a, b = alice(toy), bob(toy)
    secret = call_tool(
        a,
        "add_to_brain",
        {
            "body": "Alice's salary review is on 3 March.",
            "kind": "fact",
            "label": "Salary review",
            "scope": "user:alice",
        },
        CTX,
    )["item"]
    assert secret["scope"] == "user:alice"
    found = call_tool(a, "brain_search", {"query": "salary review March"}, CTX)["hits"]
    assert [h["item"]["id"] for h in found] == [secret["id"]]
    assert call_tool(b, "brain_search", {"query": "salary review March"}, CTX)["hits"] == []
    assert code_of(b, "brain_neighborhood", {"item_id": secret["id"]}) == "not_found"
    org = toy.add_note("The office closes at 18:00.", label="Office")
    assert code_of(b, "brain_link", {"src": org.id, "dst": secret["id"], "type": "X"}) == (
        "not_found"
    )
    mention = {"item_id": secret["id"], "type": "person", "value": "Alice", "text": "Alice's"}
    assert code_of(b, "brain_observe_mention", mention) == "not_found"


def test_read_file_whole_section_and_caps(toy: Brain) -> None:
    file = toy.add_file(HANDBOOK, name="handbook.md", index=True)
    whole = call_tool(toy, "brain_read_file", {"item_id": file.id}, CTX)
    assert whole["text"] == HANDBOOK.decode() and not whole["truncated"]
    assert whole["bytes"] == len(HANDBOOK) and whole["source"] == "stored bytes"
    second = call_tool(toy, "brain_read_file", {"item_id": file.id, "section": 2}, CTX)
    assert second["text"].startswith("## Refunds") and second["item"]["storage_class"] == "section"
    sec_id = second["item"]["id"]
    by_id = call_tool(toy, "brain_read_file", {"item_id": file.id, "section": sec_id}, CTX)
    assert by_id["text"] == second["text"]
    direct = call_tool(toy, "brain_read_file", {"item_id": sec_id}, CTX)
    assert direct["text"] == second["text"]
    capped = call_tool(toy, "brain_read_file", {"item_id": file.id, "max_bytes": 10}, CTX)
    assert capped["text"] == HANDBOOK[:10].decode() and capped["truncated"]
    assert code_of(toy, "brain_read_file", {"item_id": file.id, "section": 9}) == "not_found"
    note = toy.add_note("A note has no file.", label="n")
    assert code_of(toy, "brain_read_file", {"item_id": note.id}) == "invalid_input"
    args = {"item_id": file.id, "max_bytes": agent_tools.MAX_READ_BYTES + 1}
    assert code_of(toy, "brain_read_file", args) == "invalid_input"


def test_read_file_gives_the_text_of_a_pdf_not_its_bytes(toy: Brain) -> None:
    pdf = toy.add_file(make_pdf(["Quarterly targets: 40 new customers."]), name="q.pdf")
    assert code_of(toy, "brain_read_file", {"item_id": pdf.id}) == "conflict"
    toy.index(pdf.id)
    out = call_tool(toy, "brain_read_file", {"item_id": pdf.id}, CTX)
    assert "40 new customers" in out["text"] and out["source"] == "extracted text"
    assert not out["text"].startswith("%PDF")


def test_graph_tools_round_trip(toy: Brain) -> None:
    note = toy.add_note("Priya Raman owns billing.", label="Billing owner")
    other = toy.add_note("Billing runs on PostgreSQL.", label="Billing db")
    args = {
        "item_id": note.id,
        "type": "Person",
        "value": "Priya  Raman",
        "text": "Priya Raman",
        "start": 0,
        "end": 11,
    }
    first = call_tool(toy, "brain_observe_mention", args, CTX)
    assert first["entity_created"] and first["edge_created"]
    assert first["entity"]["canonical"] == {"type": "person", "value": "priya raman"}
    assert first["edge"]["props"] == {
        "text": "Priya Raman",
        "start": 0,
        "end": 11,
        "run_id": "run-42",
    }
    again = call_tool(toy, "brain_observe_mention", args, CTX)
    assert not again["entity_created"] and not again["edge_created"]
    assert again["edge"]["id"] == first["edge"]["id"]
    linked = call_tool(
        toy,
        "brain_link",
        {"src": note.id, "dst": other.id, "type": "relates to", "note": "same"},
        CTX,
    )
    assert linked["created"] and linked["edge"]["type"] == "RELATES_TO"
    assert linked["edge"]["props"]["note"] == "same"
    around = call_tool(toy, "brain_neighborhood", {"item_id": note.id}, CTX)
    hop = around["hops"][0]
    assert {i["id"] for i in hop["items"]} == {first["entity"]["id"], other.id}
    assert {e["type"] for e in hop["edges"]} == {"MENTIONS", "RELATES_TO"}
    reserved = {"src": note.id, "dst": other.id, "type": "HAS_SECTION"}
    assert code_of(toy, "brain_link", reserved) == "forbidden"
