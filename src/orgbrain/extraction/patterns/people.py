"""People rules: preferences and dislikes, reporting lines and team membership."""

from __future__ import annotations

import re

from ..types import Found
from .sentence import _PEOPLE, _Draft, _is_pronoun, _Sentence

_PREFERS = re.compile(
    r"(?P<p>@[\w.-]+|[A-Z][\w'\u2019.-]*(?:\s+[A-Z][\w'\u2019-]*){0,2})\s+"
    r"(?:really\s+|strongly\s+|generally\s+|usually\s+|still\s+|always\s+|much\s+|also\s+)?"
    r"(?P<verb>prefers|likes|loves|enjoys|favou?rs|wants|would\s+(?:rather|like|prefer)|"
    r"dislikes|hates|doesn't\s+like|does\s+not\s+like|doesn\u2019t\s+like|can't\s+stand|"
    r"cannot\s+stand|avoids|is\s+not\s+a\s+fan\s+of|isn't\s+a\s+fan\s+of|is\s+a\s+fan\s+of|"
    r"is\s+allergic\s+to|asked\s+for|asks\s+for)\s+(?:to\s+)?(?P<v>.+)"
)
_PREFERENCE_OF = re.compile(
    r"(?P<p>[A-Z][\w.-]*(?:\s+[A-Z][\w-]*)?)(?:'s|\u2019s)\s+(?:preference|"
    r"preferred\s+[\w-]+(?:\s+[\w-]+)?|favou?rite\s+[\w-]+)\s+(?:is|are)\s+(?P<v>.+)"
)
_DISLIKE = re.compile(r"dislikes|hates|n't|n\u2019t|not|cannot|avoids|allergic", re.IGNORECASE)


_REPORTS_TO = re.compile(
    r"(?P<p>@[\w.-]+|[A-Z][\w'\u2019.-]*(?:\s+[A-Z][\w'\u2019-]*){0,2})\s+(?:now\s+)?reports\s+to\s+"
    r"(?P<v>.+)"
)
_MEMBER = re.compile(
    r"(?P<p>@[\w.-]+|[A-Z][\w'\u2019.-]*(?:\s+[A-Z][\w'\u2019-]*){0,2})\s+(?:is|are)\s+(?:now\s+)?"
    r"(?:on|in|part\s+of|a\s+member\s+of)\s+(?P<v>(?:the\s+)?[\w-]+(?:\s+[\w-]+)?\s+"
    r"(?:team|squad|guild|group))"
)


def _prefers(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    m = _PREFERS.match(s.text, cs, ce)
    verb = m.group("verb") if m else ""
    if not m:
        m = _PREFERENCE_OF.match(s.text, cs, ce)
    if not m or _is_pronoun(m.group("p")) or m.group("p").split()[0] in ("The", "Our", "We"):
        return []
    person = s.entity_starting(m.start("p"), m.end("p"))
    if person is None or person.type not in _PEOPLE:
        first = s.text[m.start("p") : m.end("p")]
        person = Found("person", first, m.start("p"), m.end("p"))
        s.extra.append(person)
    value = s.object(m.start("v"), m.end("v"), light=True)
    if value is None:
        return []
    text, entity = value
    text = re.split(r"\s+(?:over|to)\s+(?=\S)", text, maxsplit=1)[0] if verb else text
    entity = entity if entity is not None and entity.value == text else None
    predicate = "dislikes" if _DISLIKE.search(verb) else "prefers"
    return [_Draft("preference", person, predicate, text, entity, 0.85)]


def _people(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    for pattern, predicate in ((_REPORTS_TO, "reports_to"), (_MEMBER, "member_of")):
        m = pattern.match(s.text, cs, ce)
        if m and not _is_pronoun(m.group("p")):
            person = s.object(m.start("p"), m.end("p"), entity_slot=True, people=True)
            value = s.object(m.start("v"), m.end("v"), entity_slot=True, people=True)
            if person is None or person[1] is None or value is None:
                continue
            return [_Draft("fact", person[1], predicate, value[0], value[1], 0.85)]
    return []
