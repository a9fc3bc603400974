"""Time in a query: "what did we decide last week about billing?" asks about billing, in a
window of days. ``read_time`` finds the first time expression of a query and turns it
into that window, relative to a reference time (the search's ``as_of``, else the
context's clock), and gives the query's words without it.

An English reader, not a data set's: calendar words ("today", "yesterday", "this/last/next
week|weekend|month|year"), spans back from now ("the past 3 days", "in the last month"),
points back from now ("four weeks ago", "a couple of days ago"), weekdays ("last Friday",
"on Monday", "this Tuesday"), months ("in March", "last May", "March 2023", "since
June"), dates ("on May 3rd", "3 June, 2023", "2023-05-03", "October 13, 2023"), years
("in 2022"), shifts from a date ("the week before August 3, 2023", "two weeks before
May 1") and "since <any of these>". Everything is a UTC day: a window starts at a
midnight and ends (exclusive) at one.

What it leaves alone, on purpose: a month name without a preposition, a day or a year
beside it ("May said", "the March release", "did they march"); a plural weekday
("on Tuesdays": a habit, not a date); "last" without a unit ("the last time", "my last
order"); "N days ago" without N ("how many days ago": it asks for a count); and
"recently"/"lately", whose horizon nobody states.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from .terms import asking_start

__all__ = ["TimeReading", "Window", "read_time"]


@dataclass(frozen=True, slots=True)
class Window:
    """A span of UTC days: ``start`` inclusive, ``end`` exclusive (both midnights, or the
        reference time for a span that runs up to now); ``phrase``: the words read.
        ``ahead``: the window starts after the reference time ("tomorrow", "next week"): it
        says when the asker will act, and no note was written in it. ``scene``: the words lie
        in a clause that only sets the question's scene, and the clause says more than them
        ("Pax left a laptop on a Belfast flight 6 weeks ago - would we still have it?", "I
        ran conflicts three weeks ago and we're only now opening the matter - can I still
        rely on that search?"): it says when the asker acted, not when the note that answers
        was written. A question that opens with its time ("Last week, what did we decide?"),
        or whose scene says little besides it ("In the meeting last week, what did we
        decide?"), asks about that time. ``narrows``: false when the window held none of a
    search's candidates, or more than its gate reads (``narrow.narrow``): it then tells no
    hit from another, and a hit's date holds no term of the question."""

    start: datetime
    end: datetime
    phrase: str
    ahead: bool = False
    scene: bool = False
    narrows: bool = True

    @property
    def askers(self) -> bool:
        """Whether the window is the asker's time (``ahead`` or ``scene``), not a time a
        note that answers was written in: it ranks no note up, and a hit holds it only
        by saying it."""
        return self.ahead or self.scene

    def holds(self, when: datetime, slack: timedelta = timedelta(0)) -> bool:
        """Whether ``when`` (naive means UTC) lies in the window widened by ``slack``
        either side."""
        at = when if when.tzinfo is not None else when.replace(tzinfo=UTC)
        return self.start - slack <= at < self.end + slack

    @property
    def days(self) -> str:
        """The window as its first and last day: ``2026-11-02..2026-11-08``."""
        last = (self.end - timedelta(microseconds=1)).date()
        first = self.start.date()
        return first.isoformat() if first >= last else f"{first}..{last}"

    def __str__(self) -> str:
        return f"{self.phrase}: {self.days}"


@dataclass(frozen=True, slots=True)
class TimeReading:
    """A query's time: its ``window`` (None when it names no time) and ``rest``, the
    query without the words read."""

    window: Window | None
    rest: str


_MONTHS = (
    "january february march april may june july august september october november december"
).split()
_MONTH_ABBR = {m[:3]: n for n, m in enumerate(_MONTHS, start=1)} | {"sept": 9}
_WEEKDAYS = "monday tuesday wednesday thursday friday saturday sunday".split()
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "a couple of": 2,
    "a couple": 2,
    "couple of": 2,
}
_NUM = (
    r"(?P<n>\d{1,3}|a couple of|a couple|couple of|an?|one|two|three|four|five|six|seven|"
    r"eight|nine|ten|eleven|twelve)"
)
_UNIT = r"(?P<unit>day|week|fortnight|month|year)s?"
_MONTH = (
    r"(?P<month>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|"
    r"aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_WEEKDAY = r"(?P<weekday>monday|tuesday|wednesday|thursday|friday|saturday|sunday)"
# A shift from a date: "the week before", "two weeks after".
_SHIFT = (
    r"(?:(?:(?P<sn>\d{1,3}|an?|one|two|three|four|five|six|seven|eight|nine|ten|a couple of)"
    r"\s+|the\s+)(?P<sunit>day|week|fortnight|month|year)s?\s+(?P<dir>before|after)\s+)?"
)
_B = r"(?<![\w'\u2019-])"
_E = r"(?![\w'\u2019-])"

Read = Callable[[re.Match[str], datetime], tuple[datetime, datetime]]


def _midnight(d: date) -> datetime:
    return datetime.combine(d, time(), tzinfo=UTC)


def _day(d: date) -> tuple[datetime, datetime]:
    return _midnight(d), _midnight(d + timedelta(days=1))


def _monday(d: date) -> date:
    return d - timedelta(days=d.weekday())


def _month_span(year: int, month: int) -> tuple[datetime, datetime]:
    nxt = date(year + 1, 1, 1) if month == 12 else date(year, month + 1, 1)
    return _midnight(date(year, month, 1)), _midnight(nxt)


def _add_months(d: date, months: int) -> date:
    """``d`` moved by ``months``, its day capped at the month's last (31 March less one
    month is 28 or 29 February)."""
    year, month0 = divmod(d.year * 12 + d.month - 1 + months, 12)
    last = (_month_span(year, month0 + 1)[1] - timedelta(days=1)).day
    return date(year, month0 + 1, min(d.day, last))


def _count(text: str | None) -> int:
    if text is None:
        return 1
    t = " ".join(text.lower().split())
    return int(t) if t.isdigit() else _NUMBERS[t]


def _month_number(text: str) -> int:
    t = text.lower()
    return _MONTH_ABBR["sept" if t.startswith("sept") else t[:3]]


def _back(d: date, unit: str, n: int) -> date:
    """``d`` less ``n`` of ``unit`` (negative: later)."""
    if unit in ("day", "week", "fortnight"):
        return d - timedelta(days=n * {"day": 1, "week": 7, "fortnight": 14}[unit])
    return _add_months(d, -n * (12 if unit == "year" else 1))


_HALF_UNIT = {"week": 3, "fortnight": 7, "month": 15, "year": 182}


def _around(point: date, unit: str) -> tuple[datetime, datetime]:
    """The day ``point``, give or take half a ``unit``: "four weeks ago" is said of
    anything from three and a half to four and a half weeks back."""
    if unit == "day":
        return _day(point)
    half = timedelta(days=_HALF_UNIT[unit])
    return _midnight(point - half), _midnight(point + half + timedelta(days=1))


# -- what each rule reads ----------------------------------------------------------------


def _calendar(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    """this/last/next week|weekend|month|year: calendar spans (a week starts on Monday;
    "last weekend" on a Sunday is the one before)."""
    step = {"this": 0, "current": 0, "last": -1, "previous": -1, "next": 1}[m["which"].lower()]
    unit, today = m["cal"].lower(), now.date()
    monday = _monday(today) + timedelta(weeks=step)
    if unit == "week":
        return _midnight(monday), _midnight(monday + timedelta(weeks=1))
    if unit == "weekend":
        saturday = monday + timedelta(days=5) if step >= 0 else _monday(today) - timedelta(days=2)
        return _midnight(saturday), _midnight(saturday + timedelta(days=2))
    if unit == "month":
        first = _add_months(today.replace(day=1), step)
        return _month_span(first.year, first.month)
    year = today.year + step
    return _midnight(date(year, 1, 1)), _midnight(date(year + 1, 1, 1))


def _named_day(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    word = " ".join(m["named"].lower().split())
    shift = {"yesterday": -1, "last night": -1, "the day before yesterday": -2, "tomorrow": 1}
    return _day(now.date() + timedelta(days=shift.get(word, 0)))


def _span_back(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    """the past/last N units: from that far back up to the end of today."""
    start = _back(now.date(), m["unit"].lower(), _count(m["n"]))
    return _midnight(start), _midnight(now.date() + timedelta(days=1))


def _ago(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    unit = m["unit"].lower()
    return _around(_back(now.date(), unit, _count(m["n"])), unit)


def _weekday(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    """last/this/next/on <weekday>: "on" the latest one up to today, "last" and "this
    past" the latest before today, "this" the one of this week, "next" the first after
    today."""
    target = _WEEKDAYS.index(m["weekday"].lower())
    today = now.date()
    which = m["wwhich"].lower().split()[-1]
    if which == "this":
        return _day(_monday(today) + timedelta(days=target))
    if which == "next":
        return _day(today + timedelta(days=(target - today.weekday()) % 7 or 7))
    back = (today.weekday() - target) % 7
    if back == 0 and which in ("last", "past"):
        back = 7
    return _day(today - timedelta(days=back))


def _year_of(month: int, day: int | None, year: str | None, today: date, past: bool) -> int:
    """The year of a month (or date) written without one: the latest not after today
    (``past``: strictly before this month, as "last March" says)."""
    if year is not None:
        return int(year)
    if past:
        return today.year if month < today.month else today.year - 1
    later = (month, day or 1) > (today.month, today.day if day else 1)
    return today.year - 1 if later else today.year


def _month(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    month, today = _month_number(m["month"]), now.date()
    cue = (m.groupdict().get("mwhich") or "").lower()
    if cue == "next":
        year = today.year if month > today.month else today.year + 1
    elif cue == "this":
        year = today.year
    else:
        year = _year_of(month, None, m["year"], today, past=cue == "last")
    return _month_span(year, month)


def _date(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    """A date, or a shift from one: "the week before August 3" is the week up to it,
    "two weeks before August 11" the day two weeks before it, give or take a week's half."""
    if m.groupdict().get("iso"):
        day = date.fromisoformat(m["iso"])
    else:
        month, n = _month_number(m["month"]), int(m["day"])
        year = _year_of(month, n, m["year"], now.date(), past=False)
        if m["year"] is None and (month, n) == (2, 29):  # the latest leap day
            year = next(y for y in range(year, year - 8, -1) if calendar.isleap(y))
        day = date(year, month, n)
    if m["sunit"] is None:
        return _day(day)
    unit, before = m["sunit"].lower(), m["dir"].lower() == "before"
    n = _count(m["sn"])
    point = _back(day, unit, n if before else -n)
    if m["sn"] is not None:
        return _around(point, unit)
    if before:
        return _midnight(point), _midnight(day)
    return _midnight(day + timedelta(days=1)), _midnight(point + timedelta(days=1))


def _year(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    y = int(m["year"])
    return _midnight(date(y, 1, 1)), _midnight(date(y + 1, 1, 1))


def _today(m: re.Match[str], now: datetime) -> tuple[datetime, datetime]:
    return _day(now.date())


def _rule(pattern: str, read: Read) -> tuple[re.Pattern[str], Read]:
    return re.compile(rf"{_B}{pattern}{_E}", re.I), read


_RULES: tuple[tuple[re.Pattern[str], Read], ...] = (
    _rule(rf"(?:on\s+)?{_SHIFT}(?P<iso>\d{{4}}-\d\d-\d\d)", _date),
    _rule(rf"(?:on\s+)?{_SHIFT}{_MONTH}\.?\s+{_DAY}(?:,?\s+{_YEAR})?", _date),
    _rule(rf"(?:on\s+)?{_SHIFT}(?:the\s+)?{_DAY}\s+(?:of\s+)?{_MONTH}\.?(?:,?\s+{_YEAR})?", _date),
    _rule(
        rf"(?:(?:in|during|over|for)\s+)?(?:(?:the\s+)?(?:past|last|previous)\s+{_NUM}\s+"
        rf"|(?:the\s+(?:past|last|previous)|past)\s+){_UNIT}",
        _span_back,
    ),
    _rule(
        r"(?P<which>this|current|last|previous|next)\s+(?P<cal>week|weekend|month|year)", _calendar
    ),
    _rule(rf"(?:about\s+)?{_NUM}\s+{_UNIT}\s+ago", _ago),
    _rule(r"(?P<named>the\s+day\s+before\s+yesterday|yesterday|last\s+night|tomorrow)", _named_day),
    _rule(r"(?:earlier\s+)?(?:today|tonight|this\s+(?:morning|afternoon|evening))", _today),
    _rule(rf"(?P<wwhich>on\s+last|this\s+past|on|since|last|this|next)\s+{_WEEKDAY}", _weekday),
    _rule(
        rf"(?P<mwhich>in|during|early|late|mid|last|this|next|since)[\s-]+"
        rf"(?:(?:early|late|mid)[\s-]+)?{_MONTH}(?:,?\s+{_YEAR})?",
        _month,
    ),
    _rule(rf"{_MONTH},?\s+{_YEAR}", _month),
    _rule(rf"(?:in|during|since|of)\s+{_YEAR}", _year),
)
_SINCE = re.compile(r"(?:^|\s)since\s+$", re.I)


def read_time(query: str, now: datetime, *, asking: Callable[[], int] | None = None) -> TimeReading:
    """The first time expression of ``query`` as a window relative to ``now`` (naive
    means UTC), and the query without it; ``TimeReading(None, query)`` when it names no
    time. "since X" runs from X's start to the end of today. ``asking``: where the
    query's asking clause begins, when its reader has it (``terms.asking_start``)."""
    ref = (now if now.tzinfo is not None else now.replace(tzinfo=UTC)).astimezone(UTC)
    best: tuple[tuple[int, int], re.Match[str], tuple[datetime, datetime]] | None = None
    for pattern, read in _RULES:
        for m in pattern.finditer(query):
            try:
                span = read(m, ref)
            except (ValueError, KeyError):  # 31 April, 30 February: not a date
                continue
            key = (m.start(), -m.end())
            if best is None or key < best[0]:
                best = (key, m, span)
            break
    if best is None:
        return TimeReading(None, query)
    _, m, (start, end) = best
    lo = m.start()
    since = _SINCE.search(query[:lo])
    if since is not None or m[0].lower().startswith("since"):
        lo = since.start() if since is not None else lo
        end = max(end, _midnight(ref.date() + timedelta(days=1)))
    phrase = " ".join(query[lo : m.end()].split())
    rest = " ".join(f"{query[:lo]} {query[m.end() :]}".split())
    scene = _in_scene(query, lo, m.end(), asking)
    window = Window(start, end, phrase, ahead=start > ref, scene=scene)
    return TimeReading(window, re.sub(r"\s+([?.!,;:])", r"\1", rest))


# How many words besides the time a scene clause says for its time to be the asker's:
# "Last week, what ..." says none, "In the meeting last week, what ..." three (the time
# is the meeting's, when its notes were written), "I drove 60 miles to the depot last
# week - how much ..." more.
_SCENE_WORDS = 4
_WORD = re.compile(r"\w[\w'\u2019-]*")


def _in_scene(query: str, lo: int, hi: int, asked: Callable[[], int] | None) -> bool:
    """Whether the time read at ``query[lo:hi]`` lies in a clause that only sets the
    question's scene (``terms.asking_start``), not at the question's start, beside at
    least ``_SCENE_WORDS`` other words of that clause (``Window.scene``)."""
    asking = asking_start(query) if asked is None else asked()
    if not asking or hi > asking or not query[:lo].strip():
        return False
    return len(_WORD.findall(f"{query[:lo]} {query[hi:asking]}")) >= _SCENE_WORDS
