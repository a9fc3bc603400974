"""The Brain facade: the one entry point every transport (CLI, HTTP, MCP) calls.

``facade.Brain`` holds a ``BrainContext`` and calls the services with it; its methods are
grouped by use case: adding, searching and forgetting in ``facade`` (a file's add is
orchestrated by ``orgbrain.adding``), indexing in ``indexing``, files and passages read
in ``reading``, background jobs in ``jobs``, the graph, read injection and the log in
``graph``, derivation and what changed in ``memory``, an item's versions and
supersession chain in ``history``, write-back and the review inbox in ``writeback``, the
loop's stats in ``loop``, moving house in ``moving``, the embedding space in ``space``.
"""

from ..indexer import IndexReport
from ..writes import NoteInput
from .facade import Brain

__all__ = ["Brain", "IndexReport", "NoteInput"]
