"""Entities: a list to find one by name, and a dossier of everything the brain holds about
a person, team, project or system: current statements first, the superseded and ended
ones below with their dates, conflicts, owners and definitions, and the mentions with the
passages they were read from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import APIRouter, Query, Request
from starlette.responses import RedirectResponse, Response

from ....errors import InvalidInput
from ....model import Edge
from ....views import EdgeView, ItemView, StatementView
from ..access import Viewing, ui_state
from ..routing import HtmlRoute

__all__ = ["MAX_MENTIONS", "Snippet", "router", "snippet"]

router = APIRouter(route_class=HtmlRoute, include_in_schema=False)

MAX_MENTIONS = 50
MENTION_EDGES_READ = 200
MAX_STATEMENTS = 200
SNIPPET_AROUND = 160
OWNERSHIP = frozenset({"owner", "backup_owner", "contact"})
DEFINITIONS = frozenset({"means"})


@dataclass(frozen=True, slots=True)
class Snippet:
    """A mention's text in its item: before, the mentioned span, after."""

    before: str
    text: str
    after: str


def snippet(body: str, text: str, start: object, end: object) -> Snippet:
    """Where a mention stands in its item's body: its span when the edge recorded one that
    fits, else the first place its text appears, else the text alone."""
    if isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(body):
        a, b = start, end
    else:
        at = body.find(text)
        if at < 0:
            return Snippet("", text, "")
        a, b = at, at + len(text)
    lo, hi = max(0, a - SNIPPET_AROUND), min(len(body), b + SNIPPET_AROUND)
    before = ("…" if lo else "") + body[lo:a]
    after = body[b:hi] + ("…" if hi < len(body) else "")
    return Snippet(before, body[a:b], after)


@router.get("/ui/entities")
def entity_list(
    request: Request,
    viewer: Viewing,
    name: Annotated[str | None, Query(max_length=500)] = None,
    cursor: Annotated[str | None, Query(max_length=100)] = None,
) -> Response:
    try:
        page = viewer.brain.items(
            storage_class="entity", name=name or None, limit=100, cursor=cursor or None
        )
    except OverflowError:
        raise InvalidInput(f"invalid cursor {cursor!r}") from None
    return ui_state(request).renderer.html(
        "entities.html",
        {
            "viewer": viewer,
            "nav": "entities",
            "entities": [ItemView.of(i, body_chars=0) for i in page.items],
            "name": name or "",
            "next_cursor": page.next_cursor,
        },
    )


@router.get("/ui/entities/{entity_id}")
def dossier(request: Request, viewer: Viewing, entity_id: str) -> Response:
    brain = viewer.brain
    entity = brain.get(entity_id)
    if entity.storage_class != "entity":
        return RedirectResponse(f"/ui/items/{entity.id}", status_code=307)
    current = [
        StatementView.of(s)
        for s in brain.statements(about=entity.id, current=True, limit=MAX_STATEMENTS)
    ]
    past = [
        StatementView.of(s)
        for s in brain.statements(about=entity.id, current=False, limit=MAX_STATEMENTS)
    ]
    past.sort(key=lambda s: s.valid_to or s.valid_from, reverse=True)
    by_id = {s.id: s for s in current}
    conflicts: list[tuple[StatementView, StatementView]] = []
    seen: set[frozenset[str]] = set()
    for s in current:
        for other in s.conflicts:
            pair = frozenset((s.id, other))
            if other in by_id and pair not in seen:
                seen.add(pair)
                conflicts.append((s, by_id[other]))
    owners = [s for s in current if s.predicate in OWNERSHIP]
    definitions = [s for s in current if s.predicate in DEFINITIONS and s.subject_id == entity.id]
    # The first mentions only (a person named in thousands of sections has a dossier,
    # not a dump): the page says when there are more.
    edges = brain.edges(entity.id, types=["MENTIONS"], limit=MENTION_EDGES_READ)
    more_mentions = len(edges) >= MENTION_EDGES_READ
    first: dict[str, Edge] = {}
    for e in edges:
        if e.dst == entity.id and e.src not in first and len(first) < MAX_MENTIONS:
            first[e.src] = e
    mentioning = brain.get_many(list(first))
    mentions: list[tuple[ItemView, EdgeView, Snippet]] = []
    for src, e in first.items():
        item = mentioning.get(src)
        if item is None:
            continue
        text = str(e.props.get("text", ""))
        mentions.append(
            (
                ItemView.of(item, body_chars=0),
                EdgeView.of(e),
                snippet(item.body, text, e.props.get("start"), e.props.get("end")),
            )
        )
    sources = brain.get_many(sorted({s.item_id for s in [*current, *past]}))
    return ui_state(request).renderer.html(
        "entity.html",
        {
            "viewer": viewer,
            "nav": "entities",
            "entity": ItemView.of(entity),
            "current": current,
            "past": past,
            "conflicts": conflicts,
            "owners": owners,
            "definitions": definitions,
            "mentions": mentions,
            "more_mentions": more_mentions or len(first) >= MAX_MENTIONS,
            "sources": {i.id: i.label for i in sources.values()},
        },
    )
