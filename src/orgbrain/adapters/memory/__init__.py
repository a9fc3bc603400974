"""The in-memory store: ``ports.Store`` over plain Python dicts, one module a role
(``store.py`` unites them), for tests and throwaway brains."""

from __future__ import annotations

from .state import Tables
from .store import MemoryStore

__all__ = ["MemoryStore", "Tables"]
