"""``POST /v1/notes``: a fact written straight in, answerable once this returns."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse

from ...views import ItemView
from ..auth import Writer
from ..problems import problem_responses
from ..schemas import NoteIn
from .items import ACCEPTED, written

__all__ = ["router"]

router = APIRouter(prefix="/v1", tags=["notes"])


@router.post(
    "/notes",
    status_code=201,
    response_model=ItemView,
    summary="Write a note: embedded, fsynced and answerable when this returns",
    responses={**ACCEPTED, **problem_responses(400, 401, 403, 409, 413, 422, 503)},
)
def add_note(
    request: Request, response: Response, caller: Writer, note: NoteIn
) -> ItemView | JSONResponse:
    """``supersedes`` names visible files or notes this note replaces (each in its scope,
    or this note is org); all are checked before anything is written. ``wait=derived``
    answers once its derivation is done, or 202 with ``derived: false`` when the wait
    runs out (the note is written either way)."""
    item = caller.brain.add_note(
        note.body,
        kind=note.kind,
        label=note.label,
        scope=note.scope,
        source_key=note.source_key,
        occurred_at=note.occurred_at,
        source="http",
        supersedes=note.supersedes,
    )
    return written(request, response, caller.brain, item, note.wait)
