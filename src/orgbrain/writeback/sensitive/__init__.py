"""Secrets, credentials and personal data in a proposal: what sends it to the review
inbox (docs/sensitive.md).

``detect(text)`` runs every rule in ``RULES`` (secrets, then credentials, then personal
data) and reports the kinds found, why in words (never the text found) and where. A
match inside a span an earlier rule already found is not counted again: the password in
``postgres://app:pw@db`` is a connection string's, not an email address.
"""

from __future__ import annotations

from dataclasses import dataclass

from .credentials import CREDENTIAL_RULES
from .people import PEOPLE_RULES
from .personal import PERSONAL_RULES
from .rule import Rule
from .secrets import SECRET_RULES

__all__ = [
    "RULES",
    "SENSITIVE_KINDS",
    "Rule",
    "Sensitivity",
    "detect",
]

SENSITIVE_KINDS = ("secret", "credential", "personal")

RULES: tuple[Rule, ...] = (*SECRET_RULES, *CREDENTIAL_RULES, *PERSONAL_RULES, *PEOPLE_RULES)


@dataclass(frozen=True, slots=True)
class Sensitivity:
    kinds: tuple[str, ...] = ()
    """Which of ``secret``, ``credential``, ``personal`` were found, in that order."""
    reasons: tuple[str, ...] = ()
    """What was found, in words ("a GitHub token"): safe to log and show."""
    spans: tuple[tuple[int, int], ...] = ()
    """Where, as ``(start, end)`` offsets into the text, in order."""
    rules: tuple[str, ...] = ()
    """The names of the rules that fired (``RULES``), for tests and tuning."""

    @property
    def sensitive(self) -> bool:
        return bool(self.kinds)


def detect(text: str) -> Sensitivity:
    """What in ``text`` is a secret, a credential or personal data."""
    found: list[tuple[Rule, tuple[int, int]]] = []
    for rule in RULES:
        for start, end in rule.spans(text):
            if any(start < e and end > s for _, (s, e) in found):
                continue
            found.append((rule, (start, end)))
    kinds = {r.kind for r, _ in found}
    return Sensitivity(
        kinds=tuple(k for k in SENSITIVE_KINDS if k in kinds),
        reasons=tuple(dict.fromkeys(r.reason for r, _ in found)),
        spans=tuple(sorted(span for _, span in found)),
        rules=tuple(dict.fromkeys(r.name for r, _ in found)),
    )
