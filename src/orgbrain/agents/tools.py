"""The agent tools: one typed definition each, used by every surface (MCP, direct calls).

A tool is a plain function ``(brain, ctx, **arguments) -> dict``. Its input schema is
derived from its signature (the ``Annotated`` hints carry limits and descriptions) and its
description from its docstring, so ``orgbrain tools --format openai|anthropic|mcp`` and
the MCP server advertise exactly what the function accepts. A tool raises the
``OrgBrainError`` tree; transports turn that into their error shape (see
:func:`error_payload`), never into a success-shaped result.
"""

from __future__ import annotations

import codecs
import inspect
import json
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from ..brain import Brain
from ..errors import Conflict, InvalidInput, NotFound, OrgBrainError
from ..model import Citation, Edge, Hit, Item, storage_class_for

__all__ = [
    "MAX_READ_BYTES",
    "SEARCH_BODY_CHARS",
    "TOOLS",
    "SchemaFormat",
    "Tool",
    "ToolContext",
    "call_tool",
    "citation_json",
    "edge_json",
    "error_payload",
    "get_tool",
    "item_json",
    "render_tools",
    "tools_markdown",
]

SEARCH_BODY_CHARS = 4000
DEFAULT_READ_BYTES = 16_000
MAX_READ_BYTES = 100_000
SchemaFormat = Literal["openai", "anthropic", "mcp"]
ToolFunc = Callable[..., dict[str, Any]]


@dataclass(frozen=True, slots=True)
class ToolContext:
    """What a surface knows about the call beyond its arguments: the agent's run."""

    run_id: str | None = None
    source: str = "agent-tool"


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    description: str
    func: ToolFunc
    arguments: type[BaseModel]
    read_only: bool
    idempotent: bool

    @property
    def input_schema(self) -> dict[str, Any]:
        schema = _strip_titles(self.arguments.model_json_schema())
        schema.setdefault("properties", {})
        return schema

    def call(
        self, brain: Brain, ctx: ToolContext, arguments: Mapping[str, object] | None
    ) -> dict[str, Any]:
        """Validate ``arguments`` against the schema, then run the tool."""
        if arguments is not None and not isinstance(arguments, Mapping):
            raise InvalidInput(f"{self.name}: arguments must be an object")
        try:
            parsed = self.arguments.model_validate(dict(arguments or {}))
        except ValidationError as exc:
            raise InvalidInput(f"{self.name}: {_describe(exc)}") from None
        values = {name: getattr(parsed, name) for name in type(parsed).model_fields}
        return self.func(brain, ctx, **values)

    def schema(self, fmt: SchemaFormat) -> dict[str, Any]:
        if fmt == "openai":
            return {
                "type": "function",
                "function": {
                    "name": self.name,
                    "description": self.description,
                    "parameters": self.input_schema,
                },
            }
        if fmt == "anthropic":
            return {
                "name": self.name,
                "description": self.description,
                "input_schema": self.input_schema,
            }
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
            "annotations": {
                "readOnlyHint": self.read_only,
                "destructiveHint": False,
                "idempotentHint": self.idempotent,
                "openWorldHint": False,
            },
        }


_REGISTRY: dict[str, Tool] = {}


def _tool(*, read_only: bool, idempotent: bool = False) -> Callable[[ToolFunc], ToolFunc]:
    def register(func: ToolFunc) -> ToolFunc:
        _REGISTRY[func.__name__] = Tool(
            name=func.__name__,
            description=_description(func),
            func=func,
            arguments=_arguments_model(func),
            read_only=read_only,
            idempotent=idempotent,
        )
        return func

    return register


def _arguments_model(func: ToolFunc) -> type[BaseModel]:
    """A pydantic model of every parameter after ``(brain, ctx)``, from the type hints."""
    hints = typing.get_type_hints(func, include_extras=True)
    params = list(inspect.signature(func).parameters.values())[2:]
    fields: dict[str, Any] = {}
    for p in params:
        default = ... if p.default is inspect.Parameter.empty else p.default
        fields[p.name] = (hints[p.name], default)
    name = "".join(part.title() for part in func.__name__.split("_")) + "Arguments"
    model: type[BaseModel] = create_model(name, __config__=ConfigDict(extra="forbid"), **fields)
    return model


def _description(func: ToolFunc) -> str:
    return " ".join((inspect.getdoc(func) or "").split())


def _strip_titles(schema: dict[str, Any]) -> dict[str, Any]:
    """pydantic's generated ``title`` keys say nothing a model can use; drop them."""
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title":
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {k: _strip_titles(v) for k, v in value.items()}
        elif isinstance(value, dict):
            out[key] = _strip_titles(value)
        elif isinstance(value, list):
            out[key] = [_strip_titles(v) if isinstance(v, dict) else v for v in value]
        else:
            out[key] = value
    return out


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        parts.append(f"{where}: {err['msg']}")
    return "; ".join(parts)


# -- JSON views of the model -------------------------------------------------------------


def item_json(item: Item, *, body_chars: int | None = 0) -> dict[str, Any]:
    """The compact view tools return: identity, place, origin; the body when asked."""
    out: dict[str, Any] = {
        "id": item.id,
        "kind": item.kind,
        "storage_class": item.storage_class,
        "label": item.label,
        "scope": item.scope,
        "indexed": item.indexed,
        "summary": item.summary,
        "origin": {
            "actor": item.origin.actor,
            "source": item.origin.source,
            "run_id": item.origin.run_id,
            "at": item.origin.at.isoformat(),
        },
    }
    if item.canonical is not None:
        out["canonical"] = {"type": item.canonical.type, "value": item.canonical.value}
    if item.parent_id is not None:
        out["parent_id"] = item.parent_id
    if item.occurred_at is not None:
        out["occurred_at"] = item.occurred_at.isoformat()
    if body_chars is None:
        out["body"] = item.body
    elif body_chars > 0:
        out["body"] = item.body[:body_chars]
    return out


def citation_json(c: Citation) -> dict[str, Any]:
    loc = c.locator
    return {
        "text": c.describe(),
        "item_id": c.item_id,
        "file_id": c.file_id,
        "label": c.label,
        "byte_range": None if c.byte_range is None else [c.byte_range.start, c.byte_range.end],
        "heading_path": list(loc.heading_path),
        "sheet": loc.sheet,
        "pages": None if loc.page_start is None else [loc.page_start, loc.page_end],
    }


def edge_json(e: Edge) -> dict[str, Any]:
    return {
        "id": e.id,
        "type": e.type,
        "src": e.src,
        "dst": e.dst,
        "props": {k: v for k, v in e.props.items() if k != "dedupe"},
        "origin": {
            "actor": e.origin.actor,
            "source": e.origin.source,
            "run_id": e.origin.run_id,
            "at": e.origin.at.isoformat(),
        },
    }


def _hit_json(h: Hit) -> dict[str, Any]:
    out = item_json(h.item, body_chars=SEARCH_BODY_CHARS)
    out["score"] = round(h.score, 6)
    out["citation"] = citation_json(h.citation)
    return out


# -- the tools --------------------------------------------------------------------------

ItemId = Annotated[str, Field(min_length=1, max_length=64, description="An item id, e.g. not_…")]


@_tool(read_only=True)
def brain_search(
    brain: Brain,
    ctx: ToolContext,
    query: Annotated[
        str, Field(min_length=1, max_length=4000, description="What to look for, in words.")
    ],
    k: Annotated[int, Field(ge=1, le=8, description="At most this many hits (1-8).")] = 5,
) -> dict[str, Any]:
    """Search the organisation's brain (files, sections, notes) for what it already knows:
    decisions, owners, definitions, gotchas. Read only. Every hit carries its citation;
    an empty list means the brain has nothing relevant (do not guess).

    Bodies are cut at 4000 characters; use brain_read_file with the citation for more.
    """
    result = brain.search(query, k=k)
    return {
        "query": result.query,
        "verdict": result.verdict,
        "reason": result.reason,
        "hits": [_hit_json(h) for h in result.hits],
    }


@_tool(read_only=False)
def add_to_brain(
    brain: Brain,
    ctx: ToolContext,
    body: Annotated[
        str, Field(min_length=1, max_length=100_000, description="The fact, in full sentences.")
    ],
    kind: Annotated[
        str,
        Field(
            min_length=1,
            max_length=64,
            description="Free text: decision, owner, definition, rule, gotcha, fact...",
        ),
    ],
    label: Annotated[str, Field(min_length=1, max_length=200, description="A short title.")],
    scope: Annotated[
        str | None,
        Field(
            description="org (default), team:<id> or user:<id>; never wider than yours.",
        ),
    ] = None,
) -> dict[str, Any]:
    """Write one durable fact into the brain straight away (no review): something useful to
    the organisation in a month, not task chatter. It is searchable as soon as this
    returns, and records you and your run as its origin.
    """
    if storage_class_for(kind) != "note":
        raise InvalidInput(
            f"kind {kind!r} is reserved; use brain_observe_mention for entities and "
            "add files through the brain's add command"
        )
    item = brain.add_note(
        body, kind=kind, label=label, scope=scope, run_id=ctx.run_id, source=ctx.source
    )
    return {"item": item_json(item)}


@_tool(read_only=False, idempotent=True)
def brain_observe_mention(
    brain: Brain,
    ctx: ToolContext,
    item_id: ItemId,
    type: Annotated[
        str, Field(min_length=1, max_length=40, description="person, company, project, ...")
    ],
    value: Annotated[
        str, Field(min_length=1, max_length=200, description="The name, e.g. Priya Raman.")
    ],
    text: Annotated[
        str, Field(min_length=1, max_length=1000, description="The text span it was read from.")
    ],
    start: Annotated[int | None, Field(ge=0, description="Span start offset.")] = None,
    end: Annotated[int | None, Field(ge=0, description="Span end offset.")] = None,
) -> dict[str, Any]:
    """Record that an item mentions a named thing (person, company, project, ...), with the
    text span it came from. The entity is found again by (type, value) or created; the
    same mention twice is recorded once. Never merges anything.
    """
    m = brain.observe_mention(item_id, type, value, text, start=start, end=end, run_id=ctx.run_id)
    return {
        "entity": item_json(m.entity),
        "edge": edge_json(m.edge),
        "entity_created": m.entity_created,
        "edge_created": m.edge_created,
    }


@_tool(read_only=False, idempotent=True)
def brain_link(
    brain: Brain,
    ctx: ToolContext,
    src: ItemId,
    dst: ItemId,
    type: Annotated[
        str,
        Field(
            min_length=1,
            max_length=64,
            description="Edge type, e.g. DEPENDS_ON, OWNS, SAME_AS (HAS_SECTION is reserved).",
        ),
    ],
    note: Annotated[str | None, Field(max_length=2000, description="Why they are linked.")] = None,
) -> dict[str, Any]:
    """Link two items you can see with a typed edge. SAME_AS is only a soft claim that two
    items are the same thing; nothing is ever merged. The same link again is a no-op.
    """
    result = brain.link(src, dst, type, note=note, run_id=ctx.run_id)
    return {"edge": edge_json(result.edge), "created": result.created}


@_tool(read_only=True)
def brain_neighborhood(
    brain: Brain,
    ctx: ToolContext,
    item_id: ItemId,
    hops: Annotated[int, Field(ge=1, le=2, description="How far to walk: 1 or 2.")] = 1,
) -> dict[str, Any]:
    """The items and edges around one item, 1 or 2 hops out (at most 50 items and 100 edges
    per hop), through what you can see. Use it to find who owns, mentions or depends on it.
    """
    n = brain.neighborhood(item_id, hops)
    return {
        "center": item_json(n.center),
        "hops": [
            {
                "depth": h.depth,
                "items": [item_json(i) for i in h.items],
                "edges": [edge_json(e) for e in h.edges],
                "truncated": h.truncated,
            }
            for h in n.hops
        ],
    }


@_tool(read_only=True)
def brain_read_file(
    brain: Brain,
    ctx: ToolContext,
    item_id: ItemId,
    section: Annotated[
        int | str | None,
        Field(description="A section's number (1-based) or id; omit for the whole file."),
    ] = None,
    max_bytes: Annotated[
        int, Field(ge=1, le=MAX_READ_BYTES, description="Read at most this many bytes.")
    ] = DEFAULT_READ_BYTES,
) -> dict[str, Any]:
    """Read the text behind a citation: a whole file, or one section's exact range, capped
    at max_bytes. Use it when a search hit's body is not enough.
    """
    item = brain.get(item_id)
    whole_binary = (
        item.storage_class == "file"
        and section is None
        and not (item.media_type or "").startswith("text/")
    )
    if whole_binary:
        # The raw bytes of a PDF or workbook mean nothing to a model: give its text.
        if not item.indexed:
            raise Conflict(f"{item.id} is not indexed yet; index it to read its text")
        data = item.body.encode("utf-8")
        chunks = iter([data])
    elif item.storage_class in ("file", "section"):
        chunks = brain.read_file(item.id, section=section)
    else:
        raise InvalidInput(f"{item.id} is a {item.storage_class}; search shows its body")
    raw, truncated = _read_capped(chunks, max_bytes)
    text = codecs.getincrementaldecoder("utf-8")(errors="replace").decode(raw, final=False)
    return {
        "item": item_json(_section_read(brain, item, section)),
        "text": text,
        "bytes": len(raw),
        "truncated": truncated,
        "source": "extracted text" if whole_binary else "stored bytes",
    }


def _section_read(brain: Brain, item: Item, section: int | str | None) -> Item:
    """The item a read came from: the section asked for by number or id, else ``item``."""
    if item.storage_class != "file" or section is None:
        return item
    sections = brain.sections(item.id)
    if isinstance(section, int) or section.isdigit():
        n = int(section)
        return sections[n - 1] if 1 <= n <= len(sections) else item
    return next((s for s in sections if s.id == section), item)


def _read_capped(chunks: typing.Iterator[bytes], limit: int) -> tuple[bytes, bool]:
    buf = bytearray()
    try:
        for chunk in chunks:
            room = limit - len(buf)
            if len(chunk) > room:
                buf += chunk[:room]
                return bytes(buf), True
            buf += chunk
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()
    return bytes(buf), False


# -- the registry -----------------------------------------------------------------------

TOOLS: Mapping[str, Tool] = _REGISTRY


def get_tool(name: str) -> Tool:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise NotFound(f"no tool {name!r}; known: {', '.join(sorted(_REGISTRY))}") from None


def render_tools(fmt: SchemaFormat) -> list[dict[str, Any]]:
    """Every tool's schema in the shape one framework expects."""
    if fmt not in ("openai", "anthropic", "mcp"):
        raise InvalidInput(f"unknown tool format {fmt!r}: use openai, anthropic or mcp")
    return [t.schema(fmt) for t in _REGISTRY.values()]


def tools_markdown() -> str:
    """The tool reference in ``docs/agents.md``, generated here so it cannot drift."""
    parts = []
    for t in _REGISTRY.values():
        mode = "read only" if t.read_only else "writes"
        schema = json.dumps(t.input_schema, indent=2, ensure_ascii=False)
        parts.append(f"### `{t.name}` ({mode})\n\n{t.description}\n\n```json\n{schema}\n```\n")
    return "\n".join(parts)


def call_tool(
    brain: Brain, name: str, arguments: Mapping[str, object] | None, ctx: ToolContext
) -> dict[str, Any]:
    """Run tool ``name``; raises ``OrgBrainError`` on a bad call, like the tools do."""
    return get_tool(name).call(brain, ctx, arguments)


def error_payload(exc: BaseException) -> dict[str, str]:
    """The one error shape of a failed tool call: the error tree's stable code.

    Anything outside the tree is an internal error; its details stay in the server log.
    """
    if isinstance(exc, OrgBrainError):
        return {"code": exc.code, "message": exc.message}
    return {"code": "internal", "message": f"internal error ({type(exc).__name__})"}
