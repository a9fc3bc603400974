"""The agent tools: one typed definition each, used by every surface (MCP, direct calls).

A tool is a plain function ``(brain, ctx, **arguments) -> View``. Its input schema is
derived from its signature (the ``Annotated`` hints carry limits and descriptions) and its
description from its docstring, so ``orgbrain tools --format openai|anthropic|mcp`` and
the MCP server advertise exactly what the function accepts (``registry``). Its result is a
view from ``orgbrain.views`` (``library``), the shapes HTTP, the CLI and the client use.
A tool raises the ``OrgBrainError`` tree; transports turn that into their error shape
(``ErrorView``, see :func:`error_payload`), never into a success-shaped result.
"""

from .library import (
    ITEM_BODY_CHARS,
    MAX_READ_BYTES,
    SEARCH_BODY_CHARS,
    FileText,
    NoteWritten,
)
from .registry import (
    TOOLS,
    SchemaFormat,
    Tool,
    ToolContext,
    call_tool,
    error_payload,
    get_tool,
    render_tools,
    tools_markdown,
)
from .writeback import INBOX_LIMIT, WRITE_BACK_WAIT_S

__all__ = [
    "INBOX_LIMIT",
    "ITEM_BODY_CHARS",
    "MAX_READ_BYTES",
    "SEARCH_BODY_CHARS",
    "TOOLS",
    "WRITE_BACK_WAIT_S",
    "FileText",
    "NoteWritten",
    "SchemaFormat",
    "Tool",
    "ToolContext",
    "call_tool",
    "error_payload",
    "get_tool",
    "render_tools",
    "tools_markdown",
]
