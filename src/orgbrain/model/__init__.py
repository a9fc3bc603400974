"""The brain's data model: items, edges, origins, citations, and the results the services
return (search results, index reports, graph walks, injected context).

The results live here, not beside the services that make them, so that the transports'
views (``orgbrain.views``) are built from core data alone.

One module per concept (items, search, statements, history, graph, reports, turns,
write-back); every public name is re-exported here, so ``orgbrain.model`` stays the one
import path."""

from .graph import Hop, Link, Mention, Neighborhood
from .history import History, Story, Version
from .items import (
    STORAGE_CLASSES,
    ByteRange,
    Canonical,
    Edge,
    Item,
    ItemSketch,
    Locator,
    Origin,
    StorageClass,
    item_count,
    storage_class_for,
    utcnow,
)
from .reports import Forgotten, IndexReport
from .search import (
    SAME_SLOT,
    Citation,
    Hit,
    NewerAnswer,
    Passage,
    Replacement,
    SearchResult,
    Verdict,
)
from .statements import (
    STATEMENT_TYPES,
    Disagreement,
    Evidence,
    Statement,
    StatementType,
    Superseding,
)
from .turns import ContextItem, Decision, Provenance, TurnContext
from .writeback import (
    PROPOSAL_STATES,
    RUN_OUTCOMES,
    Proposal,
    ProposalState,
    RunOutcome,
    RunProducts,
    WriteBackAck,
)

__all__ = [
    "PROPOSAL_STATES",
    "RUN_OUTCOMES",
    "SAME_SLOT",
    "STATEMENT_TYPES",
    "STORAGE_CLASSES",
    "ByteRange",
    "Canonical",
    "Citation",
    "ContextItem",
    "Decision",
    "Disagreement",
    "Edge",
    "Evidence",
    "Forgotten",
    "History",
    "Hit",
    "Hop",
    "IndexReport",
    "Item",
    "ItemSketch",
    "Link",
    "Locator",
    "Mention",
    "Neighborhood",
    "NewerAnswer",
    "Origin",
    "Passage",
    "Proposal",
    "ProposalState",
    "Provenance",
    "Replacement",
    "RunOutcome",
    "RunProducts",
    "SearchResult",
    "Statement",
    "StatementType",
    "StorageClass",
    "Story",
    "Superseding",
    "TurnContext",
    "Verdict",
    "Version",
    "WriteBackAck",
    "item_count",
    "storage_class_for",
    "utcnow",
]
