"""Fusion, freshness, floors and query terms are pure functions: test them alone."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orgbrain.errors import InvalidInput
from orgbrain.retrieve import PLANS, apply_floors, freshness, get_plan, query_terms, rrf


def test_rrf_votes_by_rank_only() -> None:
    fused = rrf([["a", "b", "c"], ["b", "a"]], k=60)
    assert math.isclose(fused["a"], 1 / 61 + 1 / 62)
    assert math.isclose(fused["b"], 1 / 62 + 1 / 61)
    assert math.isclose(fused["c"], 1 / 63)
    assert list(fused)[-1] == "c"


def test_rrf_hit_in_both_lists_beats_top_of_one() -> None:
    fused = rrf([["only_vec", "both"], ["only_kw", "both"]])
    assert next(iter(fused)) == "both"


def test_rrf_weights_and_duplicates() -> None:
    fused = rrf([["a", "a", "b"], ["b"]], weights=[2.0, 1.0])
    assert math.isclose(fused["a"], 2 / 61)
    assert math.isclose(fused["b"], 2 / 62 + 1 / 61)
    with pytest.raises(ValueError):
        rrf([["a"]], weights=[1.0, 2.0])


@given(st.lists(st.lists(st.sampled_from("abcdefgh"), max_size=8), max_size=6))
def test_rrf_is_sorted_and_bounded(lists: list[list[str]]) -> None:
    fused = rrf(lists)
    values = list(fused.values())
    assert values == sorted(values, reverse=True)
    assert all(0 < v <= len(lists) / 61 + 1e-12 for v in values)
    assert set(fused) == {x for lst in lists for x in lst}


def test_freshness_half_life_and_floor() -> None:
    assert freshness(0) == 1.0
    assert math.isclose(freshness(90), 0.5)
    assert math.isclose(freshness(180), 0.25)
    assert freshness(10_000) == 0.25
    assert freshness(-5) == 1.0
    with pytest.raises(ValueError):
        freshness(1, half_life_days=0)


@given(st.floats(min_value=0, max_value=1e5), st.floats(min_value=0, max_value=1e5))
def test_freshness_monotone(a: float, b: float) -> None:
    lo, hi = sorted((a, b))
    assert 0.25 <= freshness(hi) <= freshness(lo) <= 1.0


def test_floors_absolute_and_relative() -> None:
    quiet = apply_floors([0.019, 0.01], best_fused=0.019, floor_abs=0.02, floor_rel=0.6, k=5)
    assert quiet.keep == 0 and quiet.verdict == "none"
    kept = apply_floors(
        [0.05, 0.04, 0.029, 0.031], best_fused=0.05, floor_abs=0.02, floor_rel=0.6, k=5
    )
    assert kept.keep == 2 and kept.verdict == "many"
    single = apply_floors([0.05, 0.01], best_fused=0.05, floor_abs=0.02, floor_rel=0.6, k=5)
    assert single.keep == 1 and single.verdict == "single"
    capped = apply_floors([0.05] * 10, best_fused=0.05, floor_abs=0.02, floor_rel=0.6, k=8)
    assert capped.keep == 8
    assert apply_floors([], best_fused=0, floor_abs=0.02, floor_rel=0.6, k=5).verdict == "none"


def test_query_terms_drop_small_talk_and_stopwords() -> None:
    assert query_terms("yo") == []
    assert query_terms("thanks!") == []
    assert query_terms("ok") == []
    assert query_terms("Who owns the billing migration?") == ["owns", "billing", "migration"]
    assert query_terms("ACME-1247 acme") == ["acme", "1247"]


def test_plans_are_named_data() -> None:
    assert {"hybrid", "bm25", "dense"} <= set(PLANS)
    assert len(PLANS["hybrid"].streams) == 6
    assert all(s.kind == "keyword" for s in PLANS["bm25"].streams)
    assert all(s.kind == "vector" for s in PLANS["dense"].streams)
    deep = PLANS["hybrid"].with_limits(k_max=100, floors=False)
    assert deep.k_max == 100 and deep.per_stream == 100 and deep.floor_abs == 0
    with pytest.raises(InvalidInput):
        get_plan("nope")
