"""``orgbrain eval rules``: each rule that supersedes, how often it fires on the living
sets and how often it is right, set by set.

Every case of a living set is written and derived in a fresh brain (as ``eval living``
does, without the search). Each statement of a case's notes that was ended names the
statement that ended it, and that statement names what read it: a typed predicate of
the patterns (``owner``, ``uses``, ``status``... : the predicate is the rule), a
``value`` restated by the restatement rules (``restated``) or by the judge (``judge``);
a note superseded with no statement ended is a document's revision or link
(``document``). Each (older note, newer note) a rule links is **right** when it is the
case's replaced and current notes, **false** in a control, and **wrong** otherwise (a
distractor linked, or the link backwards). A rule that fires on the sets written for it
and is wrong on the others does not carry.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..brain import Brain
from ..derive.restated import PREDICATE
from ..model import Statement
from ..ports import Embedder
from ..settings import Settings
from .judge_fit import organisation
from .living import filled, load_cases

__all__ = ["RuleCount", "render_rules", "rule_of", "rules_json", "run_rules"]


@dataclass(slots=True)
class RuleCount:
    right: int = 0
    false: int = 0
    wrong: int = 0

    @property
    def fired(self) -> int:
        return self.right + self.false + self.wrong

    @property
    def precision(self) -> float:
        return self.right / self.fired if self.fired else 0.0


@dataclass(slots=True)
class RulesReport:
    sets: dict[str, dict[str, RuleCount]] = field(default_factory=dict)
    """Per set, per rule."""


def rule_of(ended_by: Statement) -> str:
    """The rule that ended a statement, read from the statement that ended it."""
    if ended_by.predicate != PREDICATE:
        return ended_by.predicate
    return "judge" if ended_by.tier == "classifier" else "restated"


def run_rules(
    paths: Sequence[Path], embedder: Embedder, settings: Settings | None = None
) -> RulesReport:
    report = RulesReport()
    with tempfile.TemporaryDirectory(prefix="orgbrain-eval-rules-") as tmp:
        for path in paths:
            counts: dict[str, RuleCount] = {}
            for case in load_cases(path):
                with filled(Path(tmp) / case.id, embedder, settings) as brain:
                    ids = [
                        brain.add_note(text, occurred_at=at, wait="derived").id
                        for at, text in case.notes
                    ]
                    for rule, old, new in _links(brain, ids):
                        c = counts.setdefault(rule, RuleCount())
                        if case.control:
                            c.false += 1
                        elif (old, new) == (case.replaced, case.current):
                            c.right += 1
                        else:
                            c.wrong += 1
            report.sets[organisation(path)] = counts
    return report


def _links(brain: Brain, ids: list[str]) -> set[tuple[str, int, int]]:
    """Each (rule, older note, newer note) of the case: the notes by their index."""
    at = {item_id: n for n, item_id in enumerate(ids)}
    held = {s.id: s for i in ids for s in brain.statements(item_id=i, current=None, limit=1000)}
    links: set[tuple[str, int, int]] = set()
    explained: set[tuple[int, int]] = set()
    for s in held.values():
        by = held.get(s.superseded_by or "")
        if by is None or by.item_id == s.item_id:
            continue
        links.add((rule_of(by), at[s.item_id], at[by.item_id]))
        explained.add((at[s.item_id], at[by.item_id]))
    for item in brain.get_many(ids).values():
        new = at.get(item.superseded_by or "")
        if new is not None and (at[item.id], new) not in explained:
            links.add(("document", at[item.id], new))
    return links


def rules_json(r: RulesReport) -> dict[str, object]:
    total = _totals(r.sets.values())
    return {
        "rules": {
            rule: {
                "fired": c.fired,
                "right": c.right,
                "false": c.false,
                "wrong": c.wrong,
                "precision": round(c.precision, 3),
                "sets": {
                    name: {"right": s[rule].right, "false": s[rule].false, "wrong": s[rule].wrong}
                    for name, s in r.sets.items()
                    if rule in s
                },
            }
            for rule, c in sorted(total.items(), key=lambda kv: -kv[1].fired)
        }
    }


def _totals(sets: Iterable[dict[str, RuleCount]]) -> dict[str, RuleCount]:
    out: dict[str, RuleCount] = {}
    for counts in sets:
        for rule, c in counts.items():
            t = out.setdefault(rule, RuleCount())
            t.right += c.right
            t.false += c.false
            t.wrong += c.wrong
    return out


def render_rules(r: RulesReport) -> str:
    """Each rule's firings and precision, on the sets written to tune the rules
    (``dev*``) and on the rest (``heldout*``, written blind; most are dev now too)."""
    dev = _totals(c for n, c in r.sets.items() if n.startswith("dev"))
    rest = _totals(c for n, c in r.sets.items() if not n.startswith("dev"))
    lines = [
        f"rules that supersede, on {len(r.sets)} living sets "
        "(fired: right / false in a control / wrong link; precision)",
        f"  {'rule':24} {'dev sets':>24}   {'the other sets':>24}",
    ]
    for rule in sorted(set(dev) | set(rest), key=lambda k: -(rest.get(k, RuleCount()).fired)):
        cells = []
        for side in (dev, rest):
            c = side.get(rule, RuleCount())
            cells.append(f"{c.right:3}/{c.false:3}/{c.wrong:3}  p={c.precision:.2f}")
        lines.append(f"  {rule:24} {cells[0]:>24}   {cells[1]:>24}")
    return "\n".join(lines)
