"""The names a unit of text holds as values, and which of them it names as gone.

A holder or a place changes by its name as a setting changes by its number: "report to
Marcus Lee", "Priya has moved over to the EU entity", "#help-it has been renamed to
#it-desk". ``names_in`` reads the names as ``Value``s of kind ``name``; ``gone_name``
says which is the one before, ``toward`` which the new one, and ``where_gone`` where
the old one went, so that two units can be compared holder by holder
(``derive/restating/names.py``).
"""

from __future__ import annotations

import re
from functools import cache

from ..analysis import DEFAULT_LANGUAGE, get_language
from ..analysis.calendar import MONTHS_BY_LANGUAGE, SHORT_WEEKDAYS_BY_LANGUAGE, WEEKDAYS_BY_LANGUAGE
from .capitals import trim_common
from .cues import change_cue
from .values import Value

__all__ = ["CALENDAR", "gone_name", "names_in", "toward", "where_gone"]


_NAME = re.compile(
    r"(?<![\w#@.'\u2019-])(?:[#@]\w[\w.-]*\w|\d*[A-Z][\w&+'\u2019-]*(?:[ \t]+[A-Z][\w&+-]*)*)"
)
"""A name as written: a channel or handle, or a run of capitalised words ("Marcus Lee",
"1Password", "#it-desk")."""
CALENDAR = frozenset(
    "jan feb mar apr may jun jul aug sep sept oct nov dec january february march april "
    "june july august september october november december monday tuesday wednesday "
    "thursday friday saturday sunday mon tue tues wed weds thu thur thurs fri sat sun".split()
)
"""The calendar's words, months and days, written out or short ("Tue & Thu 08:00")."""
_CALENDAR = CALENDAR | {"i", "usd", "eur", "gbp", "chf"}
"""Words written with a capital that name no one: the calendar's, "I", and currency
codes ("EUR 45": an amount)."""
_GONE_AFTER = re.compile(
    r"(?:\s+\w+)?\s+(?:(?:has|have|is|was|were|gets|got|will|be|been|being)\s+)*"
    r"(?:renamed|replaced|retired|switched\s+off|turned\s+off|shut\s+down|cancell?ed|"
    r"sunset|deprecated|decommissioned|dropped|gone|moved\s+(?:on|over)|stepped\s+(?:down|away)|"
    # a firm let go, a form or tool refused from now on ("Paper AL1 forms will no longer
    # be accepted", "Datatank have been stood down")
    r"stood\s+down|no\s+longer\s+(?:be\s+)?(?:accepted|used|supported)|"
    # a system shut to new work ("TrackWise is closed for new CCs")
    r"closed\s+(?:for|to)\s+(?:new|all)\b)\b",
    re.IGNORECASE,
)
_GONE_BEFORE = re.compile(
    r"\b(?:from|rather\s+than|instead\s+of|replacing|replaces|no\s+longer(?:\s+\w+){0,2})"
    r"\s+(?:the\s+|our\s+)?$",
    re.IGNORECASE,
)
_TAKES_OVER = re.compile(
    r"\s+(?:(?:now|will|is\s+going\s+to)\s+)?(?:takes?|took|is\s+taking)\s+over\b"
    r"|\s+(?:is|will\s+be)\s+(?:now\s+)?the\s+new\b",
    re.IGNORECASE,
)
_TOWARD = re.compile(
    r"\b(?:to|into|in|at|on|now|with|by|is|through|via)\s+(?:the\s+|our\s+)?(?:new\s+)?$", re.I
)
_NOT_BEFORE = re.compile(r",\s+not\s+(?:the\s+|our\s+)?$", re.IGNORECASE)
"""Before a name: ", not", which in a sentence stating a change names the one it replaced
("from Monday permits get signed off by Lauren Hicks, not Ravi")."""


@cache
def _calendar(language: str) -> frozenset[str]:
    """The calendar's words that are no names in a text in ``language``: English's, and
    its own ("Juni", "Montag", "Mo"); another language's "Mayo" or "Domingo" may be one."""
    if language == DEFAULT_LANGUAGE:
        return _CALENDAR
    return _CALENDAR.union(
        MONTHS_BY_LANGUAGE.get(language, {}),
        WEEKDAYS_BY_LANGUAGE.get(language, {}),
        (w.casefold() for w in SHORT_WEEKDAYS_BY_LANGUAGE.get(language, {})),
    )


def names_in(text: str, language: str = DEFAULT_LANGUAGE) -> list[Value]:
    """The names ``text`` (in ``language``) holds, but for a sentence's first word
    (capitalised whatever it is), dates' words, "I", currency codes and the words its
    language capitalises that are no names (``capitals.py``); ``key`` is the name
    case-folded."""
    lang = get_language(language)
    calendar = _calendar(language)
    found: list[Value] = []
    for m in _NAME.finditer(text):
        start, written = m.start(), m.group(0)
        first, _, rest = written.partition(" ")
        tail = first[1:].replace("'", "").replace("\u2019", "")  # "We've", "I'm": no names
        if _sentence_start(text, start) and tail.isalpha() and tail.islower():
            # In German a run opening a sentence ("Uwe Fischer wechselt") is read by
            # its words (``trim_common``): a capital there says nothing of the first.
            if rest:
                if lang.names_by_case:
                    start, written = start + len(first) + 1, rest.lstrip()
            elif not _GONE_AFTER.match(text, m.end()):
                continue  # "Store all shared credentials": a capital that starts a sentence
            # but "Airflow is being switched off." names what is gone
        first, _, rest = written.partition(" ")
        if rest and first.casefold() in calendar:  # "From Monday Tomasz Wójcik takes over"
            start, written = start + len(first) + 1, rest.lstrip()
        if all(w in calendar for w in written.casefold().split("-")):
            continue  # "Mon-Fri", "Jan-Jun": a span of time
        trimmed = trim_common(text, start, written, lang)
        if trimmed is None:
            continue
        start, written = trimmed
        key = _PLURAL_CODE.sub(r"\1", written.casefold())  # "HR-07s" is more than one HR-07
        found.append(Value("name", "", key, start, start + len(written)))
    return found


_PLURAL_CODE = re.compile(r"(\d)s$")


def _sentence_start(text: str, at: int) -> bool:
    before = text[:at].rstrip(" \t\"'(*-•¿¡")
    return not before or before[-1] in ".!?\n"


def gone_name(text: str, name: Value) -> bool:
    """Whether ``text`` names ``name`` as the one before ("moved down from
    Organization", "rather than Ana", "#help-it has been renamed to #it-desk"; ", not
    Ravi" in a sentence that states a change: in one that does not, "send it to Finance,
    not HR" only says where it goes)."""
    before = text[max(0, name.start - 40) : name.start]
    return bool(
        _GONE_BEFORE.search(before)
        or _GONE_AFTER.match(text, name.end)
        or (_NOT_BEFORE.search(before) and change_cue(text))
    )


_WENT = re.compile(
    r"(?:\s+\w+)?\s+(?:has\s+|have\s+)?(?:moved\s+(?:on|over)|stepped\s+(?:down|away))\b[^,;.]*",
    re.I,
)


def where_gone(text: str, name: Value) -> tuple[int, int]:
    """The span of ``text`` that says where ``name`` went ("Priya has moved over to the EU
    entity"): what it names is not the one who took over."""
    m = _WENT.match(text, name.end)
    return (m.start(), m.end()) if m else (name.end, name.end)


def toward(text: str, name: Value) -> bool:
    """Whether ``name`` follows a word that points at a new holder or place ("report to
    Marcus Lee", "now in Porto", "on the Professional plan"), or is the new holder by
    the verb after it ("Tomasz Wójcik takes over the payments gateway")."""
    if _STILL.search(text[max(0, name.start - 30) : name.start]):
        return False  # "requests still go via the AC1 form": the one it always was
    return bool(
        _TOWARD.search(text[max(0, name.start - 20) : name.start])
        or _TAKES_OVER.match(text, name.end)
    )


_STILL = re.compile(r"\bstill(?:\s+[\w'-]+){0,3}\s+$", re.IGNORECASE)
