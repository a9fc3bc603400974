"""``/v1/me`` (any key) and the admin routes: keys and the workspace, always within the
admin key's own workspace."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request, Response

from ...keys import ApiKey, issue_key, revoke_key
from ...model import item_count
from ...views import KeyCreated, KeyList, KeyView
from ..auth import Admin, Authenticated, Caller, context_of
from ..problems import problem_responses
from ..schemas import KeyCreateIn, Me, WorkspaceOut

__all__ = ["me_router", "router"]

router = APIRouter(prefix="/v1/admin", tags=["admin"])
me_router = APIRouter(prefix="/v1", tags=["identity"])

KeyId = Annotated[str, Path(min_length=1, max_length=100, description="A key id")]
_ADMIN_ERRORS = problem_responses(400, 401, 403, 422, 503)


@me_router.get(
    "/me",
    response_model=Me,
    summary="Who this key is: workspace, principal, permissions, readable scopes",
    responses=problem_responses(401, 422, 503),
)
def me(caller: Authenticated) -> Me:
    k = caller.key
    items = item_count(caller.brain.for_workspace(k.workspace).counts())
    note = None
    if items == 0:
        note = (
            f"workspace {k.workspace} holds no items yet: searches find nothing until files "
            "or notes are added to it (a key made for the wrong workspace looks like this)"
        )
    return Me(
        key_id=k.id,
        workspace=k.workspace,
        principal=f"user:{k.user_id}",
        teams=sorted(k.team_ids),
        agent=k.agent,
        permissions=sorted(k.permissions),
        scopes=sorted(k.principal.visibility.scopes or ()),
        workspace_items=items,
        note=note,
    )


@router.post(
    "/keys",
    status_code=201,
    response_model=KeyCreated,
    summary="Create a key in this workspace; its token is shown once",
    responses=_ADMIN_ERRORS,
)
def create_key(
    request: Request, response: Response, caller: Admin, body: KeyCreateIn
) -> KeyCreated:
    issued = issue_key(
        context_of(request).keys,
        caller.key.workspace,
        body.principal,
        body.permissions,
        teams=body.teams,
        agent=body.agent,
        label=body.label,
    )
    response.headers["Cache-Control"] = "no-store"
    _audit(caller, "create", issued.key)
    return KeyCreated(key=KeyView.of(issued.key), token=issued.token)


@router.get(
    "/keys",
    response_model=KeyList,
    summary="This workspace's keys (never their secrets)",
    responses=_ADMIN_ERRORS,
)
def list_keys(request: Request, caller: Admin) -> KeyList:
    keys = context_of(request).keys.list_keys(caller.key.workspace)
    return KeyList(keys=[KeyView.of(k) for k in keys])


@router.delete(
    "/keys/{key_id}",
    response_model=KeyView,
    summary="Revoke a key of this workspace (idempotent)",
    responses=problem_responses(400, 401, 403, 404, 422, 503),
)
def revoke(request: Request, caller: Admin, key_id: KeyId) -> KeyView:
    key = revoke_key(context_of(request).keys, key_id, workspace=caller.key.workspace)
    _audit(caller, "revoke", key)
    return KeyView.of(key)


def _audit(caller: Caller, action: str, key: ApiKey) -> None:
    """An admin may mint a key for anyone in its workspace, their private scope included:
    provisioning is the admin's job. It is never silent: each act is a ``key`` event in
    the workspace's log, naming the admin key, the principal the new key acts as and its
    permissions (``GET /v1/admin/audit`` lists them)."""
    caller.brain.log_event(
        "key",
        {
            "action": action,
            "key_id": key.id,
            "principal": f"user:{key.user_id}",
            "teams": sorted(key.team_ids),
            "agent": key.agent,
            "permissions": sorted(key.permissions),
            "actor": caller.brain.actor,
            "by_key": caller.key.id,
        },
    )


@router.get(
    "/audit",
    summary="Key creations and revocations in this workspace, newest first",
    responses=_ADMIN_ERRORS,
)
def audit(caller: Admin, limit: int = 100) -> dict[str, list[dict[str, object]]]:
    return {"events": caller.brain.events("key", limit=max(1, min(limit, 1000)))}


@router.get(
    "/workspace",
    response_model=WorkspaceOut,
    summary="This workspace and what it holds",
    responses=_ADMIN_ERRORS,
)
def workspace(caller: Admin) -> WorkspaceOut:
    return WorkspaceOut(workspace=caller.key.workspace, counts=caller.brain.counts())
