"""Values written in shorthand: how rotas, pay sheets, calendars and contact lists write
what a policy sets.

``values.py`` reads amounts, counts, dates and times written out; an organisation's
notes write many of the same values shorter, and a change restates them in the same
shorthand or in full ("valid for max 8 hrs", then "limited to 4 hours"):

- a rate in pence ("45p per mile") is an amount;
- a multiplier ("1.75x", "double time", "time and a half") is a rate of pay or of
  anything else; a count of things ("2x extinguishers") is not one;
- a day of the month ("by the 25th", "the 10th of each month") is a deadline's day; a
  floor or a party ("2nd floor", "3rd party") is not one;
- a length glued to its unit ("24h", "48-hour", "30-min") is a count of hours or
  minutes;
- a time of day without minutes or with a dot ("10am", "5pm", "7.30am") is a time;
- a day written short ("Mon & Thu", "Tue-Fri", "by Mon 10am") is a weekday where it
  sits among days, before a date or a time, or after a word that sets a day ("every",
  "on", "by"); a capital alone ("Sun", "Wed") may be a name or a verb;
- how often ("weekly", "fortnightly", "quarterly") is a frequency, where it is said of a
  thing ("talks go weekly", "read quarterly."), not where it names one ("the daily
  huddle notes", "weekly sync");
- a phone extension ("ext 4400", "x4400") is a number of its own kind, beside the
  outside number that dials it;
- a moment written as an offset before a named one ("send the release at STD-60",
  "freeze at T-30", "by D-7") is a count before it, as "90 min before STD" is; only
  after a word that sets a moment ("at", "by", "until", "not", "than"), where a code
  ("INC-4471", "CB-11/26", "SOP-12") is not written.

Each is a ``Value`` (``values.py``); ``values_of`` reads these first, then what
``values_in`` reads outside them, and makes a run of weekdays one ("Tuesday & Friday":
the days of one schedule).
"""

from __future__ import annotations

import re

from ..analysis.calendar import DAY_JOINS, DAY_RANGES, SHORT_WEEKDAYS
from .values import Value, unit_word, values_in

__all__ = ["DAYS", "day_sets", "shorthand_in", "values_of"]

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
"""The days of the week, in order, as a weekday's key gives them."""

_ALONE = r"(?<![\w.,/#:£$€-])"
_PENCE = re.compile(rf"{_ALONE}(\d{{1,3}}(?:\.\d+)?)p(?![\w-])")
_TIMES = re.compile(
    rf"{_ALONE}(\d{{1,2}}(?:\.\d+)?)\s?x(?=\s*(?:[|).,;:/]|$))|{_ALONE}(\d{{1,2}}\.\d+)\s?x(?![\w-])"
    r"|(?<![\w-])(?-i:x)(\d(?:\.\d+)?)(?![\w.-])"
    r"|\b(double|triple|single)[ -]time\b|\btime[ -]and[ -]a[ -]half\b",
    re.IGNORECASE | re.MULTILINE,
)
"""A multiplier: "1.75x", "2x |" (a table's cell), "x1.5", "double time"; not "2x
extinguishers", a count of things, nor "X34", a code."""
_TIMES_WORDS = {"single": 1.0, "double": 2.0, "triple": 3.0}
_MONTHS = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
_DAY_OF_MONTH = re.compile(
    rf"{_ALONE}(3[01]|[12]\d|[1-9])(?:st|nd|rd|th)"
    rf"(?=\s*(?:[|).,;:(]|$)|\s+of\s+(?!{_MONTHS})(?:each|every|the|this|next|that)\b)",
    re.IGNORECASE | re.MULTILINE,
)
"""A day of the month as a deadline writes it ("by the 25th", "the 10th of each month",
"27th (or previous working day)"); not an ordinal before a noun ("2nd floor", "3rd
party") nor a date's ("25th of May", read by ``values.py``)."""
_GLUED = re.compile(
    rf"{_ALONE}(\d{{1,4}}(?:\.\d+)?)(?:-(hours?|minutes?|mins?|days?|weeks?|months?|years?)"
    r"|(h|hrs?|mins?|wks?|yrs?))(?![\w-])",
    re.IGNORECASE,
)
"""A length glued or hyphened to its unit ("24h", "24hr", "48-hour", "30-day")."""
_CLOCK = re.compile(
    r"(?<![\w.,/#:£$€])(\d{1,2})(?:[:.](\d{2}))?\s?([ap])\.?m\b\.?",
    re.IGNORECASE,
)
"""A time of day with its half of the day ("10am", "5 pm", "7.30am", "6:15 p.m.")."""
_SHORT_DAY = re.compile(r"(?<!\w)(Mon|Tues?|Wed|Thur?s?|Fri|Sat|Sun)(?!\w)")
_DAY = r"(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?"
_SETS_DAY = re.compile(
    rf"(?:\b(?:every|each|on|by|from|until|till|before|after|next|this|last)"
    rf"|\b{_DAY}\s*(?:[&/,+-]|and|or|to))\s*$",
    re.IGNORECASE,
)
"""Before a short day, a word that sets a day ("every Mon", "by Fri") or another day
joined to it ("Tue & Thu", "Mon-Fri")."""
_SHORT = "|".join(sorted(map(re.escape, SHORT_WEEKDAYS), key=len, reverse=True))
_SHORT_SPAN = re.compile(
    rf"(?<![\w-])({_SHORT})\.?\s*(?:-|\u2013|{'|'.join(DAY_RANGES)})\s*({_SHORT})\.?(?!\w)"
)
"""A span of days written short in German, French or Spanish ("Mo-Fr", "lun.-ven.", "Di
bis Do"): only as a span, for alone "Do", "So" or "mar" is a word."""
_DAY_AFTER = re.compile(rf"\s*(?:[&/,+-]|and\b|or\b|to\b)\s*{_DAY}|\s+\d", re.IGNORECASE)
"""After a short day, another joined to it, or a date or a time ("Mon 2 March", "Mon
10am")."""
_OFTEN = re.compile(
    r"(?<![\w-])(daily|weekly|fortnightly|bi-?weekly|monthly|bi-?monthly|quarterly|"
    r"annually|yearly|(?:twice|once)[ -](?:a|per)[ -](?:day|week|month|quarter|year)|"
    r"every[ -](?:other[ -])?(?:day|week|fortnight|month|quarter|year))(?![\w-])",
    re.IGNORECASE,
)
_NEXT_WORD = re.compile(r"[ \t]+([A-Za-z][\w-]*)")
_NOT_NOUNS = frozenset(
    "on at in from until till by for with and or to instead now again only each every "
    "basis starting rather than once when after before so as".split()
)
"""Words after a frequency that leave it how often ("weekly on Mondays", "quarterly from
April"); any other word is the noun it names ("weekly sync", "daily huddle notes")."""
_OFTEN_KEY = {
    "daily": "1d",
    "weekly": "7d",
    "fortnightly": "14d",
    "biweekly": "14d",
    "bi-weekly": "14d",
    "monthly": "30d",
    "bimonthly": "60d",
    "bi-monthly": "60d",
    "quarterly": "91d",
    "annually": "365d",
    "yearly": "365d",
}
_EXTENSION = re.compile(r"(?<![\w-])(?:(?:ext\.?|extension)\s?|x)(\d{3,6})(?![\w-])", re.IGNORECASE)
"""An extension: "ext 4400", "ext. 4400", "x4400" (not "3 x 1000", a product)."""


_OFFSET = re.compile(
    r"\b(?i:at|by|until|till|not|than)\s+(STD|STA|ETD|ETA|EOBT|[TDHL])\s?[-\u2212](\d{1,3})"
    r"(?![\w./-])"
)
"""A moment as an offset before a named one, after a word that sets a moment ("at
STD-60", "not STD-90", "by T-2", "At STD-60" opening a sentence): the named moments of
schedules (departure and arrival, scheduled or estimated, off-blocks) and the one-letter
days and hours of a count-down, so that a code after the same words ("by SOP-12") is not
read."""


def shorthand_in(text: str) -> list[Value]:
    """The values ``text`` writes in shorthand, in order, none overlapping another."""
    found: list[Value] = []

    def add(kind: str, unit: str, key: str, start: int, end: int) -> None:
        if not any(v.start < end and start < v.end for v in found):
            found.append(Value(kind, unit, key, start, end))

    for m in _EXTENSION.finditer(text):
        add("extension", "", m.group(1), m.start(), m.end())
    for m in _OFFSET.finditer(text):
        add("quantity", "before", f"{float(m.group(2)):g}", m.start(1), m.end())
    for m in _CLOCK.finditer(text):
        hour = int(m.group(1)) % 12 + (12 if m.group(3).lower() == "p" else 0)
        if int(m.group(1)) <= 12:
            add("time", "", f"{hour}:{m.group(2) or '00'}", m.start(), m.end())
    for m in _PENCE.finditer(text):
        add("money", "", f"p{float(m.group(1)):g}", m.start(), m.end())
    for m in _TIMES.finditer(text):
        word = (m.group(4) or "").lower()
        number = m.group(1) or m.group(2) or m.group(3)
        times = float(number) if number else _TIMES_WORDS.get(word, 1.5)
        add("multiplier", "", f"{times:g}", m.start(), m.end())
    for m in _DAY_OF_MONTH.finditer(text):
        add("day of month", "", m.group(1), m.start(), m.end())
    for m in _GLUED.finditer(text):
        word = (m.group(2) or m.group(3)).lower()
        unit = unit_word(word) or (word[:-1] if word.endswith("s") else word)
        add("quantity", unit, f"{float(m.group(1)):g}", m.start(), m.end())
    for m in _OFTEN.finditer(text):
        after = _NEXT_WORD.match(text, m.end())
        if after is not None and after.group(1).lower() not in _NOT_NOUNS:
            continue  # "daily huddle notes", "the monthly numbers": a name's word
        add("frequency", "", _often_key(m.group(1).lower()), m.start(), m.end())
    for m in _SHORT_SPAN.finditer(text):
        first, last = (SHORT_WEEKDAYS[g] for g in m.groups())
        add("weekday", "", f"{first}-{last}", m.start(), m.end())
    for m in _SHORT_DAY.finditer(text):
        if _SETS_DAY.search(text[max(0, m.start() - 12) : m.start()]) or _DAY_AFTER.match(
            text, m.end()
        ):
            add("weekday", "", m.group(1).lower()[:3], m.start(), m.end())
    return sorted(found, key=lambda v: v.start)


_JOINED = re.compile(rf"\s*(?:&|/|\+|,|and|or|{'|'.join(DAY_JOINS)})\s*$", re.IGNORECASE)
_RANGE = re.compile(rf"\s*(?:-|\u2013|to|through|thru|{'|'.join(DAY_RANGES)})\s*$", re.IGNORECASE)


_PERIODS = {"day": 1, "week": 7, "fortnight": 14, "month": 30, "quarter": 91, "year": 365}


def _often_key(said: str) -> str:
    """How often, as days between ("weekly", "every week", "once a week": ``7d``)."""
    if said in _OFTEN_KEY:
        return _OFTEN_KEY[said]
    words = re.split(r"[ -]", said)
    days = _PERIODS[words[-1]] * (2 if "other" in words else 1) / (2 if words[0] == "twice" else 1)
    return f"{days:g}d"


def values_of(text: str) -> list[Value]:
    """The values ``text`` states, in order: its shorthand, then ``values_in``'s that do
    not overlap it, with each run of weekdays one value (``day_sets``)."""
    short = shorthand_in(text)
    rest = [
        v for v in values_in(text) if not any(s.start < v.end and v.start < s.end for s in short)
    ]
    dates = [v for v in rest if v.kind == "date"]
    short = [v for v in short if v.kind != "weekday" or not any(_beside(v, d) for d in dates)]
    return day_sets(text, sorted(short + rest, key=lambda v: v.start))


def _beside(a: Value, b: Value) -> bool:
    """Whether a day sits next to a date ("Sat 11 April": the day of a date)."""
    return -3 <= b.start - a.end <= 2 or -3 <= a.start - b.end <= 2


def day_sets(text: str, values: list[Value]) -> list[Value]:
    """``values`` with each run of weekdays joined by "&", "and", "/" or a comma made one
    value ("Tuesday & Friday": the days of one schedule, key ``fri+tue`` in the week's
    order), and each range one ("Mon-Fri": key ``mon-fri``)."""
    out: list[Value] = []
    for v in values:
        last = out[-1] if out else None
        if last is not None and last.kind == v.kind == "weekday" and "-" not in last.key:
            between = text[last.end : v.start]
            if _RANGE.fullmatch(between) and "+" not in last.key:
                out[-1] = Value("weekday", "", f"{last.key}-{v.key}", last.start, v.end)
                continue
            if _JOINED.fullmatch(between):
                days = sorted({*last.key.split("+"), v.key}, key=_day_order)
                out[-1] = Value("weekday", "", "+".join(days), last.start, v.end)
                continue
        out.append(v)
    return out


def _day_order(key: str) -> int:
    return DAYS.index(key) if key in DAYS else len(DAYS)
