"""One exception tree for everything orgbrain raises on purpose.

    OrgBrainError                 base; carries a stable ``code``
    ├── InvalidInput              bad arguments or data (HTTP 400/422)
    │   ├── Unsupported           format we do not handle (415)
    │   ├── TooLarge              over a size cap (413)
    │   └── CorruptFile           the bytes cannot be read as their format (422)
    ├── NotFound                  unknown id, or one the caller may not see (404)
    ├── Unauthenticated           missing, invalid or revoked credentials (401)
    ├── Forbidden                 authenticated, but not allowed (403)
    ├── Conflict                  state forbids the operation (409)
    └── Unavailable               a dependency is down or misconfigured (503)

Every transport maps this tree in one place (CLI exit code, HTTP status, MCP error).
"""

from __future__ import annotations

__all__ = [
    "Conflict",
    "CorruptFile",
    "Forbidden",
    "InvalidInput",
    "NotFound",
    "OrgBrainError",
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


class InvalidInput(OrgBrainError):
    code = "invalid_input"


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
