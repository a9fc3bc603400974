"""The LLM writer: a chat model with two tools, search and propose, in a JSON loop.

Each reply is one JSON object naming a tool: ``{"tool": "search", "query": ...}`` is
answered with the brain's top hits; ``{"tool": "propose", ...}`` keeps a draft (three at
most); ``{"tool": "done"}`` ends the pass. The model is told the seed's four questions and
that proposing nothing is a valid outcome. A reply that is not such an object ends the
pass with what was proposed so far (``last_error`` says why); a server that fails raises
``Unavailable``, so the job is retried.
"""

from __future__ import annotations

import json
from typing import Any

from ..model import RunProducts
from ..ports import Chat
from .writer import KINDS, MAX_PROPOSALS, PERSONAL, Draft, WriterTools

__all__ = ["LLMWriter"]

MAX_TURNS = 8
HIT_CHARS = 300

SYSTEM = f"""You file what an organisation should remember from a finished run of work.
You get the run's work products. Ask yourself four questions of each thing you might keep:
1. Is it useful in a month?
2. Is it about the organisation, not just this task?
3. Is it useful to a new teammate?
4. Is it a fact, decision, rule, owner, definition or gotcha?
Keep only what passes all four and is new to the brain: search before you propose.
Saving nothing is a valid outcome; propose at most {MAX_PROPOSALS}.
Reply with exactly one JSON object per turn, one of:
{{"tool": "search", "query": "<what to look up>"}}
{{"tool": "propose", "kind": "{"|".join(KINDS)}", "body": "<one self-contained statement>",
  "scope": "org|team:<id>|user", "confidence": <0..1>, "evidence": ["<quoted line>"],
  "supersedes": ["<item id from a search hit it replaces>"]}}
{{"tool": "done"}}
Use scope "user" for a personal fact about the person the run worked for; "org" otherwise.
"""


class LLMWriter:
    name = "llm"

    def __init__(self, chat: Chat, max_turns: int = MAX_TURNS) -> None:
        self.chat = chat
        self.max_turns = max_turns
        self.last_error: str | None = None

    def write(self, products: RunProducts, tools: WriterTools) -> None:
        messages = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": _products_text(products)},
        ]
        self.last_error = None
        for _ in range(self.max_turns):
            reply = self.chat.complete(messages, json=True)
            messages.append({"role": "assistant", "content": reply})
            try:
                call = json.loads(reply)
                if not isinstance(call, dict):
                    raise ValueError("not a JSON object")
                answer = self._call(call, tools)
            except (ValueError, TypeError) as exc:
                self.last_error = f"the model's reply was not a tool call: {exc}"
                return
            if answer is None:
                return
            messages.append({"role": "user", "content": answer})
        self.last_error = f"no done after {self.max_turns} turns"

    def _call(self, call: dict[str, Any], tools: WriterTools) -> str | None:
        tool = call.get("tool")
        if tool == "done":
            return None
        if tool == "search":
            query = call.get("query")
            if not isinstance(query, str) or not query.strip():
                raise ValueError("search needs a query")
            hits = [
                {
                    "id": h.item.id,
                    "label": h.item.label,
                    "text": h.item.body[:HIT_CHARS],
                    "score": round(h.score, 3),
                    "superseded": h.superseded_by is not None,
                }
                for h in tools.search(query).hits[:5]
            ]
            return json.dumps({"hits": hits})
        if tool == "propose":
            kept = tools.propose(_draft(call))
            left = MAX_PROPOSALS - len(tools.drafts)
            if not kept:
                return json.dumps({"kept": False, "why": "three proposed already, or a repeat"})
            return json.dumps({"kept": True, "left": left})
        raise ValueError(f"unknown tool {tool!r}")


def _draft(call: dict[str, Any]) -> Draft:
    kind = str(call.get("kind", "fact")).strip().lower()
    body = call.get("body")
    if not isinstance(body, str):
        raise ValueError("propose needs a body")
    scope = str(call.get("scope") or "org").strip()
    try:
        confidence = float(call.get("confidence", 0.0))
    except (TypeError, ValueError):
        confidence = 0.0
    evidence = call.get("evidence") or []
    supersedes = call.get("supersedes") or []
    return Draft(
        kind=kind if kind in KINDS else "fact",
        body=body.strip(),
        confidence=max(0.0, min(confidence, 1.0)),
        scope=PERSONAL if scope in (PERSONAL, "personal") else scope,
        label=str(call.get("label") or "").strip(),
        evidence=tuple(str(e) for e in evidence if isinstance(e, str))[:5],
        supersedes=tuple(str(s) for s in supersedes if isinstance(s, str))[:5],
    )


def _products_text(p: RunProducts) -> str:
    parts = [f"Run {p.run_id} ended {p.outcome}.", f"Summary:\n{p.summary}"]
    if p.decisions:
        parts.append("Decisions:\n" + "\n".join(f"- {d}" for d in p.decisions))
    if p.artefacts:
        parts.append("Artefacts:\n" + "\n".join(f"- {a}" for a in p.artefacts))
    return "\n\n".join(parts)
