"""How a tool is defined once and served everywhere: its arguments model and schemas are
derived from the function's signature, its description from its docstring."""

from __future__ import annotations

import inspect
import json
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from ...brain import Brain
from ...errors import InvalidInput, NotFound
from ...views import ErrorView

__all__ = [
    "TOOLS",
    "SchemaFormat",
    "Tool",
    "ToolContext",
    "ToolFunc",
    "call_tool",
    "error_payload",
    "get_tool",
    "render_tools",
    "tool",
    "tools_markdown",
]

SchemaFormat = Literal["openai", "anthropic", "mcp"]
ToolFunc = Callable[..., BaseModel]


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
    review: bool = False
    """A review decision (approve, reject): open to a key with ``write`` or ``review``;
    which proposals it may decide is the principal's (``Principal.may_review``)."""

    @property
    def input_schema(self) -> dict[str, Any]:
        schema = _strip_titles(self.arguments.model_json_schema())
        schema.setdefault("properties", {})
        return schema

    def call(
        self, brain: Brain, ctx: ToolContext, arguments: Mapping[str, object] | None
    ) -> dict[str, Any]:
        """Validate ``arguments`` against the schema, run the tool, and give its result as
        JSON data (a view, dumped the way every transport dumps it)."""
        if arguments is not None and not isinstance(arguments, Mapping):
            raise InvalidInput(f"{self.name}: arguments must be an object")
        try:
            parsed = self.arguments.model_validate(dict(arguments or {}))
        except ValidationError as exc:
            raise InvalidInput(f"{self.name}: {_describe(exc)}") from None
        values = {name: getattr(parsed, name) for name in type(parsed).model_fields}
        # A tool's searches count under its surface: MCP, or an agent's own tool loop.
        surfaced = brain.via("mcp" if ctx.source == "mcp" else "tool")
        return self.func(surfaced, ctx, **values).model_dump(mode="json")

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
TOOLS: Mapping[str, Tool] = _REGISTRY


def tool(
    *, read_only: bool, idempotent: bool = False, review: bool = False
) -> Callable[[ToolFunc], ToolFunc]:
    """Register a function ``(brain, ctx, **arguments) -> View`` as a tool."""

    def register(func: ToolFunc) -> ToolFunc:
        _REGISTRY[func.__name__] = Tool(
            name=func.__name__,
            description=_description(func),
            func=func,
            arguments=_arguments_model(func),
            read_only=read_only,
            idempotent=idempotent,
            review=review,
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


def error_payload(exc: BaseException) -> dict[str, Any]:
    """The one error shape of a failed tool call, ``ErrorView``: the tree's stable code.

    Anything outside the tree is an internal error; its details stay in the server log.
    """
    return ErrorView.of(exc).model_dump(mode="json")
