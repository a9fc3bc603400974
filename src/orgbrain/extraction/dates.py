"""Dates as written in a sentence: ISO, ``1 March 2027``, ``March 1, 2027``, and
year-less ones (``March 1``, ``Friday``) that are found but never resolved to a day."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

__all__ = ["DateMention", "find_dates", "iso_or_text"]

_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ),
        start=1,
    )
    for name in names
}
_MONTH = r"(?P<{0}>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")(?:\.(?=\s*\d))?"
_DAY = r"(?P<{0}>[0-3]?\d)(?:st|nd|rd|th)?"
_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?"
_DATE = re.compile(
    r"\b(?:"
    r"(?P<iso>(?P<y1>20\d\d|19\d\d)-(?P<m1>[01]\d)-(?P<d1>[0-3]\d))"
    rf"|(?P<dmy>{_DAY.format('d2')}\s+{_MONTH.format('m2')}(?:,?\s+(?P<y2>20\d\d|19\d\d))?)"
    rf"|(?P<mdy>{_MONTH.format('m3')}\s+{_DAY.format('d3')}(?:,?\s+(?P<y3>20\d\d|19\d\d))?)"
    rf"|(?P<my>{_MONTH.format('m4')}\s+(?P<y4>20\d\d))"
    rf"|(?P<q>Q[1-4]\s+20\d\d)"
    rf"|(?P<wd>(?:every\s+|next\s+|last\s+|this\s+)?{_WEEKDAY})"
    r")(?![\w-])",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class DateMention:
    start: int
    end: int
    value: date | None  # None when the year (or the day) is not written
    weekday: bool  # "Fridays", "every Monday": a schedule rather than a day


def find_dates(text: str, start: int = 0, end: int | None = None) -> list[DateMention]:
    found: list[DateMention] = []
    for m in _DATE.finditer(text, start, len(text) if end is None else end):
        found.append(DateMention(m.start(), m.end(), _resolve(m), m.group("wd") is not None))
    return found


def _resolve(m: re.Match[str]) -> date | None:
    if m.group("iso"):
        y, mo, d = int(m.group("y1")), int(m.group("m1")), int(m.group("d1"))
    elif m.group("dmy") and m.group("y2"):
        y, mo, d = int(m.group("y2")), _MONTHS[m.group("m2").lower()], int(m.group("d2"))
    elif m.group("mdy") and m.group("y3"):
        y, mo, d = int(m.group("y3")), _MONTHS[m.group("m3").lower()], int(m.group("d3"))
    else:
        return None
    try:
        return date(y, mo, d)
    except ValueError:
        return None


def iso_or_text(text: str) -> str:
    """``text`` as an ISO date when it is exactly one full date, else itself (for
    comparing objects: "1 March 2027" and "2027-03-01" are the same day)."""
    stripped = text.strip().rstrip(".")
    found = find_dates(stripped)
    if len(found) == 1 and found[0].value is not None:
        one = found[0]
        if one.start == 0 and one.end == len(stripped):
            return one.value.isoformat() if one.value else stripped
    return text
