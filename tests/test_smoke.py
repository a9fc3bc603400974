"""Small runs of `orgbrain eval` on the real shared data, and of every bench script, so
neither can rot. Quality and speed are judged by the full runs (docs/eval.md,
docs/benchmarks.md); these check that the harness works end to end and gives sane numbers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from orgbrain.cli import eval as eval_cli
from orgbrain.ports import Embedder
from orgbrain.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"


@pytest.fixture
def eval_runner(embedder: Embedder, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    def shared(_settings: Settings) -> Embedder:
        return embedder

    monkeypatch.setattr(eval_cli, "embedder_factory", shared)
    return CliRunner()


def test_eval_beir_smoke_on_scifact(eval_runner: CliRunner, tmp_path: Path) -> None:
    args = [
        "beir",
        str(DATA / "scifact"),
        "--split",
        "train",
        "--plan",
        "bm25,dense,hybrid",
        "--limit-queries",
        "40",
        "--limit-docs",
        "150",
        "--out",
        str(tmp_path / "q.jsonl"),
        "--json",
    ]
    result = eval_runner.invoke(eval_cli.eval_group, args)
    assert result.exit_code == 0, result.output
    plans = json.loads(result.stdout)["plans"]
    assert set(plans) >= {"bm25", "dense", "hybrid"}
    for name, metrics in plans.items():
        assert 0.3 < metrics["ndcg@10"] <= 1.0, (name, metrics)


def test_eval_locomo_smoke(eval_runner: CliRunner) -> None:
    args = [
        "locomo",
        str(DATA / "locomo" / "locomo-dev.json"),
        "--plan",
        "bm25,hybrid",
        "--limit-conversations",
        "1",
        "--json",
    ]
    result = eval_runner.invoke(eval_cli.eval_group, args)
    assert result.exit_code == 0, result.output
    plans = json.loads(result.stdout)["plans"]
    for name, metrics in plans.items():
        assert 0.2 < metrics["recall@10"] <= 1.0, (name, metrics)


@pytest.mark.parametrize(
    "argv",
    [
        ["-m", "bench.index", "--files", "2", "--rounds", "1", "--no-write"],
        ["-m", "bench.write", "--notes", "8", "--no-write"],
        ["-m", "bench.search", "--sizes", "2000", "--queries", "10", "--real", "200", "--no-write"],
        [
            "-m",
            "bench.keywords",
            "--sections",
            "2000",
            "--queries",
            "10",
            "--real",
            "200",
            "--no-write",
        ],
    ],
)
def test_bench_scripts_run(argv: list[str]) -> None:
    proc = subprocess.run(
        [sys.executable, *argv], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "|" in proc.stdout  # printed its table
