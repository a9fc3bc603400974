"""``orgbrain eval``: the pure metrics by hand, then both evals end to end on tiny datasets
written here, with the real embedding model, and the click group through CliRunner."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

import orgbrain.cli.eval as eval_cli
import orgbrain.cli.eval_kit as eval_kit
from orgbrain import Brain
from orgbrain.evals import (
    EvalReport,
    PlanScores,
    index_beir,
    limit_beir,
    load_beir,
    load_locomo,
    mrr_at_k,
    ndcg_at_k,
    parse_evidence,
    parse_session_date,
    percentile,
    recall_at_k,
    render_table,
    run_beir,
    run_locomo,
    score_beir,
)
from orgbrain.ports import Embedder
from orgbrain.retrieve import PLANS
from orgbrain.settings import Settings

SIDE_BY_SIDE = (PLANS["bm25"], PLANS["dense"], PLANS["hybrid"])

# -- metrics, by hand ---------------------------------------------------------------------


def test_ndcg_graded_matches_hand_computation() -> None:
    # DCG = 1/log2(2) + 2/log2(4) = 2; ideal (2, 1) = 2/log2(2) + 1/log2(3)
    expected = 2.0 / (2.0 + 1.0 / math.log2(3))
    assert ndcg_at_k(["a", "b", "c"], {"a": 1, "c": 2}, 3) == pytest.approx(expected)
    assert ndcg_at_k(["c", "a"], {"a": 1, "c": 2}, 10) == pytest.approx(1.0)


def test_ndcg_cuts_at_k_and_ignores_unjudged_and_zero_grades() -> None:
    assert ndcg_at_k(["x", "a"], {"a": 1}, 1) == 0.0
    assert ndcg_at_k(["x", "a"], {"a": 1}, 2) == pytest.approx(1 / math.log2(3))
    assert ndcg_at_k(["a"], {"a": 0}, 10) == 0.0
    # A ranking that repeats an id is not credited twice.
    assert ndcg_at_k(["a", "a"], {"a": 1, "b": 1}, 2) == pytest.approx(1 / (1 + 1 / math.log2(3)))


def test_recall_and_mrr() -> None:
    assert recall_at_k(["a", "x", "b"], {"a", "b", "c"}, 2) == pytest.approx(1 / 3)
    assert recall_at_k(["a", "x", "b"], {"a", "b", "c"}, 3) == pytest.approx(2 / 3)
    assert recall_at_k(["a"], set(), 10) == 0.0
    assert mrr_at_k(["x", "y", "a"], {"a"}, 3) == pytest.approx(1 / 3)
    assert mrr_at_k(["x", "y", "a"], {"a"}, 2) == 0.0
    with pytest.raises(ValueError):
        recall_at_k(["a"], {"a"}, 0)


def test_percentile_interpolates_like_numpy() -> None:
    assert percentile([4.0, 1.0, 3.0, 2.0], 50) == pytest.approx(2.5)
    assert percentile([1.0, 2.0, 3.0, 4.0], 95) == pytest.approx(3.85)
    assert percentile([], 50) == 0.0


def test_evidence_is_parsed_defensively() -> None:
    assert parse_evidence(["D8:6; D9:17"]) == (("D8:6", "D9:17"), 0)
    assert parse_evidence(["D", "D:11:26", "D1:03", "D1:3"]) == (("D1:3",), 2)
    assert parse_evidence(None) == ((), 0)
    assert parse_evidence("D2:1") == (("D2:1",), 0)


def test_session_dates_parse_as_utc() -> None:
    assert parse_session_date("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert parse_session_date("10:04 am on 19  December, 2023") == datetime(
        2023, 12, 19, 10, 4, tzinfo=UTC
    )
    assert parse_session_date("sometime last spring") is None


def test_table_has_one_row_per_plan() -> None:
    report = EvalReport(
        "beir",
        "x",
        (PlanScores("bm25", {"ndcg@10": 0.5, "p_ms": 1.25}), PlanScores("dense", {})),
        ("ndcg@10", "p_ms"),
    )
    lines = render_table(report).splitlines()
    assert lines[0] == "| plan | ndcg@10 | p_ms |"
    assert lines[2] == "| bm25 | 0.500 | 1.2 |"
    assert lines[3] == "| dense | - | - |"


# -- tiny datasets, written here -----------------------------------------------------------

TOPICS = [
    ("Zyxolith crystal growth", "Zyxolith crystals grow in cold brine over many weeks."),
    ("Coffee and sleep", "Caffeine taken late in the day delays sleep onset in adults."),
    ("Exercise and the heart", "Regular aerobic exercise lowers resting heart rate."),
    ("Vitamin D in winter", "Blood vitamin D levels fall in winter at high latitudes."),
    ("Honeybee navigation", "Honeybees use the sun's position to find their way back to the hive."),
    ("Glacier retreat", "Alpine glaciers have lost much of their ice mass since 1900."),
    ("Sourdough fermentation", "Wild yeast and lactic bacteria leaven sourdough bread."),
    ("Octopus camouflage", "Octopuses change skin colour in milliseconds to hide from predators."),
    ("Antibiotic resistance", "Overuse of antibiotics breeds resistant strains of bacteria."),
    ("Volcanic ash and flights", "Volcanic ash clouds damage jet engines and ground aircraft."),
]
QUERIES = {
    "q1": ("zyxolith crystals", {"d0": 2}),
    "q2": ("does drinking coffee in the evening make it harder to fall asleep", {"d1": 1}),
    "q3": ("bacteria that survive antibiotics", {"d8": 2, "d6": 0}),
    "q4": ("how do bees find the hive", {"d4": 1}),
}


def write_beir(root: Path) -> Path:
    root.mkdir()
    (root / "qrels").mkdir()
    docs = [{"_id": f"d{i}", "title": t, "text": x} for i, (t, x) in enumerate(TOPICS)]
    docs += [
        {"_id": f"f{i}", "title": f"Ledger note {i}", "text": f"Quarterly figure {i} was filed."}
        for i in range(20)
    ]
    (root / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    queries = [{"_id": q, "text": text} for q, (text, _) in QUERIES.items()]
    queries.append({"_id": "q-unjudged", "text": "nobody judged this"})
    (root / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    rows = ["query-id\tcorpus-id\tscore"]
    rows += [f"{q}\t{d}\t{g}" for q, (_, rel) in QUERIES.items() for d, g in rel.items()]
    (root / "qrels" / "test.tsv").write_text("\n".join(rows) + "\n")
    return root


def _turn(dia_id: str, speaker: str, text: str, caption: str | None = None) -> dict[str, str]:
    t = {"speaker": speaker, "dia_id": dia_id, "text": text}
    if caption:
        t["blip_caption"] = caption
    return t


def write_locomo(path: Path) -> Path:
    def conv(sample_id: str, a: str, b: str, pet: str, city: str) -> dict[str, object]:
        s1 = [
            _turn("D1:1", a, f"Hi {b}! I just adopted a {pet} named Biscuit."),
            _turn("D1:2", b, "That's lovely, how is it settling in?"),
            _turn("D1:3", a, "Really well, it sleeps on my bed.", caption=f"a {pet} on a bed"),
            _turn("D1:4", b, "I started pottery classes last week."),
            _turn("D1:5", a, "Pottery sounds relaxing."),
        ]
        s2 = [
            _turn("D2:1", b, f"We are moving to {city} next month for my new job."),
            _turn("D2:2", a, f"{city} is beautiful! What will you do there?"),
            _turn("D2:3", b, "I will be teaching chemistry at a high school."),
            _turn("D2:4", a, "I ran my first marathon on Sunday."),
            _turn("D2:5", b, "Congratulations on the marathon!"),
        ]
        qa = [
            {"question": f"What is the name of {a}'s pet?", "evidence": ["D1:1"], "category": 4},
            {"question": f"Where is {b} moving?", "evidence": ["D2:1; D2:3"], "category": 1},
            {"question": f"When did {a} run a marathon?", "evidence": ["D2:4"], "category": 2},
            {"question": f"What class did {b} start?", "evidence": ["D"], "category": 3},
            {"question": f"What did {a} realize after the race?", "evidence": [], "category": 5},
        ]
        return {
            "sample_id": sample_id,
            "conversation": {
                "speaker_a": a,
                "speaker_b": b,
                "session_1_date_time": "1:56 pm on 8 May, 2023",
                "session_1": s1,
                "session_2_date_time": "10:04 am on 19 June, 2023",
                "session_2": s2,
            },
            "qa": qa,
        }

    data = [
        conv("conv-a", "Caroline", "Melanie", "puppy", "Lisbon"),
        conv("conv-b", "Jon", "Gina", "kitten", "Oslo"),
    ]
    path.write_text(json.dumps(data))
    return path


# -- end to end ----------------------------------------------------------------------------


def test_beir_end_to_end(tmp_path: Path, embedder: Embedder) -> None:
    data = load_beir(write_beir(tmp_path / "tiny"), "test")
    assert len(data.corpus) == 30 and list(data.queries) == ["q1", "q2", "q3", "q4"]
    assert len(limit_beir(data, limit_queries=2, limit_docs=3).corpus) == 2 + 3

    out = tmp_path / "rows.jsonl"
    report = run_beir(data, SIDE_BY_SIDE, embedder, out=out)

    assert [s.plan for s in report.plans] == ["bm25", "dense", "hybrid"]
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 4 * 3
    bm25_q1 = next(r for r in rows if r["plan"] == "bm25" and r["query_id"] == "q1")
    assert bm25_q1["ranked"][0] == "d0"
    assert bm25_q1["ndcg@10"] == pytest.approx(1.0)
    for scores in report.plans:
        assert 0.5 <= scores.metrics["ndcg@10"] <= 1.0
        assert scores.metrics["search_p95_ms"] >= scores.metrics["search_p50_ms"] > 0
        assert 0.0 <= scores.metrics["false_silence"] <= 1.0
    assert all(isinstance(r["silent"], bool) for r in rows)
    dense = next(s for s in report.plans if s.plan == "dense").metrics
    assert dense["recall@100"] == pytest.approx(1.0)  # deep and unfloored: everything ranks
    assert report.info["docs"] == 30
    table = render_table(report).splitlines()
    assert len(table) == 2 + 3


def test_locomo_end_to_end(tmp_path: Path, embedder: Embedder) -> None:
    convs = load_locomo(write_locomo(tmp_path / "locomo.json"))
    assert [c.sample_id for c in convs] == ["conv-a", "conv-b"]
    assert convs[0].questions[1].evidence == ("D2:1", "D2:3")
    assert convs[0].skipped == {"evidence_entries_skipped": 1}
    assert convs[0].turns[2].caption == "a puppy on a bed"
    assert convs[0].turns[5].occurred_at == datetime(2023, 6, 19, 10, 4, tzinfo=UTC)

    out = tmp_path / "rows.jsonl"
    report = run_locomo(convs, SIDE_BY_SIDE, embedder, out=out)

    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 2 * 5 * 3
    assert report.info["questions_scored"] == 6  # cat 3's only evidence was malformed
    assert report.info["questions_without_evidence"] == 2
    for scores in report.plans:
        m = scores.metrics
        assert m["recall@10"] == pytest.approx(1.0)  # ten turns per conversation
        assert 0.5 <= m["recall@5"] <= m["recall@10"]
        assert 0.0 <= m["false_silence"] <= 1.0 and 0.0 <= m["cat5_silent"] <= 1.0
        assert "recall@10:open-domain" not in m  # no scorable question: no number, not 0
    pet = next(r for r in rows if r["plan"] == "bm25" and r["category"] == 4)
    assert pet["ranked"][0] == "D1:1"


def test_cli_group_alone(
    tmp_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    def shared(_settings: Settings) -> Embedder:
        return embedder

    monkeypatch.setattr(eval_kit, "embedder_factory", shared)
    folder = write_beir(tmp_path / "tiny")
    out = tmp_path / "cli.jsonl"
    runner = CliRunner()
    result = runner.invoke(
        eval_cli.eval_group,
        ["beir", str(folder), "--plan", "bm25,hybrid", "--limit-docs", "5", "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    table = [line for line in result.stdout.splitlines() if line.startswith("| ")]
    assert [line.split(" | ")[0] for line in table] == ["| plan", "| bm25", "| hybrid"]
    assert f"per-query results: {out}" in result.stdout
    assert len(out.read_text().splitlines()) == 4 * 2

    as_json = runner.invoke(
        eval_cli.eval_group,
        ["locomo", str(write_locomo(tmp_path / "l.json")), "--plan", "bm25", "--json"],
    )
    assert as_json.exit_code == 0, as_json.output
    assert set(json.loads(as_json.stdout)["plans"]) == {"bm25"}

    bad = runner.invoke(eval_cli.eval_group, ["beir", str(folder), "--plan", "bm99"])
    assert bad.exit_code == 2 and "unknown search plan 'bm99'" in bad.output
    missing = runner.invoke(eval_cli.eval_group, ["beir", str(folder), "--split", "dev"])
    assert missing.exit_code != 0


def test_the_eval_opens_its_brain_with_the_environments_keyword_engine(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orgbrain.evals.cache import indexed_brain
    from tests.toy import HashEmbedder

    engines = []
    for engine in ("fts5", "tantivy"):
        monkeypatch.setenv("ORGBRAIN_KEYWORD_ENGINE", engine)
        with indexed_brain(tmp_path, "k", HashEmbedder(), lambda b: None) as (brain, built):
            engines.append(brain.settings.keyword_engine)
        assert built.cached == (engine == "tantivy")  # the index is the same under either
    assert engines == ["fts5", "tantivy"]


def test_a_brain_opened_elsewhere_is_filled_and_scored_as_run_beir_does(
    tmp_path: Path, embedder: Embedder, pg_url: str
) -> None:
    data = load_beir(write_beir(tmp_path / "tiny"), "test")
    bm25 = PLANS["bm25"]
    expected = run_beir(data, [bm25], embedder, out=tmp_path / "rows.jsonl").plans[0].metrics

    with Brain.open(tmp_path / "embedded", embedder=embedder) as brain:
        index_beir(brain, data)
        assert brain.counts()["note"] == len(data.corpus)
        embedded = score_beir(brain, data, bm25, embedder)
    assert embedded.plan == "bm25"
    for column in ("ndcg@10", "recall@10", "recall@100", "mrr@10"):
        assert embedded.metrics[column] == pytest.approx(expected[column])

    settings = Settings(brain=tmp_path / "server")
    with Brain.open(pg_url, embedder=embedder, settings=settings) as brain:
        index_beir(brain, data)
        server = score_beir(brain, data, bm25, embedder)
    # PostgreSQL's BM25 ranks these as the embedded engine does.
    assert server.metrics["ndcg@10"] == pytest.approx(expected["ndcg@10"], abs=0.01)
