"""The MCP server: the agent tools over stdio (local agents) and streamable HTTP (``/mcp``).

Both transports serve the one registry in ``orgbrain.agents.tools``: the schemas it
derives, the functions it runs. A result's structured content is the tool's view (the
shapes of ``orgbrain.views``, as HTTP sends them). A failed call is an MCP tool error
(``isError: true``) whose structured content is ``{"error": ErrorView}`` (``code`` and
``message`` as fields) and whose text, for a model to read, is ``"<code>: <message>"``; it
is never a success-shaped result.

Over HTTP every request is authenticated by its own ``Authorization: Bearer ob_...`` API
key, the same keys (and the same ``caller_for``) as the REST API, and each tool call runs
as that key's principal; write tools need the key's ``write`` permission, and the review
tools (``brain_approve``, ``brain_reject``) ``write`` or ``review``.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.requests import Request
from starlette.types import Receive, Scope, Send

from ..agents.tools import TOOLS, Tool, ToolContext, get_tool
from ..brain import Brain
from ..errors import Forbidden, InvalidInput, OrgBrainError
from ..views import ErrorView
from .problems import problem_response, status_for

__all__ = [
    "RUN_ID_HEADER",
    "SERVER_NAME",
    "CallScope",
    "McpHttpApp",
    "build_server",
    "serve_stdio",
    "tool_error",
    "tool_result",
]

SERVER_NAME = "orgbrain"
RUN_ID_HEADER = "x-orgbrain-run-id"
_INSTRUCTIONS = (
    "orgbrain is the organisation's shared memory. Search it (brain_search) before "
    "re-deriving what the organisation may already know, cite what you use, and file "
    "durable facts you learn (add_to_brain); when a run ends, hand its work products to "
    "brain_write_back."
)
log = logging.getLogger("orgbrain.mcp")


@dataclass(frozen=True, slots=True)
class CallScope:
    """Who one tool call runs as: the brain seen through its principal, and its run."""

    brain: Brain
    context: ToolContext
    can_write: bool = True
    can_review: bool = True


Resolve = Callable[[Request | None], CallScope]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("orgbrain")
    except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "0"


def _mcp_tool(t: Tool) -> types.Tool:
    # The registry renders the MCP shape once, for this server and `orgbrain tools` alike.
    return types.Tool.model_validate(t.schema("mcp"))


def tool_result(result: dict[str, Any]) -> types.CallToolResult:
    text = json.dumps(result, ensure_ascii=False)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=result,
        is_error=False,
    )


def tool_error(exc: BaseException) -> types.CallToolResult:
    """The one MCP shape of a failure: ``isError`` with the error tree's code."""
    error = ErrorView.of(exc)
    if not isinstance(exc, OrgBrainError):
        log.error("tool call crashed", exc_info=exc)
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=f"{error.code}: {error.message}")],
        structured_content={"error": error.model_dump(mode="json")},
        is_error=True,
    )


def _run(scope: CallScope, tool: Tool, arguments: dict[str, Any] | None) -> dict[str, Any]:
    if tool.review:
        if not (scope.can_write or scope.can_review):
            raise Forbidden(f"{tool.name} decides a proposal; this key lacks review or write")
    elif not tool.read_only and not scope.can_write:
        raise Forbidden(f"{tool.name} writes to the brain; this key lacks the write permission")
    return tool.call(scope.brain, scope.context, arguments)


def build_server(resolve: Resolve) -> Server[Any]:
    """A low-level MCP server for the registry; ``resolve`` says who each call runs as
    (from the HTTP request, or ``None`` over stdio)."""
    listed = [_mcp_tool(t) for t in TOOLS.values()]

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        request = ctx.request if isinstance(ctx.request, Request) else None
        try:
            tool = get_tool(params.name)
            scope = await anyio.to_thread.run_sync(resolve, request)
            result = await anyio.to_thread.run_sync(partial(_run, scope, tool, params.arguments))
        except Exception as exc:
            return tool_error(exc)
        return tool_result(result)

    return Server(
        SERVER_NAME,
        version=_version(),
        instructions=_INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


# -- stdio --------------------------------------------------------------------------------


def serve_stdio(brain: Brain, context: ToolContext | None = None) -> None:
    """Serve the tools on stdin/stdout until the client hangs up (``orgbrain mcp``).

    While serving, the SDK points fd 1 at stderr, so nothing printed by accident can
    corrupt the protocol stream.
    """
    call_scope = CallScope(brain, context or ToolContext(source="mcp"))
    server = build_server(lambda _request: call_scope)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)


# -- streamable HTTP ----------------------------------------------------------------------

Authenticate = Callable[[Request], CallScope]


def _caller_scope(request: Request) -> CallScope:
    """The REST API's authentication, reused: the hosting app's key store and brain."""
    from .auth import caller_for, context_of

    caller = caller_for(context_of(request), request.headers.get("authorization"), "read")
    key = caller.key
    return CallScope(
        caller.brain, _http_context(request), key.allows("write"), key.allows("review")
    )


def _http_context(request: Request) -> ToolContext:
    run_id = request.headers.get(RUN_ID_HEADER) or None
    if run_id is not None and (len(run_id) > 128 or not run_id.isprintable()):
        raise InvalidInput(f"{RUN_ID_HEADER} must be at most 128 printable characters")
    return ToolContext(run_id=run_id, source="mcp")


class McpHttpApp:
    """The streamable-HTTP MCP endpoint as an ASGI app, to mount at ``/mcp``.

    Stateless with JSON responses: every POST stands alone and is authenticated on its
    own, so nothing ties a session to a key and any worker can serve any request. The
    SDK's session manager must be running: the host enters :meth:`running` in its
    lifespan (a mounted app's own lifespan is not run by Starlette); served on its own,
    the app handles the ASGI lifespan itself.

    ``authenticate`` turns a request into who it runs as; by default it is the REST
    API's ``caller_for`` on the hosting app's ``ServerContext`` (``app.state.orgbrain``).
    An unauthenticated request gets a 401 problem response before MCP sees it.
    """

    def __init__(self, authenticate: Authenticate | None = None) -> None:
        self._authenticate = authenticate or _caller_scope
        self.server = build_server(self._scope_of)
        self._manager: StreamableHTTPSessionManager | None = None

    def _scope_of(self, request: Request | None) -> CallScope:
        if request is None:
            raise Forbidden("an MCP call over HTTP needs its request")
        found = request.scope.get("orgbrain.mcp")
        if not isinstance(found, CallScope):
            raise Forbidden("this request was not authenticated")
        return found

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Run the SDK's session manager (a fresh one each time, as it runs only once)."""
        manager = StreamableHTTPSessionManager(self.server, stateless=True, json_response=True)
        async with manager.run():
            self._manager = manager
            try:
                yield
            finally:
                self._manager = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        if self._manager is None:
            await problem_response(503, "unavailable", "the MCP endpoint is not running")(
                scope, receive, send
            )
            return
        request = Request(scope)
        try:
            call_scope = await anyio.to_thread.run_sync(self._authenticate, request)
        except OrgBrainError as exc:
            status = status_for(exc)
            await problem_response(status, exc.code, exc.message)(scope, receive, send)
            return
        await self._manager.handle_request({**scope, "orgbrain.mcp": call_scope}, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        message = await receive()
        if message["type"] != "lifespan.startup":
            return
        started = False
        try:
            async with self.running():
                started = True
                await send({"type": "lifespan.startup.complete"})
                while (await receive())["type"] != "lifespan.shutdown":
                    pass
        except Exception as exc:
            if started:
                raise
            await send({"type": "lifespan.startup.failed", "message": str(exc)})
            return
        await send({"type": "lifespan.shutdown.complete"})
