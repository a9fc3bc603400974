"""The seams between the core and the outside world, as ``typing.Protocol`` classes, one
module a port (the store one module a role, ``Store`` all of them).

Adapters live in ``orgbrain.adapters``; every adapter of a port passes the same contract
suite in ``tests/contract``.
"""

from __future__ import annotations

from .blobs import BlobStore
from .chat import Chat
from .edges import EdgeStore
from .embedder import (
    Embedder,
    PairReader,
    PrefixedEmbedder,
    QueryEmbedder,
    TokenEmbedder,
    TokenVectors,
    Vector,
)
from .events import EVENT_ROLLUPS, EventStore
from .items import ItemFilter, ItemStore, Page
from .jobs import Job, JobBacklog, JobPage, JobQueue, JobRequest, JobState, JobTiming
from .outbox import OutboxStore, Owed
from .proposals import ProposalStore
from .reranker import Reranker
from .search import ScoredId, SearchStore
from .statements import StatementStore
from .store import Store
from .tokenizer import Tokenizer
from .transfer import RECORD_KINDS, Record, RecordKind, RecordPage, TransferStore
from .versions import VersionStore

__all__ = [
    "EVENT_ROLLUPS",
    "RECORD_KINDS",
    "BlobStore",
    "Chat",
    "EdgeStore",
    "Embedder",
    "EventStore",
    "ItemFilter",
    "ItemStore",
    "Job",
    "JobBacklog",
    "JobPage",
    "JobQueue",
    "JobRequest",
    "JobState",
    "JobTiming",
    "OutboxStore",
    "Owed",
    "Page",
    "PairReader",
    "PrefixedEmbedder",
    "ProposalStore",
    "QueryEmbedder",
    "Record",
    "RecordKind",
    "RecordPage",
    "Reranker",
    "ScoredId",
    "SearchStore",
    "StatementStore",
    "Store",
    "TokenEmbedder",
    "TokenVectors",
    "Tokenizer",
    "TransferStore",
    "Vector",
    "VersionStore",
]
