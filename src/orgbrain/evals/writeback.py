"""Score the write-back writer and gate on labelled runs.

Each record: ``{"id", "brain": [notes already there], "products": {...}, "expect": [{"has":
text the proposal holds, "state": written|pending|skipped, "scope"?, "supersedes"?}]}``.
Every record gets a fresh brain holding its notes (derived), then one write-back pass as
the local owner. A proposal matches an expectation when it holds the expected text. The
numbers that matter: of what the gate wrote straight in, how much was expected written
(``written precision``: what nobody reviews must be right); of what was expected, how
much was proposed (``recall``) and landed where expected (``gate accuracy``).
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..brain import Brain
from ..errors import InvalidInput
from ..model import Proposal
from ..ports import Embedder
from ..settings import Settings
from .records import data_lines

__all__ = [
    "DEV_SET",
    "Expected",
    "Run",
    "WritebackReport",
    "load_runs",
    "render_writeback",
    "run_writeback",
    "writeback_json",
]

DEV_SET = "writeback_dev.jsonl"


@dataclass(frozen=True, slots=True)
class Expected:
    has: str
    state: str
    scope: str | None = None
    supersedes: bool | None = None


@dataclass(frozen=True, slots=True)
class Run:
    id: str
    brain: tuple[str, ...]
    products: dict[str, object]
    expect: tuple[Expected, ...]


@dataclass(slots=True)
class WritebackReport:
    source: str
    runs: int = 0
    expected: int = 0
    proposed: int = 0
    matched: int = 0
    right_state: int = 0
    written: int = 0
    written_right: int = 0
    unexpected: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    misses: list[dict[str, object]] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.matched / self.expected if self.expected else 1.0

    @property
    def gate_accuracy(self) -> float:
        return self.right_state / self.expected if self.expected else 1.0

    @property
    def written_precision(self) -> float:
        return self.written_right / self.written if self.written else 1.0


def load_runs(path: Path | None = None) -> list[Run]:
    """Records from ``path``, or the packaged dev set."""
    runs = []
    for number, line in data_lines(path, DEV_SET):
        try:
            raw = json.loads(line)
            runs.append(
                Run(
                    str(raw["id"]),
                    tuple(raw.get("brain", ())),
                    dict(raw["products"]),
                    tuple(Expected(**e) for e in raw.get("expect", ())),
                )
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise InvalidInput(f"line {number}: not a labelled run ({exc})") from None
    return runs


def run_writeback(
    runs: Sequence[Run], embedder: Embedder, *, source: str = "", settings: Settings | None = None
) -> WritebackReport:
    report = WritebackReport(source=source, runs=len(runs))
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="orgbrain-eval-writeback-") as tmp:
        for run in runs:
            opened = Brain.open(Path(tmp) / run.id, embedder=embedder, settings=settings)
            with opened.without_search_log() as brain:
                for note in run.brain:
                    brain.add_note(note, wait="derived")
                brain.write_back({"run_id": run.id, **run.products}, wait=True)
                made = brain.proposals(state=None, run_id=run.id)
                _score(brain, run, made, report)
    report.seconds = time.perf_counter() - t0
    return report


def _score(brain: Brain, run: Run, made: list[Proposal], report: WritebackReport) -> None:
    report.expected += len(run.expect)
    report.proposed += len(made)
    used: set[str] = set()
    for e in run.expect:
        p = next((p for p in made if e.has.casefold() in p.body.casefold()), None)
        if p is None:
            report.misses.append({"run": run.id, "missed": e.has, "want": e.state})
            continue
        used.add(p.id)
        report.matched += 1
        ok = p.state == e.state and (e.scope is None or p.scope == e.scope)
        if e.supersedes is not None and p.item_id:
            replaced = bool(p.supersedes) or brain.get(p.item_id).supersedes is not None
            ok = ok and replaced == e.supersedes
        if ok:
            report.right_state += 1
        else:
            report.misses.append(
                {"run": run.id, "proposal": p.body, "state": p.state, "want": e.state}
            )
    for p in made:
        if p.state == "written":
            report.written += 1
            if p.id in used and any(
                e.state == "written" and e.has.casefold() in p.body.casefold() for e in run.expect
            ):
                report.written_right += 1
        if p.id not in used:
            report.unexpected[p.state] = report.unexpected.get(p.state, 0) + 1
            report.misses.append({"run": run.id, "unexpected": p.body, "state": p.state})


def writeback_json(r: WritebackReport) -> dict[str, object]:
    return {
        "source": r.source,
        "runs": r.runs,
        "expected": r.expected,
        "proposed": r.proposed,
        "recall": round(r.recall, 3),
        "gate_accuracy": round(r.gate_accuracy, 3),
        "written": r.written,
        "written_precision": round(r.written_precision, 3),
        "unexpected": r.unexpected,
        "seconds": round(r.seconds, 2),
        "misses": r.misses,
    }


def render_writeback(r: WritebackReport) -> str:
    unexpected = ", ".join(f"{k} {v}" for k, v in sorted(r.unexpected.items())) or "none"
    return "\n".join(
        [
            f"write-back on {r.source}: {r.runs} runs, {r.expected} expected proposals, "
            f"{r.proposed} made ({r.seconds:.1f} s)",
            f"  recall            {r.recall:.3f}  (expected proposals that were made)",
            f"  gate accuracy     {r.gate_accuracy:.3f}  (expected ones that landed as expected)",
            f"  written precision {r.written_precision:.3f}  "
            f"({r.written_right} of {r.written} written straight in were expected there)",
            f"  unexpected        {unexpected}",
        ]
    )
