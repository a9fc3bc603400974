"""Whether two statements of one subject and predicate are a disagreement a person would
call one: the same slot, different values, the same time, different sources.

``statements._settle`` asks it before flagging a pair (the values differ and the times
overlap there already); ``story.conflicts`` asks it again when listing, so pairs flagged
before this judge existed are not shown either.

Two things look like a slot and are not one:

- a **field line** of reference documentation ("URL: https://...", "Usage: yq [options]",
  "title: Notes for Translators", "Returns: the count"): read as (label, ``is``, value),
  its subject is the label itself, a field of the document it sits in. Two documents'
  URLs are two slots, not one slot with two values.
- two sections of **one file**: one source, written by one hand at one time; a file that
  lists several URLs or hints does not disagree with itself.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..extraction.sentences import LEADER
from ..model import Item, Statement

__all__ = ["disagree", "field_line", "source_of"]

_LABEL = re.compile(rf"[\s>*_`#-]*(?P<label>[^:\n]{{1,50}}?)[*_`\s]*(?::|{LEADER})")


def field_line(s: Statement) -> bool:
    """Whether ``s`` is a "Label: value" line about the label itself (or a label led to
    its value by dots: "A-check ...... 750 FH")."""
    if s.predicate != "is":
        return False
    m = _LABEL.match(s.text)
    return m is not None and m.group("label").strip("*_` ").casefold() == s.subject.casefold()


def source_of(item: Item) -> str:
    """The file a section belongs to, else the item itself: one source."""
    return item.parent_id or item.id


def disagree(a: Statement, b: Statement, items: Mapping[str, Item]) -> bool:
    """Whether ``a`` and ``b`` (same subject and predicate, different values at
    overlapping times) are a disagreement; ``items`` holds the items they came from."""
    if field_line(a) or field_line(b):
        return False
    ia, ib = items.get(a.item_id), items.get(b.item_id)
    return ia is not None and ib is not None and source_of(ia) != source_of(ib)
