"""The one wire vocabulary: how every transport shows the model as JSON.

HTTP responses (and so the OpenAPI schema), MCP tool results, ``orgbrain ... --json`` and
``orgbrain.Client`` all speak these pydantic models; none writes a JSON shape of its own.
Each view is built from a model dataclass with ``View.of(obj)`` and, where the model can
be rebuilt from what was sent, turned back with ``view.to_model()`` (the client's way
home). A failure crosses as ``ErrorView`` (``{code, message}``); ``OrgBrainError.from_code``
turns the code back into its class.

Views are core-level data: they import the model (and ``keys.ApiKey``, the one record that
lives beside its port, ``stats.LoopStats`` and ``move_report.MoveReport``), the error tree
and pydantic, and no service or transport. An item's ``embedding`` is left out unless a
caller asks for it (``ItemWithEmbedding``).
"""

from ._base import View
from .errors import INTERNAL, ErrorView
from .graph import EdgeList, EdgeView, HopView, LinkView, MentionView, NeighborhoodView
from .history import HistoryLinkView, HistoryView, VersionView, WriteAccepted
from .items import (
    ByteRangeView,
    CanonicalView,
    IndexAccepted,
    IndexState,
    ItemPage,
    ItemView,
    ItemWithEmbedding,
    LocatorView,
    OriginView,
    SectionList,
    item_state,
)
from .jobs import JobList, JobView, WorkReportView
from .keys import KeyCreated, KeyList, KeyView
from .loop import JobLagView, KindLagView, LagSampleView, LoopStatsView, SurfaceStatsView
from .memory import (
    ConflictList,
    ConflictView,
    DerivationState,
    EventView,
    ItemRefView,
    StatementList,
    StatementView,
    StepView,
    StoryView,
    SupersedingView,
)
from .moves import BlobCheckView, CountCheckView, MoveReportView, ProbeCheckView
from .passage import PassageView
from .proposals import ProposalList, ProposalView, WriteBackAckView
from .reports import ContextItemView, ForgottenView, IndexReportView, TurnContextView
from .search import CitationView, HitView, ReplacementView, SearchResultView, match_reason

__all__ = [
    "INTERNAL",
    "BlobCheckView",
    "ByteRangeView",
    "CanonicalView",
    "CitationView",
    "ConflictList",
    "ConflictView",
    "ContextItemView",
    "CountCheckView",
    "DerivationState",
    "EdgeList",
    "EdgeView",
    "ErrorView",
    "EventView",
    "ForgottenView",
    "HistoryLinkView",
    "HistoryView",
    "HitView",
    "HopView",
    "IndexAccepted",
    "IndexReportView",
    "IndexState",
    "ItemPage",
    "ItemRefView",
    "ItemView",
    "ItemWithEmbedding",
    "JobLagView",
    "JobList",
    "JobView",
    "KeyCreated",
    "KeyList",
    "KeyView",
    "KindLagView",
    "LagSampleView",
    "LinkView",
    "LocatorView",
    "LoopStatsView",
    "MentionView",
    "MoveReportView",
    "NeighborhoodView",
    "OriginView",
    "PassageView",
    "ProbeCheckView",
    "ProposalList",
    "ProposalView",
    "ReplacementView",
    "SearchResultView",
    "SectionList",
    "StatementList",
    "StatementView",
    "StepView",
    "StoryView",
    "SupersedingView",
    "SurfaceStatsView",
    "TurnContextView",
    "VersionView",
    "View",
    "WorkReportView",
    "WriteAccepted",
    "WriteBackAckView",
    "item_state",
    "match_reason",
]
