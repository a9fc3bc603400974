"""An item's page: its fields; a section's text in its place; a file's sections; the
statements it holds; its write story (acknowledged when, each derivation step); its
versions and the supersession chain both ways; its mentions and links. And its raw bytes.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from starlette.responses import RedirectResponse, Response, StreamingResponse

from ....errors import InvalidInput
from ....views import (
    EdgeView,
    HistoryView,
    ItemView,
    PassageView,
    StatementView,
    StoryView,
)
from ...routes.content import _inline
from ...routes.items import shown, shown_all
from ..access import Viewer, Viewing, ui_state
from ..routing import HtmlRoute

__all__ = ["INLINE_TYPES", "MAX_SECTIONS_SHOWN", "router"]

router = APIRouter(route_class=HtmlRoute, include_in_schema=False)

MAX_SECTIONS_SHOWN = 1000
# Shown in the browser as they are; text of any kind is shown as plain text (an HTML file
# is never rendered on this site); anything else is offered as a download.
INLINE_TYPES = frozenset({"application/pdf", "image/png", "image/jpeg", "image/gif"})
RAW_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "private, no-store",
}


def ends(viewer: Viewer, edges: list[EdgeView], center: str) -> dict[str, ItemView]:
    """The visible items at the other end of ``edges``, by id (labels for the page)."""
    other = sorted({e.dst if e.src == center else e.src for e in edges})
    found = viewer.brain.get_many(other)
    return {i.id: ItemView.of(i, body_chars=300) for i in found.values()}


@router.get("/ui/items/{item_id}")
def item_page(request: Request, viewer: Viewing, item_id: str) -> Response:
    brain = viewer.brain
    item = shown(request, brain.get(item_id))
    if item.storage_class == "entity":
        return RedirectResponse(f"/ui/entities/{item.id}", status_code=307)
    passage = PassageView.of(brain.passage(item.id))
    parent = shown(request, brain.get(item.parent_id)) if item.parent_id else None
    sections: list[ItemView] = []
    if item.storage_class == "file":
        sections = shown_all(request, brain.sections(item.id)[:MAX_SECTIONS_SHOWN])
    statements = [StatementView.of(s) for s in brain.statements(item_id=item.id, current=None)]
    story = StoryView.of(brain.story(item.id), body_chars=0)
    history = HistoryView.of(brain.history(item.id), body_chars=2000)
    edges = [EdgeView.of(e) for e in brain.edges(item.id) if e.type != "HAS_SECTION"]
    mentions = [e for e in edges if e.type == "MENTIONS"]
    links = [e for e in edges if e.type != "MENTIONS"]
    return ui_state(request).renderer.html(
        "item.html",
        {
            "viewer": viewer,
            "nav": "items",
            "item": item,
            "passage": passage,
            "parent": parent,
            "sections": sections,
            "statements": statements,
            "story": story,
            "history": history,
            "mentions": mentions,
            "links": links,
            "ends": ends(viewer, edges, item.id),
        },
    )


@router.get("/ui/items/{item_id}/raw")
def raw(
    viewer: Viewing,
    item_id: str,
    version: Annotated[int | None, Query(ge=1, le=2**31)] = None,
) -> Response:
    """A file's bytes as added (or one of its versions'); a section's exact text; a
    note's body."""
    brain = viewer.brain
    item = brain.get(item_id)
    headers = dict(RAW_HEADERS)
    if item.storage_class == "file":
        name, media = item.name or item.id, item.media_type or "application/octet-stream"
        if version is not None:
            _, kept = brain.version_of(item.id, version)
            if kept is not None:
                name, media = kept.name or name, kept.media_type or media
        plain = media.split(";")[0].strip()
        disposition = _inline(name)
        if plain.startswith("text/") or plain == "application/json":
            # Shown as text, whatever it is (markdown, CSV, HTML): never run here.
            media = "text/plain; charset=utf-8"
        elif plain not in INLINE_TYPES:
            disposition = "attachment" + disposition[len("inline") :]
        headers["Content-Disposition"] = disposition
        chunks = brain.read_file(item.id, version=version)
        return StreamingResponse(chunks, media_type=media, headers=headers)
    if version is not None:
        raise InvalidInput("only a file has versions to read raw")
    if item.storage_class == "section":
        return StreamingResponse(
            brain.read_file(item.id), media_type="text/plain; charset=utf-8", headers=headers
        )
    return Response(item.body, media_type="text/plain; charset=utf-8", headers=headers)
