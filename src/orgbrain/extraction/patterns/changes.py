"""Change rules: moves and migrations, replacements ("switched from A to B", "B replaces
A", "ditching A for B"), retirements ("Jenkins is retired"), and the cues ("instead of",
"no longer") that say what a statement replaces."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Literal

from ..predicates import DEPRECATED, GONE_WORDS, REPLACEABLE, RETIRED_VERBS, alternation
from ..types import Claim, Found
from .sentence import (
    _DET,
    _NP,
    _PEOPLE,
    _PRONOUN,
    _TRAILING_WHEN,
    _Draft,
    _is_pronoun,
    _old_value,
    _Sentence,
    _strip_span,
)

_NO_LONGER = re.compile(
    r"\bno\s+longer\s+(?:uses?|runs?\s+on|on|in|using|use|owns?|leads?|need|needs|supports?)?"
    r"\s*(?P<old>[^,;.()]+)",
    re.IGNORECASE,
)
_INSTEAD = re.compile(
    r"\b(?:instead\s+of|rather\s+than)\s+(?P<old>[^,;.()]+)|,\s+not\s+(?:in\s+|on\s+)?(?P<not>[^,;.()]+)",
    re.IGNORECASE,
)


# "Jenkins is retired": what a thing named beside it in the same text replaced.
_RETIRED = re.compile(
    rf"(?:^|(?<=[.;:!]\s)|(?<=\n))\s*(?:[-*\u2022]\s+)?(?:the\s+|our\s+)?(?P<x>{_NP})\s+"
    r"(?:is|was|has\s+been|are|were|have\s+been|gets|got)\s+(?:now\s+|officially\s+|finally\s+)?"
    rf"(?:{alternation((*GONE_WORDS, DEPRECATED))})\b",
    re.IGNORECASE,
)


_MOVE_VERB = (
    r"(?:move|moving|moved|migrate|migrating|migrated|switch|switching|switched|port|porting|"
    r"ported|transition|transitioning|transitioned)"
)
# "moved off Redshift onto BigQuery" says what "moved from Redshift to BigQuery" says ("off"
# only before an "onto": "switched off the lights to save power" moves nothing).
_FROM = r"(?:from|off(?:\s+of)?(?=[^,;]*\sonto\s))"
_MOVE = re.compile(
    rf"(?:.*?\b)?{_MOVE_VERB}\s+(?!(?:from|off)\b)(?P<x>{_NP})\s+(?:{_FROM}\s+(?P<old>[^,;]+?)\s+)?"
    r"(?:over\s+)?(?:to|onto)\s+(?P<v>.+)"
)
_MOVES = re.compile(
    rf"(?P<x>{_NP})\s+(?:will\s+|is\s+|are\s+|has\s+|have\s+)?(?:being\s+|be\s+)?"
    r"(?:migrates|moves|migrating|moving|migrated|moved|switches|switching|switched|"
    rf"migrate|move|switch)\s+(?:{_FROM}\s+(?P<old>[^,;]+?)\s+)?(?:over\s+)?(?:to|onto)\s+(?P<v>.+)"
)
_SWITCHED_FROM = re.compile(
    rf"(?P<who>(?:.*?\s)?){_MOVE_VERB}\s+{_FROM}\s+(?P<old>[^,;]+?)\s+(?:to|onto)\s+(?P<v>[^,;]+?)"
    rf"(?:\s+for\s+(?P<x>{_NP}))?(?=\s*[,;.!]|\s+(?:in|on|last|this|after|because)\b|$)"
)
_REPLACES = re.compile(
    rf"(?P<v>{_NP})\s+(?:replaces|replaced|will\s+replace|is\s+replacing|has\s+replaced)\s+"
    rf"(?P<old>[^,;]+?)(?:\s+(?:for|as)\s+(?P<x>{_NP}))?(?=\s*[,;.!]|\s+(?:in|on|from|"
    r"starting|effective|as\s+of)\b|$)"
)
# "we're ditching Sentry for Rollbar", "swapped Sketch for Figma", "replaced CircleCI with
# Buildkite", "dropping SurveyMonkey in favour of Typeform": the old thing, then the new.
_DROPS = re.compile(
    r"(?P<who>(?:.*?\s)?)(?:(?:drop|drops|dropping|dropped|ditch|ditches|ditching|ditched|"
    r"swap|swaps|swapping|swapped|trade|trades|trading|traded)\s+(?P<old>[^,;]+?)\s+(?:out\s+)?"
    r"(?:for|in\s+favou?r\s+of)"
    r"|(?:replace|replaces|replacing|replaced)\s+(?P<old2>[^,;]+?)\s+with)"
    r"\s+(?P<v>[^,;]+?)"
    rf"(?:\s+(?:for|as)\s+(?P<x>{_NP}))?(?=\s*[,;.!]|\s+(?:in|on|last|this|next|after|"
    r"because|starting|effective|from|since|across)\b|$)",
    re.IGNORECASE,
)
_NAME_LIKE = re.compile(r"[A-Z0-9]|[a-z]+[A-Z]")
_AUXILIARY = re.compile(
    r"(?:['\u2019](?:re|ve|ll|d|s)\b)?"
    r"(?:\s+(?:is|are|was|were|has|have|had|will|just|finally|also|now|officially))*$",
    re.IGNORECASE,
)
_REPLACED_BY = re.compile(
    rf"(?P<old>{_NP})\s+(?:is|was|has\s+been|will\s+be|are|were)\s+(?:being\s+)?replaced\s+by\s+"
    r"(?P<v>.+)"
)


def _migration(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    for pattern in (_MOVES, _MOVE):
        m = pattern.match(s.text, cs, ce)
        if m:
            subject = s.subject(m.start("x"), m.end("x"))
            target = s.object(m.start("v"), m.end("v"), entity_slot=True)
            if subject is None or target is None or subject.value.lower() in ("we", "us"):
                continue
            old = _old_value(s, m, "old")
            return [_Draft("fact", subject, "migration_target", target[0], target[1], 0.85, old)]
    return []


def _switched_from(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    m = _SWITCHED_FROM.match(s.text, cs, ce)
    if not m:
        return []
    moves = _MOVES.match(s.text, cs, ce)
    if moves and moves.group("old"):
        words = moves.group("x").lower().split()
        if not _PRONOUN.intersection(words) and words[-1] != "team":
            return []  # "The marketing site moved from A to B": the site's migration
    target = s.object(m.start("v"), m.end("v"), entity_slot=True)
    old = _old_value(s, m, "old")
    if target is None or old is None:
        return []
    return _replacement(s, m, target, old, "old")


def _replaces(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    m = _REPLACES.match(s.text, cs, ce)
    if m:
        new = s.object(m.start("v"), m.end("v"), entity_slot=True)
        old = _old_value(s, m, "old")
        if new is None or old is None:
            return []
        if m.group("x"):
            subject = s.subject(m.start("x"), m.end("x"))
            if subject is not None:
                return [_Draft("fact", subject, "uses", new[0], new[1], 0.8, old)]
        subject = s.subject(m.start("old"), m.end("old"))
        if subject is None:
            return []
        return [_Draft("fact", subject, "replaced_by", new[0], new[1], 0.75, old)]
    return []


def _drops(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    m = _DROPS.match(s.text, cs, ce)
    if not m:
        return []
    group = "old" if m.group("old") else "old2"
    old_at = _strip_span(s.text, m.start(group), m.end(group))[0]
    new_at = _strip_span(s.text, m.start("v"), m.end("v"))[0]
    if not all(_NAME_LIKE.match(s.text, i) or _named_at(s, i) for i in (old_at, new_at)) or any(
        d.start in (old_at, new_at) for d in s.dates
    ):
        return []  # "replace the battery with a new one", "swap Friday for Monday"
    new = s.object(m.start("v"), m.end("v"), entity_slot=True)
    old = _old_value(s, m, group)
    if new is None or old is None:
        return []
    return _replacement(s, m, new, old, group)


def _replacement(
    s: _Sentence, m: re.Match[str], new: tuple[str, Found | None], old: str, old_group: str
) -> list[_Draft]:
    """A named replacement of ``old`` by ``new``: a use of what it is for ("... for error
    tracking") or of whoever switched; else of the section's subject; else the old
    thing is ``replaced_by`` the new one (a retirement: docs/graph.md)."""
    actor = _actor(s, m) if not m.group("x") else None
    if actor is False:
        return []
    subject = s.subject(m.start("x"), m.end("x")) if m.group("x") else actor
    if subject is not None:
        return [_Draft("fact", subject, "uses", new[0], new[1], 0.8, old)]
    subject = s.context or s.subject(m.start(old_group), m.end(old_group))
    if subject is None:
        return []
    predicate = "uses" if s.context else "replaced_by"
    return [_Draft("fact", subject, predicate, new[0], new[1], 0.7, old)]


def _named_at(s: _Sentence, at: int) -> bool:
    """Whether a system or company the text names starts at ``at`` ("ditching sentry for
    datadog": names written in lower case)."""
    return any(e.start == at and e.type in ("system", "company") for e in s.entities)


def _actor(s: _Sentence, m: re.Match[str]) -> Found | Literal[False] | None:
    """Who did the switching (``m``'s ``who``): a thing of its own ("The design team
    swapped Sketch for Figma", "the web team switched from A to B") is the subject of the
    new use; nobody, a pronoun or a person ("we", "Ines") leaves it to the old thing;
    anything else unread before the verb is ``False``: say nothing."""
    ws, we = _strip_span(s.text, m.start("who"), m.end("who"), determiners=False)
    we = ws + len(_AUXILIARY.sub("", s.text[ws:we]))
    if ws >= we or _is_pronoun(s.text[ws:we].split()[-1]):
        return None
    if _DET.match(s.text, ws, we):
        return s.subject(ws, we)
    actor = s.entity_at(ws, we)
    return None if actor is not None and actor.type in _PEOPLE else False


def _replaced_by(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    m = _REPLACED_BY.match(s.text, cs, ce)
    if m:
        subject = s.subject(m.start("old"), m.end("old"))
        new = s.object(m.start("v"), m.end("v"), entity_slot=True)
        if subject is None or new is None:
            return []
        return [_Draft("fact", subject, "replaced_by", new[0], new[1], 0.8, subject.value)]
    return []


_GONE = re.compile(
    rf"(?:[Tt]he\s+|[Oo]ur\s+)?(?P<x>{_NP})\s+(?:is|was|has\s+been|are|were|have\s+been|"
    r"got|gets)\s+(?:now\s+|officially\s+|finally\s+)?"
    rf"(?:{alternation(GONE_WORDS)})"
    r"(?:\s+(?:now|today|for\s+good|as\s+of\s+today))?\s*[.!]?\s*$"
)


_WE_RETIRED = re.compile(
    r"(?:[Ww]e|[Tt]he\s+team|[\w-]+\s+team)\s+(?:have\s+|has\s+|finally\s+|officially\s+)?"
    rf"(?:{alternation(RETIRED_VERBS)})\s+"
    rf"(?:the\s+|our\s+)?(?P<x>{_NP})"
    r"(?:\s+(?:now|today|for\s+good|as\s+of\s+today))?\s*[.!]?\s*$"
)


def _gone(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    """ "Jenkins is retired.", "We retired Jenkins." (no date; a dated one is an event):
    its status, which ends what used it (docs/graph.md)."""
    m = _GONE.match(s.text, cs, ce) or _WE_RETIRED.match(s.text, cs, ce)
    if not m or _is_pronoun(m.group("x")):
        return []
    subject = s.subject(m.start("x"), m.end("x"))
    if subject is None or subject.type in _PEOPLE:
        return []
    return [_Draft("fact", subject, "status", "retired", None, 0.8)]


def _retiring(text: str, claims: list[Claim]) -> list[Claim]:
    """A text that retires one thing ("Jenkins is retired. Checkout deploys with GitHub
    Actions now.") says its other uses/is/moves-to claims replace it."""
    gone = {
        _strip_old(m.group("x")).casefold(): _strip_old(m.group("x"))
        for m in _RETIRED.finditer(text)
    }
    if len(gone) != 1:
        return claims
    [(key, name)] = gone.items()
    return [
        replace(c, replaces=name)
        if c.predicate in REPLACEABLE
        and c.replaces is None
        and key not in (c.object.casefold(), c.subject.value.casefold())
        else c
        for c in claims
    ]


def _strip_old(old: str) -> str:
    old = _TRAILING_WHEN.sub("", old)
    old = _DET.sub("", old, count=1) if _DET.match(old) else old
    return old.strip(" .`'\"")
