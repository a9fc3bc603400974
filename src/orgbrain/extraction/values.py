"""The values a sentence states: amounts, quantities, shares, dates and times of day.

A policy changes by its number more often than by its name: "Any purchase above $500
needs approval" becomes "you now only need sign-off for purchases over $1,000", a
retention of 14 days becomes 35, a freeze moves from Dec 11 to Dec 4. This module reads
those values out of one unit of text (``sentences.split_units``), each with its kind and,
for a quantity, the noun it counts ("600 requests", "14 days", "two approving reviews"),
so that two sentences can be compared slot by slot (``derive/restated.py``). It reads
numbers, not meaning: codes and versions ("ADR-014", "v5.8", "Q4", "KR1") and years on
their own are not values.

``marked_old`` says which of a unit's values it names as the one before ("from 600",
"was 14", "rather than 3"); whether the unit states a change at all is ``cues.py``'s,
and a thing's state (on hold, live) ``states.py``'s. The names a unit holds are read by
``named.py``, the qualifiers that tell two settings apart by ``qualifiers.py``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..analysis.calendar import MONTHS, WEEKDAYS, month_number

__all__ = ["Value", "marked_old", "same_slot", "unit_word", "values_in"]


@dataclass(frozen=True, slots=True)
class Value:
    """One value in a text: ``kind`` is ``money``, ``percent``, ``quantity`` (``unit`` the
    one or two words counted, lower-cased), ``date``, ``weekday``, ``time`` or ``number``
    (or ``name``, from ``named.names_in``); ``key`` compares two
    values of one kind ("$1,000" and "$1000" are one key); ``text[start:end]`` is it as
    written, a quantity with its noun ("14 days")."""

    kind: str
    unit: str
    key: str
    start: int
    end: int


_WORDS = {
    "one": 1, "single": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "fifteen": 15, "twenty": 20, "thirty": 30,
}  # fmt: skip
_NUM = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_ALONE = r"(?<![\w.,/#:-])"  # not inside a code, a version, a time or a path
_AFTER = r"(?![\w-]|[.,]\d)"
_OTHER_MONTHS = "|".join(
    re.escape(w)
    for w in sorted(MONTHS, key=len, reverse=True)
    if w not in "jan feb mar apr may jun jul aug sep oct nov dec".split()
)
_MONTH = (
    rf"(?!(?:{'|'.join(WEEKDAYS)})(?!\w))"  # "mardi 14 avril": a day, then its date
    rf"(?:(?:{_OTHER_MONTHS})(?!\w)|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)"
    r"(?:[a-z]{0,6}))\.?"
)
"""A month in any language analysis knows (``analysis.calendar``), English's also cut
short ("Sept.", "Dec")."""
_EU_NUM = r"(?:\d{1,3}(?:[.\u00a0\u202f ]\d{3})+(?:,\d+)?|\d+,\d{1,2}(?!\d))"
"""A number as German, French and Spanish write it: dots or spaces between thousands, a
comma before decimals ("10.000", "1 200", "4,20"); read only before a currency or "%",
where English's "1,200" cannot be meant."""
_VALUE = re.compile(
    r"(?P<link>(?<![\w@/.-])(?:https?://[^\s<>()\[\]]+[^\s<>()\[\].,;:!?'\"]"
    r"|(?:[a-z0-9-]+\.)+(?:com|io|net|org|dev|app|local|internal|example)"
    r"(?:/[^\s<>()\[\]]*[^\s<>()\[\].,;:!?'\"])?)(?![\w@-]))"
    r"|(?P<email>(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+)"
    rf"|(?P<date>{_ALONE}(?:(?P<mon>{_MONTH})\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?"
    rf"|(?P<day2>\d{{1,2}})(?:st|nd|rd|th|er|\.)?\s+(?:de\s+)?(?P<mon2>{_MONTH})"
    rf"|(?P<iso>\d{{4}}-\d{{2}}-\d{{2}})){_AFTER})"
    rf"|(?P<time>{_ALONE}(?:\d{{1,2}}:\d{{2}}(?:\s?[ap]\.?m\.?)?(?:\s?uhr\b)?"
    rf"|\d{{1,2}}(?:\.\d{{2}})?\s?uhr\b|\d{{1,2}}\s?h\s?\d{{2}}(?!\d)){_AFTER})"
    rf"|(?P<money>(?:{_ALONE}{_EU_NUM}\s?(?:€|eur\b|euros?\b)|{_ALONE}{_NUM}\s?€"
    rf"|[$€£]\s?{_NUM}(?:\s?(?:k|m|bn|million|billion)\b)?"
    rf"|(?<![\w-])(?:usd|eur|gbp|chf)\s?{_NUM}(?:\s?(?:k|m|bn|million|billion)\b)?{_AFTER}"
    rf"|{_ALONE}{_NUM}\s?(?:usd|eur|gbp|dollars|euros|pounds)\b))"
    rf"|(?P<percent>{_ALONE}(?:{_EU_NUM}\s?%|{_NUM}\s?(?:%|percent\b|pct\b)))"
    r"|(?P<weekday>(?<![\w-])(?:(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b"
    rf"|(?:{'|'.join(sorted(WEEKDAYS, key=len, reverse=True))})(?!\w)))"
    rf"|(?P<num>{_ALONE}(?:{_NUM}|(?:{'|'.join(_WORDS)})\b){_AFTER})",
    re.IGNORECASE,
)
_UNIT = re.compile(r"[ \t]*([a-z][a-z-]{1,20})\b", re.IGNORECASE)
"""What a count counts: the word after it and the one after that ("600 requests", "14
days", "4 business hours", "two approving reviews"), up to a function word ("45 by the
end" counts nothing); two counts are of one thing when their nouns share a word
(``same_slot``: "4 business hours", "1 hour")."""
_NOT_UNITS = frozenset(
    "a an the and or of to in on at by for per from than with as is are was were be it "
    "this that these those we you they our your their its".split()
)
_YEAR = re.compile(r"(?:19|20)\d\d")


_PHONE = re.compile(
    r"(?<![\w.,/:+-])(?P<lead>\+|\(|0)?\d{1,4}\)?(?:[ -]\(?\d{2,5}\)?){1,4}[ -]\d{3,5}"
    r"(?![\w-]|[.,]\d|[ -]?\d)"
)
"""Digits in groups ("1800 555 0147", "+44 20 7946 0958", "020-7946-0958")."""
_DIALLED = re.compile(
    r"\b(?:call|ring|phone|tel|telephone|hotline|dial|mobile|cell|fax|sms|whatsapp)\b\W*"
    r"(?:\w+\W+){0,4}$",
    re.IGNORECASE,
)
"""A word a few words before digits in groups that dials them."""


_TWO_GROUPS = re.compile(
    r"(?<![\w.,/:+-])(?:\+\d{2,3}[ -]?)?0\d{3,4}[ -]\d{5,7}(?![\w-]|[.,]\d|[ -]?\d)"
)
"""A number dialled as an area code and a line ("01632 964400", "0161-4960732")."""


def _phones(text: str) -> list[Value]:
    """Phone numbers: digits in groups that start with +, ( or 0, or follow a word that
    dials them ("call the hotline on 1800 555 0147"), or an area code and a line of ten
    digits or more ("01632 964400"); other digits in groups are numbers."""
    found = [
        _phone(m)
        for m in _PHONE.finditer(text)
        if m.group("lead") or _DIALLED.search(text[max(0, m.start() - 40) : m.start()])
    ]
    found += [
        _phone(m)
        for m in _TWO_GROUPS.finditer(text)
        if len(re.sub(r"\D", "", m.group(0))) >= 10
        and not any(p.start < m.end() and m.start() < p.end for p in found)
    ]
    return sorted(found, key=lambda v: v.start)


def _phone(m: re.Match[str]) -> Value:
    return Value("phone", "", re.sub(r"\D", "", m.group(0)), m.start(), m.end())


def values_in(text: str) -> list[Value]:
    """The values ``text`` states, in order."""
    phones = _phones(text)
    found: list[Value] = []
    for m in _VALUE.finditer(text):
        if any(p.start <= m.start() < p.end for p in phones):
            continue  # a group of a phone number
        kind = m.lastgroup if m.lastgroup != "num" else "number"
        raw = m.group(0)
        if m.group("date"):
            key = _date_key(m)
            kind = "date"
        elif kind == "time":
            key = _time_key(raw.lower())
        elif kind == "weekday":
            key = WEEKDAYS.get(raw.lower(), raw.lower()[:3])
        elif kind == "link":
            key = re.sub(r"^https?://(?:www\.)?", "", raw.lower()).rstrip("/")
        elif kind == "email":
            key = raw.lower()
        elif kind in ("money", "percent"):
            key = _number_key(raw)
        else:
            word = raw.lower()
            if word == "one" or (word in _WORDS and _is_article(text, m.start())):
                continue  # "one of us", "a single place": not counts
            if _YEAR.fullmatch(raw):
                continue
            key = str(_WORDS[word]) if word in _WORDS else _number_key(raw)
        unit = ""
        end = m.end()
        if kind == "number":
            u = _UNIT.match(text, end)
            if u and u.group(1).lower() not in _NOT_UNITS:
                kind, unit, end = "quantity", _singular(u.group(1).lower()), u.end(1)
                second = _UNIT.match(text, end)
                if second and second.group(1).lower() not in _NOT_UNITS:
                    unit, end = f"{unit} {_singular(second.group(1).lower())}", second.end(1)
        found.append(Value(str(kind), unit, key, m.start(), end))
    dates = [v for v in found if v.kind == "date"]
    found = [v for v in found if v.kind != "weekday" or not any(_beside(v, d) for d in dates)]
    return sorted(found + phones, key=lambda v: v.start)


def _beside(a: Value, b: Value) -> bool:
    """Whether two values sit next to each other ("Friday Dec 11": a day of a date)."""
    return -3 <= b.start - a.end <= 2 or -3 <= a.start - b.end <= 2


def same_slot(a: Value, b: Value) -> bool:
    """Whether two values could be one setting's: the same kind and, for counts, a noun
    in common ("4 business hours" and "1 hour"; not "600 requests" and "50 connections")."""
    return a.kind == b.kind and (not a.unit or bool(set(a.unit.split()) & set(b.unit.split())))


def _is_article(text: str, at: int) -> bool:
    """Whether a number word at ``at`` is part of a phrase that counts nothing."""
    before = text[max(0, at - 12) : at].lower()
    return before.rstrip().endswith(("no", "any", "the only"))


_EU_AMOUNT = re.compile(rf"({_EU_NUM})\s?(?:€|eur|euros?|%)", re.IGNORECASE)
"""An amount or a share written the European way; elsewhere "1.250" stays English's
one and a quarter."""


def _number_key(raw: str) -> str:
    written = _EU_AMOUNT.fullmatch(raw)
    if written is not None:  # "4,20 €", "10.000 €": one key with "€4.20", "€10,000"
        plain = re.sub(r"[.\s]", "", written.group(1)).replace(",", ".")
        return f"{float(plain):g}"
    digits = re.search(_NUM, raw)
    if digits is None:
        return raw.lower()
    n = float(digits.group(0).replace(",", ""))
    scale = re.search(r"(?i)\d\s?(k|m|bn|million|billion)\b", raw)
    if scale:
        n *= {"k": 1e3, "m": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}[scale.group(1).lower()]
    symbol = re.match(r"[$€£]", raw.strip())
    return f"{symbol.group(0) if symbol else ''}{n:g}"


def _date_key(m: re.Match[str]) -> str:
    if m.group("iso"):
        return m.group("iso")[5:]
    month = month_number(m.group("mon") or m.group("mon2")) or 0
    day = int(m.group("day") or m.group("day2"))
    return f"{month:02d}-{day:02d}"


def _time_key(raw: str) -> str:
    """A time of day without a leading zero ("07:30" and "7:30" are one time), and one
    key however it is written ("14:30 Uhr", "14.30 Uhr", "14h30": 14:30)."""
    if "h" in raw:  # "uhr", "h": the 24-hour clock of German and French
        hour, minutes = [*re.findall(r"\d+", raw), "00"][:2]
        return f"{int(hour)}:{minutes}"
    raw = re.sub(r"[\s.]", "", raw)
    return raw[1:] if raw[:1] == "0" and raw[1:2].isdigit() else raw


_UNIT_WORDS = {
    "h": "hour", "hr": "hour", "hrs": "hour", "min": "minute", "mins": "minute",
    "wk": "week", "wks": "week", "yr": "year", "yrs": "year", "sec": "second",
    "secs": "second",
}  # fmt: skip


def unit_word(word: str) -> str | None:
    """The noun an abbreviated unit stands for ("hrs": hour, "mins": minute), if any."""
    return _UNIT_WORDS.get(word)


def _singular(word: str) -> str:
    if word in _UNIT_WORDS:
        return _UNIT_WORDS[word]  # "8 hrs" counts what "4 hours" counts
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


_OLD = re.compile(
    r"\b(?:(?:from|was|were|previously|formerly|rather\s+than|instead\s+of|used\s+to\s+be|"
    r"mov(?:es?|ed|ing)\s+off|"
    r"wrongly\s+(?:said|stated|listed)|replac(?:es|ing)|replaced(?!\s+(?:by|with)\b))"
    r"\s+((?:[^\s.;:]+\s+){0,4})"
    r"|not\s+((?:the|a|an|our|at|on|by|in)\s+)?)['\"\u2018\u201c]?$",
    re.IGNORECASE,
)
"""Before a value, what names it as the one it replaced ("raised from 600", "(was 14)",
"moves off the last Sunday"),
at most four words before it, none of them the way to the new one ("from 600 to 1,200":
1,200 is not the old; "this replaces the '6 weeks before' guidance", but "replaced by 35
days" names the new one); "not" just before
it ("the 10th, not the 14th"), not a verb's ("do not drive faster than 6 km/h")."""
_TOWARDS = re.compile(r"\b(?:to|now|into|becomes?|then)\b|→|->", re.IGNORECASE)


def marked_old(text: str, value: Value) -> bool:
    """Whether ``text`` names ``value`` as the one before ("from 600 to 1,200",
    "35 days (was 14)", "rather than three", "(24h was never achievable)")."""
    m = _OLD.search(text[max(0, value.start - 60) : value.start])
    if m is not None and not _TOWARDS.search(m.group(1) or m.group(2) or ""):
        return not _starting(text, value, m.group(0), m.group(1) or "")
    return text[: value.start].rstrip().endswith("(") and bool(_WAS_AFTER.match(text, value.end))


def _starting(text: str, value: Value, said: str, between: str) -> bool:
    """Whether a "from" before ``value`` says when something starts, not what it was:
    "From Monday the fee is £40" (Monday is when, £40 the fee from then), "from next week
    13:30 pickup"; not "moved from Tuesday to Thursday" or "raised from 600"."""
    if said[:4].casefold() != "from":
        return False
    if "," in between or _CLAUSE.search(between) or _WHEN.match(between):
        return True  # "from next week, 13:30 pickup", "from Monday the fee is £40"
    return value.kind in ("date", "weekday") and _UNTIL.match(text, value.end) is None


_WHEN = re.compile(
    r"(?:next|this|today|tomorrow|tonight|now|then|mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|"
    r"apr|may|jun|jul|aug|sep|oct|nov|dec|q[1-4]\b|the\s+(?:start|end|beginning)\b)",
    re.IGNORECASE,
)
_CLAUSE = re.compile(r"\b(?:is|are|will|shall|must|should|can|be)\b", re.IGNORECASE)
_UNTIL = re.compile(r"\s*(?:to|until|till|through|-|\u2013)(?!\w)", re.IGNORECASE)


_WAS_AFTER = re.compile(r"\s+(?:was|were)\b", re.IGNORECASE)
"""After a value that opens a bracket, what says it is the one before ("a 48-hour job
from now on (24h was never achievable at weekends)")."""
