"""``/healthz`` (the process answers) and ``/readyz`` (the store answers and the embedder
loads); neither needs a key."""

from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.concurrency import run_in_threadpool

from ...brain import Brain
from ...errors import OrgBrainError, Unavailable
from ...keys import KeyStore
from ..auth import context_of
from ..problems import problem_responses
from ..schemas import Ready, Status

__all__ = ["router"]

router = APIRouter(tags=["health"])


@router.get("/healthz", response_model=Status, summary="The process is up")
async def healthz() -> Status:
    return Status(status="ok")


@router.get(
    "/readyz",
    response_model=Ready,
    summary="The store answers and the embedder loads",
    responses=problem_responses(503),
)
async def readyz(request: Request) -> Ready:
    ctx = context_of(request)
    checks: dict[str, str] = {}
    try:
        await run_in_threadpool(ctx.brain.check_store)
    except OrgBrainError as exc:
        raise Unavailable(f"store: {exc.message}") from exc
    except Exception as exc:
        raise Unavailable(f"store: {type(exc).__name__}") from exc
    checks["store"] = "ok"
    if not ctx.ready:
        try:
            # The first embed loads the model; after that it stays loaded.
            await run_in_threadpool(ctx.brain.warm_up)
        except OrgBrainError as exc:
            raise Unavailable(f"embedder: {exc.message}") from exc
        except Exception as exc:
            raise Unavailable(f"embedder: {type(exc).__name__}: {exc}") from exc
        ctx.ready = True
    checks["embedder"] = "ok"
    checks["index_worker"] = "ok" if ctx.worker.alive else "stopped"
    if not ctx.worker.alive:
        raise Unavailable("the index worker is not running")
    empty = await run_in_threadpool(_empty_workspaces, ctx.brain, ctx.keys)
    # Counted, not named: this route needs no key. `GET /v1/me` tells a key its own.
    checks["workspaces"] = (
        "ok"
        if not empty
        else f"{len(empty)} workspace(s) with active keys hold no items: their searches "
        "find nothing (GET /v1/me says so to each key)"
    )
    return Ready(status="ready", checks=checks)


def _empty_workspaces(brain: Brain, keys: KeyStore) -> list[str]:
    with_keys = {k.workspace for k in keys.list_keys() if k.active}
    return sorted(ws for ws in with_keys if not _holds_items(brain.for_workspace(ws)))


def _holds_items(brain: Brain) -> bool:
    # One row is enough: counting a big workspace on every probe is work for nothing.
    return bool(brain.items(limit=1).items)
