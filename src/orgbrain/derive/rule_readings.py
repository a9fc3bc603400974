"""What the rules read between two items, handed to the judge as signals of its pairs.

The restatement rules (``restated.py``: a value, a name or a state said anew) and the
typed statements of the patterns (``extraction/``: one subject's ``owner``, ``uses``,
``status``... with another object) each say which clause of the older item the newer
restates. Here they only read: the judge weighs what they read beside its other signals
(``judge/signals.py``: ``rule_restated``, ``rule_typed``), with weights fitted on the
living sets, so a rule counts for what it is worth on organisations it was not written
for. Pure: two items in, spans out.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..extraction import Extractor
from ..extraction.types import Claim
from ..judge import JUnit
from ..model import Item
from .restated import restated_between, unguarded
from .statements import norm

__all__ = ["RuleReadings", "read_rules"]

Span = tuple[int, int, int, int]
"""The older item's clause (start, end) and the newer's, offsets into their bodies."""


@dataclass(frozen=True, slots=True)
class RuleReadings:
    restated: tuple[Span, ...]
    typed: tuple[Span, ...]

    def of(self, old: JUnit, new: JUnit) -> frozenset[str]:
        """The rules that read ``new`` as restating ``old``."""
        out = set()
        if any(_over(old, new, s) for s in self.restated):
            out.add("restated")
        if any(_over(old, new, s) for s in self.typed):
            out.add("typed")
        return frozenset(out)


def read_rules(old: Item, new: Item, extractor: Extractor) -> RuleReadings:
    """What the rules read ``new`` (the later) as restating of ``old``."""
    pairs = unguarded(restated_between(new, old), new.when.date())
    restated = tuple(
        (p.old.start, p.old.end, p.new.start, p.new.end) for p in pairs if p.old.item is old
    )
    return RuleReadings(restated, _typed(old, new, extractor))


def _slot(c: Claim) -> tuple[str, str]:
    return norm(c.subject.value), c.predicate


def _typed(old: Item, new: Item, extractor: Extractor) -> tuple[Span, ...]:
    before: dict[tuple[str, str], list[Claim]] = {}
    for c in extractor.extract(old.body).claims:
        before.setdefault(_slot(c), []).append(c)
    return tuple(
        (b.start, b.end, c.start, c.end)
        for c in extractor.extract(new.body).claims
        for b in before.get(_slot(c), ())
        if norm(b.object) != norm(c.object)
    )


def _over(old: JUnit, new: JUnit, s: Span) -> bool:
    return old.start < s[1] and s[0] < old.end and new.start < s[3] and s[2] < new.end
