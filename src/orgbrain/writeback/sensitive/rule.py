"""One detection rule, and the checks rules share: placeholders, randomness, checksums,
the sentence around a match."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "Rule",
    "iban_ok",
    "looks_random",
    "luhn_ok",
    "placeholder",
    "sentence_at",
    "shannon",
]

Accept = Callable[[re.Match[str]], bool]


@dataclass(frozen=True, slots=True)
class Rule:
    """A pattern that finds one thing of a kind. The match's ``v`` group (or the whole
    match) is the span reported, never its text; ``accept`` vetoes a match on a check a
    pattern cannot make (a checksum, the words around it)."""

    name: str
    kind: str
    reason: str
    pattern: re.Pattern[str]
    accept: Accept | None = None

    def spans(self, text: str) -> list[tuple[int, int]]:
        found = []
        for m in self.pattern.finditer(text):
            if self.accept is not None and not self.accept(m):
                continue
            has_v = "v" in self.pattern.groupindex and m.start("v") >= 0
            found.append(m.span("v") if has_v else m.span())
        return found


_PLACEHOLDER = re.compile(
    r"""(?ix)^(?:
        \$\{.*\}|\$\(.*\)|\$\w+|%\w+%|<.*>|\{\{.*\}\}|\{[\w.]*\}|\[[\w\s.-]*\]
        |[*•.…_-]{3,}|x{3,}|your[\s_-]?\w*|my[\s_-]\w+|change[\s_-]?me|redacted|hidden|masked
        |placeholder|example|sample|dummy|none|null|nil|empty|todo|tbd|n/?a|unset|true|false
        |secret|password|passwd|token|key|value|string|\w+_here
    )$"""
)


def placeholder(value: str) -> bool:
    """A value that stands for a secret rather than being one (``${DB_PASSWORD}``,
    ``<your key>``, ``***``, ``changeme``)."""
    return bool(_PLACEHOLDER.match(value.strip("\"'`.,;:)(")))


def shannon(value: str) -> float:
    """Bits of entropy per character."""
    if not value:
        return 0.0
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


def looks_random(value: str, *, min_len: int = 16) -> bool:
    """A machine-made secret: long, high in entropy and mixing character classes (or
    long hex); not words with separators, not a path or URL."""
    v = value.strip("\"'`")
    if v.endswith(("...", "…")):
        return False  # elided: an example of the shape, not the secret
    if len(v) < min_len or placeholder(v) or "://" in v or v.startswith("/"):
        return False
    if re.match(r"[A-Za-z_][\w.]*\(", v):
        return False  # a call in code: ``key = Fernet.generate_key()``
    if not re.search(r"\d", v) and len(v) < 32:
        return False  # words and names; a random value this short has a digit
    if re.fullmatch(r"(?:[a-z]{2,}|\d{1,4}|v\d+)(?:[-_./:=](?:[a-z]{2,}|\d{1,4}|v\d+))+", v):
        return False  # lower-case words and small numbers: a name, a path, a date

    classes = sum(bool(re.search(rx, v)) for rx in (r"[a-z]", r"[A-Z]", r"\d", r"[^A-Za-z0-9]"))
    if re.fullmatch(r"[0-9a-fA-F-]+", v) and len(v.replace("-", "")) >= 32:
        return True
    return classes >= 2 and shannon(v) >= 3.0


def luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch)
        if i % 2:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


def iban_ok(iban: str) -> bool:
    """ISO 13616: the rearranged number mod 97 is 1."""
    s = iban.replace(" ", "").upper()
    if not re.fullmatch(r"[A-Z]{2}\d{2}[A-Z0-9]{11,30}", s):
        return False
    return int("".join(str(int(c, 36)) for c in s[4:] + s[:4])) % 97 == 1


_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=[A-Z@#\"'(])|\n+")


def sentence_at(text: str, start: int, end: int) -> str:
    """The sentence (or line) holding ``text[start:end]``."""
    left = 0
    for m in _SENTENCE_END.finditer(text):
        if m.end() <= start:
            left = m.end()
        elif m.start() >= end:
            return text[left : m.start()]
    return text[left:]
