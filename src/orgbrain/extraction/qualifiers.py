"""The qualifiers that tell two settings of one thing apart, and two records' cards.

"max_connections on the STAGING Postgres" does not restate "Postgres config
(production): max_connections = 500": the two name different members of one family of
qualifiers (environment, region, platform, plan, audience, reach). Two cards that open
with the same ``Label:`` but for its value ("Service: payments-gateway", "Service:
payments-ledger") are two records, not one changed. Read beside the values a unit
states (``values.py``) before two units are compared slot by slot.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["apart", "other_records", "qualifiers", "told_apart"]


_FAMILIES: dict[str, tuple[re.Pattern[str], dict[str, str], bool]] = {}


def _family(name: str, members: str, *, case: bool = False) -> None:
    """One family of qualifiers that tell two settings of one thing apart; each member is
    ``word|synonym|...``, read as its first word."""
    canon = {
        (w if case else w.lower()): ws.split("|")[0]
        for ws in members.split()
        for w in ws.split("|")
    }
    words = "|".join(sorted(canon, key=len, reverse=True))
    flags = 0 if case else re.IGNORECASE
    _FAMILIES[name] = (re.compile(rf"(?<![\w-])(?:{words})(?![\w-])", flags), canon, case)


_family("environment", "production|prod staging|stage development|dev qa|test sandbox")
_family("region", "EU|EMEA|Europe US|USA|NA|Americas APAC|Asia UK", case=True)
# a firm's regions by compass point ("North Region - Key Contacts", "South Region")
_family("compass", "North|Northern South|Southern East|Eastern West|Western", case=True)
_family("platform", "ios android web mobile desktop")
_family("plan", "free pro|professional business enterprise premium starter")
_family("audience", "employees|staff contractors interns customers partners vendors")
_family("reach", "internal external|public")


def qualifiers(text: str) -> dict[str, frozenset[str]]:
    """The qualifiers ``text`` names, by family: "max_connections on the STAGING
    Postgres" names environment staging, so it does not restate "Postgres config
    (production): max_connections = 500"."""
    out: dict[str, frozenset[str]] = {}
    for name, (pattern, canon, case) in _FAMILIES.items():
        found = {canon[m if case else m.lower()] for m in pattern.findall(text)}
        if found:
            out[name] = frozenset(found)
    return out


def told_apart(a: str, b: str, *, states: bool = False) -> bool:
    """Whether two texts name different members of one family of qualifiers ("Travel
    policy (US)" and "Travel policy (UK)", "production" and "staging"): two settings of
    one thing, not one setting changed. Of two ``states`` of one thing, whom each is
    rolled out to does not tell them apart (``apart``)."""
    return apart(qualifiers(a), qualifiers(b), states=states)


_ROLLOUT = frozenset({"audience", "reach"})
"""Families a thing's state widens through as it rolls out: "Beta (staff only)", then
"live for all customers"; internal, then public."""


def apart(
    x: Mapping[str, frozenset[str]], y: Mapping[str, frozenset[str]], *, states: bool = False
) -> bool:
    """Whether two texts' ``qualifiers`` name different members of one family; for two
    ``states`` of one thing, of a family other than whom it is rolled out to."""
    return any(not (x[f] & y[f]) for f in x.keys() & y.keys() if not (states and f in _ROLLOUT))


_RECORD = re.compile(r"[ \t]*\**([A-Za-z][\w ]{0,30}?)\**:[ \t]+(\S[^\n]*)")


def other_records(a: str, b: str) -> bool:
    """Whether two texts are cards of two different records: both open with the same
    ``Label: value`` line but for its value, with more lines below ("Service:
    payments-gateway" and "Service: payments-ledger", each with its owner and team), so
    each card's lines are about its own record. One line alone ("Payments service owner:
    Priya.", then "... owner: Marco.") is one setting changed."""
    x, y = _RECORD.match(a), _RECORD.match(b)
    return bool(
        x
        and y
        and _lines(a) > 1
        and _lines(b) > 1
        and x.group(1).casefold() == y.group(1).casefold()
        and x.group(1).casefold() not in _HEADERS
        and " ".join(x.group(2).casefold().split()) != " ".join(y.group(2).casefold().split())
    )


_HEADERS = frozenset("subject from to cc bcc date sent re fwd attendees author channel".split())
"""A message's header lines, which open a message, not a record's card."""


def _lines(text: str) -> int:
    return sum(1 for line in text.splitlines() if line.strip())
