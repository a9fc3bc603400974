"""A value in a table's row: the column it sits in, read from the table's header row
("| KPI | Target | Q3 |" over "| Void re-let (days) | 28 | 34 |": 28 is the target), so
that a row's two values of a kind are not one thing said twice."""

from __future__ import annotations

import re

from ...extraction.values import Value
from ...retrieve.terms import STOPWORDS, stem
from .units import WORD, Said

__all__ = ["column", "under"]


def column(said: Said, value: Value) -> str:
    """The header of the column ``value`` sits in, when ``said`` is a table's row under a
    header row ("| KPI | Target | Q3 |" over "| Void re-let (days) | 28 | 34 |": 28 is the
    target), lower-cased; or ""."""
    body, at = said.item.body, said.start + value.start
    line_start = body.rfind("\n", 0, at) + 1
    lines = body[:line_start].split("\n")[:-1]
    if not body[line_start:].lstrip().startswith("|"):
        return ""
    header = ""
    for line in reversed(lines):
        if not line.lstrip().startswith("|"):
            break
        if not _RULE.fullmatch(line.strip()):
            header = line  # the top row of the table is its header
    if not header:
        return ""
    cell = body[line_start:at].count("|")
    cells = header.strip().strip("|").split("|")
    return cells[cell - 1].strip().lower() if 0 < cell <= len(cells) else ""


_RULE = re.compile(r"\|?(?:\s*:?-{3,}:?\s*\|)+\s*:?-*:?\s*")
"""A table's rule line under its header ("|---|---|")."""


def under(said: Said, value: Value, header: str) -> bool:
    """Whether ``value`` is the newer unit's value for the older row's column ``header``:
    in a column of that header, or, in a sentence, beside the header's words ("PMs can
    sign off ... up to £10k" for column "PM")."""
    mine = column(said, value)
    if mine:
        return mine == header
    words = {stem(w) for w in WORD.findall(header)} - STOPWORDS
    return bool(words) and words <= said.stems
