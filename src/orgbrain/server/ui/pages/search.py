"""Search: the verdict and why, then each hit with its citation, the cited passage in its
place in the file (the byte range highlighted in its surroundings; page, sheet or heading
path named), a link to the raw file, and superseded-by, supersedes and conflict badges."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from ....views import PassageView, SearchResultView
from ..access import Viewing, ui_state
from ..routing import HtmlRoute

__all__ = ["VERDICTS", "router"]

router = APIRouter(route_class=HtmlRoute, include_in_schema=False)

VERDICTS = {
    "single": "The brain answers from one source.",
    # "many" says more than one hit stayed within reach of the best, not that each answers.
    "many": "The brain answers: the best match comes first.",
    "conflict": "The brain holds sources that disagree: read both.",
    "none": "The brain has nothing to say.",
}


@router.get("/ui/search")
def search_page(
    request: Request,
    viewer: Viewing,
    q: Annotated[str, Query(max_length=2000)] = "",
    mode: Literal["current", "history"] = "current",
) -> Response:
    brain = viewer.brain
    result = None
    passages: dict[str, PassageView] = {}
    if q.strip():
        result = SearchResultView.of(brain.search(q, mode=mode))
        for hit in result.hits:
            passages[hit.item.id] = PassageView.of(brain.passage(hit.item.id))
    return ui_state(request).renderer.html(
        "search.html",
        {
            "viewer": viewer,
            "nav": "search",
            "q": q,
            "mode": mode,
            "result": result,
            "passages": passages,
            "verdicts": VERDICTS,
        },
    )
