"""The agent surface: tools every transport serves, the graph agents grow, read injection."""

from .graph import Hop, Link, Mention, Neighborhood, link, neighborhood, observe_mention
from .inject import ContextItem, InjectPolicy, TurnContext, context_for_turn, recent_turns
from .tools import TOOLS, Tool, ToolContext, call_tool, error_payload, get_tool, render_tools

__all__ = [
    "TOOLS",
    "ContextItem",
    "Hop",
    "InjectPolicy",
    "Link",
    "Mention",
    "Neighborhood",
    "Tool",
    "ToolContext",
    "TurnContext",
    "call_tool",
    "context_for_turn",
    "error_payload",
    "get_tool",
    "link",
    "neighborhood",
    "observe_mention",
    "recent_turns",
    "render_tools",
]
