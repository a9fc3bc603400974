"""Small runs of `orgbrain eval` on the real data, and of every bench script, so neither can
rot. Quality and speed are judged by the full runs (docs/eval.md, docs/benchmarks.md); these
check that the harness works end to end and gives sane numbers.

The real data (BEIR SciFact, LoCoMo) is wherever ``ORGBRAIN_EVAL_DATA`` points, else
``../shared/data`` beside the checkout when that exists. Without it (a fresh clone) the two
eval smoke runs read the tiny datasets tests/test_eval.py writes, and the bench scripts a
small SciFact-shaped corpus written here: every one of them runs either way.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from orgbrain.cli import eval as eval_cli
from orgbrain.cli import eval_kit
from orgbrain.ports import Embedder
from orgbrain.settings import Settings
from tests.test_eval import write_beir, write_locomo

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent


def eval_data() -> Path | None:
    """The real eval data: ``ORGBRAIN_EVAL_DATA``, else ``../shared/data`` if it exists."""
    named = os.environ.get("ORGBRAIN_EVAL_DATA")
    if named:
        return Path(named)
    beside = ROOT.parent / "shared" / "data"
    return beside if beside.is_dir() else None


DATA = eval_data()


def scifact(tmp_path: Path) -> tuple[Path, str]:
    """SciFact and the split to read (train); without the real data, a tiny BEIR set."""
    if DATA is not None:
        return DATA / "scifact", "train"
    return write_beir(tmp_path / "scifact"), "test"


def locomo(tmp_path: Path) -> Path:
    """LoCoMo dev; without the real data, two tiny conversations in its format."""
    if DATA is not None:
        return DATA / "locomo" / "locomo-dev.json"
    return write_locomo(tmp_path / "locomo.json")


@pytest.fixture
def eval_runner(embedder: Embedder, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    def shared(_settings: Settings) -> Embedder:
        return embedder

    monkeypatch.setattr(eval_kit, "embedder_factory", shared)
    return CliRunner()


def test_eval_beir_smoke_on_scifact(eval_runner: CliRunner, tmp_path: Path) -> None:
    folder, split = scifact(tmp_path)
    args = [
        "beir",
        str(folder),
        "--split",
        split,
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


def test_eval_locomo_smoke(eval_runner: CliRunner, tmp_path: Path) -> None:
    args = [
        "locomo",
        str(locomo(tmp_path)),
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


# -- the bench scripts --------------------------------------------------------------------

WORDS = (
    "cell protein gene tumour immune receptor signal dose trial cohort mouse blood brain "
    "kidney liver insulin vaccine virus bacteria enzyme membrane neuron cancer therapy risk"
).split()


def write_scifact(root: Path, docs: int = 120, queries: int = 30) -> Path:
    """A SciFact-shaped ``scifact/`` folder (corpus.jsonl, queries.jsonl) of plain sentences."""
    folder = root / "scifact"
    folder.mkdir(parents=True)

    def sentence(i: int, j: int) -> str:
        picked = [WORDS[(i * 7 + j * 3 + k * 5) % len(WORDS)] for k in range(8)]
        return f"Study {i} finds that {' '.join(picked)} changes with age in part {j}."

    with (folder / "corpus.jsonl").open("w") as f:
        for i in range(docs):
            text = " ".join(sentence(i, j) for j in range(4))
            f.write(json.dumps({"_id": str(i), "title": f"Paper {i}", "text": text}) + "\n")
    with (folder / "queries.jsonl").open("w") as f:
        for q in range(queries):
            f.write(json.dumps({"_id": str(q), "text": f"does {WORDS[q % len(WORDS)]} matter"}))
            f.write("\n")
    return root


# Runs a bench module as ``python -m`` would, but reading SciFact from the first folder
# given, and caching its sentence vectors in the second rather than bench/out/ in the checkout.
RUN_BENCH = """
import runpy, sys
from pathlib import Path
import bench._common
bench._common.DATA = Path(sys.argv.pop(1))
import bench._synth
bench._synth.CACHE = Path(sys.argv.pop(1)) / "sentences.npz"
runpy.run_module(sys.argv.pop(1), run_name="__main__", alter_sys=True)
"""


@pytest.fixture(scope="module")
def bench_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """bench/out/ for this module: the sentence vectors are embedded once, for all scripts."""
    return tmp_path_factory.mktemp("bench-out")


@pytest.mark.parametrize(
    "argv",
    [
        ["bench.index", "--files", "2", "--rounds", "1", "--no-write"],
        ["bench.write", "--notes", "8", "--no-write"],
        ["bench.search", "--sizes", "2000", "--queries", "10", "--real", "200", "--no-write"],
        [
            "bench.backends",
            "--sizes",
            "2000",
            "--parts",
            "search,recall,hnsw,writes,index",
            "--queries",
            "6",
            "--recall-queries",
            "4",
            "--notes",
            "4",
            "--minilm-notes",
            "2",
            "--files",
            "1",
            "--rounds",
            "1",
            "--real",
            "200",
            "--no-write",
        ],
        ["bench.pg_hnsw", "--sections", "2000", "--real", "200", "--no-write"],
        [
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
def test_bench_scripts_run(argv: list[str], tmp_path: Path, bench_out: Path) -> None:
    data = DATA if DATA is not None else write_scifact(tmp_path / "data")
    proc = subprocess.run(
        [sys.executable, "-c", RUN_BENCH, str(data), str(bench_out), *argv],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "|" in proc.stdout  # printed its table
