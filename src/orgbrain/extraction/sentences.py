"""Cut a section of text (markdown, bullets, ``Label: value`` lines, tables) into units.

A unit is one sentence, one bullet, one ``Label: value`` line or one table row, with its
exact span in the text and the span of its content once list markers are stripped.
Prose wrapped over several lines stays one paragraph until a sentence ends.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..analysis import LANGUAGES
from ..analysis.calendar import MONTHS_BY_LANGUAGE

__all__ = ["LEADER", "Unit", "split_units"]

_MARKER = re.compile(r"[ \t]*(?:[-*+•][ \t]+|\d{1,3}[.)][ \t]+|>[ \t]*)*(?:\[[ xX]\][ \t]+)?")
_HEADING = re.compile(r"[ \t]*#{1,6}[ \t]+")
_BULLET = re.compile(r"[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]+")
_LABEL = re.compile(r"[ \t]*(?:[-*+•][ \t]+)?\**[A-Za-z][\w '/&().-]{0,48}?\**:[ \t]+\S")
_TABLE = re.compile(r"[ \t]*\|")
_CELLS = re.compile(r"[^|]*\S[ \t]+\|[ \t]+\S[^|]*\|[ \t]+\S")
"""A table row written without its leading bar: three cells or more ("Stop | Day | Time"),
in a table of two rows or more (``_cells``)."""
_DOT_RUN = r"(?:\.{4,}|\u2026{2,})"
LEADER = rf"[ \t]*{_DOT_RUN}[ \t]*|[ \t]{{3,}}"
"""What leads a label to its value besides a colon (a regular expression's source): a run
of dots, or of spaces. The label readers split at it (``patterns/labels``,
``derive/disagreement``)."""
_DOTS = re.compile(rf"[^\s.!?][ \t]*{_DOT_RUN}[ \t]*\S")
_GAP = re.compile(r"[^\s.!?:;,][ \t]{3,}(?=\S)")


def _leader(line: str) -> bool:
    """Whether ``line`` is a label led to its value by dots or by one run of spaces ("A4
    colour ...... 60p", "Fri      06:30-21:00"): one unit, never cut at its dots. A line
    of three columns set apart by spaces is a table's row, which this does not read."""
    body = line.strip()
    return bool(_DOTS.search(body)) or len(_GAP.findall(body)) == 1


# A sentence ends at . ! ? (and a closing quote or bracket) before white space and a capital,
# a digit, a quote, an @ or a markdown marker; not after an abbreviation or an initial.
_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z0-9\"'@`(*\[])")
_ABBREV = re.compile(
    r"(?:\b(?:e\.g|i\.e|etc|vs|approx|incl|dept|Dr|Mr|Mrs|Ms|St|No|Inc|Ltd|Co|Corp|Jr|Sr)"
    r"|\b[A-Z])\.$"
)

_ORDINAL = re.compile(r"(?:^|\s)(?:([^\W\d_]+)\s+)?\d{1,2}\.$")
"""A number and a dot that may be an ordinal, not a sentence's end, with the word before."""
_NEXT_WORD = re.compile(r"[^\W\d_]+\.?")
_NOUN_MARKERS = frozenset().union(*(lang.noun_markers for lang in LANGUAGES.values()))
_ORDINAL_MONTHS = frozenset().union(*(m for code, m in MONTHS_BY_LANGUAGE.items() if code != "en"))
"""Months written after an ordinal's dot: not English's own ("We shipped 2. May we ...?")."""


def _ordinal(text: str, cut: int, after: int) -> bool:
    """Whether the dot at ``cut`` ends an ordinal number, as German writes a date's day
    or a rank ("am 16. Juni", "zum 1. Oktober", "in der 2. Klasse"): before a month's
    name, or after an article."""
    m = _ORDINAL.search(text, max(0, cut - 30), cut)
    if m is None:
        return False
    nxt = _NEXT_WORD.match(text, after)
    return (nxt is not None and nxt.group(0).casefold().rstrip(".") in _ORDINAL_MONTHS) or (
        (m.group(1) or "").casefold() in _NOUN_MARKERS
    )


@dataclass(frozen=True, slots=True)
class Unit:
    """One sentence or line: ``start``/``end`` span it in the text as written;
    ``kind`` is ``sentence``, ``heading``, ``label`` (a ``Label: value`` line) or ``row``."""

    start: int
    end: int
    kind: str


def split_units(text: str) -> list[Unit]:
    units: list[Unit] = []
    block_start: int | None = None
    block_end = 0
    pos = 0
    lines = text.splitlines(keepends=True)
    for n, line in enumerate(lines):
        line_start, pos = pos, pos + len(line)
        body = line.rstrip("\r\n")
        line_end = line_start + len(body)
        if not body.strip():
            if block_start is not None:
                units += _sentences(text, block_start, block_end)
                block_start = None
            continue
        heading = _HEADING.match(body)
        kind = (
            "heading"
            if heading
            else "row"
            if _TABLE.match(body) or _cells(lines, n)
            else "leader"
            if _leader(body)
            else "label"
            if _LABEL.match(body) and not _looks_like_url(body)
            else "heading"
            if not units and block_start is None and _titles(body, lines[n + 1 :])
            else None
        )
        if kind is not None or _BULLET.match(body):
            if block_start is not None:
                units += _sentences(text, block_start, block_end)
                block_start = None
        if kind in ("heading", "row", "leader"):
            marker = _MARKER.match(body)  # optional throughout: it always matches
            skip = heading.end() if heading else marker.end() if marker else 0
            start, end = _trim(text, line_start + skip, line_end)
            if start < end:
                units.append(Unit(start, end, "label" if kind == "leader" else kind))
            continue
        if kind == "label":
            # A label line is one unit per sentence, never joined with the next line.
            units += _sentences(text, line_start, line_end, first_kind="label")
            continue
        if block_start is None:
            block_start = line_start
        block_end = line_end
    if block_start is not None:
        units += _sentences(text, block_start, block_end)
    return units


def _cells(lines: list[str], n: int) -> bool:
    """Whether line ``n`` is a row of a table written without bars at its edges: it and
    the line above or below it have three cells or more (one such line alone is a record
    written on one line, "Ward 5 - 2-4pm | Ward 6 - 2-4pm | ICU", read as prose)."""
    if not _CELLS.match(lines[n]):
        return False
    return any(0 <= m < len(lines) and _CELLS.match(lines[m]) for m in (n - 1, n + 1))


_TITLE_END = re.compile(r"[^.!?,;:]\s*$")
_NEXT_LINE = re.compile(r"[ \t]*[A-Z0-9#>|*@\[-]")


def _titles(body: str, rest: list[str]) -> bool:
    """Whether a first line is a title, not the start of wrapped prose: short, with no
    sentence end, and the next line starts afresh ("Engineering handbook > Observability"
    above "We use Sentry ...")."""
    return (
        bool(rest)
        and len(body) <= 100
        and bool(_TITLE_END.search(body))
        and bool(_NEXT_LINE.match(rest[0]))
    )


def _looks_like_url(body: str) -> bool:
    return bool(re.match(r"[ \t]*\w+://", body))


def _sentences(text: str, start: int, end: int, first_kind: str = "sentence") -> list[Unit]:
    found: list[Unit] = []
    cursor = start
    chunk = text[start:end]
    for match in _END.finditer(chunk):
        cut = start + match.start()
        if _ABBREV.search(text[max(cursor, cut - 8) : cut]) or _ordinal(
            text, cut, start + match.end()
        ):
            continue
        found += _unit(text, cursor, cut, first_kind if not found else "sentence")
        cursor = start + match.end()
    found += _unit(text, cursor, end, first_kind if not found else "sentence")
    return found


def _unit(text: str, start: int, end: int, kind: str) -> list[Unit]:
    marker = _MARKER.match(text, start, end)
    if marker:
        start = marker.end()
    start, end = _trim(text, start, end)
    if start >= end:
        return []
    if kind == "sentence" and _LABEL.match(text, start, end) and ":" in text[start:end]:
        kind = "label"
    return [Unit(start, end, kind)]


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] in " \t\r\n*_":
        start += 1
    while end > start and text[end - 1] in " \t\r\n*_":
        end -= 1
    return start, end
