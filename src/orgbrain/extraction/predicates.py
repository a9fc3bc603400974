"""Canonical predicates: every way of naming one relation maps to one snake_case name,
so that statements about the same (subject, predicate) can supersede each other."""

from __future__ import annotations

import re

__all__ = [
    "ADDITIVE",
    "ATTRIBUTES",
    "CHANGE",
    "DEPRECATED",
    "GONE_WORDS",
    "HELD_BY_PEOPLE",
    "LEFT_THE_ORG",
    "RELATIONAL",
    "REPLACEABLE",
    "RETIRED_VERBS",
    "alternation",
    "attribute_predicate",
    "snake",
]

# Attribute nouns as they appear in "The billing owner is Priya" or "Launch deadline: ...".
ATTRIBUTES: dict[str, str] = {
    "owner": "owner",
    "owners": "owner",
    "owned by": "owner",
    "ownership": "owner",
    "dri": "owner",
    "maintainer": "owner",
    "maintainers": "owner",
    "maintained by": "owner",
    "lead": "owner",
    "tech lead": "owner",
    "product owner": "owner",
    "responsible": "owner",
    "accountable": "owner",
    "backup owner": "backup_owner",
    "backup": "backup_owner",
    "deputy": "backup_owner",
    "point of contact": "contact",
    "contact": "contact",
    "escalation contact": "contact",
    "escalation": "contact",
    "on-call": "contact",
    "oncall": "contact",
    "on call": "contact",
    "migration target": "migration_target",
    "migration destination": "migration_target",
    "target database": "migration_target",
    "migration": "migration_target",
    "moving to": "migration_target",
    "deadline": "date",
    "due date": "date",
    "due": "date",
    "date": "date",
    "eta": "date",
    "start date": "date",
    "schedule": "schedule",
    "cadence": "schedule",
    "frequency": "schedule",
    "status": "status",
    "state": "status",
    "channel": "channel",
    "slack channel": "channel",
    "meaning": "means",
    "definition": "means",
}
# Attributes that need something to be about: a bare "Owner:" line borrows the section's
# subject (its heading), never stands alone.
RELATIONAL = frozenset(
    {"owner", "backup_owner", "contact", "migration_target", "date", "status", "channel"}
)

# What a thing uses, runs on, is or moves to: one slot named three ways, so a claim that
# names what it replaces ("instead of Y", "from Y to X", "Y is retired") replaces Y in any
# of them. Owners, dates, statuses and the rest are never in it.
REPLACEABLE = frozenset({"uses", "is", "migration_target"})

# The one list of words that say a thing is gone (docs/graph.md, "a thing that is gone"):
# "we switched off Jenkins", "Jenkins is retired", "Status: decommissioned". A thing gone is
# no longer what anything uses, runs on or is. The extractor reads them (patterns/) and
# the settling reads a status that says one (derive/statements.py).
RETIRED_VERBS = (
    "retired",
    "decommissioned",
    "shut down",
    "turned off",
    "switched off",
    "sunset",
    "sunsetted",
)
GONE_WORDS = (*RETIRED_VERBS, "gone")
"""The verbs, and "gone": "Jenkins is gone" (never "we gone Jenkins")."""
DEPRECATED = "deprecated"
"""On its way out but still in use: beside a new use it names what the use replaces
("Airflow is deprecated; the job uses Dagster"), and a dated deprecation is a retirement
event, but "Airflow is deprecated." alone ends nothing."""


# "Going forward, ...", "From now on ...", "Effective January 1, ...", "... is now ...": the
# sentence states a change, so its value replaces what its subject held before under the
# same wording. "also", "too", "as well" make it one more value, not a change.
CHANGE = re.compile(
    r"\b(?:(?:going\s+forward|moving\s+forward|from\s+now\s+on|from\s+here\s+on|henceforth|"
    r"now(?!\s+that\b))\b|"
    r"(?:effective|starting|as\s+of|from|beginning)\s+(?:immediately|today|now|"
    r"(?:next\s+|this\s+)?\w+(?:\s+\d{1,2}(?:st|nd|rd|th)?)?(?:,?\s+\d{4})?)\s*,)",
    re.IGNORECASE,
)
ADDITIVE = re.compile(
    r"\b(?:also|too|as\s+well|in\s+addition|additionally|another)\b", re.IGNORECASE
)

# "Dana has left the company": whoever left no longer owns or answers for anything.
LEFT_THE_ORG = re.compile(
    r"(?:the\s+)?(?:company|organi[sz]ation|org|business|firm|us)\b", re.IGNORECASE
)
HELD_BY_PEOPLE = frozenset({"owner", "backup_owner", "contact"})


def alternation(words: tuple[str, ...]) -> str:
    """A regex alternation of ``words``, longest first, any whitespace between words."""
    return "|".join(
        re.escape(w).replace(r"\ ", r"\s+") for w in sorted(words, key=len, reverse=True)
    )


ATTRIBUTE_ALTERNATION = alternation(tuple(ATTRIBUTES))


def attribute_predicate(noun: str) -> str | None:
    return ATTRIBUTES.get(" ".join(noun.lower().split()))


def snake(label: str) -> str:
    """``Deploy freeze`` -> ``deploy_freeze``: a predicate from any header or label."""
    words = re.findall(r"[a-z0-9]+", label.lower())
    return "_".join(words)[:60] or "is"
