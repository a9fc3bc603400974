"""The graph: entities and their mentions, links between items, neighbourhoods.

Derivation (the typed graph the brain grows by itself) and supersession land here next.
"""

from .context_keys import KEYS_CAP, backfill_keys, rekey_around
from .links import (
    MAX_EDGES_PER_HOP,
    MAX_HOPS,
    MAX_ITEMS_PER_HOP,
    RESERVED_EDGE_TYPES,
    Hop,
    Link,
    Mention,
    Neighborhood,
    entity_for,
    entity_source_key,
    link,
    neighborhood,
    normalise_edge_type,
    normalise_type,
    normalise_value,
    observe_mention,
    put_system_edge,
    visible_edges,
)

__all__ = [
    "KEYS_CAP",
    "MAX_EDGES_PER_HOP",
    "MAX_HOPS",
    "MAX_ITEMS_PER_HOP",
    "RESERVED_EDGE_TYPES",
    "Hop",
    "Link",
    "Mention",
    "Neighborhood",
    "backfill_keys",
    "entity_for",
    "entity_source_key",
    "link",
    "neighborhood",
    "normalise_edge_type",
    "normalise_type",
    "normalise_value",
    "observe_mention",
    "put_system_edge",
    "rekey_around",
    "visible_edges",
]
