"""Retrieval: search plans as data, and the pure functions that rank."""

from .freshness import age_days, freshness
from .fuse import rrf
from .plan import PLANS, SearchPlan, Stream, get_plan
from .search import Searcher, citation_for
from .terms import query_terms
from .verdict import Floored, apply_floors

__all__ = [
    "PLANS",
    "Floored",
    "SearchPlan",
    "Searcher",
    "Stream",
    "age_days",
    "apply_floors",
    "citation_for",
    "freshness",
    "get_plan",
    "query_terms",
    "rrf",
]
