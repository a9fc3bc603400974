"""Errors as ``application/problem+json`` (RFC 9457), mapped from the exception tree here
and nowhere else.

Every body has ``type``, ``title``, ``status``, ``detail`` and ``code`` (the exception's
stable ``.code``, which ``OrgBrainError.from_code`` turns back into its class). A 404 for
an unknown id and for an id the caller may not see are the same body, because both come
from the same ``NotFound``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import JSONResponse

from ..errors import (
    Conflict,
    CorruptFile,
    Forbidden,
    InvalidInput,
    InvalidRequest,
    NotFound,
    OrgBrainError,
    RangeNotSatisfiable,
    TooLarge,
    Unauthenticated,
    Unavailable,
    Unsupported,
)

__all__ = [
    "PROBLEM_MEDIA_TYPE",
    "STATUS_FOR",
    "InvalidRequest",
    "Problem",
    "ProblemResponse",
    "RangeNotSatisfiable",
    "error_response",
    "install_problem_handlers",
    "problem_body",
    "problem_response",
    "problem_responses",
    "status_for",
]

PROBLEM_MEDIA_TYPE = "application/problem+json"
log = logging.getLogger("orgbrain.http")

# Checked in order: the first class an error is an instance of decides, so subclasses of
# InvalidInput come before it.
STATUS_FOR: tuple[tuple[type[OrgBrainError], int], ...] = (
    (InvalidRequest, 422),
    (RangeNotSatisfiable, 416),
    (Unsupported, 415),
    (TooLarge, 413),
    (CorruptFile, 422),
    (InvalidInput, 400),
    (Unauthenticated, 401),
    (Forbidden, 403),
    (NotFound, 404),
    (Conflict, 409),
    (Unavailable, 503),
)


class Problem(BaseModel):
    """An RFC 9457 problem detail, plus orgbrain's stable error ``code``."""

    type: str = Field(description="A URI naming the kind of problem: urn:orgbrain:problem:<code>")
    title: str = Field(description="The HTTP status phrase")
    status: int = Field(description="The HTTP status code")
    detail: str = Field(description="What went wrong, for a person")
    code: str = Field(description="Stable machine-readable code, e.g. not_found")
    errors: list[dict[str, Any]] | None = Field(
        default=None, description="Per-field errors of a request that failed validation"
    )


def status_for(exc: OrgBrainError) -> int:
    for cls, status in STATUS_FOR:
        if isinstance(exc, cls):
            return status
    return 500


def problem_body(
    status: int, code: str, detail: str, errors: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    body = Problem(
        type=f"urn:orgbrain:problem:{code}",
        title=_phrase(status),
        status=status,
        detail=detail,
        code=code,
        errors=errors,
    )
    return body.model_dump(exclude_none=True)


class ProblemResponse(JSONResponse):
    media_type = PROBLEM_MEDIA_TYPE


def problem_response(
    status: int,
    code: str,
    detail: str,
    *,
    errors: list[dict[str, Any]] | None = None,
    headers: Mapping[str, str] | None = None,
) -> ProblemResponse:
    all_headers = dict(headers or {})
    if status == 401:
        all_headers.setdefault("WWW-Authenticate", 'Bearer realm="orgbrain"')
    return ProblemResponse(
        problem_body(status, code, detail, errors), status_code=status, headers=all_headers
    )


def error_response(exc: OrgBrainError) -> ProblemResponse:
    status = status_for(exc)
    headers = {}
    if isinstance(exc, RangeNotSatisfiable) and exc.size is not None:
        headers["Content-Range"] = f"bytes */{exc.size}"
    if status == 500:
        log.error("unmapped error %s: %s", type(exc).__name__, exc.message)
        return problem_response(500, "internal", "internal error")
    return problem_response(status, exc.code, exc.message, headers=headers)


def install_problem_handlers(app: FastAPI) -> None:
    """Every error the app can produce, as a problem response."""

    async def on_orgbrain_error(_request: Request, exc: Exception) -> ProblemResponse:
        assert isinstance(exc, OrgBrainError)
        return error_response(exc)

    async def on_validation_error(_request: Request, exc: Exception) -> ProblemResponse:
        assert isinstance(exc, RequestValidationError)
        errors = [
            {
                "loc": [str(p) for p in e.get("loc", ())],
                "msg": str(e.get("msg", "")),
                "type": e.get("type", ""),
            }
            for e in exc.errors()
        ]
        first = errors[0] if errors else None
        detail = f"{'.'.join(first['loc'])}: {first['msg']}" if first else "the request is invalid"
        return problem_response(422, InvalidRequest.code, detail, errors=errors)

    async def on_http_error(_request: Request, exc: Exception) -> ProblemResponse:
        assert isinstance(exc, StarletteHTTPException)
        code = {
            404: NotFound.code,
            405: "method_not_allowed",
            413: TooLarge.code,
            401: Unauthenticated.code,
            403: Forbidden.code,
        }.get(exc.status_code, "http_error")
        detail = exc.detail if isinstance(exc.detail, str) else _phrase(exc.status_code)
        return problem_response(exc.status_code, code, detail, headers=dict(exc.headers or {}))

    async def on_crash(_request: Request, exc: Exception) -> ProblemResponse:
        # The traceback goes to the log; the client learns nothing about the internals.
        log.error("unhandled %s", type(exc).__name__, exc_info=exc)
        return problem_response(500, "internal", "internal error")

    app.add_exception_handler(OrgBrainError, on_orgbrain_error)
    app.add_exception_handler(RequestValidationError, on_validation_error)
    app.add_exception_handler(StarletteHTTPException, on_http_error)
    app.add_exception_handler(Exception, on_crash)


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` entries for ``statuses``, each a problem+json body."""
    return {status: _problem_doc(status) for status in _unique(statuses)}


def _problem_doc(status: int) -> dict[str, Any]:
    return {
        "description": _phrase(status),
        "content": {PROBLEM_MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
    }


def _unique(statuses: Iterable[int]) -> list[int]:
    return sorted(set(statuses))


def _phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"
