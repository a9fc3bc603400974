"""A value in a table's row: the column it sits in, read from the table's header row
("| KPI | Target | Q3 |" over "| Void re-let (days) | 28 | 34 |": 28 is the target), so
that a row's two values of a kind are not one thing said twice."""

from __future__ import annotations

import re

from ...analysis import LETTER_WORD, STOPWORDS, stem
from ...extraction.context import table_header
from ...extraction.values import Value
from .units import Said, line

__all__ = ["a_row", "column", "other_rows", "under"]


def column(said: Said, value: Value) -> str:
    """The header of the column ``value`` sits in, when ``said`` is a table's row under a
    header row ("| KPI | Target | Q3 |" over "| Void re-let (days) | 28 | 34 |": 28 is the
    target), lower-cased; or ""."""
    cells, cell = _header(said, value)
    return cells[cell - 1] if 0 < cell <= len(cells) else ""


def _header(said: Said, value: Value) -> tuple[list[str], int]:
    """The lower-cased cells of the header row of the table ``value``'s row lies in, and
    the number of the cell ``value`` sits in (from 1); ``([], 0)`` when it is no table's
    row under a header."""
    body, at = said.item.body, said.start + value.start
    line_start = body.rfind("\n", 0, at) + 1
    header = table_header(body, line_start)
    if not header:
        return [], 0
    cells = [c.strip().lower() for c in header.strip().strip("|").split("|")]
    return cells, body[line_start:at].count("|")


def other_rows(a: Said, b: Said) -> bool:
    """Whether ``a`` and ``b`` are rows of tables that name two rows by their first cells
    ("| B | Settle plate (4h) | 3 CFU |" and "| C | Settle plate (4h) | 15 CFU |"): two
    things, whatever else their cells share."""
    first = [_first_cell(s) for s in (a, b)]
    return all(first) and first[0] != first[1]


def a_row(said: Said) -> bool:
    """Whether ``said`` lies in a table's row."""
    return bool(_first_cell(said))


def _first_cell(said: Said) -> str:
    """The first cell of the table row ``said`` lies in, case-folded; "" if none."""
    row = line(said.item.body, said.start).strip()
    if not row.startswith("|") or row.count("|") < 3:
        return ""
    return " ".join(row.strip("|").split("|", 1)[0].casefold().split())


def under(said: Said, value: Value, old: Said, before: Value) -> bool:
    """Whether ``value`` is the newer unit's value for the column the older unit's
    ``before`` sits in: in a column of that header, or, in a sentence, beside the words
    that tell that column from the table's others ("PMs can sign off ... up to £10k" for
    column "PM"; "Grade B handlers' property settlement authority" for column "Property
    settle limit" beside "Motor settle limit": not the words every column says)."""
    header = column(old, before)
    mine = column(said, value)
    if mine:
        return mine == header
    cells, _ = _header(old, before)
    words = _words(header)
    others = frozenset().union(*(_words(c) for c in cells if c != header))
    own = words - others or words
    return bool(own) and own <= said.stems and _row_named(said, old)


def _row_named(said: Said, old: Said) -> bool:
    """Whether the sentence ``said`` names the older unit's row by its first cell ("B
    (handler)" in "Grade B handlers' property settlement authority"): a word of it, or
    all of it as written; not another row's value in the same column ("A (trainee)")."""
    first = old.text.strip().strip("|").split("|", 1)[0].strip()
    return bool(_words(first.lower()) & said.stems) or (
        bool(first) and re.search(rf"(?<![\w-]){re.escape(first)}(?![\w-])", said.text) is not None
    )


def _words(cell: str) -> frozenset[str]:
    return frozenset(stem(w) for w in LETTER_WORD.findall(cell)) - STOPWORDS
