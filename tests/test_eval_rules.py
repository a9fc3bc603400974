"""``orgbrain eval rules``: each supersession in a living set's cases attributed to the
rule that made it, and counted right, false (in a control) or wrong (the wrong notes), on
real brains with the default extractor."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from orgbrain.cli import eval as eval_cli
from orgbrain.cli import eval_kit
from orgbrain.evals.rules import rules_json, run_rules
from orgbrain.ports import Embedder
from orgbrain.settings import Settings

CASES = [
    {  # the patterns read "X uses Y" twice: the newer use ends the older
        "id": "c-uses",
        "notes": [
            {"at": "2026-03-02", "text": "The marketing site uses Gatsby."},
            {"at": "2026-06-01", "text": "The marketing site now uses Astro."},
        ],
        "question": "What is the marketing site built with?",
        "current": 1,
        "replaced": 0,
    },
    {  # the same rule linking two notes, neither the pair the case is about: wrong
        "id": "c-wrong",
        "notes": [
            {"at": "2026-03-02", "text": "The billing service uses RabbitMQ."},
            {"at": "2026-06-01", "text": "The billing service now uses Kafka."},
            {"at": "2026-07-01", "text": "Billing invoices are now sent on the 1st."},
        ],
        "question": "When are billing invoices sent?",
        "current": 2,
        "replaced": 0,
    },
    {  # a control in which the same rule fires: it is counted false
        "id": "k-two",
        "notes": [
            {"at": "2026-03-02", "text": "The docs site uses Hugo."},
            {"at": "2026-06-01", "text": "The docs site now uses Docusaurus."},
        ],
        "question": "What is the docs site built with?",
        "control": True,
    },
]


def _set(folder: Path, name: str = "dev9") -> Path:
    path = folder / f"living_{name}.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in CASES), "utf-8")
    return path


def test_each_link_is_counted_under_the_rule_that_made_it(
    tmp_path: Path, embedder: Embedder
) -> None:
    report = run_rules([_set(tmp_path)], embedder)
    counts = report.sets["dev9"]["uses"]
    assert (counts.right, counts.false, counts.wrong) == (1, 1, 1)
    assert counts.precision == 1 / 3
    out = rules_json(report)["rules"]
    assert isinstance(out, dict) and out["uses"]["sets"] == {
        "dev9": {"right": 1, "false": 1, "wrong": 1}
    }


def test_the_command_prints_dev_sets_beside_the_others(
    tmp_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    def shared(_settings: Settings) -> Embedder:
        return embedder

    monkeypatch.setattr(eval_kit, "embedder_factory", shared)
    files = [str(_set(tmp_path, "dev9")), str(_set(tmp_path, "heldout9"))]
    result = CliRunner().invoke(eval_cli.eval_group, ["rules", *files])
    assert result.exit_code == 0, result.output
    (line,) = [r for r in result.output.splitlines() if r.strip().startswith("uses")]
    # the same counts on the dev set and on the other one
    assert line.count("1/  1/  1  p=0.33") == 2
