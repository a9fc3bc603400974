"""Score a statement extractor on a labelled JSONL file.

Each record: ``{"text", "entities": [{type, value}], "statements": [{type, subject,
predicate, object, replaces?}]}``. A statement matches when its type, normalised subject,
predicate and object agree (``strict``); ``loose`` ignores the type. Entities match by type
and normalised value, counted as multisets per record. Topics (subjects that are no named
thing) are not scored as entities.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InvalidInput
from ..extraction import ENTITY_TYPES, STATEMENT_TYPES, TIERS, Extractor
from ..extraction.dates import iso_or_text
from ..extraction.sentences import split_units
from .records import data_lines

__all__ = [
    "DEV_SET",
    "Labelled",
    "Score",
    "StatementReport",
    "load_statements",
    "render_statements",
    "run_statements",
    "statements_json",
]

DEV_SET = "statements_dev.jsonl"
TRAIN_SET = "statements_train.jsonl"

_DET = re.compile(r"^(?:the|our|a|an)\s+")


@dataclass(frozen=True, slots=True)
class Gold:
    type: str
    subject: str
    predicate: str
    object: str
    replaces: str | None = None


@dataclass(frozen=True, slots=True)
class Labelled:
    text: str
    entities: tuple[tuple[str, str], ...]
    statements: tuple[Gold, ...]


@dataclass(slots=True)
class Score:
    tp: int = 0
    predicted: int = 0
    gold: int = 0

    @property
    def precision(self) -> float:
        return self.tp / self.predicted if self.predicted else 0.0

    @property
    def recall(self) -> float:
        return self.tp / self.gold if self.gold else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def as_dict(self) -> dict[str, float | int]:
        return {
            "precision": round(self.precision, 3),
            "recall": round(self.recall, 3),
            "f1": round(self.f1, 3),
            "tp": self.tp,
            "predicted": self.predicted,
            "gold": self.gold,
        }


@dataclass(slots=True)
class StatementReport:
    source: str
    tiers: tuple[str, ...]
    records: int = 0
    sentences: int = 0
    seconds: float = 0.0
    strict: Score = field(default_factory=Score)
    loose: Score = field(default_factory=Score)
    by_type: dict[str, Score] = field(default_factory=dict)
    by_tier: dict[str, Score] = field(default_factory=dict)
    entities: dict[str, Score] = field(default_factory=dict)
    replaces_right: int = 0
    replaces_gold: int = 0
    misses: list[dict[str, object]] = field(default_factory=list)

    @property
    def ms_per_sentence(self) -> float:
        return 1000 * self.seconds / self.sentences if self.sentences else 0.0


def load_statements(path: Path | None = None) -> list[Labelled]:
    """Records from ``path``, or the packaged dev set."""
    found: list[Labelled] = []
    for number, line in data_lines(path, DEV_SET):
        try:
            raw = json.loads(line)
            found.append(
                Labelled(
                    raw["text"],
                    tuple((e["type"], e["value"]) for e in raw.get("entities", ())),
                    tuple(
                        Gold(
                            s["type"],
                            s["subject"],
                            s["predicate"],
                            s["object"],
                            s.get("replaces"),
                        )
                        for s in raw.get("statements", ())
                    ),
                )
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise InvalidInput(f"line {number} is not a labelled record: {exc!r}") from None
    return found


def norm(value: str) -> str:
    value = " ".join(value.casefold().split()).strip(" .,;:'\"`")
    return iso_or_text(_DET.sub("", value))


def run_statements(
    extractor: Extractor,
    records: Sequence[Labelled],
    *,
    source: str,
    tiers: Sequence[str] = TIERS,
) -> StatementReport:
    report = StatementReport(source, tuple(tiers))
    for record in records:
        report.records += 1
        report.sentences += len(split_units(record.text))
        started = time.perf_counter()
        result = extractor.extract(record.text)
        report.seconds += time.perf_counter() - started
        _score_entities(report, record, [(e.type, e.value) for e in result.entities])
        predicted = [
            (c.type, norm(c.subject.value), c.predicate, norm(c.object), c.tier, c.replaces)
            for c in result.claims
        ]
        _score_claims(report, record, predicted)
    return report


def _score_entities(
    report: StatementReport, record: Labelled, predicted: Iterable[tuple[str, str]]
) -> None:
    gold = Counter((t, norm(v)) for t, v in record.entities)
    got = Counter((t, norm(v)) for t, v in predicted if t in ENTITY_TYPES)
    for type_ in ENTITY_TYPES:
        score = report.entities.setdefault(type_, Score())
        g = Counter({k: n for k, n in gold.items() if k[0] == type_})
        p = Counter({k: n for k, n in got.items() if k[0] == type_})
        score.gold += sum(g.values())
        score.predicted += sum(p.values())
        score.tp += sum((g & p).values())


def _score_claims(
    report: StatementReport,
    record: Labelled,
    predicted: Sequence[tuple[str, str, str, str, str, str | None]],
) -> None:
    gold = [(s.type, norm(s.subject), s.predicate, norm(s.object)) for s in record.statements]
    unmatched = list(range(len(gold)))
    loose_left = list(range(len(gold)))
    for type_ in STATEMENT_TYPES:
        report.by_type.setdefault(type_, Score())
    for tier in report.tiers:
        report.by_tier.setdefault(tier, Score())
    for g in gold:
        report.by_type[g[0]].gold += 1
    report.strict.gold += len(gold)
    report.loose.gold += len(gold)
    wrong: list[tuple[str, str, str, str]] = []
    for kind, subject, predicate, obj, tier, replaces in predicted:
        report.strict.predicted += 1
        report.loose.predicted += 1
        report.by_type.setdefault(kind, Score()).predicted += 1
        tier_score = report.by_tier.setdefault(tier, Score())
        tier_score.predicted += 1
        hit = next((i for i in unmatched if gold[i] == (kind, subject, predicate, obj)), None)
        loose = next((i for i in loose_left if gold[i][1:] == (subject, predicate, obj)), None)
        if loose is not None:
            loose_left.remove(loose)
            report.loose.tp += 1
        if hit is None:
            wrong.append((kind, subject, predicate, obj))
            continue
        unmatched.remove(hit)
        report.strict.tp += 1
        report.by_type[kind].tp += 1
        tier_score.tp += 1
        expected = record.statements[hit].replaces
        if expected is not None:
            report.replaces_gold += 1
            report.replaces_right += norm(replaces or "") == norm(expected)
    # Recall per tier: every gold statement counts against each tier's column.
    for tier in report.tiers:
        report.by_tier[tier].gold += len(gold)
    if unmatched or wrong:
        report.misses.append(
            {
                "text": record.text,
                "missed": ["|".join(gold[i]) for i in unmatched],
                "wrong": ["|".join(w) for w in wrong],
            }
        )


def statements_json(report: StatementReport) -> dict[str, object]:
    return {
        "source": report.source,
        "tiers": list(report.tiers),
        "records": report.records,
        "sentences": report.sentences,
        "ms_per_sentence": round(report.ms_per_sentence, 4),
        "statements": {"strict": report.strict.as_dict(), "loose": report.loose.as_dict()},
        "by_type": {k: v.as_dict() for k, v in report.by_type.items()},
        "by_tier": {k: v.as_dict() for k, v in report.by_tier.items()},
        "entities": {k: v.as_dict() for k, v in report.entities.items()},
        "replaces": {"right": report.replaces_right, "of": report.replaces_gold},
        "misses": report.misses,
    }


def render_statements(report: StatementReport) -> str:
    lines = [
        f"{report.source}: {report.records} records, {report.sentences} sentences, "
        f"tiers {','.join(report.tiers)}; {report.ms_per_sentence:.3f} ms/sentence",
        "",
        f"{'':<22}{'P':>7}{'R':>7}{'F1':>7}{'tp':>6}{'pred':>6}{'gold':>6}",
    ]

    def row(name: str, s: Score) -> str:
        return (
            f"{name:<22}{s.precision:>7.3f}{s.recall:>7.3f}{s.f1:>7.3f}"
            f"{s.tp:>6}{s.predicted:>6}{s.gold:>6}"
        )

    lines.append(row("statements (strict)", report.strict))
    lines.append(row("statements (loose)", report.loose))
    lines += [row(f"  type {k}", v) for k, v in report.by_type.items()]
    lines += [row(f"  tier {k}", v) for k, v in report.by_tier.items()]
    lines += [row(f"entity {k}", v) for k, v in report.entities.items() if v.gold or v.predicted]
    lines.append(
        f"replaces right on matched statements: {report.replaces_right}/{report.replaces_gold}"
    )
    return "\n".join(lines)
