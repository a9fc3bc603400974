"""``MemoryStore``: every role of the store (``ports.Store``) over plain Python dicts, one
module a role. The same rules as the SQLite store (one contract suite runs both), for tests
and throwaway brains: nothing survives the process, so writes are "durable" only as long
as it lives, and ``Brain.open`` never picks it (``compose.open_memory`` does)."""

from __future__ import annotations

from ...space import check_space, check_stored_width, space_of
from .edges import Edges
from .events import Events
from .items import Items
from .listing import Listing
from .proposals import Proposals
from .purge import Purge
from .search import Search
from .state import Tables
from .statements import Statements
from .transfer import Transfer
from .versions import Versions

__all__ = ["MemoryStore"]


class MemoryStore(
    Items, Listing, Search, Edges, Events, Statements, Purge, Versions, Proposals, Transfer
):
    """A handle on one in-memory brain: ``MemoryStore()`` makes a new one, and
    ``MemoryStore(other.tables)`` another handle on the same (as a second process opens
    the same SQLite file: it sees every write at once, and closing one handle keeps the
    brain for the others)."""

    def __init__(self, tables: Tables | None = None) -> None:
        self.tables = self._db = tables if tables is not None else Tables()
        self.read_only = False
        space = self._db.space
        self.embedding_dim: int | None = None if space is None else space.dim

    def close(self) -> None:
        """Nothing to let go: the rows belong to the brain, not to the handle."""

    def bind_embedder(self, name: str, dim: int, prefixes: tuple[str, str] = ("", "")) -> None:
        wanted = space_of(name, dim, prefixes)
        with self._db.lock:
            recorded = self._db.space
            if recorded is None:
                first = next((v for s in self._db.vectors.values() for v in s.values()), None)
                check_stored_width(None if first is None else first.rows.shape[1], wanted)
                recorded = self._db.space = wanted
        check_space(recorded, wanted)
        self.embedding_dim = recorded.dim
