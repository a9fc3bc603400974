"""Read injection: once per agent turn, what the brain already knows, cited, within budget.

``context_for_turn`` searches the latest message once, puts the visible anchors (linked
issue, project, open doc) first, lets the search floors decide whether the brain speaks
(nothing when the best hit is under 0.02, no hit under 60% of the top), keeps at most 8
items and renders them in a block of at most ``token_budget`` tokens, counted with a real
tokenizer. Every turn is logged in the brain (``turn`` events). It fails open: whatever
goes wrong, the turn gets an empty context and the failure is logged, never raised.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

from .context import BrainContext
from .model import ContextItem, Hit, Item, Provenance, TurnContext
from .ports import Tokenizer
from .retrieve import INJECT, Searcher, citation_for, get_plan, logged_search

__all__ = [
    "Candidate",
    "ContextItem",
    "InjectPolicy",
    "TurnContext",
    "context_for_turn",
    "recent_turns",
    "render_block",
]

log = logging.getLogger(__name__)

HEADER = (
    "<brain-context>\n"
    "What the organisation's brain already knows that may bear on this turn. "
    "Cite an item by its [n] and source when you rely on it."
)
FOOTER = "</brain-context>"
ELLIPSIS = " …"


@dataclass(frozen=True, slots=True)
class InjectPolicy:
    """The limits of one turn's injection."""

    max_items: int = 8
    max_anchors: int = 4
    token_budget: int = 1400
    body_chars: int = 4000
    query_log_chars: int = 1000
    min_share: float = 0.6
    """Hits scoring under this share of the best are left out: a search gives the k hits
    its caller asked for, but an injection nobody asked for keeps only the close ones."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """An item on its way into the block: an anchor, or a search hit with its score."""

    item: Item
    origin: Provenance
    score: float | None
    status: str = ""
    """What changed around it, for the model: "superseded by …", "replaces …", "partly
    superseded: …", "an older answer …"."""


def _status(hit: Hit) -> str:
    notes = []
    if hit.superseded_by is not None:
        notes.append(
            f"SUPERSEDED by {hit.superseded_by.describe()} (id {hit.superseded_by.item_id})"
        )
    if hit.supersedes is not None:
        notes.append(f"replaces {hit.supersedes.describe()} (id {hit.supersedes.item_id})")
    if hit.newer_answer is not None:
        newer = hit.newer_answer
        notes.append(
            f"AN OLDER ANSWER, from {hit.item.when:%Y-%m-%d}; newer, from "
            f"{newer.written:%Y-%m-%d}: {newer.citation.describe()} (id {newer.citation.item_id})"
        )
    notes += [
        f"PARTLY SUPERSEDED: {r.describe()} by {r.citation.describe()} (id {r.citation.item_id})"
        for r in hit.replaced_in_part
    ]
    notes += [
        f"replaces {r.describe()} from {r.citation.describe()} (id {r.citation.item_id})"
        for r in hit.replaces_in_part
    ]
    if hit.conflicts:
        notes.append(f"DISAGREES with {', '.join(hit.conflicts)}")
    return "; ".join(notes)


@dataclass(frozen=True, slots=True)
class _Asked:
    """One turn's input, cleaned: the query, the anchors wanted and those dropped."""

    query: str
    wanted: list[str]
    dropped: list[dict[str, str]]


def context_for_turn(
    ctx: BrainContext,
    message: str,
    anchors: Sequence[str] = (),
    *,
    policy: InjectPolicy | None = None,
    tokenizer: Tokenizer | None = None,
) -> TurnContext:
    """The context block for one turn, as seen by ``ctx``'s principal. Never raises: the
    block is built (``build_turn``), a failure becomes an empty block, and the turn is
    logged either way."""
    p = policy or InjectPolicy()
    t0 = time.perf_counter()
    asked = _asked(message, anchors, p)
    # Counted like any search (surface "inject"): it spoke when something was injected.
    with logged_search(ctx, INJECT, k=p.max_items) as seen:
        try:
            turn, verdict = build_turn(ctx, asked, p, tokenizer or ctx.tokenizer)
        except Exception as exc:  # fail open: a memory must never break the turn
            log.warning("read injection failed; the turn goes on without memories", exc_info=True)
            turn, verdict = _failed(exc, asked, p), "none"
        seen.hits, seen.spoke, seen.verdict = len(turn.items), bool(turn.items), verdict
        seen.error = turn.error.partition(":")[0] if turn.error else None
    latency = round((time.perf_counter() - t0) * 1000.0, 3)
    return _log_turn(ctx, replace(turn, latency_ms=latency), asked, verdict, p)


def _asked(message: object, anchors: object, p: InjectPolicy) -> _Asked:
    query = message.strip() if isinstance(message, str) else ""
    # Ids, not anything else a caller's bug might pass; a string is not a list of ids.
    given = () if isinstance(anchors, str) or not isinstance(anchors, Sequence) else anchors
    wanted = list(dict.fromkeys(a for a in given if isinstance(a, str) and 0 < len(a) <= 200))
    dropped = [
        {"id": a, "why": f"over the {p.max_anchors}-anchor cap"} for a in wanted[p.max_anchors :]
    ]
    return _Asked(query, wanted, dropped)


def build_turn(
    ctx: BrainContext, asked: _Asked, p: InjectPolicy, tokenizer: Tokenizer
) -> tuple[TurnContext, str]:
    """The block for ``asked`` and the search's verdict: visible anchors first, then what
    one search of the message finds, within the budget. May raise."""
    visible, missing = _resolve_anchors(ctx, asked.wanted[: p.max_anchors])
    asked.dropped.extend({"id": a, "why": "unknown or not visible"} for a in missing)
    candidates = [Candidate(i, "anchor", None) for i in visible]
    scores: tuple[float, ...] = ()
    top, verdict = 0.0, "none"
    if asked.query:
        plan = get_plan(ctx.settings.plan)
        result = Searcher(ctx).search(asked.query[:4000], plan, k=p.max_items)
        scores = tuple(round(h.score, 6) for h in result.hits)
        top, verdict, reason, why = result.top_score, result.verdict, result.reason, result.why
        taken = {c.item.id for c in candidates}
        best = result.hits[0].score if result.hits else 0.0
        candidates += [
            Candidate(h.item, "search", h.score, _status(h))
            for h in result.hits
            if h.item.id not in taken and h.score >= p.min_share * best
        ]
    else:
        reason = "empty message: no search"
        why = "The message is empty: nothing to search"
    text, items, tokens = render_block(
        candidates[: p.max_items], p.token_budget, tokenizer, p.body_chars
    )
    if items:
        n_anchors = sum(1 for i in items if i.origin == "anchor")
        reason = f"anchors: {n_anchors}, hits: {len(items) - n_anchors}; search: {reason}"
        if n_anchors:
            given = "the anchor" if n_anchors == 1 else f"the {n_anchors} anchors"
            why = f"Gave {given} asked for. {why}"
    turn = TurnContext(
        text=text,
        items=items,
        tokens=tokens,
        decision="injected" if items else "nothing",
        reason=reason,
        why=why,
        top_score=round(top, 6),
        scores=scores,
        dropped_anchors=tuple(d["id"] for d in asked.dropped),
        budget=p.token_budget,
    )
    return turn, verdict


def _failed(exc: Exception, asked: _Asked, p: InjectPolicy) -> TurnContext:
    return TurnContext(
        text="",
        items=(),
        tokens=0,
        decision="failed",
        reason=f"failed: {type(exc).__name__}: {exc}",
        why="The search failed, so the turn goes on without memories",
        dropped_anchors=tuple(d["id"] for d in asked.dropped),
        budget=p.token_budget,
        error=f"{type(exc).__name__}: {exc}",
    )


def _log_turn(
    ctx: BrainContext, turn: TurnContext, asked: _Asked, verdict: str, p: InjectPolicy
) -> TurnContext:
    """Append the turn to the workspace's log (``turn`` events); a log that fails is
    itself logged, and the turn keeps no event id."""
    record: dict[str, object] = {
        "actor": ctx.actor,
        "query": asked.query[: p.query_log_chars],
        "anchors": asked.wanted,
        "dropped_anchors": asked.dropped,
        "decision": turn.decision,
        "reason": turn.reason,
        "why": turn.why,
        "verdict": verdict,
        "top_score": turn.top_score,
        "scores": list(turn.scores),
        "injected": [{"id": i.id, "origin": i.origin, "score": i.score} for i in turn.items],
        "tokens": turn.tokens,
        "budget": p.token_budget,
        "latency_ms": turn.latency_ms,
        "error": turn.error,
    }
    try:
        return replace(turn, event_id=ctx.events.log_event(ctx.workspace, "turn", record))
    except Exception:
        log.warning("could not log turn %s", record, exc_info=True)
        return turn


def _resolve_anchors(ctx: BrainContext, ids: list[str]) -> tuple[list[Item], list[str]]:
    found = ctx.get_many(ids)
    visible, missing = [], []
    for item_id in ids:
        item = found.get(item_id)
        if item is None:
            missing.append(item_id)
        else:
            visible.append(item)
    return visible, missing


def _head(n: int, item: Item, cite: str, status: str = "") -> str:
    # The citation names the file (or the note's label), where in it, and the bytes.
    head = f"[{n}] {cite} ({item.kind}, {item.scope}, id {item.id})"
    return f"{head}\n{status}" if status else head


def render_block(
    candidates: Sequence[Candidate],
    budget: int,
    tokenizer: Tokenizer,
    body_chars: int = 4000,
) -> tuple[str, tuple[ContextItem, ...], int]:
    """Render ``candidates`` in order within ``budget`` tokens, bodies trimmed fairly.

    Returns the block, the items it holds and its token count; the block is empty when
    nothing fits. Headings (label, kind, scope, id, citation) are never cut; bodies share
    what is left, short ones whole and long ones evenly.
    """
    entries = list(candidates)
    cites = [citation_for(c.item).describe() for c in entries]
    heads = [
        _head(n, c.item, cite, c.status)
        for n, (c, cite) in enumerate(zip(entries, cites, strict=True), 1)
    ]
    bodies = [c.item.body[:body_chars].strip() for c in entries]
    fixed = tokenizer.count(_join(heads, [""] * len(heads)))
    while entries and fixed > budget:
        entries.pop(), cites.pop(), heads.pop(), bodies.pop()
        fixed = tokenizer.count(_join(heads, [""] * len(heads)))
    if not entries:
        return "", (), 0
    wants = [tokenizer.count(b) for b in bodies]
    room = budget - fixed
    for _ in range(4):
        allowed = _share(wants, room)
        cut = [
            b if a >= w else _cut(tokenizer, b, a)
            for b, w, a in zip(bodies, wants, allowed, strict=True)
        ]
        text = _join(heads, cut)
        tokens = tokenizer.count(text)
        if tokens <= budget:
            items = tuple(
                ContextItem(
                    id=c.item.id,
                    label=c.item.label,
                    kind=c.item.kind,
                    storage_class=c.item.storage_class,
                    scope=c.item.scope,
                    origin=c.origin,
                    score=None if c.score is None else round(c.score, 6),
                    citation=cite,
                    body=body,
                    truncated=body != full,
                )
                for c, cite, body, full in zip(entries, cites, cut, bodies, strict=True)
            )
            return text, items, tokens
        # Pieces joined can tokenize a little longer than apart: give back the excess.
        room -= tokens - budget + 4
    return render_block(entries[:-1], budget, tokenizer, body_chars)


def _share(wants: list[int], room: int) -> list[int]:
    """Water-filling: each body gets what it wants or an equal share of what is left."""
    allowed = [0] * len(wants)
    left = max(room, 0)
    order = sorted(range(len(wants)), key=lambda i: wants[i])
    for n, i in enumerate(order):
        share = left // (len(order) - n)
        allowed[i] = min(wants[i], share)
        left -= allowed[i]
    return allowed


def _cut(tokenizer: Tokenizer, body: str, tokens: int) -> str:
    keep = tokenizer.truncate(body, tokens - 2)
    return (keep.rstrip() + ELLIPSIS) if keep.strip() else ""


def _join(heads: list[str], bodies: list[str]) -> str:
    parts = [HEADER]
    for head, body in zip(heads, bodies, strict=True):
        parts.append(f"{head}\n{body}" if body else head)
    parts.append(FOOTER)
    return "\n\n".join(parts)


def recent_turns(ctx: BrainContext, limit: int = 20) -> list[dict[str, object]]:
    """The latest logged turns, newest first: all of them for the local owner, only the
    caller's own for a principal (a turn log holds other people's questions)."""
    actor = None if ctx.principal is None else ctx.actor
    return ctx.events.events(ctx.workspace, "turn", limit=limit, actor=actor)
