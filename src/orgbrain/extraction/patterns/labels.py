"""``Label: value`` lines and table rows: a label names the subject or the attribute, a
header row names the columns; chat speakers and note labels read as sentences."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..dates import DateMention
from ..predicates import ATTRIBUTE_ALTERNATION, RELATIONAL, attribute_predicate, snake
from ..quiet import HEDGE as _HEDGE
from ..quiet import states_nothing
from ..sentences import LEADER, Unit
from .rules import _OPENER, _decision_of, _sentence_rules
from .sentence import _PRONOUN, _about, _Draft, _Sentence, _strip_span, _value

# A chat speaker's handle as a line's label ("sana.b: hedgerow notices are with ..."):
# lower case, a dot or an underscore inside, no space; who speaks, not what is described.
_SPEAKER = re.compile(r"[a-z][a-z0-9-]*[._][a-z0-9._-]*[a-z0-9]")


_SKIP_LABELS = frozenset(
    "note notes todo q question questions action actions action item action items next steps "
    "agenda attendees participants present summary context background fyi re subject tl;dr "
    "tldr update updates problem example examples see link links source ps warning tip why "
    "how what when where who reminder reminders heads up caveat caveats open question "
    "open questions idea ideas proposal risk risks blocker blockers comment comments "
    "supersedes replaces obsoletes related from to cc bcc sent".split(" ")
)  # "from", "to", "cc", "sent": a message's headers ("From: procurement@") name no fact
_SKIP_LABELS = _SKIP_LABELS | {
    "superseded by",
    "replaced by",
    "related to",
    "see also",
    "action item",
    "action items",
    "next steps",
    "heads up",
    "open question",
    "open questions",
}
_UNDECIDED_LABELS = frozenset(
    "idea ideas question questions q open question open questions suggestion suggestions "
    "option options alternative alternatives draft rfc".split(" ")
) | {"open question", "open questions"}
_DECISION_LABELS = frozenset(
    {
        "decision",
        "decided",
        "agreed",
        "resolution",
        "resolved",
        "outcome",
        "we decided",
        "final decision",
        "consensus",
        "decisions",
    }
)


def _date_at(dates: Sequence[DateMention], *starts: int) -> DateMention | None:
    for d in dates:
        if d.start in starts:
            return d
    return None


_GLOSSARY = re.compile(r"glossary|terms|definitions|acronyms|vocabulary|jargon", re.IGNORECASE)


_LABEL_ATTR = re.compile(
    rf"(?P<a0>{ATTRIBUTE_ALTERNATION})$|(?P<x>.*?)\s+(?P<a>{ATTRIBUTE_ALTERNATION})$"
    rf"|(?P<a2>{ATTRIBUTE_ALTERNATION})\s+(?:of|for)\s+(?P<x2>.+)$",
    re.IGNORECASE,
)
_LABEL_SPLIT = re.compile(
    rf"\**(?P<label>[^:]{{1,50}}?)\**(?::\s+|{LEADER})(?P<v>\S.*)",
    re.DOTALL,
)
"""A label and its value: after a colon, or led to it by dots or a run of spaces
("A-check .......... 750 FH", ``sentences.LEADER``)."""
_ACRONYM = re.compile(r"[A-Z][A-Z0-9&]{1,7}s?")


def _label(s: _Sentence) -> list[_Draft]:
    m = _LABEL_SPLIT.match(s.text, s.start, s.end)
    if not m:
        return _sentence_rules(s, s.start, s.end)
    label = m.group("label").strip().strip("*_` ")
    key = label.lower()
    vs, ve = m.start("v"), m.end("v")
    value = s.text[vs:ve].strip()
    if key in _DECISION_LABELS:
        return _decision_of(s, vs, ve, 0.85)
    if key in _UNDECIDED_LABELS or _HEDGE.search(label):
        return []  # "Proposal: move the docs to Docusaurus" states nothing yet
    ls = m.start("label") + m.group("label").index(label)
    le = ls + len(label)
    titled = s.entity_at(ls, le)
    if titled is not None and titled.type == "code":
        # "ADR-011: Session state lives in Redis.": a record's title, then what it says.
        said = _sentence_rules(s, vs, ve)
        if said:
            return said
    first_word = value.split()[0].lower().strip(",.'") if value.split() else ""
    if (
        key in _SKIP_LABELS
        or _SPEAKER.fullmatch(label) is not None
        or len(value.split()) > 14
        or first_word in _PRONOUN
        or first_word in ("let's", "lets", "i'm", "we're", "i'll", "we'll")
        or _OPENER.match(value) is not None
        or states_nothing(value)
    ):
        # Chat ("Priya: I think ...") or a note: read the value as a sentence of its own.
        return _sentence_rules(s, vs, ve)
    if _ACRONYM.fullmatch(label) and _spells(label, value):
        subject = s.subject(ls, le)
        meaning = s.object(vs, ve)
        if subject is None or meaning is None:
            return []
        return [_Draft("fact", subject, "means", meaning[0], meaning[1], 0.85)]
    attr = _LABEL_ATTR.match(s.text, ls, le)
    if attr:
        a, x = next((a, x) for a, x in (("a0", "x"), ("a", "x"), ("a2", "x2")) if attr.group(a))
        predicate = attribute_predicate(attr.group(a)) or snake(attr.group(a))
        if attr.group(x) or predicate in RELATIONAL:
            xs, xe = (attr.start(x), attr.end(x)) if attr.group(x) else (ls, ls)
            if not attr.group(x) and s.context is None:
                return []
            return _about(s, xs, xe, predicate, vs, ve, 0.85)
    said = _sentence_rules(s, vs, ve)
    if said:
        return said  # "Per the retro: builds now run on Buildkite.": a clause of its own
    subject = s.subject(ls, le)
    if subject is None:
        return []
    first = _strip_span(s.text, vs, ve, determiners=False)[0]
    date = _date_at(s.dates, first)
    if date is not None:
        predicate = "schedule" if date.weekday else "date"
        return [_Draft("fact", subject, predicate, s.text[date.start : date.end], None, 0.8)]
    # "Database: CockroachDB" names a thing; "title: Northwind Engineering Handbook" is a
    # phrase that only starts with one.
    found = s.object(vs, ve)
    if found is None:
        return []
    predicate = "means" if s.context is not None and _GLOSSARY.search(s.context.value) else "is"
    return [_Draft("fact", subject, predicate, found[0], found[1], 0.7)]


def _spells(acronym: str, value: str) -> bool:
    letters = acronym.rstrip("s").replace("&", "").lower()
    words = [w for w in re.findall(r"[A-Za-z]+", value) if w.lower() not in ("of", "and", "the")]
    return len(words) >= len(letters) and "".join(w[0].lower() for w in words).startswith(letters)


def _cells(text: str, unit: Unit) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    pos = unit.start
    line = text[unit.start : unit.end]
    for part in line.split("|"):
        start, end = _strip_span(text, pos, pos + len(part), determiners=False)
        spans.append((start, end))
        pos += len(part) + 1
    if line.startswith("|"):
        spans = spans[1:]
    if line.endswith("|"):
        spans = spans[:-1]
    return spans


def _row(s: _Sentence, unit: Unit, header: list[str] | None) -> list[_Draft]:
    cells = _cells(s.text, unit)
    if len(cells) < 2 or cells[0][0] >= cells[0][1]:
        return []
    subject = s.subject(*cells[0])
    if subject is None:
        return []
    drafts: list[_Draft] = []
    for i, (start, end) in enumerate(cells[1:], start=1):
        if start >= end:
            continue
        if header is not None and i < len(header):
            predicate = attribute_predicate(header[i]) or snake(header[i])
        elif header is None and len(cells) == 2:
            predicate = "is"
        else:
            continue
        value = _value(s, start, end, entity_slot=True, people=predicate in ("owner", "contact"))
        if value is not None:
            drafts.append(_Draft("fact", subject, predicate, value[0], value[1], 0.75))
    return drafts
