"""Retrieval: search plans as data, and the pure functions that rank."""

from .belief import citation_for
from .freshness import age_days, freshness
from .fuse import convex, neighbour_boost, rrf
from .graph import CURRENT, Mode, TimeFrame, asked_type, graph_stream, route, time_frame
from .plan import DEFAULT_PLAN, K_MAX, PLANS, Gate, SearchPlan, Stream, get_plan
from .query import Query
from .search import Searcher, Trace
from .searchlog import (
    INJECT,
    SEARCH_EVENT,
    SURFACES,
    SearchSeen,
    check_surface,
    logged_search,
)
from .terms import query_names, query_terms
from .verdict import Floored, HitEvidence, apply_floors, membership

__all__ = [
    "CURRENT",
    "DEFAULT_PLAN",
    "INJECT",
    "K_MAX",
    "PLANS",
    "SEARCH_EVENT",
    "SURFACES",
    "Floored",
    "Gate",
    "HitEvidence",
    "Mode",
    "Query",
    "SearchPlan",
    "SearchSeen",
    "Searcher",
    "Stream",
    "TimeFrame",
    "Trace",
    "age_days",
    "apply_floors",
    "asked_type",
    "check_surface",
    "citation_for",
    "convex",
    "freshness",
    "get_plan",
    "graph_stream",
    "logged_search",
    "membership",
    "neighbour_boost",
    "query_names",
    "query_terms",
    "route",
    "rrf",
    "time_frame",
]
