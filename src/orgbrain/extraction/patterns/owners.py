"""Ownership rules: who owns, leads or answers for a thing ("Priya owns billing", "X is
owned by P", "Ownership of X moves to P", "handing X over to P", ", owned by P")."""

from __future__ import annotations

import re

from .sentence import _NP, _PEOPLE, _Draft, _is_pronoun, _old_value, _Sentence, _strip_span

_OWN_VERBS = (
    r"(?:now\s+|also\s+|still\s+)?(?:owns|own|maintains|maintain|leads|lead|runs|manages|"
    r"will\s+own|will\s+lead|took\s+over|takes\s+over|has\s+taken\s+over|is\s+taking\s+over|"
    r"(?:is|are)\s+(?:now\s+|still\s+)?(?:responsible|accountable)\s+for|"
    r"(?:is|are)\s+(?:now\s+|still\s+)?in\s+charge\s+of|"
    r"(?:is|are)\s+(?:now\s+|still\s+)?(?:the\s+|our\s+)?(?:new\s+)?(?:owner|owners|DRI|lead|"
    r"tech\s+lead|maintainer|point\s+of\s+contact|(?:escalation\s+)?contact)\s+(?:of|for|on))"
)
_OWNS = re.compile(
    r"(?P<p>@[\w.-]+|[A-Z][\w'\u2019.-]*(?:\s+[A-Z][\w'\u2019-]*){0,2}|(?:[Tt]he\s+)?[\w-]+(?:\s+[\w-]+)?"
    rf"\s+team)\s+{_OWN_VERBS}\s+(?P<x>{_NP})"
    r"(?:\s+from\s+(?P<old>@[\w.-]+|[A-Z][\w'\u2019-]*(?:\s+[A-Z][\w'\u2019-]*)?))?"
    r"(?=\s*(?:[,;.!(]|\s[-\u2013\u2014]\s|\s(?:since|from|as\s+of|starting|effective|until|on|in|"
    r"and|while|but|now)(?![\w-])|$))"
)
_OWNED_BY = re.compile(
    rf"(?P<x>{_NP})\s+(?:is|are|was|will\s+be|has\s+been)\s+(?:now\s+|still\s+)?"
    r"(?:owned|maintained|run|led|managed|handled)\s+by\s+(?P<p>.+)"
    rf"|(?P<x2>{_NP})\s+(?:now\s+|still\s+)?(?:belongs\s+to|belong\s+to|sits\s+with|sit\s+with|"
    r"is\s+the\s+responsibility\s+of|falls\s+(?:to|under))\s+(?P<p2>.+)"
)
# "Ownership of the release train moves to Ade", "... passes from Keiko to Ade".
_OWNERSHIP_MOVES = re.compile(
    rf"(?:[Tt]he\s+)?[Oo]wnership\s+of\s+(?P<x>{_NP})\s+(?:now\s+)?(?:is\s+|has\s+|will\s+)?"
    r"(?:moves|moved|moving|move|passes|passed|passing|pass|goes|went|gone|go|"
    r"transfers|transferred|transfer|been\s+transferred|been\s+handed|handed)\s+"
    r"(?:over\s+)?(?:from\s+(?P<old>[^,;]+?)\s+)?to\s+(?P<p>.+)"
)


# "Questions about billing go to Sam", "SOC 2 audit questions go to Elif": who answers them.
_ASKED = re.compile(
    r"(?:(?:all\s+|any\s+)?(?:questions|requests|queries|escalations)\s+(?:about|on|regarding|"
    r"for|related\s+to|around)\s+)?(?P<x>.+?)(?:\s+(?:questions|requests|queries|escalations))?",
    re.IGNORECASE,
)


def _owns(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    m = _OWNS.match(s.text, cs, ce)
    if not m:
        return []
    subject = s.subject(m.start("x"), m.end("x"), strip_team=True)
    owner = s.object(m.start("p"), m.end("p"), entity_slot=True, people=True)
    if subject is None or owner is None or _is_pronoun(s.text[m.start("p") : m.end("p")]):
        return []
    named = s.entity_starting(m.start("p"), m.end("p"))
    team = m.group("p").split()[-1].lower() == "team"
    if m.start("p") == s.start and not team and (named is None or named.type not in _PEOPLE):
        # A capitalised first word is as likely a thing ("Payroll runs on the 25th").
        return []
    old = _old_value(s, m, "old")
    verb = s.text[m.end("p") : m.start("x")].lower()
    if "contact" not in verb:
        return [_Draft("fact", subject, "owner", owner[0], owner[1], 0.9, old)]
    # "Hana is now the contact for security questions": who answers for security.
    asked = _ASKED.fullmatch(s.text, *_strip_span(s.text, m.start("x"), m.end("x")))
    if asked is not None:
        subject = s.subject(asked.start("x"), asked.end("x")) or subject
    return [_Draft("fact", subject, "contact", owner[0], owner[1], 0.9, old)]


_IS_THE_OWNER = re.compile(
    r"(?P<p>@[\w.-]+|[A-Z][\w'\u2019.-]*(?:\s+[A-Z][\w'\u2019-]*){0,2})(?:\s*\([^)]*\))?\s+"
    r"(?:is|will\s+be|has\s+become|becomes)\s+(?:now\s+)?(?:the|our)\s+(?:new\s+)?"
    r"(?P<x>[\w-]+(?:\s+[\w-]+)?)\s+(?:owner|DRI|lead|maintainer)\b"
)
_HANDS_OVER = re.compile(
    r"(?P<old>.+?)\s+(?:hands|handed|is\s+handing|will\s+hand|hand)\s+(?P<x>.+?)\s+"
    r"(?:over\s+)?to\s+(?P<p>.+)"
)
# "Handing the billing runbook over to Tomas", "Handing over X to P", "X has been handed
# over to P": the same, with nobody named as the one handing it ("over" is required:
# "handing the slides to Sam for review" hands nothing over).
_HANDED_OVER = re.compile(
    r"[Hh]anding\s+(?:over\s+(?P<x>.+?)|(?P<x2>.+?)\s+over)\s+to\s+(?P<p>.+)"
    rf"|(?:[Tt]he\s+|[Oo]ur\s+)?(?P<x3>{_NP})\s+(?:is|was|has\s+been|have\s+been|will\s+be|"
    r"is\s+being|are|were|are\s+being)\s+handed\s+over\s+to\s+(?P<p3>.+)"
)
_PASSIVE_END = re.compile(r"\b(?:is|are|was|were|been|being|be)$", re.IGNORECASE)


def _is_the_owner(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    m = _IS_THE_OWNER.match(s.text, cs, ce)
    if m and not _is_pronoun(m.group("p")):
        subject = s.subject(m.start("x"), m.end("x"))
        owner = s.object(m.start("p"), m.end("p"), entity_slot=True, people=True)
        if subject is not None and owner is not None:
            return [_Draft("fact", subject, "owner", owner[0], owner[1], 0.85)]
    m = _HANDED_OVER.match(s.text, cs, ce)
    if m:
        x = next(g for g in ("x", "x2", "x3") if m.group(g))
        p = "p3" if x == "x3" else "p"
        subject = s.subject(m.start(x), m.end(x))
        owner = s.object(m.start(p), m.end(p), entity_slot=True, people=True)
        if subject is not None and owner is not None:
            return [_Draft("fact", subject, "owner", owner[0], owner[1], 0.8)]
        return []
    m = _HANDS_OVER.match(s.text, cs, ce)
    if m and not _PASSIVE_END.search(m.group("old")):
        subject = s.subject(m.start("x"), m.end("x"))
        owner = s.object(m.start("p"), m.end("p"), entity_slot=True, people=True)
        old = s.subject(m.start("old"), m.end("old"))
        if subject is not None and owner is not None:
            return [
                _Draft(
                    "fact", subject, "owner", owner[0], owner[1], 0.8, old.value if old else None
                )
            ]
    return []


def _owned_by(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    moved = _OWNERSHIP_MOVES.match(s.text, cs, ce)
    if moved is not None:
        subject = s.subject(moved.start("x"), moved.end("x"), strip_team=True)
        owner = s.object(moved.start("p"), moved.end("p"), entity_slot=True, people=True)
        if subject is None or owner is None:
            return []
        old = _old_value(s, moved, "old")
        return [_Draft("fact", subject, "owner", owner[0], owner[1], 0.85, old)]
    m = _OWNED_BY.match(s.text, cs, ce)
    if not m:
        return []
    x, p = ("x", "p") if m.group("x") else ("x2", "p2")
    subject = s.subject(m.start(x), m.end(x), strip_team=True)
    tool = s.entity_starting(*_strip_span(s.text, m.start(p), m.end(p)))
    if subject is not None and tool is not None and tool.type in ("system", "company"):
        # "Billing is handled by Adyen now": a product does it, nobody owns it.
        used = s.object(m.start(p), m.end(p), entity_slot=True)
        return [_Draft("fact", subject, "uses", used[0], used[1], 0.8)] if used else []
    owner = s.object(m.start(p), m.end(p), entity_slot=True, people=True)
    if subject is None or owner is None:
        return []
    return [_Draft("fact", subject, "owner", owner[0], owner[1], 0.9)]


_APPOSITIVE_OWNER = re.compile(
    r",\s+(?:now\s+|still\s+)?(?:owned|maintained|led|run|managed)\s+by\s+(?P<p>[^,;.()]+)"
)


def _appositive_owner(s: _Sentence, cs: int, ce: int, first: _Draft) -> list[_Draft]:
    """ "The payments service deploys with Jenkins, owned by Priya": who owns the subject."""
    m = _APPOSITIVE_OWNER.search(s.text, cs, ce)
    if m is None or first.predicate == "owner" or first.subject.type in _PEOPLE:
        return []
    owner = s.object(m.start("p"), m.end("p"), entity_slot=True, people=True)
    if owner is None or owner[1] is None:
        return []
    return [_Draft(first.type, first.subject, "owner", owner[0], owner[1], 0.8)]
