"""Items: list, one item, a file's sections, an item's edges, its history; forgetting one.
``written`` is how both write routes answer a write, waited for or not."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request, Response
from fastapi.responses import JSONResponse

from ...brain import Brain
from ...errors import InvalidInput
from ...model import Item
from ...views import (
    EdgeList,
    EdgeView,
    ForgottenView,
    HistoryView,
    ItemPage,
    ItemView,
    SectionList,
    WriteAccepted,
)
from ..auth import Reader, Writer, context_of
from ..problems import problem_responses

__all__ = ["ACCEPTED", "ItemId", "WaitParam", "router", "shown", "shown_all", "written"]

router = APIRouter(prefix="/v1", tags=["items"])

ItemId = Annotated[str, Path(min_length=1, max_length=200, description="An item id")]
_READ_ERRORS = problem_responses(400, 401, 403, 404, 422, 503)


WaitParam = Literal["ack", "derived"]
ACCEPTED: dict[int | str, dict[str, Any]] = {
    202: {
        "model": WriteAccepted,
        "description": "Written (durable, answerable), but with wait=derived its derivation "
        "was not done within the wait: it goes on in the background",
    }
}


def written(
    request: Request, response: Response, brain: Brain, item: Item, wait: WaitParam
) -> ItemView | JSONResponse:
    """The answer to a write: 201 with the item; with ``wait=derived``, once its
    derivation is done (at most ``derive_wait_s``, and half the request deadline), else
    202 with the item and ``derived: false``, for the write itself is acknowledged."""
    location = f"/v1/items/{item.id}"
    ctx = context_of(request)
    ctx.worker.wake()  # its derivation is queued: the workers need not wait for their poll
    if wait == "derived":
        budget = min(brain.settings.derive_wait_s, ctx.config.deadline_s / 2)
        if not brain.derived_within([item], budget):
            body = WriteAccepted(
                item=shown(request, brain.get(item.id)),
                derived=False,
                detail=f"{item.id} is written; its derivation was not done within "
                f"{budget:g} s and goes on (follow it on GET {location})",
            )
            return JSONResponse(
                body.model_dump(mode="json"), status_code=202, headers={"Location": location}
            )
        item = brain.get(item.id)
    response.headers["Location"] = location
    return shown(request, item)


def shown(request: Request, item: Item) -> ItemView:
    return shown_all(request, [item])[0]


def shown_all(request: Request, items: Sequence[Item]) -> list[ItemView]:
    """Items (already read through the caller's scopes) with their index state, read
    from the job queue in one look-up."""
    if not items:
        return []
    owner = context_of(request).brain.for_workspace(items[0].workspace)
    states = owner.index_states(items)
    return [ItemView.of(i, state=states.get(i.id, "added")) for i in items]


@router.get(
    "/items",
    response_model=ItemPage,
    summary="List items, oldest first, a page at a time",
    responses=_READ_ERRORS,
)
def list_items(
    request: Request,
    caller: Reader,
    kind: Annotated[str | None, Query(max_length=200, description="Exact kind")] = None,
    storage_class: Annotated[
        Literal["file", "section", "note", "entity", "statement"] | None,
        Query(alias="class", description="Storage class"),
    ] = None,
    indexed: Annotated[bool | None, Query(description="Only (un)answerable items")] = None,
    name: Annotated[
        str | None, Query(max_length=500, description="Name or label contains this")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    cursor: Annotated[str | None, Query(max_length=100, description="From next_cursor")] = None,
) -> ItemPage:
    try:
        page = caller.brain.items(
            kind=kind,
            storage_class=storage_class,
            indexed=indexed,
            name=name,
            limit=limit,
            cursor=cursor or None,  # ?cursor= (empty) is the first page
        )
    except OverflowError:
        # The SQLite store lets an over-long numeric cursor through to the driver.
        raise InvalidInput(f"invalid cursor {cursor!r}") from None
    return ItemPage(items=shown_all(request, page.items), next_cursor=page.next_cursor)


@router.get(
    "/items/{item_id}",
    response_model=ItemView,
    summary="One item, with its index state",
    responses=_READ_ERRORS,
)
def get_item(request: Request, caller: Reader, item_id: ItemId) -> ItemView:
    return shown(request, caller.brain.get(item_id))


@router.get(
    "/items/{item_id}/sections",
    response_model=SectionList,
    summary="A file's sections in order",
    responses=_READ_ERRORS,
)
def list_sections(request: Request, caller: Reader, item_id: ItemId) -> SectionList:
    sections = caller.brain.sections(item_id)
    return SectionList(file_id=item_id, sections=shown_all(request, sections))


@router.get(
    "/items/{item_id}/edges",
    response_model=EdgeList,
    summary="An item's edges whose both ends the caller may see",
    responses=_READ_ERRORS,
)
def list_edges(caller: Reader, item_id: ItemId) -> EdgeList:
    return EdgeList(item_id=item_id, edges=[EdgeView.of(e) for e in caller.brain.edges(item_id)])


@router.get(
    "/items/{item_id}/history",
    response_model=HistoryView,
    summary="An item's previous versions and the supersession chain through it, both ways",
    responses=_READ_ERRORS,
)
def item_history(caller: Reader, item_id: ItemId) -> HistoryView:
    """Versions newest first (the item holds the current one, numbered ``version``); each
    link with its origin and reason. A link is ``standing`` when the old item's
    ``superseded_by`` names it: the first successor stays, later claims are listed."""
    return HistoryView.of(caller.brain.history(item_id))


@router.delete(
    "/items/{item_id}",
    response_model=ForgottenView,
    summary="Forget an item (tombstone, logged), or erase its bytes and text too",
    responses=problem_responses(400, 401, 403, 404, 422, 503),
)
def forget_item(
    caller: Writer,
    item_id: ItemId,
    reason: Annotated[
        str, Query(min_length=1, max_length=2000, description="Why; kept in the audit record")
    ],
    erase: Annotated[
        bool,
        Query(description="Also delete the raw bytes, extracted text and name (default false)"),
    ] = False,
) -> ForgottenView:
    """The item (and a file's sections) leaves every search, listing and read at once. With
    ``erase=true`` its bytes and text are deleted and only the audit record is left."""
    act = caller.brain.erase if erase else caller.brain.forget
    return ForgottenView.of(act(item_id, reason=reason))
