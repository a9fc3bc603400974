"""Event rules: joiners and leavers, dated releases, retirements and incidents, and plans
with a date ("We will sunset the v1 API on 1 June")."""

from __future__ import annotations

import re

from ..predicates import DEPRECATED, RETIRED_VERBS, alternation
from .sentence import _NP, _TRAILING_WHEN, _Draft, _is_pronoun, _Sentence

_JOINED = re.compile(
    r"(?P<p>@[\w.-]+|[A-Z][\w'\u2019.-]*(?:\s+[A-Z][\w'\u2019-]*){0,2})\s+(?:has\s+|have\s+)?"
    r"(?P<verb>joined|left|rejoined|moved\s+to|transferred\s+to|is\s+joining|will\s+join|"
    r"is\s+leaving|will\s+leave)\s+(?P<v>.+)"
)
# "Dana has left." / "Dana has left; ...": left the organisation, with nothing after.
_HAS_LEFT = re.compile(
    r"(?P<p>@[\w.-]+|[A-Z][\w'\u2019.-]*(?:\s+[A-Z][\w'\u2019-]*){0,2})\s+has\s+(?:now\s+)?"
    r"left(?:\s+us)?(?:\s+(?:today|yesterday|this\s+week|last\s+week))?\s*[.!]?\s*$"
)
# A dated retirement (or deprecation) is an event: "We decommissioned Jenkins on 3 March".
_RETIRING = alternation((*RETIRED_VERBS, DEPRECATED))
_SHIPPED = re.compile(
    r"(?:[Ww]e|[Tt]he\s+team|[\w-]+\s+team|[\w-]+|[A-Z][\w'\u2019-]+(?:\s+[A-Z][\w'\u2019-]+)?)\s+"
    r"(?:have\s+|has\s+|finally\s+|successfully\s+)?(?P<verb>shipped|launched|released|"
    r"rolled\s+out|deployed|completed|finished|closed|signed|hired|onboarded|"
    rf"{_RETIRING})\s+(?P<x>[^,;]+?)(?:\s+(?:to|for)\s+[^,;]+?)?\s+"
    r"(?:on|in|at|by|last|this|yesterday|today)\b"
)
_WAS_SHIPPED = re.compile(
    rf"(?P<x>{_NP})\s+(?:was|were|has\s+been|have\s+been|got)?\s*(?:finally\s+)?"
    r"(?P<verb>shipped|launched|released|rolled\s+out|went\s+live|deployed|completed|finished|"
    rf"went\s+down|was\s+down|failed|{_RETIRING}|cut\s+over|"
    r"went\s+out)\b"
)
_OUTAGE = re.compile(
    r"(?:(?:[Tt]he|[Aa]n?|[Oo]ur)\s+)?(?P<x>[\w-]+(?:\s+[\w-]+)?\s+)?"
    r"(?P<verb>outage|incident|postmortem|post-mortem|breach|downtime|sev-?[0-4]|SEV-?[0-4])\s+"
    r"(?:on|of|from|in)\s+"
)
_EVENT_PREDICATES = {
    "shipped": "released",
    "launched": "released",
    "released": "released",
    "rolled out": "released",
    "went live": "released",
    "went out": "released",
    "deployed": "released",
    "cut over": "released",
    "completed": "completed",
    "finished": "completed",
    "closed": "completed",
    "signed": "signed",
    "hired": "hired",
    "onboarded": "hired",
    "went down": "incident",
    "was down": "incident",
    "failed": "incident",
    **dict.fromkeys((*RETIRED_VERBS, DEPRECATED), "retired"),
    "joined": "joined",
    "rejoined": "joined",
    "is joining": "joined",
    "will join": "joined",
    "moved to": "joined",
    "transferred to": "joined",
    "left": "left",
    "is leaving": "left",
    "will leave": "left",
}


_WILL = re.compile(
    r"(?:[Ww]e|[Tt]he\s+team|[\w-]+\s+team)\s+(?:will|plan\s+to|are\s+going\s+to|intend\s+to)\s+"
    r"(?:ship|launch|release|retire|deprecate|sunset|decommission|roll\s+out|turn\s+off|"
    r"shut\s+down|migrate|open|close)\s+(?P<x>[^,;]+?)\s+(?:on|by|in)\s+"
)


def _planned(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    """ "We will sunset the v1 API on 1 June 2027": a date for it, not an event yet."""
    m = _WILL.match(s.text, cs, ce)
    dated = [d for d in s.dates if m and d.start >= m.end()]
    if not m or not dated:
        return []
    subject = s.subject(m.start("x"), m.end("x"))
    if subject is None:
        return []
    when = s.text[dated[0].start : dated[0].end]
    return [_Draft("fact", subject, "date", when, None, 0.75)]


def _events(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    m = _HAS_LEFT.match(s.text, cs, ce)
    if m and not _is_pronoun(m.group("p")):
        person = s.object(m.start("p"), m.end("p"), entity_slot=True, people=True)
        if person is not None and person[1] is not None:
            return [_Draft("event", person[1], "left", "the company", None, 0.75)]
    m = _JOINED.match(s.text, cs, ce)
    if m and not _is_pronoun(m.group("p")):
        person = s.object(m.start("p"), m.end("p"), entity_slot=True, people=True)
        value = s.object(m.start("v"), m.end("v"), entity_slot=True)
        if person is not None and person[1] is not None and value is not None:
            text, entity = value
            text = _TRAILING_WHEN.sub("", text) or text
            text = re.sub(r"^as\s+(?:an?\s+|the\s+)?", "", text)
            predicate = _EVENT_PREDICATES[" ".join(m.group("verb").split())]
            return [_Draft("event", person[1], predicate, text, entity, 0.8)]
    dated = [d for d in s.dates if not d.weekday and cs <= d.start < ce]
    if not dated:
        return []
    when = s.text[dated[0].start : dated[0].end]
    m = _SHIPPED.match(s.text, cs, ce)
    if m:
        subject = s.subject(m.start("x"), m.end("x"))
        if subject is not None:
            predicate = _EVENT_PREDICATES[" ".join(m.group("verb").split())]
            return [_Draft("event", subject, predicate, when, None, 0.8)]
    m = _WAS_SHIPPED.match(s.text, cs, ce)
    if m:
        subject = s.subject(m.start("x"), m.end("x"))
        if subject is not None:
            predicate = _EVENT_PREDICATES[" ".join(m.group("verb").split())]
            return [_Draft("event", subject, predicate, when, None, 0.8)]
    m = _OUTAGE.search(s.text, cs, ce)
    if m:
        codes = [e for e in s.entities if e.type == "code" and cs <= e.start < ce]
        subject = (
            (
                s.subject(m.start("x"), m.end("x"))
                if m.group("x")
                and m.group("x").split()[0].lower()
                not in ("the", "a", "an", "during", "after", "before", "since", "in", "on", "of")
                else None
            )
            or (codes[0] if codes else None)
            or s.subject(m.start("verb"), m.end("verb"))
        )
        if subject is not None:
            return [_Draft("event", subject, "incident", when, None, 0.75)]
    return []
