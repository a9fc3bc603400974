"""The pattern tier over a whole text: units in order, headings as subjects, drafts
finished into claims, and what a retired thing's neighbours replace."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..documents import document_links, title_code
from ..entities import find_entities
from ..predicates import ADDITIVE, CHANGE
from ..sentences import Unit, split_units
from ..types import Claim, Extraction, Found
from .changes import _INSTEAD, _NO_LONGER, _retiring, _strip_old
from .labels import _cells, _label, _row
from .rules import _sentence_rules
from .sentence import _Draft, _Sentence, _strip_span


def _heading_subject(text: str, unit: Unit, entities: Sequence[Found]) -> Found | None:
    for e in entities:
        if unit.start <= e.start and e.end <= unit.end and e.type == "code":
            return e
    start, end = _strip_span(text, unit.start, unit.end)
    title = text[start:end]
    if not title or len(title.split()) > 8:
        return None
    return Found("topic", title, start, end)


def merge_entities(entities: Sequence[Found], claims: Sequence[Claim]) -> tuple[Found, ...]:
    """The mentions, plus the subjects and object entities claims introduced."""
    seen = {(e.type, e.start, e.end) for e in entities}
    merged = list(entities)
    for claim in claims:
        for found in (claim.subject, claim.object_entity):
            if found is not None and (found.type, found.start, found.end) not in seen:
                seen.add((found.type, found.start, found.end))
                merged.append(found)
    merged.sort(key=lambda f: (f.start, f.end, f.type))
    return tuple(merged)


class PatternExtractor:
    """Rules only: entities by shape, word list and ``known``; statements by sentence."""

    def extract(self, text: str, *, known: Sequence[tuple[str, str]] = ()) -> Extraction:
        entities = find_entities(text, known)
        units = split_units(text)
        claims: list[Claim] = []
        context: Found | None = None
        header: list[str] | None = None
        for i, unit in enumerate(units):
            if unit.kind == "heading":
                context = _heading_subject(text, unit, entities)
                header = None
                continue
            s = _Sentence(text, unit, entities, context)
            if unit.kind == "row":
                line = text[unit.start : unit.end]
                if re.fullmatch(r"[\s|:-]+", line):
                    continue
                following = units[i + 1] if i + 1 < len(units) else None
                is_header = (
                    following is not None
                    and following.kind == "row"
                    and bool(re.fullmatch(r"[\s|:-]+", text[following.start : following.end]))
                )
                if is_header:
                    header = [text[a:b] for a, b in _cells(text, unit)]
                    continue
                drafts = _row(s, unit, header)
            else:
                header = None
                drafts = (
                    _label(s) if unit.kind == "label" else _sentence_rules(s, unit.start, unit.end)
                )
            claims += _finish(s, drafts)
            entities += [e for e in s.extra if e not in entities]
            if i == 0 and unit.kind == "label":
                context = title_code(text, units, entities)  # "ADR-011: ..." titles it
        claims += document_links(text, units, entities)
        return Extraction(merge_entities(entities, claims), tuple(_retiring(text, claims)))


def _finish(s: _Sentence, drafts: Sequence[_Draft]) -> list[Claim]:
    sentence = s.text[s.start : s.end]
    dated = [d.value for d in s.dates if d.value is not None]
    instead = _INSTEAD.search(sentence) or _NO_LONGER.search(sentence)
    change = CHANGE.search(sentence) is not None and ADDITIVE.search(sentence) is None
    claims: list[Claim] = []
    seen: set[tuple[str, str, str]] = set()
    for d in drafts:
        key = (d.subject.value.lower(), d.predicate, d.object.lower())
        if key in seen or not d.object.strip():
            continue
        seen.add(key)
        replaces = d.replaces
        if replaces is None and instead is not None:
            old = (instead.group("old") or instead.group("not") or "").strip()
            replaces = _strip_old(old) or None
        claims.append(
            Claim(
                type=d.type,
                subject=d.subject,
                predicate=d.predicate,
                object=d.object,
                object_entity=d.object_entity,
                start=s.start,
                end=s.end,
                valid_from=dated[0] if dated else None,
                replaces=replaces if replaces and replaces.lower() != d.object.lower() else None,
                tier="pattern",
                confidence=d.confidence,
                change=change,
            )
        )
    return claims
