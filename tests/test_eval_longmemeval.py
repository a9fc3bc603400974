"""``orgbrain eval longmemeval``: a tiny history written here, the real model, session
recall as the LongMemEval paper scores it, and the command through CliRunner."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

import orgbrain.cli.eval as eval_cli
import orgbrain.cli.eval_kit as eval_kit
from orgbrain.errors import InvalidInput
from orgbrain.evals.longmemeval import run_longmemeval, sessions_ranked
from orgbrain.evals.longmemeval_data import load_longmemeval, parse_lme_date
from orgbrain.ports import Embedder
from orgbrain.retrieve import PLANS
from orgbrain.retrieve.terms import query_names
from orgbrain.settings import Settings

FILLER = [
    ("I need a recipe for banana bread.", "Mash three ripe bananas, add flour and bake."),
    ("How do I fix a flat bicycle tyre?", "Find the puncture, patch it and pump it up."),
    ("Suggest a name for a goldfish.", "Bubbles, Finn or Goldie are popular choices."),
    ("What is a good stretch for the back?", "Try the cat-cow stretch each morning."),
]


def _session(user: str, assistant: str, answer: bool = False) -> list[dict[str, object]]:
    return [
        {"role": "user", "content": user, "has_answer": answer},
        {"role": "assistant", "content": assistant},
    ]


def write_lme(path: Path) -> Path:
    def question(qid: str, qtype: str, text: str, answers: list[str]) -> dict[str, object]:
        sessions = [_session(u, a) for u, a in FILLER]
        ids = [f"{qid}_f{n}" for n in range(len(FILLER))]
        sessions += [
            _session("My sister Rachel got engaged in March.", "Congratulations to her!", True),
            _session("Our wedding anniversary is in May.", "Lovely, any plans?", True),
        ]
        ids += [f"answer_{qid}_1", f"answer_{qid}_2"]
        return {
            "question_id": qid,
            "question_type": qtype,
            "question": text,
            "question_date": "2023/07/07 (Fri) 13:04",
            "answer": "2",
            "answer_session_ids": answers,
            "haystack_session_ids": ids,
            "haystack_dates": [f"2023/0{n + 1}/01 (Sun) 10:00" for n in range(len(ids))],
            "haystack_sessions": sessions,
        }

    data = [
        question(
            "q1",
            "temporal-reasoning",
            "How many months before my anniversary did Rachel get engaged?",
            ["answer_q1_1", "answer_q1_2"],
        ),
        question("q2", "single-session-user", "What name did I pick for my goldfish?", []),
        question("q3_abs", "multi-session", "When did my brother buy his first car?", []),
    ]
    path.write_text(json.dumps(data))
    return path


def test_dates_and_sessions_ranked_by_their_best_turn() -> None:
    assert parse_lme_date("2023/05/20 (Sat) 02:21") == datetime(2023, 5, 20, 2, 21, tzinfo=UTC)
    assert parse_lme_date("not a date") is None
    keys = ["lme:q:s2:0", "lme:q:s1:3", "lme:q:s2:1", "other:x", "lme:q:s3:0"]
    assert sessions_ranked(keys, "lme:q:") == ["s2", "s1", "s3"]


def test_bad_files_are_clear_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"question_id": "x"}]))
    with pytest.raises(InvalidInput, match="lacks"):
        load_longmemeval(bad)
    bad.write_text("{")
    with pytest.raises(InvalidInput, match="not LongMemEval JSON"):
        load_longmemeval(bad)


def test_a_session_repeated_in_a_history_is_kept_once(tmp_path: Path) -> None:
    path = write_lme(tmp_path / "lme.json")
    data = json.loads(path.read_text())
    q = data[0]
    q["haystack_session_ids"].append(q["haystack_session_ids"][0])
    q["haystack_dates"].append("2023/09/01 (Fri) 10:00")
    q["haystack_sessions"].append(q["haystack_sessions"][0])
    path.write_text(json.dumps(data))
    first = load_longmemeval(path)[0]
    assert first.repeated == 1 and len(first.sessions) == 6
    assert first.sessions[0].date_text.startswith("2023/01/01")  # the first one is kept


def test_longmemeval_end_to_end(tmp_path: Path, embedder: Embedder) -> None:
    questions = load_longmemeval(write_lme(tmp_path / "lme.json"))
    assert [q.abstention for q in questions] == [False, False, True]
    assert questions[0].sessions[0].occurred_at == datetime(2023, 1, 1, 10, tzinfo=UTC)
    out = tmp_path / "rows.jsonl"
    report = run_longmemeval(questions, (PLANS["bm25"], PLANS["hybrid"]), embedder, out=out)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 3 * 2
    for scores in report.plans:
        m = scores.metrics
        # q1 alone is scored (q2 names no answer session; q3 abstains): its two answer
        # sessions are the only ones that speak of Rachel and an anniversary.
        assert m["recall_any@5"] == 1.0 and m["recall_all@5"] == 1.0
        assert m["recall_all@5:temporal-reasoning"] == 1.0
        assert "recall_all@5:multi-session" not in m  # only an abstention: no number
        assert 0.0 <= m["false_silence"] <= 1.0 and 0.0 <= m["abs_silent"] <= 1.0
    q1 = next(r for r in rows if r["plan"] == "hybrid" and r["question_id"] == "q1")
    assert set(q1["ranked"][:2]) == {"answer_q1_1", "answer_q1_2"}
    assert report.info["questions_abstention"] == 1
    assert report.info["questions_without_answer_sessions"] == 1


def test_the_command(tmp_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch) -> None:
    def shared(_settings: Settings) -> Embedder:
        return embedder

    monkeypatch.setattr(eval_kit, "embedder_factory", shared)
    path = write_lme(tmp_path / "lme.json")
    result = CliRunner().invoke(
        eval_cli.eval_group,
        ["longmemeval", str(path), "--plan", "bm25", "--limit-questions", "1", "--json"],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["info"]["questions"] == 1
    assert report["plans"]["bm25"]["recall_all@10"] == 1.0


@pytest.mark.parametrize("name", ["tuned-z-strict", "tuned-z"])
def test_the_rows_replay_the_verdict_exactly(tmp_path: Path, embedder: Embedder, name: str) -> None:
    """Each row keeps the gate's view of its first hits; replaying the plan's own gate
    over the rows (bench/verdict_curve.py) gives the eval's silence."""
    from bench.verdict_curve import load_rows, silences

    questions = load_longmemeval(write_lme(tmp_path / "lme.json"))
    out = tmp_path / "rows.jsonl"
    plan = PLANS[name]
    report = run_longmemeval(questions, (plan,), embedder, out=out)
    rows = load_rows(out, plan.name)
    assert len(rows) == 3 and all(len(r.evidence) <= 5 for r in rows)
    # The query's name count travels with each hit (the one-of-several-names rule).
    asked = [len(query_names(q.question)) for q in questions]
    assert [r.evidence[0].names_asked for r in rows if r.evidence] == [
        n for n, r in zip(asked, rows, strict=True) if r.evidence
    ]
    assert plan.gate is not None
    false_silence, quiet = silences(rows, plan.gate)
    m = report.plans[0].metrics
    assert false_silence == m["false_silence"] and quiet == m["abs_silent"]
