"""The Brain facade: the one entry point every transport (CLI, HTTP, MCP) calls.

``facade.Brain`` holds a ``BrainContext`` and calls the services with it; its methods are
grouped by use case: adding, indexing, reading and forgetting in ``facade``, background
jobs in ``jobs``, the graph, read injection and the log in ``graph``, derivation and
what changed in ``memory``, an item's versions and supersession chain in ``history``,
write-back and the review inbox in ``writeback``, the loop's stats in ``loop``.
"""

from ..indexer import IndexReport
from ..writes import NoteInput
from .facade import Brain

__all__ = ["Brain", "IndexReport", "NoteInput"]
