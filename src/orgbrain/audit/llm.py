"""The LLM auditor: a chat model with the five tools, in a JSON loop.

The model gets the new file (its id, label, sections) and the seed's brief: the
mechanical pass is done; make the judgment calls about what the document is really
about, add mentions and links around it, never merge anything. Each reply is one JSON
object naming a tool (``search``, ``read``, ``neighborhood``, ``observe_mention``,
``link``), the one free ``think`` turn, or ``done``. A tool's error (a name that is not
written there, an id out of reach) is answered to the model and costs its step; a reply
that is not a tool call ends the pass (``last_error`` says why); a call past the budget
ends it too (``BudgetSpent``); a server that fails raises ``Unavailable``, so the job is
retried, and the retried pass replays what it logged.
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import Forbidden, InvalidInput, NotFound
from ..ports import Chat
from .tools import AuditSubject, AuditTools

__all__ = ["SYSTEM", "LLMAuditor"]

SECTIONS_SHOWN = 50
PREVIEW_CHARS = 200
READ_CHARS = 4000
HIT_CHARS = 300

SYSTEM = """You audit the graph around a file the brain has just indexed.
Its mechanical pass has run: the names its patterns found are mentioned already. Yours
are the judgment calls: what is this document really about? Add mentions of the people,
teams, projects, systems and other named things its sections refer to, and links from
its sections to the items they relate to. Never merge anything: if two things are the
same, say so with a SAME_AS link. Mentions and links must touch the file or its sections.
You have {steps} tool steps; before them, one free think turn to plan.
Reply with exactly one JSON object per turn, one of:
{{"tool": "think", "plan": "<what you will look at>"}}
{{"tool": "search", "query": "<what to look up in the brain>"}}
{{"tool": "read", "item_id": "<id>"}}
{{"tool": "neighborhood", "item_id": "<id>", "hops": 1}}
{{"tool": "observe_mention", "item_id": "<the file or a section>",
  "type": "person|team|project|system|company|topic", "value": "<the name>",
  "text": "<the words exactly as written in that item>"}}
{{"tool": "link", "src": "<id>", "dst": "<id>", "type": "RELATES_TO|DEPENDS_ON|SAME_AS|...",
  "note": "<why>"}}
{{"tool": "done"}}
"""


class LLMAuditor:
    name = "llm"

    def __init__(self, chat: Chat) -> None:
        self.chat = chat
        self.last_error: str | None = None

    def audit(self, subject: AuditSubject, tools: AuditTools) -> None:
        messages = [
            {"role": "system", "content": SYSTEM.format(steps=tools.budget.steps)},
            {"role": "user", "content": _subject_text(subject)},
        ]
        self.last_error = None
        thought = False
        for _ in range(tools.budget.steps + 2):  # the think turn and done besides the steps
            reply = self.chat.complete(messages, json=True)
            messages.append({"role": "assistant", "content": reply})
            try:
                call = json.loads(reply)
                if not isinstance(call, dict):
                    raise ValueError("not a JSON object")
                if call.get("tool") == "done":
                    return
                if call.get("tool") == "think" and not thought:
                    thought = True
                    tools.think(str(call.get("plan") or ""))
                    answer = json.dumps({"ok": True, "steps_left": tools.budget.left})
                else:
                    answer = self._call(call, tools)
            except (ValueError, TypeError) as exc:
                self.last_error = f"the model's reply was not a tool call: {exc}"
                return
            messages.append({"role": "user", "content": answer})
        self.last_error = f"no done after {tools.budget.steps + 2} turns"

    def _call(self, call: dict[str, Any], tools: AuditTools) -> str:
        tool = call.get("tool")
        try:
            result = self._run(tool, call, tools)
        except (InvalidInput, NotFound, Forbidden) as exc:
            result = {"error": f"{exc.code}: {exc.message}"}
        return json.dumps({**result, "steps_left": tools.budget.left})

    def _run(self, tool: object, call: dict[str, Any], tools: AuditTools) -> dict[str, Any]:
        if tool == "think":
            return {"error": "one think turn only: call a tool or say done"}
        if tool == "search":
            hits = tools.search(_text(call, "query")).hits
            return {
                "hits": [
                    {"id": h.item.id, "label": h.item.label, "text": h.item.body[:HIT_CHARS]}
                    for h in hits
                ]
            }
        if tool == "read":
            item = tools.read(_text(call, "item_id"))
            return {"id": item.id, "label": item.label, "text": item.body[:READ_CHARS]}
        if tool == "neighborhood":
            hops = call.get("hops", 1)
            hood = tools.neighborhood(_text(call, "item_id"), hops if isinstance(hops, int) else 1)
            return {
                "items": [{"id": i.id, "kind": i.kind, "label": i.label} for i in hood.items],
                "edges": [{"type": e.type, "src": e.src, "dst": e.dst} for e in hood.edges],
            }
        if tool == "observe_mention":
            m = tools.observe_mention(
                _text(call, "item_id"),
                _text(call, "type"),
                _text(call, "value"),
                _text(call, "text"),
            )
            return {"entity_id": m.entity.id, "created": m.edge_created}
        if tool == "link":
            note = call.get("note")
            made = tools.link(
                _text(call, "src"),
                _text(call, "dst"),
                _text(call, "type"),
                note if isinstance(note, str) else None,
            )
            return {"edge_id": made.edge.id, "created": made.created}
        raise ValueError(f"unknown tool {tool!r}")


def _text(call: dict[str, Any], key: str) -> str:
    value = call.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{call.get('tool')} needs {key}")
    return value


def _subject_text(subject: AuditSubject) -> str:
    f = subject.file
    lines = [
        f"The new file: {f.id} {f.label!r} ({f.name or f.kind}, scope {f.scope}).",
        f"Its sections ({len(subject.sections)}):",
    ]
    for s in subject.sections[:SECTIONS_SHOWN]:
        preview = " ".join(s.body[:PREVIEW_CHARS].split())
        lines.append(f"- {s.id} {s.label!r}: {preview}")
    if len(subject.sections) > SECTIONS_SHOWN:
        lines.append(f"- ... and {len(subject.sections) - SECTIONS_SHOWN} more")
    return "\n".join(lines)
