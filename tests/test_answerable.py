"""The answerability judge (``retrieve/answerable.py``): its signals, its fit
(``evals/answer_fit.py``) on hand-made data, and the verdict it gives a search when
``ORGBRAIN_VERDICT=judge``, with its reason in words."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest

from orgbrain import Brain
from orgbrain.errors import InvalidInput
from orgbrain.evals import answer_data
from orgbrain.evals.answer_fit import Example, examples_of, fit, leave_one_out, measure
from orgbrain.evals.memo import QueryMemo
from orgbrain.model import ItemSketch
from orgbrain.ports import Embedder, TokenEmbedder
from orgbrain.retrieve.answer_verdict import judge_membership
from orgbrain.retrieve.answerable import (
    FEATURES,
    OWN,
    AnswerWeights,
    asked_type,
    features,
    held_types,
    judge,
    passage_lines,
)
from orgbrain.retrieve.grounds import Grounds, grounds_of, plain_reason
from orgbrain.retrieve.plan import Gate
from orgbrain.retrieve.query import Query
from orgbrain.retrieve.verdict import HitEvidence
from orgbrain.settings import Settings

TYPE = FEATURES.index("type_missing")
MAXSIM = FEATURES.index("maxsim")


def test_the_question_says_the_kind_of_value_it_asks_for() -> None:
    assert asked_type("Who owns billing?") == "person"
    assert asked_type("Caroline, who did you meet?") == "person"
    assert asked_type("Which team runs payroll?") == "person"
    assert asked_type("When is the deploy freeze?") == "time"
    assert asked_type("What time is stand-up?") == "time"
    assert asked_type("How many seats do we pay for?") == "number"
    assert asked_type("What database does the ledger use?") is None


def test_a_passage_holds_the_kinds_of_value_it_says() -> None:
    assert held_types("Priya owns the data pipeline.") == {"person"}
    assert "time" in held_types("The freeze starts on 2026-12-18.")
    assert "time" in held_types("We moved it last week.")
    assert held_types("The budget is forty thousand.") == {"number"}
    assert held_types("the payments service deploys nightly") == frozenset()


def test_a_passage_is_read_line_by_line() -> None:
    lines = passage_lines("# Payments\n\n- Owner: Marco\n- Deploys: GitHub Actions\n")
    assert "Owner: Marco" in lines and "Deploys: GitHub Actions" in lines


def _signals(embedder: TokenEmbedder, question: str, passage: str) -> dict[str, float]:
    lines = passage_lines(passage)
    query, *read = embedder.embed_tokens([question, *lines])
    x = features(question, query, passage, read, HitEvidence(True, 0.5, 0.5))
    return dict(zip(OWN, x, strict=True))


def test_token_vectors_give_the_sentence_vector_and_match_the_answering_line(
    embedder: Embedder,
) -> None:
    assert isinstance(embedder, TokenEmbedder)
    (read,) = embedder.embed_tokens(["Priya owns billing."])
    assert read.pieces == ("pri", "##ya", "owns", "billing", ".")
    assert read.tokens.shape == (5, embedder.dim)
    assert float(read.sentence @ embedder.embed(["Priya owns billing."])[0]) > 0.9999
    answers = _signals(embedder, "Who owns billing?", "Priya owns billing.")
    near = _signals(embedder, "Who owns billing?", "Billing moved to a new invoice template.")
    assert answers["maxsim"] > near["maxsim"] and answers["line_cos"] > near["line_cos"]
    assert answers["type_missing"] == 0.0 and near["type_missing"] == 1.0
    # A long note that says it in one line is not diluted by the rest.
    long_note = "Quarterly notes.\n\n" + "The office moved floors.\n" * 6 + "Priya owns billing.\n"
    assert _signals(embedder, "Who owns billing?", long_note)["line_cos"] > 0.6


def _example(group: str, answerable: bool, rows: list[list[float]], answers: list[bool]) -> Example:
    return Example("hand", group, answerable, True, np.array(rows), np.array(answers))


def _row(maxsim: float, type_missing: float) -> list[float]:
    x = [0.5] * len(FEATURES)
    x[MAXSIM], x[TYPE] = maxsim, type_missing
    return x


def _hand_data() -> list[Example]:
    """Near passages (as close by words) that lack the kind of value asked for, and
    passages that hold it: only the asked type tells them apart."""
    out = []
    for g in range(6):
        for i in range(10):
            close = 0.6 + 0.03 * i
            out.append(_example(f"g{g}", True, [_row(close, 0.0), _row(close, 1.0)], [True, False]))
            out.append(
                _example(f"g{g}", False, [_row(close, 1.0), _row(close - 0.1, 1.0)], [False, False])
            )
    return out


def test_the_fit_learns_the_asked_type_and_keeps_false_silence() -> None:
    examples = _hand_data()
    w = fit(examples, max_silence=0.0)
    assert w.weights["type_missing"] < -1.0
    outcome = measure(examples, w)["hand"]
    assert outcome.silent == 0 and outcome.spoke == 0
    # Leave one group out: every group measured by weights fitted on the others.
    held = leave_one_out(examples, max_silence=0.0)["hand"]
    assert held.answerable == 60 and held.silent == 0 and held.spoke == 0


def test_the_judge_speaks_on_its_best_candidate() -> None:
    w = AnswerWeights(-2.0, {f: (4.0 if f == "maxsim" else 0.0) for f in FEATURES}, 0.5)
    spoken = judge([_row(0.2, 0.0), _row(0.9, 0.0)], w)
    assert spoken.speak and spoken.best == 1
    silent = judge([_row(0.2, 0.0)], w)
    assert not silent.speak and silent.signals["maxsim"] == 0.2


def test_the_verdict_setting_is_checked() -> None:
    assert Settings.from_env({"ORGBRAIN_VERDICT": "judge"}).verdict == "judge"
    assert Settings.from_env({}).verdict == "gate"
    with pytest.raises(InvalidInput, match="ORGBRAIN_VERDICT"):
        Settings.from_env({"ORGBRAIN_VERDICT": "llm"})


def test_the_judges_silence_says_what_the_closest_note_lacks() -> None:
    near = Grounds("unanswered", "Payments deploys", shared=("payments",), lacks="person")
    assert plain_reason(near, "none") == (
        'Close but not an answer: the closest note, "Payments deploys", is about '
        "'payments' but holds no person"
    )
    answered = Grounds("answers", "Payments owner", shared=("payments", "owns"))
    assert plain_reason(answered, "single") == (
        "Answers: \"Payments owner\" says what was asked, with 'payments' and 'owns'"
    )


def _only_the_asked_type(threshold: float = 0.5) -> AnswerWeights:
    """Weights that read nothing but whether the asked kind of value is missing."""
    weights = {f: 0.0 for f in FEATURES} | {"type_missing": -8.0}
    return AnswerWeights(4.0, weights, threshold)


def test_the_judge_is_silent_on_a_near_note_and_says_what_it_lacks(
    brain: Brain, embedder: Embedder
) -> None:
    assert isinstance(embedder, TokenEmbedder)
    near = ItemSketch.of(brain.add_note("The payments service deploys every night."))
    owner = ItemSketch.of(brain.add_note("Priya owns the payments service."))
    evidence = [HitEvidence(True, 1.0, 0.6)]
    question = "Who owns the payments service?"
    gate = Gate(depth=5)
    silent = judge_membership(embedder, question, [near], evidence, gate, _only_the_asked_type())
    assert not silent.speak and silent.rule == "unanswered"
    assert (
        silent.reason.startswith("judge: no hit answers") and "type_missing 1.00" in silent.reason
    )
    read = [(near, None)]
    asked = Query(question, datetime(2026, 12, 7, tzinfo=UTC))
    grounds = grounds_of(asked, read, evidence, silent, spoke=False, gate=gate)
    why = plain_reason(grounds, "none")
    assert why == (
        'Close but not an answer: the closest note, "The payments service deploys every night.", '
        "is about 'payments' and 'service' but holds no person"
    )
    spoken = judge_membership(
        embedder, question, [near, owner], evidence * 2, gate, _only_the_asked_type()
    )
    assert spoken.speak and spoken.hit == 1 and spoken.rule == "answers"


def test_the_verdict_setting_puts_the_judge_in_the_search(
    tmp_path: Path, embedder: Embedder
) -> None:
    for verdict, said in (("gate", "gate: hit 1 matches"), ("judge", "judge: hit 1 answers")):
        settings = Settings(verdict=verdict)
        with Brain.open(tmp_path / verdict, embedder=embedder, settings=settings) as brain:
            brain.add_note("Priya owns the data pipeline.")
            brain.add_note("The design review happens on Thursdays.")
            result = brain.search("Who owns the data pipeline?")
            assert result.hits and said in result.reason, result.reason
            assert result.why.startswith('Answers: "Priya owns the data pipeline."')


def test_an_evals_embedder_gives_the_judge_its_token_vectors(embedder: Embedder) -> None:
    # The evals search through QueryMemo: without token vectors there, the judge would
    # silently give way to the gate and an eval would measure the gate twice.
    memo = QueryMemo(embedder)
    assert isinstance(memo, TokenEmbedder)
    (read,) = memo.embed_tokens(["Priya owns billing."])
    assert read.pieces == ("pri", "##ya", "owns", "billing", ".")


def test_the_collector_records_what_the_verdict_read_and_which_answers(
    tmp_path: Path, embedder: Embedder
) -> None:
    cases = tmp_path / "living_org.jsonl"
    cases.write_text(
        '{"id": "a", "notes": [{"at": "2026-01-05", "text": "Priya owns billing."}, '
        '{"at": "2026-03-02", "text": "Marco owns billing now; Priya moved to data."}], '
        '"question": "who owns billing?", "current": 1, "replaced": 0}\n'
        '{"id": "b", "notes": [{"at": "2026-01-05", "text": "The wiki runs on Confluence."}, '
        '{"at": "2026-04-01", "text": "The wiki moved from Confluence to Notion."}], '
        '"question": "what does the wiki run on?", "current": 1, "replaced": 0}\n'
    )
    rows = list(answer_data.living([cases], embedder, tmp_path / "brains"))
    assert [(r.group, r.question, r.answerable) for r in rows] == [
        ("org", "who owns billing?", True),
        ("org", "what does the wiki run on?", False),
        ("org", "who owns billing?", False),
        ("org", "what does the wiki run on?", True),
    ]
    for r in rows:
        # The current note answers where it is held; nothing does in the other half.
        assert sum(c.answers for c in r.candidates) == int(r.answerable)
        assert all(len(c.gate) == 8 for c in r.candidates)
    assert any("Marco owns billing now" in c.text for c in rows[0].candidates if c.answers)
    # What is collected today is what the fit reads (the gate's eighth field, the hit's
    # language, once made the fit's unpacking fail on fresh rows).
    examples = examples_of(rows, QueryMemo(embedder))
    assert [e.answerable for e in examples] == [True, False, False, True]
