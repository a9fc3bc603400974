"""One unit being read by the pattern rules: its text, entities, dates and section subject,
and the subject, object and value phrases the rules cut from it."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..dates import find_dates
from ..names import names_something
from ..sentences import Unit
from ..types import Found, StatementType

_W = r"[^\s,;:()]+"
_NP = rf"(?:{_W}(?:\s+{_W}){{0,5}}?)"
_DET = re.compile(r"(?:(?:the|our|a|an|this|all|its|their|your|my)\s+)+", re.IGNORECASE)
_PRONOUN = frozenset(
    "it this that they he she we i you there which who what everyone nobody someone one "
    "these those here".split()
)


_CUT = re.compile(
    r"\s*(?:[,;]|\s\(|\s[-\u2013\u2014]\s|\.(?:\s|$)|!|\s(?:because|since|so that|so|until|unless|"
    r"instead of|rather than|starting|effective|as of|which|who|after|before|while|"
    r"when|but|except|for now|from now on|going forward|once)\b)",
    re.IGNORECASE,
)
# "Postgres 16", "Python 3.12", "GitHub Actions": a name and what qualifies it.
_VERSION = re.compile(
    r"(?:\s+(?:v?\d+(?:\.\d+)*\b|[A-Z][a-z]+\b"
    r"(?!\s+(?!(?:now|today|instead|too|again|from|going|starting|effective|since)\b)[a-z])))*"
)
_LIGHT_CUT = re.compile(
    r"\s*(?:[,;]|\s\(|\s[-\u2013\u2014]\s|\.(?:\s|$)|!|"
    r"\s(?:because|since|so that|as it|as they|but)\b)",
    re.IGNORECASE,
)
_TRAILING_WHEN = re.compile(
    r"\s+(?:on|in|by|from|at|as of|since|starting|effective)\s+(?:the\s+)?"
    r"(?:week\s+of\s+)?\S.*$",
    re.IGNORECASE,
)


_GROUP_WORD = re.compile(r"\s+(?:team|squad|guild|tribe|pod|crew)$", re.IGNORECASE)
_PROJECT_WORD = re.compile(
    r"(?:[Pp]roject\s+)?(?P<name>.+?)(?:\s+(?:project|initiative|programme|program))?"
)
_ENTITY_SLOTS = frozenset(
    {"person", "team", "system", "company", "project", "code", "handle", "email"}
)
_PEOPLE = frozenset({"person", "team", "handle", "email"})


@dataclass(frozen=True, slots=True)
class _Draft:
    type: StatementType
    subject: Found
    predicate: str
    object: str
    object_entity: Found | None
    confidence: float
    replaces: str | None = None


class _Sentence:
    """One unit being read: the whole text, the entities in it, the section's subject."""

    def __init__(self, text: str, unit: Unit, entities: Sequence[Found], context: Found | None):
        self.text = text
        self.start = unit.start
        self.end = unit.end
        self.entities = [e for e in entities if unit.start <= e.start and e.end <= unit.end]
        self.context = context
        self.dates = find_dates(text, unit.start, unit.end)
        self.extra: list[Found] = []
        # What "it" refers to: the subject of the clause before, in this sentence.
        self.antecedent: Found | None = None

    def entity_at(self, start: int, end: int) -> Found | None:
        for e in self.entities + self.extra:
            if e.start == start and e.end == end:
                return e
        return None

    def entity_starting(self, start: int, end: int) -> Found | None:
        for e in self.entities + self.extra:
            if e.start == start and e.end <= end:
                return e
        return None

    def subject(self, start: int, end: int, *, strip_team: bool = False) -> Found | None:
        start, end = _strip_span(self.text, start, end)
        tail = _GROUP_WORD.search(self.text, start, end)
        if strip_team and tail is not None:
            found = self.entity_at(start, end)
            end = tail.start()
            if found is not None and found.type != "team":
                return found
        project = _PROJECT_WORD.fullmatch(self.text, start, end)
        if project is not None:
            inner = self.entity_at(project.start("name"), project.end("name"))
            if inner is not None:
                return inner
        if start >= end:
            return None
        found = self.entity_at(start, end)
        if found is not None:
            return found
        value = self.text[start:end]
        if value.lower() in ("it", "they") and self.antecedent is not None:
            return self.antecedent
        if value.lower() in _PRONOUN or len(value.split()) > 6 or not names_something(value):
            return None
        return Found("topic", value, start, end)

    def object(
        self,
        start: int,
        end: int,
        *,
        entity_slot: bool = False,
        people: bool = False,
        light: bool = False,
    ) -> tuple[str, Found | None] | None:
        """The object phrase from ``start``: cut at a clause boundary; in an entity slot,
        the entity it starts with (a name in a people slot becomes a person)."""
        start, end = _strip_span(self.text, start, end, determiners=entity_slot)
        if start >= end:
            return None
        if entity_slot:
            found = self.entity_starting(start, end)
            if found is not None and (not people or found.type in _PEOPLE | {"project"}):
                version = _VERSION.match(self.text, found.end, end)
                if version and version.end() > found.end and not people:
                    return self.text[found.start : version.end()], found
                return found.value, found
            if people:
                m = re.compile(r"[A-Z][\w'\u2019-]*(?:\s+[A-Z][\w'\u2019-]*){0,2}").match(
                    self.text, start, end
                )
                if m and names_something(m.group(0), phrase=False):
                    person = Found("person", m.group(0), m.start(), m.end())
                    self.extra.append(person)
                    return person.value, person
        cut = (_LIGHT_CUT if light else _CUT).search(self.text, start, end)
        stop = cut.start() if cut else end
        stop = _strip_span(self.text, start, stop)[1]
        phrase = self.text[start:stop]
        if not phrase or phrase.lower() in _PRONOUN:
            return None
        return phrase, self.entity_at(start, stop)


def _strip_span(text: str, start: int, end: int, *, determiners: bool = True) -> tuple[int, int]:
    while start < end and text[start] in " \t\n\"'`*_\u201c\u2018":
        start += 1
    if determiners:
        m = _DET.match(text, start, end)
        if m:
            start = m.end()
    while end > start and text[end - 1] in " \t\n.,;:!?\"'`*_\u201d\u2019)":
        end -= 1
    if text[start:end].endswith(("'s", "\u2019s")):
        end -= 2
    return start, end


Rule = Callable[[_Sentence, int, int], list[_Draft]]


def _about(
    s: _Sentence, xs: int, xe: int, predicate: str, vs: int, ve: int, confidence: float
) -> list[_Draft]:
    """A statement (X, predicate, value) where X may be empty: a relational attribute then
    borrows the section's subject."""
    xs, xe = _strip_span(s.text, xs, xe)
    subject = s.subject(xs, xe, strip_team=predicate == "owner") if xs < xe else s.context
    if subject is None:
        return []
    people = predicate in ("owner", "contact")
    value = _value(s, vs, ve, entity_slot=predicate != "means", people=people)
    if value is None:
        return []
    return [_Draft("fact", subject, predicate, value[0], value[1], confidence)]


def _value(
    s: _Sentence, vs: int, ve: int, *, entity_slot: bool, people: bool = False
) -> tuple[str, Found | None] | None:
    """A value: a date (as written) when it starts with one, else the object phrase."""
    vs, _ = _strip_span(s.text, vs, ve, determiners=False)
    for d in s.dates:
        if vs <= d.start < ve and _LEAD_IN.fullmatch(s.text, vs, d.start):
            return s.text[d.start : d.end], None
    return s.object(vs, ve, entity_slot=entity_slot, people=people)


def _is_pronoun(text: str) -> bool:
    return text.strip().lower() in _PRONOUN


def _old_value(s: _Sentence, m: re.Match[str], group: str) -> str | None:
    if m.groupdict().get(group) is None:
        return None
    found = s.object(m.start(group), m.end(group), entity_slot=True)
    return found[0] if found else None


_LEAD_IN = re.compile(
    r"[\s,]*(?:(?:now|currently|still|planned|scheduled|set|expected|due|targeted|moved|"
    r"pushed|slipped|fixed|confirmed|tentatively)\s+)*(?:(?:for|to|on|by|in|at|before)\s+)?"
    r"(?:the\s+)?(?:(?:week|end|start|beginning|middle)\s+of\s+)?",
    re.IGNORECASE,
)
