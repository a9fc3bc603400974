"""Decisions and the order of the rules: each rule takes the sentence and a clause span and
returns drafts; the first rule that finds something in a clause wins, so the order of
``_RULES`` is the order of trust. A decision reads its clause with the same rules."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ..quiet import NEGATION as _NEGATION
from ..quiet import states_nothing
from .changes import _NO_LONGER, _drops, _gone, _migration, _replaced_by, _replaces, _switched_from
from .events import _events, _planned
from .facts import _attribute, _copula, _defines, _uses
from .owners import _appositive_owner, _is_the_owner, _owned_by, _owns
from .people import _people, _prefers
from .sentence import _NP, _PRONOUN, Rule, _Draft, _old_value, _Sentence, _strip_span

# A chat speaker and opener before the sentence proper: "@maya: fyi the ...",
# "heads-up, we ...".
_OPENER = re.compile(
    r"@[\w.-]+:\s+(?:(?:fyi|psa|heads[- ]up|btw|ok(?:ay)?\s+so)\b[,:!]?\s+)?"
    r"|(?:fyi|psa|heads[- ]up|btw|ok(?:ay)?\s+so)\b[,:!]?\s+"
    # (with a comma, "Going forward, ..." is a decision: _DECIDED)
    r"|(?:from\s+now\s+on|going\s+forward|moving\s+forward|from\s+here\s+on)\s+(?=\w)",
    re.IGNORECASE,
)


# "From December, Mei takes over ...": a date before the sentence proper.
_DATED_OPENER = re.compile(
    r"(?:from|starting|as\s+of|beginning)\s+(?:(?:next|this|the\s+(?:start|end)\s+of)\s+)?"
    r"(?:\d|q[1-4]\b|today|tomorrow|mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|"
    r"sep|oct|nov|dec|week|month|quarter|year|sprint)[^,]{0,25},\s+(?=\w)"
    # without the comma only a phrase that cannot run on: "From next week the crit is ..."
    r"|(?:from|starting|as\s+of|beginning)\s+(?:(?:next|this)\s+(?:week|month|quarter|year|"
    r"sprint)|today|tomorrow|(?:mon|tues|wednes|thurs|fri|satur|sun)day)\s+(?=[a-z])",
    re.IGNORECASE,
)


_DECIDED = re.compile(
    r"(?:[Ww]e|[Tt]he\s+team|[\w-]+\s+team|[Ee]veryone|[Ll]eadership|[Tt]he\s+group|"
    r"[A-Z][\w'\u2019-]+(?:\s+(?:and|&)\s+[A-Z][\w'\u2019-]+)?)\s+(?:have\s+|has\s+|finally\s+|"
    r"formally\s+|unanimously\s+|all\s+)?(?:decided|agreed|chose|resolved|committed|"
    r"settled|signed\s+off)\s+(?:to|that|on|upon|for)\s+(?P<c>.+)"
    r"|(?:[Ii]t\s+(?:was|has\s+been|is)\s+(?:decided|agreed)\s+(?:that|to)\s+(?P<c2>.+))"
    r"|(?:(?:[Gg]oing\s+forward|[Mm]oving\s+forward|[Ff]rom\s+now\s+on|[Ff]rom\s+here\s+on(?:\s+out)?|"
    r"[Ee]ffective\s+(?:immediately|[^,]+)),\s+"
    r"(?P<c3>.+))"
)


def _decided(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    m = _DECIDED.match(s.text, cs, ce)
    if not m:
        return []
    group = next(g for g in ("c", "c2", "c3") if m.group(g) is not None)
    return _decision_of(s, m.start(group), m.end(group), 0.85)


def _decision_of(s: _Sentence, cs: int, ce: int, confidence: float) -> list[_Draft]:
    """What a decision says: the clause's own statement typed as a decision, or else
    (the first thing it names, ``decided``, the clause)."""
    inner = _first_rule(s, cs, ce, _RULES)
    if inner:
        return [
            replace(d, type="decision", confidence=min(d.confidence, confidence)) for d in inner
        ]
    value = s.object(cs, ce, light=True)
    if value is None:
        return []
    named = [e for e in s.entities if cs <= e.start and e.type not in ("person", "handle")]
    subject = named[0] if named else s.context
    lead_np = re.match(r"\s*(?:the|our)\s", s.text[cs:ce], re.IGNORECASE)
    if lead_np is not None and (subject is None or subject.start > cs + lead_np.end()):
        # "the payments service deploys with Jenkins": the clause's own subject leads it,
        # not the first name in it (which is as likely its object).
        subject = None
    if subject is None:
        # "to adopt async standups" -> "async standups"; "deploys stop at 4pm" -> "deploys".
        clause = s.text[cs:ce]
        first = clause.split(maxsplit=1)[0].lower() if clause.split() else ""
        lead = r"(?:to\s+)?\w+\s+" if first in _IMPERATIVE or first == "to" else ""
        lead = r"(?:we|they|everyone|all)\s+\w+\s+" if first in _PRONOUN else lead
        words = re.match(
            rf"\s*{lead}(?P<x>(?:the\s+|our\s+)?[\w-]+"
            r"(?:\s+(?!(?:to|at|on|in|for|by|from|with|is|are|will|should|must|stop|stops|every|"
            r"each|until|before|after|into|off|over|"
            r"start|starts|move|moves|go|goes|get|gets|need|needs|run|runs)\b)[\w-]+)?)",
            clause,
            re.IGNORECASE,
        )
        subject = s.subject(cs + words.start("x"), cs + words.end("x")) if words else None
        if subject is None:
            return []
    return [_Draft("decision", subject, "decided", value[0], value[1], confidence - 0.2)]


_CHOSE = re.compile(
    r"(?:.*?\b)?(?:chose|picked|selected|went\s+with|opted\s+for|settled\s+on)\s+"
    r"(?P<v>[^,;]+?)(?:\s+(?:over|instead\s+of|rather\s+than)\s+(?P<old>[^,;]+?))?"
    rf"\s+(?:for|as)\s+(?:the\s+|our\s+)?(?P<x>{_NP})(?=\s*[,;.!]|$)"
)


def _chose(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    m = _CHOSE.match(s.text, cs, ce)
    if not m:
        return []
    subject = s.subject(m.start("x"), m.end("x"))
    value = s.object(m.start("v"), m.end("v"), entity_slot=True)
    if subject is None or value is None:
        return []
    old = _old_value(s, m, "old")
    return [_Draft("decision", subject, "uses", value[0], value[1], 0.8, old)]


_RULES: tuple[Rule, ...] = (
    _decided,
    _prefers,
    _owned_by,
    _is_the_owner,
    _owns,
    _defines,
    _replaced_by,
    _drops,
    _replaces,
    _switched_from,
    _attribute,
    _migration,
    _people,
    _chose,
    _planned,
    _events,
    _gone,
    _uses,
    _copula,
)


def _first_rule(s: _Sentence, cs: int, ce: int, rules: Sequence[Rule]) -> list[_Draft]:
    for rule in rules:
        if rule is _decided and cs != s.start:
            continue
        found = rule(s, cs, ce)
        if found:
            return found + _appositive_owner(s, cs, ce, found[0])
    return []


_IMPERATIVE = frozenset(
    "adopt use move migrate switch keep drop stop start ship freeze require deprecate retire "
    "run hold cancel pause hire build buy delay postpone go make add remove rename split "
    "merge standardise standardize limit allow ban enforce publish review rotate replace "
    "consolidate sunset launch release deploy invest pilot trial test track set raise lower "
    "reduce increase cut extend introduce send close open skip default pay charge offer "
    "write document archive delete block require record host store rewrite fund".split()
)


def _sentence_rules(s: _Sentence, start: int, end: int) -> list[_Draft]:
    if states_nothing(s.text[start:end]):
        return []
    drafts: list[_Draft] = []
    cursor = start
    # Clauses split at ";" and at ", and"/" and" before a new subject with a verb of its own.
    for clause in re.split(r";\s+|,?\s+and\s+(?=[A-Z@])|,\s+while\s+", s.text[start:end]):
        idx = s.text.index(clause, cursor)
        cursor = idx + len(clause)
        cs, ce = _strip_span(s.text, idx, cursor, determiners=False)
        opener = _OPENER.match(s.text, cs, ce)
        cs = opener.end() if opener else cs
        dated = _DATED_OPENER.match(s.text, cs, ce)
        cs = dated.end() if dated else cs
        if cs >= ce:
            continue
        no_longer = _NO_LONGER.search(s.text, cs, ce)
        if no_longer is not None:
            # "Billing no longer runs on MySQL": says what stopped, not what holds now.
            s.antecedent = s.subject(cs, no_longer.start()) or s.antecedent
            continue
        if _NEGATION.search(s.text, cs, ce):
            drafts += _prefers(s, cs, ce)
            continue
        found = _first_rule(s, cs, ce, _RULES)
        if found:
            s.antecedent = found[0].subject
        drafts += found
    return drafts
