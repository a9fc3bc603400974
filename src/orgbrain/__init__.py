"""orgbrain: an organisation's shared memory for people and AI agents."""

from .brain import Brain, NoteInput
from .client import Client
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
