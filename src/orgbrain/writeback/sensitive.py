"""Secrets, credentials and personal data in a proposal (interim: a fuller detector,
measured on examples, replaces this)."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Sensitivity", "detect"]


@dataclass(frozen=True, slots=True)
class Sensitivity:
    kinds: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()
    spans: tuple[tuple[int, int], ...] = ()

    @property
    def sensitive(self) -> bool:
        return bool(self.kinds)


_RULES = (
    ("secret", "an AWS access key id", re.compile(r"\bAKIA[0-9A-Z]{16}\b")),
    ("credential", "a password", re.compile(r"(?i)\b(password|passwd|pw)\s*(is|:|=)\s*\S+")),
    ("personal", "an email address", re.compile(r"\b[\w.+-]+@[\w-]+\.[\w.]+\b")),
)


def detect(text: str) -> Sensitivity:
    kinds: list[str] = []
    reasons: list[str] = []
    spans: list[tuple[int, int]] = []
    for kind, reason, rx in _RULES:
        for m in rx.finditer(text):
            kinds.append(kind)
            reasons.append(reason)
            spans.append(m.span())
    return Sensitivity(tuple(dict.fromkeys(kinds)), tuple(dict.fromkeys(reasons)), tuple(spans))
