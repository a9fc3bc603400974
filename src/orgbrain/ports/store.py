"""``Store``: every role of the store (``ports/``'s other modules) in one Protocol, with
what belongs to the store as a whole. Both adapters are built of parts that match the
roles (``adapters/sql``), so a service can name the one role it uses."""

from __future__ import annotations

from typing import Protocol

from .edges import EdgeStore
from .events import EventStore
from .items import ItemStore
from .outbox import OutboxStore
from .proposals import ProposalStore
from .search import SearchStore
from .statements import StatementStore
from .transfer import TransferStore
from .versions import VersionStore

__all__ = ["Store"]


class Store(
    ItemStore,
    OutboxStore,
    SearchStore,
    EdgeStore,
    EventStore,
    StatementStore,
    VersionStore,
    ProposalStore,
    TransferStore,
    Protocol,
):
    """Items, edges and their indexes for many workspaces.

    Every method takes the workspace and filters on it; every read takes a ``Visibility``
    and applies it inside the query, so limits are filled with visible rows. Writes commit
    durably (fsynced) before they return.
    """

    embedding_dim: int | None
    read_only: bool
    """True where the store takes no writes (a PostgreSQL replica): a write fails with
    ``Unavailable``, and upkeep that writes on open is left to the primary."""

    def close(self) -> None: ...

    def bind_embedder(self, name: str, dim: int, prefixes: tuple[str, str] = ("", "")) -> None:
        """Record the embedding space (``space.py``) this store's vectors live in, or
        refuse with ``Conflict`` an embedder of another space instead of mixing vectors."""
        ...
