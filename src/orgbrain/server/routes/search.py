"""``POST /v1/search``: the six-stream hybrid search, seen through the key's scopes."""

from __future__ import annotations

from fastapi import APIRouter

from ...views import SearchResultView
from ..auth import Reader
from ..problems import problem_responses
from ..schemas import SearchIn

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["search"])


@router.post(
    "/search",
    response_model=SearchResultView,
    summary="Search what the caller may see; every hit carries its citation",
    responses=problem_responses(400, 401, 403, 409, 422, 503),
)
def search(caller: Reader, body: SearchIn) -> SearchResultView:
    result = caller.brain.search(
        body.query, k=body.k, plan=body.plan, kind=body.kind, mode=body.mode, as_of=body.as_of
    )
    return SearchResultView.of(result)
