"""Retrieval: search plans as data, and the pure functions that rank."""

from .freshness import age_days, freshness
from .fuse import convex, neighbour_boost, rrf
from .plan import DEFAULT_PLAN, PLANS, Gate, SearchPlan, Stream, get_plan
from .search import Searcher, Trace, citation_for
from .terms import query_names, query_terms
from .verdict import Floored, HitEvidence, apply_floors, membership

__all__ = [
    "DEFAULT_PLAN",
    "PLANS",
    "Floored",
    "Gate",
    "HitEvidence",
    "SearchPlan",
    "Searcher",
    "Stream",
    "Trace",
    "age_days",
    "apply_floors",
    "citation_for",
    "convex",
    "freshness",
    "get_plan",
    "membership",
    "neighbour_boost",
    "query_names",
    "query_terms",
    "rrf",
]
