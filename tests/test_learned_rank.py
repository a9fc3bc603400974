"""The learned ranker: its features and model alone, then as a stage of a real search."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from orgbrain.brain import Brain, NoteInput
from orgbrain.model import Item, Origin
from orgbrain.retrieve import get_plan
from orgbrain.retrieve.evidence import hit_evidence
from orgbrain.retrieve.learned import FEATURES, LinearRanker, Signals, features, reorder
from orgbrain.retrieve.learned_model import LEARNED
from orgbrain.retrieve.query import Query

N = len(FEATURES)

AT = datetime(2026, 12, 5, tzinfo=UTC)
"""When the queries of these tests are read (none names a time)."""


def _signals(score: float, **kw: object) -> Signals:
    base: dict[str, object] = {
        "score": score,
        "ranks": {},
        "cosine": None,
        "keyword": None,
        "coverage": 0.0,
        "names": True,
        "mentions": True,
        "asks": False,
        "support": False,
        "boost": 0.0,
        "fresh": 1.0,
        "group": None,
        "body_chars": 0,
        "label_chars": 0,
    }
    base.update(kw)
    return Signals(**base)  # type: ignore[arg-type]


def _ranker(**weights: float) -> LinearRanker:
    w = tuple(weights.get(name, 0.0) for name in FEATURES)
    return LinearRanker("test", w, (0.0,) * N, (1.0,) * N, depth=10)


def _col(rows: list[list[float]], name: str) -> list[float]:
    return [r[FEATURES.index(name)] for r in rows]


def test_features_are_shares_of_the_lists_best() -> None:
    head = [
        _signals(0.04, ranks={"vector:note": 1, "keyword:note": 3}, cosine=0.6, keyword=8.0),
        _signals(0.02, ranks={"vector:section": 2}, cosine=0.45, boost=0.005),
        _signals(0.01, ranks={"graph": 1}, names=False, coverage=0.5),
    ]
    rows = features(head, best_keyword=10.0)
    assert all(len(r) == N for r in rows)
    assert _col(rows, "score_share") == [1.0, 0.5, 0.25]
    assert _col(rows, "position") == [1.0, 0.5, 1 / 3]
    assert _col(rows, "vector_rank") == [1.0, 10 / 11, 0.0]
    assert _col(rows, "keyword_rank") == [10 / 12, 0.0, 0.0]
    assert _col(rows, "both_kinds") == [1.0, 0.0, 0.0]
    assert _col(rows, "keyword_share") == [0.8, 0.0, 0.0]
    gaps = _col(rows, "cosine_gap")
    assert gaps[0] == 0.0 and math.isclose(gaps[1], -0.15) and gaps[2] == -1.0
    assert _col(rows, "graph") == [0.0, 0.0, 1.0]
    assert _col(rows, "names") == [1.0, 1.0, 0.0]
    assert _col(rows, "coverage") == [0.0, 0.0, 0.5]
    assert _col(rows, "neighbour") == [0.0, 0.125, 0.0]
    assert features([], best_keyword=None) == []


def test_a_candidate_sees_the_best_other_of_its_run() -> None:
    head = [
        _signals(0.04, group="s1"),
        _signals(0.03, group="s2"),
        _signals(0.02, group="s1"),
        _signals(0.01),
    ]
    rows = features(head, best_keyword=None)
    assert _col(rows, "run_best") == [0.5, 0.0, 1.0, 0.0]
    assert _col(rows, "run_count") == [math.log(2), 0.0, math.log(2), 0.0]


def test_a_run_of_equal_scores_sees_its_equal_as_the_best_other() -> None:
    head = [
        _signals(0.04, group="s1"),
        _signals(0.04, group="s1"),
        _signals(0.02, group="s1"),
        _signals(0.01, group="s2"),
    ]
    rows = features(head, best_keyword=None)
    assert _col(rows, "run_best") == [1.0, 1.0, 1.0, 0.0]
    assert _col(rows, "run_count") == [math.log1p(2)] * 3 + [0.0]


def test_the_ranker_orders_by_its_score_and_keeps_ties_in_place() -> None:
    rows = [[0.0] * N for _ in range(3)]
    assert reorder(_ranker(), rows) == [0, 1, 2]
    rows[2][FEATURES.index("coverage")] = 1.0
    assert reorder(_ranker(coverage=2.0), rows) == [2, 0, 1]
    assert reorder(_ranker(coverage=-2.0), rows) == [0, 1, 2]


def test_a_ranker_needs_one_weight_per_feature() -> None:
    with pytest.raises(ValueError):
        LinearRanker("bad", (1.0,), (0.0,), (1.0,))
    with pytest.raises(ValueError):
        LinearRanker("bad", (0.0,) * N, (0.0,) * N, (1.0,) * N, depth=0)


def test_the_stage_reorders_a_real_search(brain: Brain) -> None:
    brain.add_notes(
        [
            NoteInput(body="Deploys go out on Tuesdays after the standup.", source_key="a"),
            NoteInput(body="The deploy freeze starts on December 20 for billing.", source_key="b"),
            NoteInput(body="Billing runs its invoices on the first of the month.", source_key="c"),
            NoteInput(body="Lunch is at noon on Fridays.", source_key="d"),
        ]
    )
    query = "when does the deploy freeze for billing start?"
    base = replace(get_plan("tuned-z").with_limits(k_max=10, floors=False))
    plain = [h.item.source_key for h in brain.search(query, k=10, plan=base).hits]
    # A ranker that holds nothing still reads every feature, and changes nothing.
    still = replace(base, learned=_ranker())
    result, trace = brain.search_traced(query, k=10, plan=still)
    assert [h.item.source_key for h in result.hits] == plain
    assert len(trace.head) == len(plain)
    assert all(len(row) == N for _, row in trace.head)
    # One that puts the shortest body first moves the lunch note to the top, and the
    # scores stay in descending order (the floors keep their meaning).
    short = replace(base, learned=_ranker(body_chars=-5.0))
    moved = brain.search(query, k=10, plan=short)
    assert moved.hits[0].item.source_key == "d"
    assert plain[0] != "d"
    scores = [h.score for h in moved.hits]
    assert scores == sorted(scores, reverse=True)
    assert "learned" in moved.timings_ms


def test_the_shipped_ranker_puts_a_turn_that_answers_above_one_that_asks(brain: Brain) -> None:
    # Two turns share the question's words; the one that only asks comes first by the
    # fused score (it echoes the question), the one that states the answer second.
    turns = [
        "Caroline: What did Melanie paint last weekend at the lake? Did Melanie paint?",
        "Melanie: I painted the sunrise over the lake last weekend, all in orange.",
        "Caroline: The support group meets on Tuesdays downtown.",
        "Melanie: My kids loved the camping trip in the mountains.",
    ]
    brain.add_notes(
        [
            NoteInput(body=t, kind="turn", source_key=f"t{n}", run_id=f"s{n}")
            for n, t in enumerate(turns)
        ]
    )
    query = "What did Melanie paint last weekend at the lake?"
    # The default carries the shipped ranker; ``tuned-z-fused`` is the default without it.
    plan = get_plan("tuned-z-fused")
    assert get_plan("tuned-z") == replace(plan, name="tuned-z", learned=LEARNED)
    deep = plan.with_limits(k_max=10, floors=False)
    fused = [h.item.source_key for h in brain.search(query, k=10, plan=deep).hits]
    learned = get_plan("tuned-z").with_limits(k_max=10, floors=False)
    ranked = [h.item.source_key for h in brain.search(query, k=10, plan=learned).hits]
    assert fused.index("t0") < fused.index("t1")
    assert ranked[0] == "t1"
    assert sorted(ranked) == sorted(fused)


def test_a_ranker_reads_only_the_features_it_weighs() -> None:
    assert _ranker(asks=-1.0, score_share=2.0).reads == {"asks", "score_share"}
    assert _ranker().reads == frozenset()
    everything = replace(_ranker(), every_feature=True)
    assert everything.reads == frozenset(FEATURES)
    assert {"score_share", "names", "asks"} <= LEARNED.reads
    assert len(LEARNED.reads) < N


def test_evidence_reads_only_what_is_asked_of_it() -> None:
    origin = Origin("test", "test", datetime(2024, 1, 1, tzinfo=UTC))
    body = "Caroline: What did Melanie paint at the lake?"
    turn = Item("it1", "ws", "turn", "note", "", body, "k", True, "org", origin)
    query = "What did Melanie paint at the lake?"
    full = hit_evidence(Query(query, AT), [turn], {})[0]
    assert full.asks and full.names and full.coverage > 0
    only = hit_evidence(Query(query, AT), [turn], {}, reads=frozenset({"asks"}))
    assert only[0].asks and only[0].coverage == 0.0 and only[0].names and only[0].mentions
