"""API keys as shown: everything but the secret, which is shown once, at creation."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from ..keys import ApiKey, Permission
from ._base import View

__all__ = ["KeyCreated", "KeyList", "KeyView"]


class KeyView(View):
    id: str
    workspace: str
    principal: str = Field(description="user:<id>")
    teams: list[str]
    agent: bool
    permissions: list[Permission]
    label: str
    created_at: datetime
    revoked_at: datetime | None
    active: bool

    @classmethod
    def of(cls, k: ApiKey) -> KeyView:
        return cls(
            id=k.id,
            workspace=k.workspace,
            principal=f"user:{k.user_id}",
            teams=sorted(k.team_ids),
            agent=k.agent,
            permissions=sorted(k.permissions),
            label=k.label,
            created_at=k.created_at,
            revoked_at=k.revoked_at,
            active=k.active,
        )


class KeyCreated(View):
    key: KeyView
    token: str = Field(description="The API key itself; shown this once, never again")


class KeyList(View):
    keys: list[KeyView]
