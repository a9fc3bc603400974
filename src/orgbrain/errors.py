"""One exception tree for everything orgbrain raises on purpose.

    OrgBrainError                 base; carries a stable ``code``
    ├── InvalidInput              bad arguments or data (HTTP 400/422)
    │   ├── InvalidRequest        a malformed request: bad JSON, a missing field (422)
    │   ├── RangeNotSatisfiable   a byte range past the end of the content (416)
    │   ├── Unsupported           format we do not handle (415)
    │   ├── TooLarge              over a size cap (413)
    │   └── CorruptFile           the bytes cannot be read as their format (422)
    ├── NotFound                  unknown id, or one the caller may not see (404)
    ├── Unauthenticated           missing, invalid or revoked credentials (401)
    ├── Forbidden                 authenticated, but not allowed (403)
    ├── Conflict                  state forbids the operation (409)
    └── Unavailable               a dependency is down or misconfigured (503)

Every transport maps this tree in one place (CLI exit code, HTTP status, MCP error), and
sends the ``code`` as a field of its own. Whatever reads a code back (the HTTP client, the
CLI rebuilding an index failure) turns it into a class with ``OrgBrainError.from_code``,
the only map from code to class.
"""

from __future__ import annotations

__all__ = [
    "Conflict",
    "CorruptFile",
    "Forbidden",
    "InvalidInput",
    "InvalidRequest",
    "NotFound",
    "OrgBrainError",
    "RangeNotSatisfiable",
    "TooLarge",
    "Unauthenticated",
    "Unavailable",
    "Unsupported",
]


class OrgBrainError(Exception):
    code = "orgbrain_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    @classmethod
    def from_code(
        cls, code: str | None, message: str, *, fallback: type[OrgBrainError] | None = None
    ) -> OrgBrainError:
        """The error a stable ``code`` stands for, with ``message``.

        An unknown (or missing) code gives ``fallback`` (default: this base class), still
        carrying the code it was sent with, so nothing a peer said is lost.
        """
        found = _by_code().get(code or "")
        if found is not None:
            return found(message)
        exc = (fallback or OrgBrainError)(message)
        if code:
            exc.code = code
        return exc


def _by_code() -> dict[str, type[OrgBrainError]]:
    # Walked per call, not cached: a subclass defined after import (a plugin's) counts too.
    found: dict[str, type[OrgBrainError]] = {}
    pending: list[type[OrgBrainError]] = [OrgBrainError]
    while pending:
        cls = pending.pop()
        found.setdefault(cls.code, cls)
        pending += cls.__subclasses__()
    return found


class InvalidInput(OrgBrainError):
    code = "invalid_input"


class InvalidRequest(InvalidInput):
    """The request itself is malformed: bad JSON, a missing form field, a wrong type."""

    code = "invalid_request"


class RangeNotSatisfiable(InvalidInput):
    """A ``Range`` header that starts past the end of the content (``size`` bytes)."""

    code = "range_not_satisfiable"

    def __init__(self, message: str, size: int | None = None) -> None:
        super().__init__(message)
        self.size = size


class Unsupported(InvalidInput):
    code = "unsupported_format"


class TooLarge(InvalidInput):
    code = "too_large"


class CorruptFile(InvalidInput):
    code = "corrupt_file"


class NotFound(OrgBrainError):
    code = "not_found"


class Unauthenticated(OrgBrainError):
    code = "unauthenticated"


class Forbidden(OrgBrainError):
    code = "forbidden"


class Conflict(OrgBrainError):
    code = "conflict"


class Unavailable(OrgBrainError):
    code = "unavailable"
