"""Derivation: what the brain works out after a write is acknowledged.

Per item, run as durable jobs (``orgbrain.jobs.derive``): the entities it names, its
typed statements with corroboration, supersession and conflicts (``statements.py``),
``SIMILAR_TO`` and ``FOLLOWED_BY`` edges (``steps.py``); and the read side of what it
produced: an item's write story, supersession chains, the statements about an entity,
the open conflicts (``story.py``). ``queue.py`` asks for it.
"""

from __future__ import annotations

from .queue import DERIVE_KIND, DERIVED_CLASSES, derive_key, derive_state, request_derive
from .statements import CONFLICT_WINDOW, MULTI_VALUED, Recorded, record_claim
from .steps import SIMILAR_MAX, SIMILAR_MIN, Derived, derive_item
from .story import chain, conflicts, statements_about, story

__all__ = [
    "CONFLICT_WINDOW",
    "DERIVED_CLASSES",
    "DERIVE_KIND",
    "MULTI_VALUED",
    "SIMILAR_MAX",
    "SIMILAR_MIN",
    "Derived",
    "Recorded",
    "chain",
    "conflicts",
    "derive_item",
    "derive_key",
    "derive_state",
    "record_claim",
    "request_derive",
    "statements_about",
    "story",
]
