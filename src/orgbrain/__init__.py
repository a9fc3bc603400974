"""orgbrain: an organisation's shared memory for people and AI agents."""

from .brain import Brain, NoteInput
from .errors import (
    Conflict,
    CorruptFile,
    Forbidden,
    InvalidInput,
    NotFound,
    OrgBrainError,
    TooLarge,
    Unauthenticated,
    Unavailable,
    Unsupported,
)
from .indexer import IndexReport
from .model import ByteRange, Canonical, Citation, Edge, Hit, Item, Locator, Origin, SearchResult
from .retrieve import PLANS, SearchPlan
from .scopes import Principal, Visibility
from .settings import Settings

__all__ = [
    "PLANS",
    "Brain",
    "ByteRange",
    "Canonical",
    "Citation",
    "Client",
    "Conflict",
    "CorruptFile",
    "Edge",
    "Forbidden",
    "Hit",
    "IndexReport",
    "InvalidInput",
    "Item",
    "Locator",
    "NotFound",
    "NoteInput",
    "OrgBrainError",
    "Origin",
    "Principal",
    "SearchPlan",
    "SearchResult",
    "Settings",
    "TooLarge",
    "Unauthenticated",
    "Unavailable",
    "Unsupported",
    "Visibility",
]


def __getattr__(name: str) -> object:
    # The HTTP client (httpx) loads only when asked for: every CLI command imports this
    # package, and most never talk HTTP.
    if name == "Client":
        from .client import Client

        return Client
    raise AttributeError(f"module 'orgbrain' has no attribute {name!r}")
