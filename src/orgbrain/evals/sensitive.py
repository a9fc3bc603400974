"""Score the write-back gate's sensitive detector on labelled examples.

Each record: ``{"id", "text", "kinds": [...]}`` where kinds is a subset of ``secret``,
``credential`` and ``personal`` (empty: ordinary organisation knowledge). Each text goes
through :func:`orgbrain.writeback.detect` once; precision, recall and F1 are counted per
kind and for ``sensitive`` (any kind: what the gate acts on). Two sets ship: the dev set
(tuned on) and the held-out set (written before the detector, scored, never tuned on).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InvalidInput
from ..writeback.sensitive import SENSITIVE_KINDS, Sensitivity, detect
from .records import data_lines

__all__ = [
    "DEV_SET",
    "HELDOUT_SET",
    "Example",
    "KindScore",
    "SensitiveReport",
    "load_examples",
    "render_sensitive",
    "run_sensitive",
    "sensitive_json",
]

DEV_SET = "sensitive_dev.jsonl"
HELDOUT_SET = "sensitive_heldout.jsonl"
ANY = "sensitive"


@dataclass(frozen=True, slots=True)
class Example:
    id: str
    text: str
    kinds: frozenset[str]


@dataclass(slots=True)
class KindScore:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def add(self, predicted: bool, gold: bool) -> None:
        if predicted and gold:
            self.tp += 1
        elif predicted:
            self.fp += 1
        elif gold:
            self.fn += 1


@dataclass(slots=True)
class SensitiveReport:
    source: str
    examples: int = 0
    scores: dict[str, KindScore] = field(
        default_factory=lambda: {k: KindScore() for k in (*SENSITIVE_KINDS, ANY)}
    )
    ms_per_text: float = 0.0
    misses: list[dict[str, object]] = field(default_factory=list)


def load_examples(path: Path | None = None, *, heldout: bool = False) -> list[Example]:
    """Records from ``path``, or the packaged dev (or held-out) set."""
    examples = []
    for number, line in data_lines(path, HELDOUT_SET if heldout else DEV_SET):
        try:
            raw = json.loads(line)
            kinds = frozenset(str(k) for k in raw.get("kinds", ()))
            example = Example(str(raw["id"]), str(raw["text"]), kinds)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise InvalidInput(f"line {number}: not a labelled example ({exc})") from None
        unknown = sorted(kinds - set(SENSITIVE_KINDS))
        if unknown:
            raise InvalidInput(
                f"line {number}: unknown kind {unknown[0]!r}; use {', '.join(SENSITIVE_KINDS)}"
            )
        examples.append(example)
    return examples


def run_sensitive(
    examples: Sequence[Example],
    *,
    source: str = "",
    detector: Callable[[str], Sensitivity] = detect,
) -> SensitiveReport:
    report = SensitiveReport(source=source, examples=len(examples))
    t0 = time.perf_counter()
    found = [detector(e.text) for e in examples]
    elapsed = time.perf_counter() - t0
    report.ms_per_text = 1000 * elapsed / len(examples) if examples else 0.0
    for e, s in zip(examples, found, strict=True):
        predicted = frozenset(s.kinds)
        for kind in SENSITIVE_KINDS:
            report.scores[kind].add(kind in predicted, kind in e.kinds)
        report.scores[ANY].add(bool(predicted), bool(e.kinds))
        if predicted != e.kinds:
            report.misses.append(
                {
                    "id": e.id,
                    "text": e.text,
                    "want": sorted(e.kinds),
                    "got": sorted(predicted),
                    "reasons": list(s.reasons),
                }
            )
    return report


def sensitive_json(r: SensitiveReport) -> dict[str, object]:
    return {
        "source": r.source,
        "examples": r.examples,
        "kinds": {
            k: {
                "precision": round(s.precision, 3),
                "recall": round(s.recall, 3),
                "f1": round(s.f1, 3),
                "tp": s.tp,
                "fp": s.fp,
                "fn": s.fn,
            }
            for k, s in r.scores.items()
        },
        "ms_per_text": round(r.ms_per_text, 3),
        "misses": r.misses,
    }


def render_sensitive(r: SensitiveReport) -> str:
    lines = [
        f"sensitive detector on {r.source}: {r.examples} examples ({r.ms_per_text:.3f} ms a text)",
        f"  {'kind':<11} {'precision':>9} {'recall':>7} {'f1':>6}   tp  fp  fn",
    ]
    for kind, s in r.scores.items():
        lines.append(
            f"  {kind:<11} {s.precision:>9.3f} {s.recall:>7.3f} {s.f1:>6.3f}  "
            f"{s.tp:>3} {s.fp:>3} {s.fn:>3}"
        )
    return "\n".join(lines)
