"""``ErrorView``: how a failure crosses a process boundary, as ``{code, message}`` fields."""

from __future__ import annotations

from pydantic import Field

from ..errors import OrgBrainError
from ._base import View

__all__ = ["INTERNAL", "ErrorView"]

INTERNAL = "internal"
"""The code of a failure outside the error tree; its details stay in the log."""


class ErrorView(View):
    code: str = Field(description="Stable machine-readable code, e.g. not_found")
    message: str = Field(description="What went wrong, for a person")

    @classmethod
    def of(cls, exc: BaseException) -> ErrorView:
        if isinstance(exc, OrgBrainError):
            return cls(code=exc.code, message=exc.message)
        return cls(code=INTERNAL, message=f"internal error ({type(exc).__name__})")

    def to_error(self) -> OrgBrainError:
        return OrgBrainError.from_code(self.code, self.message)
