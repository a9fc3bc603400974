"""The items grid: files and notes with kind, scope, origin, when and where each stands
(added, queued, indexing, indexed, failed with its error); filters, order, pages; upload
(drag and drop, with progress), index one, index all pending, and live job progress."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Form, Query, Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse, RedirectResponse, Response

from ....brain import Brain
from ....errors import InvalidInput
from ....views import ItemView
from ...auth import context_of
from ...routes.files import read_upload
from ...routes.items import shown, shown_all
from ..access import Viewing, checked, ui_state
from ..routing import HtmlRoute, wants_json

__all__ = ["router"]

router = APIRouter(route_class=HtmlRoute, include_in_schema=False)

Shown = Literal["all", "file", "note"]
StateFilter = Literal["all", "indexed", "unindexed"]
Order = Literal["oldest", "newest"]
LIVE_STATES = ("queued", "indexing")
MAX_STATE_IDS = 200
MAX_PENDING_COUNTED = 1000


@router.get("/ui/items")
def items_grid(
    request: Request,
    viewer: Viewing,
    shown_class: Annotated[Shown, Query(alias="class")] = "all",
    state: StateFilter = "all",
    kind: Annotated[str | None, Query(max_length=200)] = None,
    name: Annotated[str | None, Query(max_length=500)] = None,
    order: Order = "newest",
    limit: Annotated[int, Query(ge=10, le=200)] = 50,
    cursor: Annotated[str | None, Query(max_length=100)] = None,
    done: Annotated[str | None, Query(max_length=200)] = None,
) -> Response:
    brain = viewer.brain
    try:
        page = brain.items(
            storage_classes=("file", "note") if shown_class == "all" else (shown_class,),
            kind=kind or None,
            name=name or None,
            indexed={"all": None, "indexed": True, "unindexed": False}[state],
            limit=limit,
            cursor=cursor or None,
            newest_first=order == "newest",
        )
    except OverflowError:
        raise InvalidInput(f"invalid cursor {cursor!r}") from None
    rows = shown_all(request, page.items)
    filters: dict[str, Any] = {
        "class": shown_class,
        "state": state,
        "kind": kind or "",
        "name": name or "",
        "order": order,
        "limit": limit,
    }
    return ui_state(request).renderer.html(
        "items.html",
        {
            "viewer": viewer,
            "nav": "items",
            "rows": rows,
            "next_cursor": page.next_cursor,
            "first_page": cursor is None,
            "filters": filters,
            "pending": _pending(brain),
            "live": any(r.state in LIVE_STATES for r in rows),
            "done": done,
            "max_mb": context_of(request).config.max_file_bytes // (1024 * 1024),
        },
    )


@router.get("/ui/states.json")
def states(
    request: Request, viewer: Viewing, ids: Annotated[str, Query(max_length=10_000)] = ""
) -> JSONResponse:
    """Where each of ``ids`` stands (only those the viewer may see), and the viewer's jobs
    still to run: what the grid polls while something is queued or indexing."""
    wanted = [i for i in ids.split(",") if i][:MAX_STATE_IDS]
    found = viewer.brain.get_many(wanted)
    views = shown_all(request, list(found.values()))
    jobs = viewer.brain.jobs(state="queued", limit=1000).jobs
    running = viewer.brain.jobs(state="running", limit=1000).jobs
    return JSONResponse(
        {
            "items": {
                v.id: {"state": v.state, "error": v.index_error, "indexed": v.indexed}
                for v in views
            },
            "queued": len(jobs),
            "running": len(running),
        },
        headers={"Cache-Control": "no-store"},
    )


@router.post("/ui/files")
async def upload(request: Request, viewer: Viewing) -> Response:
    """One file per request (the page sends each dropped file on its own, with progress);
    the plain form without scripts posts here too."""
    ctx = context_of(request)
    form = await read_upload(request, ctx.config.max_file_bytes, extra=("csrf", "index"))
    checked(request, viewer, form.fields.get("csrf"))
    viewer.require("write")
    f = form.fields
    name = f.get("name") or form.filename
    if not name:
        raise InvalidInput("choose a file to upload")
    brain = viewer.brain
    item = await run_in_threadpool(
        lambda: brain.add_file(
            form.data,
            name=name,
            kind=f.get("kind") or "file",
            label=f.get("label") or None,
            scope=f.get("scope") or None,
        )
    )
    if f.get("index") in ("1", "on", "true") and not item.indexed:
        await run_in_threadpool(brain.request_index, item.id)
        ctx.worker.wake()
    view: ItemView = await run_in_threadpool(shown, request, brain.get(item.id))
    if wants_json(request):
        return JSONResponse({"item": view.model_dump(mode="json")}, status_code=201)
    return RedirectResponse(f"/ui/items?done=added+{item.id}", status_code=303)


@router.post("/ui/items/{item_id}/index")
def index_one(
    request: Request,
    viewer: Viewing,
    item_id: str,
    csrf: Annotated[str, Form(max_length=200)] = "",
    back: Annotated[str, Form(max_length=2000)] = "/ui/items",
) -> Response:
    checked(request, viewer, csrf)
    viewer.require("write")
    if viewer.brain.request_index(item_id) is not None:
        context_of(request).worker.wake()
    return RedirectResponse(_back(back), status_code=303)


@router.post("/ui/index-pending")
def index_pending(
    request: Request,
    viewer: Viewing,
    csrf: Annotated[str, Form(max_length=200)] = "",
    back: Annotated[str, Form(max_length=2000)] = "/ui/items",
) -> Response:
    checked(request, viewer, csrf)
    viewer.require("write")
    asked = 0
    for item in viewer.brain.pending():
        if viewer.brain.request_index(item.id) is not None:
            asked += 1
    if asked:
        context_of(request).worker.wake()
    return RedirectResponse(_back(back), status_code=303)


def _pending(brain: Brain) -> str:
    """How many files wait for indexing, counted up to ``MAX_PENDING_COUNTED``."""
    page = brain.items(storage_class="file", indexed=False, limit=MAX_PENDING_COUNTED)
    n = sum(1 for i in page.items if i.index_error is None)
    return f"{n}+" if page.next_cursor else str(n)


def _back(target: str) -> str:
    return target if target.startswith("/ui/") and not target.startswith("//") else "/ui/items"
