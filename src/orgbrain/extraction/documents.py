"""Links between documents: "ADR-034 ... Supersedes ADR-021", "Status: superseded by
ADR-034", "RFC-21 ... This replaces RFC-7".

A record titled by a code (a heading ``# ADR-017 ...`` or a first line ``ADR-011: ...``)
is that code's document. A link says one document replaces another as a whole, so it is
a statement between the two codes: (new, ``supersedes``, old) or (old, ``superseded_by``,
new); settling it (``derive/documents.py``) retires what the older document said. A
record that is not settled yet ("Status: proposed", a draft, a rejected one) supersedes
nothing, and a question, a hedge or a negation ("This does not supersede RFC-7") links
nothing; "Related to ADR-003", "see also" are not links.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .quiet import NEGATION, states_nothing
from .sentences import Unit
from .types import Claim, Found

__all__ = ["LINKS", "document_links", "settled", "title_code"]

LINKS = frozenset({"supersedes", "superseded_by"})
"""The predicates of a link between two documents."""

_MARKUP = re.compile(r"[\s#*_>`-]*")
# "Supersedes ADR-021", "This ADR supersedes ...", "It replaces RFC-7", "Supersedes: ..." at
# the start of a sentence or of a line (a field below "Status: Accepted", no full stop).
_SUPERSEDES = re.compile(
    r"(?:^|(?<=[.;!]\s))[\s*_-]*(?:(?:this|the\s+new)\s+(?:adr|rfc|doc|document|decision|record|"
    r"proposal|spec|policy|page|version)\s+|(?:this|it)\s+)?(?:now\s+)?"
    r"(?:supersedes|replaces|obsoletes)\b",
    re.IGNORECASE | re.MULTILINE,
)
# "ADR-003 status: superseded by ADR-017", "Status: superseded by ADR-034",
# "ADR-021 is superseded by ADR-034", "Superseded by: ADR-034".
_SUPERSEDED_BY = re.compile(r"\b(?:superseded|replaced|obsoleted)\s+by\b\s*:?", re.IGNORECASE)
# "RFC-31 marked Withdrawn", "ADR-9 is now deprecated": a record's status, said elsewhere.
_ENDED = re.compile(
    r"[^\S\n]+(?:(?:is|was|has\s+been|have\s+been|been|now|marked|gets|got|being)(?:\s+as)?\s+)+"
    r"(?P<status>withdrawn|rejected|reversed|deprecated|retired|cancell?ed|abandoned|obsolete)\b",
    re.IGNORECASE,
)
# Beyond what states nothing anywhere: "If accepted, this replaces RFC-7", "would".
_IFFY = re.compile(r"\b(?:if|would|could|may|draft)\b", re.IGNORECASE)
_UNSETTLED = re.compile(
    r"\bstatus\s*:?\s*(?:is\s+)?(?:still\s+)?(?:proposed|draft|in\s+review|under\s+review|"
    r"rejected|withdrawn|pending|open|on\s+hold|won[\u2019']?t\s+(?:do|fix)|wontfix|declined|"
    r"not\s+planned)\b"
    # a document headed as a draft, or for discussion ("DRAFT - for discussion only")
    r"|\A\W*draft\b|\bfor\s+discussion\s+only\b",
    re.IGNORECASE,
)


def settled(text: str) -> bool:
    """Whether a record is in force: not one whose status says it is proposed, a draft,
    rejected, withdrawn or closed undone ("ADR-029: Replace REST with GraphQL / Status:
    Rejected", "Status: Won't Do"), nor one headed as a draft or for discussion only."""
    return _UNSETTLED.search(text) is None


def title_code(text: str, units: Sequence[Unit], entities: Sequence[Found]) -> Found | None:
    """The code a record is titled by: the first thing in its first unit, when that is a
    heading or a ``Label: value`` line and the code is all of the heading's first word or
    the whole label."""
    first = next((u for u in units if text[u.start : u.end].strip()), None)
    if first is None or first.kind not in ("heading", "label"):
        return None
    at = _MARKUP.match(text, first.start).end()  # type: ignore[union-attr]
    code = next((e for e in entities if e.type == "code" and e.start == at), None)
    if code is None or code.end > first.end:
        return None
    rest = text[code.end : first.end]
    if first.kind == "label" and not rest.lstrip("*_ ").startswith(":"):
        return None
    return code


def document_links(text: str, units: Sequence[Unit], entities: Sequence[Found]) -> list[Claim]:
    """The links ``text`` states between documents, as claims between their codes."""
    title = title_code(text, units, entities)
    in_force = settled(text)
    claims: list[Claim] = []
    for unit in units:
        for start, end in _sentences(text, unit):
            said = text[start:end]
            if states_nothing(said) or NEGATION.search(said) or _IFFY.search(said):
                continue
            codes = [e for e in entities if e.type == "code" and start <= e.start < end]
            for code in codes:
                ended = _ENDED.match(text, code.end, end)
                if ended is not None:
                    status = ended.group("status").lower()
                    claims.append(_claim(code, "status", status, None, start, end))
            m = _SUPERSEDES.search(text, start, end)
            if m is not None and title is not None and in_force:
                for old in (c for c in codes if c.start >= m.end() and c.value != title.value):
                    claims.append(_claim(title, "supersedes", old.value, old, start, end))
            m = _SUPERSEDED_BY.search(text, start, end)
            if m is None:
                continue
            after = [c for c in codes if c.start >= m.end()]
            before = [c for c in codes if c.end <= m.start()]
            gone = before[-1] if before else title
            if after and gone is not None and after[0].value != gone.value:
                claims.append(_claim(gone, "superseded_by", after[0].value, after[0], start, end))
    return claims


def _sentences(text: str, unit: Unit) -> list[tuple[int, int]]:
    """A unit's sentences: "Status: accepted. Supersedes ADR-021." is two."""
    spans: list[tuple[int, int]] = []
    start = unit.start
    for m in re.finditer(r"[.;!?](?:\s+|$)", text[unit.start : unit.end]):
        end = unit.start + m.end()
        spans.append((start, end))
        start = end
    if start < unit.end:
        spans.append((start, unit.end))
    return spans


def _claim(
    subject: Found, predicate: str, obj: str, entity: Found | None, start: int, end: int
) -> Claim:
    return Claim(
        type="fact",
        subject=subject,
        predicate=predicate,
        object=obj,
        object_entity=entity,
        start=start,
        end=end,
        valid_from=None,
        replaces=None,
        tier="pattern",
        confidence=0.8,
    )
