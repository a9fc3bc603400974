"""The base every view shares."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["View"]


class View(BaseModel):
    """A frozen JSON shape. Fields a newer peer adds are ignored when parsing, so an older
    client keeps reading a newer server."""

    model_config = ConfigDict(frozen=True, extra="ignore")
