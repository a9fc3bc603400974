"""Fact rules: attributes ("the deadline is ..."), definitions ("X means ..."), uses
("X runs on Y", "questions about X go to P") and ``X is <entity, date or quantity>``."""

from __future__ import annotations

import re

from ..predicates import ATTRIBUTE_ALTERNATION, attribute_predicate, snake
from ..types import Found
from .owners import _ASKED
from .sentence import (
    _CUT,
    _ENTITY_SLOTS,
    _LEAD_IN,
    _NP,
    _PEOPLE,
    _TRAILING_WHEN,
    _about,
    _Draft,
    _Sentence,
    _strip_span,
)

_ATTR = re.compile(
    rf"(?:[Tt]he\s+|[Oo]ur\s+)?(?P<x>(?:[\w'\u2019/&.@-]+\s+){{0,4}}?)(?P<a>{ATTRIBUTE_ALTERNATION})"
    r"\s+(?:is|are|was|will\s+be|has\s+been|remains|becomes|moves\s+to|moved\s+to|changes\s+to|"
    r"changed\s+to|is\s+now|is\s+moving\s+to|(?:has\s+)?(?:slipped|moved)\s+to)\s+(?:now\s+)?"
    r"(?:set\s+(?:to|for)\s+|on\s+|at\s+)?(?P<v>.+)",
    re.IGNORECASE,
)
_ATTR_OF = re.compile(
    rf"(?:[Tt]he\s+)?(?P<a>{ATTRIBUTE_ALTERNATION})\s+(?:of|for)\s+(?P<x>{_NP})\s+"
    r"(?:is|are|was|will\s+be|remains)\s+(?:now\s+)?(?P<v>.+)",
    re.IGNORECASE,
)


_DEFINES = re.compile(
    r"(?P<x>\"[^\"]{1,40}\"|\u201c[^\u201d]{1,40}\u201d|`[^`]{1,40}`|[A-Za-z][\w&/-]*(?:\s+[\w&/-]+){0,2}?)\s+"
    r"(?:means|stands\s+for|is\s+short\s+for|is\s+an\s+abbreviation\s+(?:for|of)|"
    r"is\s+defined\s+as|refers\s+to|is\s+our\s+(?:term|name|word)\s+for)\s+(?P<v>.+)"
)


# "Postmortems are written in Notion", "the site is now built with Astro": a thing done in,
# on or with a tool, in the passive.
_DONE_WITH = (
    r"(?:is|are)\s+(?:now\s+|still\s+|also\s+|currently\s+|all\s+)?(?:"
    r"(?!(?:used|needed|required|allowed|expected|supposed|interested|involved|included|"
    r"mentioned|discussed|listed|described|explained|covered|referenced|defined|based|"
    r"located|scheduled|planned|due|interested)\b)"
    r"(?:[a-z]+ed|written|built|run|kept|sent|done|held|drawn|shown|set|taken)\s+"
    r"(?:on|in|with|via|through|using)|"
    r"sent\s+to|(?:backed|scheduled|orchestrated|monitored)\s+by)"
)
_USES = re.compile(
    rf"(?P<x>{_NP})\s+(?:(?:should|will|must)\s+)?(?:now\s+|still\s+|also\s+)?(?P<verb>uses|use|"
    r"runs\s+on|run\s+on|lives\s+in|live\s+in|is\s+built\s+on|depends\s+on|"
    r"standardi[sz]ed\s+on|standardi[sz]es\s+on|goes\s+to|go\s+to|go(?:es)?\s+(?:through|via)|deploys?\s+(?:with|via|through)|builds?\s+with|"
    rf"{_DONE_WITH})"
    r"\s+(?P<v>.+)"
)


_WE_USE = re.compile(
    r"(?:[Ww]e|[Tt]he\s+team|[\w-]+\s+team|[Ee]veryone)\s+(?:now\s+|still\s+|also\s+)?"
    r"(?:use|uses|adopted|adopt|will\s+use|standardi[sz]ed\s+on|go\s+with|went\s+with)\s+"
    rf"(?P<v>[^,;]+?)\s+(?:for|as\s+(?:our|the))\s+(?P<x>{_NP})(?=\s*[,;.!]|\s+(?:from|starting|"
    r"instead|rather|in|on)\b|$)"
)
_COPULA = re.compile(
    rf"(?:[Tt]he\s+|[Oo]ur\s+)?(?P<x>{_NP})\s+(?:is|are|will\s+be|remains|stays|stay)\s+"
    r"(?:now\s+|still\s+)?"
    r"(?P<on>on\s+|every\s+|held\s+on\s+|(?:scheduled|planned|set|due|expected|targeted)"
    r"(?:\s+(?:for|on|by|in))?\s+)?"
    r"(?P<v>.+)"
)
_HAPPENS = re.compile(
    rf"(?:[Tt]he\s+|[Oo]ur\s+)?(?P<x>{_NP})\s+(?:happens|happen|runs|run|takes\s+place|"
    r"is\s+held|are\s+held|occurs|meets|ships|deploys|goes\s+out|starts|start|begins|begin|"
    r"ends|end|kicks\s+off|closes|opens)\s+(?:on\s+)?(?P<v>.+)"
)


def _attribute(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    m = _ATTR.match(s.text, cs, ce) or _ATTR_OF.match(s.text, cs, ce)
    if not m:
        return []
    predicate = attribute_predicate(m.group("a")) or snake(m.group("a"))
    return _about(s, m.start("x"), m.end("x"), predicate, m.start("v"), m.end("v"), 0.85)


def _defines(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    m = _DEFINES.match(s.text, cs, ce)
    if not m:
        return []
    subject = s.subject(m.start("x"), m.end("x"))
    value = s.object(m.start("v"), m.end("v"))
    if subject is None or value is None:
        return []
    return [_Draft("fact", subject, "means", value[0], value[1], 0.9)]


def _uses(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    m = _WE_USE.match(s.text, cs, ce) or _USES.match(s.text, cs, ce)
    if not m or m.group("x").lower() in ("we", "the team"):
        return []
    xs, xe = m.start("x"), m.end("x")
    value = s.object(m.start("v"), m.end("v"), entity_slot=True)
    if value is None:
        return []
    predicate = "uses"
    if "verb" in m.groupdict() and re.match(r"go|sent", m.group("verb")):
        if value[1] is not None and value[1].type in _PEOPLE:
            # "Questions about billing now go to Sam": Sam answers for billing.
            asked = _ASKED.fullmatch(s.text, *_strip_span(s.text, xs, xe))
            xs, xe, predicate = (
                asked.start("x") if asked else xs,
                asked.end("x") if asked else xe,
                "contact",
            )
    subject = s.subject(xs, xe)
    if subject is None:
        return []
    return [_Draft("fact", subject, predicate, value[0], value[1], 0.8)]


def _copula(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    """``X is <entity>``, ``X is on <date>``, ``X is every Friday``: nothing vaguer."""
    for pattern in (_HAPPENS, _COPULA):
        m = pattern.match(s.text, cs, ce)
        if not m:
            continue
        vs = _strip_span(s.text, m.start("v"), m.end("v"), determiners=False)[0]
        date = next(
            (
                d
                for d in s.dates
                if (vs <= d.start and _LEAD_IN.fullmatch(s.text, vs, d.start))
                or d.start < vs < d.end  # "is every Monday": the mention holds "every"
            ),
            None,
        )
        if date is not None:
            predicate = "schedule" if date.weekday or "every" in s.text[cs:ce] else "date"
            subject = s.subject(m.start("x"), m.end("x"))
            if subject is None:
                return []
            return [_Draft("fact", subject, predicate, s.text[date.start : date.end], None, 0.75)]
        if pattern is _HAPPENS:
            continue
        named = s.entity_at(*_strip_span(s.text, m.start("x"), m.end("x")))
        the = re.match(r"(?:our|the)\s+(?P<y>[\w -]{2,40}?)\s*[.!]?$", s.text[vs : m.end("v")])
        if named is not None and named.type in ("system", "company", "project") and the:
            ys = vs + the.start("y")
            subject = s.subject(ys, vs + the.end("y"))
            if subject is not None:
                return [_Draft("fact", subject, "is", named.value, named, 0.7)]
        valued = _valued(s, m)
        if valued:
            return valued
        found = s.entity_starting(_strip_span(s.text, vs, m.end("v"))[0], m.end("v"))
        rest_start = found.end if found else 0
        if (
            found is None
            or found.type not in _ENTITY_SLOTS
            or re.match(
                r"\s*(?:\w+\s+)?(?:of|for|in|at|to|'s)\b|\s+\w", s.text[rest_start : m.end("v")]
            )
        ):
            continue
        subject = s.subject(m.start("x"), m.end("x"))
        if subject is None or subject.type == "person":
            continue
        return [_Draft("fact", subject, "is", found.value, found, 0.7)]
    return []


# "500 EUR", "$1,200", "30 days", "5%", "2 per week": a policy's value.
_QUANTITY = re.compile(
    r"(?:[$\u20ac\u00a3]\s?)?\d[\d,.]*(?:\s?(?:%|[A-Za-z]{1,12}))?(?:\s+(?:per|a|an)\s+\w+)?"
)
# Nouns naming a slot that a product fills: "The email provider is Mailgun".
_ROLE_NOUN = re.compile(
    r"(?:provider|vendor|tool|platform|database|datastore|host|hosting|cdn|registry|"
    r"framework|runtime|broker|queue|warehouse|cloud|crm|erp|ci|backend|engine|stack)$",
    re.IGNORECASE,
)
_NAME = re.compile(r"[A-Z][\w.+-]*(?:\s+(?:[A-Z][\w.+-]*|v?\d[\d.]*)){0,2}")


def _valued(s: _Sentence, m: re.Match[str]) -> list[_Draft]:
    """``X is 500 EUR`` (a quantity) or ``The email provider is Mailgun`` (a name in a
    slot a product fills): (X, ``is``, value), so that a new value replaces the old."""
    vs, ve = _strip_span(s.text, m.start("v"), m.end("v"), determiners=False)
    cut = _CUT.search(s.text, vs, ve)
    ve = _strip_span(s.text, vs, cut.start() if cut else ve)[1]
    trail = _TRAILING_WHEN.search(s.text, vs, ve)
    ve = _strip_span(s.text, vs, trail.start() if trail else ve)[1]
    xs, xe = _strip_span(s.text, m.start("x"), m.end("x"))
    object_entity: Found | None = None
    if _QUANTITY.fullmatch(s.text, vs, ve):
        pass
    elif _ROLE_NOUN.search(s.text, xs, xe) and _NAME.fullmatch(s.text, vs, ve):
        object_entity = s.entity_at(vs, ve) or Found("system", s.text[vs:ve], vs, ve)
        if object_entity not in s.entities:
            s.extra.append(object_entity)
    else:
        return []
    subject = s.subject(xs, xe)
    if subject is None or subject.type in _PEOPLE or vs >= ve:
        return []
    return [_Draft("fact", subject, "is", s.text[vs:ve], object_entity, 0.7)]
