"""An evaluation's outcome as data, and its two renderings: a markdown table and JSON."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..retrieve import Trace

__all__ = [
    "EvalReport",
    "PlanScores",
    "default_results_path",
    "gate_view",
    "render_table",
    "render_text",
    "to_json",
    "write_jsonl",
]

Info = dict[str, float | int | str]


@dataclass(frozen=True, slots=True)
class PlanScores:
    """One plan's aggregate numbers, in display order (every value a number)."""

    plan: str
    metrics: dict[str, float]


@dataclass(frozen=True, slots=True)
class EvalReport:
    """What one ``orgbrain eval`` run measured: one row per plan over one index."""

    dataset: str
    source: str
    plans: tuple[PlanScores, ...]
    # The metrics the table shows; JSON carries all of them.
    columns: tuple[str, ...]
    info: Info = field(default_factory=dict)
    results_path: str | None = None


def default_results_path(dataset: str) -> Path:
    """A fresh ``results.jsonl`` under a new temp dir: per-query rows outlive the run."""
    return Path(tempfile.mkdtemp(prefix=f"orgbrain-eval-{dataset}-")) / "results.jsonl"


def write_jsonl(path: Path, rows: Iterable[Mapping[str, object]]) -> int:
    """Write one JSON object per line; returns the number of rows."""
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with path.open("w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
            n += 1
    return n


EVIDENCE_DEPTH = 5
"""How many of a shipped search's first hits the rows keep the gate's view of."""


def gate_view(trace: Trace, reason: str) -> dict[str, object]:
    """What the verdict saw for one shipped search, for a row: whether the floors alone
    said nothing, and per first hit ``[names, coverage, cosine, asks, graph, mentions,
    names_asked, lang]`` (graph: the graph's reason or null; names_asked: how many names
    the query has; lang: the hit's language against the query's), so that other gates
    can be replayed over the rows (``bench/verdict_curve.py``) without searching again."""
    return {
        "floored": trace.floored,
        "evidence": [
            [e.names, e.coverage, e.cosine, e.asks, e.graph, e.mentions, e.names_asked, e.lang]
            for e in trace.evidence
        ],
        "reason": reason,
    }


def _cell(key: str, value: float) -> str:
    if key.endswith("_ms"):
        return f"{value:.1f}"
    if key.endswith("_per_s"):
        return f"{value:.0f}"
    return f"{value:.3f}"


def render_table(report: EvalReport) -> str:
    """A markdown table: rows are plans, columns the report's chosen metrics."""
    header = ["plan", *report.columns]
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|",
    ]
    for scores in report.plans:
        cells = [scores.plan] + [
            _cell(c, scores.metrics[c]) if c in scores.metrics else "-" for c in report.columns
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _info_value(value: float | int | str) -> str:
    if isinstance(value, float):
        return f"{value:.1f}" if abs(value) >= 10 else f"{value:.3f}"
    return str(value)


def render_text(report: EvalReport) -> str:
    """The table, then one line of run facts (sizes, index speed) and where rows went."""
    facts = ", ".join(f"{k} {_info_value(v)}" for k, v in report.info.items())
    lines = [f"{report.dataset} · {report.source}", "", render_table(report), ""]
    if facts:
        lines.append(facts)
    if report.results_path:
        lines.append(f"per-query results: {report.results_path}")
    return "\n".join(lines)


def to_json(report: EvalReport) -> dict[str, object]:
    """Machine-readable form: every metric of every plan, the run facts, the rows' path."""
    return {
        "dataset": report.dataset,
        "source": report.source,
        "plans": {s.plan: dict(s.metrics) for s in report.plans},
        "info": dict(report.info),
        "results_path": report.results_path,
    }
