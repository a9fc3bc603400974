"""Fusion, freshness, floors and query terms are pure functions: test them alone."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orgbrain.analysis import stem, text_stems, topic_words
from orgbrain.errors import InvalidInput
from orgbrain.model import Item, ItemSketch, Origin
from orgbrain.retrieve import (
    PLANS,
    Gate,
    apply_floors,
    freshness,
    get_plan,
    membership,
    query_terms,
    rrf,
)
from orgbrain.retrieve.evidence import hit_evidence, only_asks, spoken_to, without_vocatives
from orgbrain.retrieve.freshness import NEWER, by_topic
from orgbrain.retrieve.fuse import convex
from orgbrain.retrieve.query import Query
from orgbrain.retrieve.terms import (
    asked_names,
    content_terms,
    coverage,
    holds_any,
    is_code,
    query_names,
)

AT = datetime(2026, 12, 5, tzinfo=UTC)
"""When the queries of these tests are read (none names a time)."""


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


NOW = datetime(2026, 12, 6, tzinfo=UTC)


def test_by_topic_sinks_a_candidate_only_below_newer_ones_on_its_topic() -> None:
    # today's note, and two older notes on one topic (1 and 2) that it is not about
    fresh = [1.0, 0.8, 0.6]
    written = [NOW, NOW - timedelta(days=80), NOW - timedelta(days=200)]
    pairs = {frozenset((1, 2))}
    out = by_topic(fresh, written, lambda i, j: frozenset((i, j)) in pairs)
    assert out[0] == 1.0 and out[1] == 1.0  # the newest on each topic stands as fresh
    assert math.isclose(out[2], 0.6 / 0.8)  # below its topic's newest, as plain freshness
    # one topic for all: plain freshness
    assert by_topic(fresh, written, lambda i, j: True) == fresh


def test_by_topic_compares_nothing_written_within_a_day() -> None:
    def never(i: int, j: int) -> bool:
        raise AssertionError("compared")

    # half a day older is not older: as fresh as the freshest
    assert by_topic([1.0, 0.999], [NOW, NOW - NEWER / 2], never) == [1.0, 1.0]
    assert by_topic([0.25, 0.25], [NOW, NOW - timedelta(days=900)], never) == [0.25, 0.25]
    assert by_topic([], [], never) == []


def test_by_topic_gives_the_topics_newest_exactly_the_freshest() -> None:
    """Two candidates alone on their topics are exactly as fresh (``0.1 * 0.7 / 0.1`` is
    not 0.7): equal votes then tie, and keep the fused order (``rrf``: first seen), not
    an order of float noise that changed from run to run."""
    written = [NOW, NOW - timedelta(days=30), NOW - timedelta(days=300)]
    out = by_topic([0.7, 0.1, 0.1], written, lambda i, j: False)
    assert out == [0.7, 0.7, 0.7]


@given(
    st.lists(st.tuples(st.integers(min_value=0, max_value=2000), st.integers(0, 3)), max_size=12)
)
def test_by_topic_lifts_within_plain_freshness_bounds(rows: list[tuple[int, int]]) -> None:
    fresh = [freshness(age, half_life_days=365) for age, _ in rows]
    written = [NOW - timedelta(days=age) for age, _ in rows]
    out = by_topic(fresh, written, lambda i, j: rows[i][1] == rows[j][1])
    top = max(fresh, default=1.0)
    assert all(f - 1e-12 <= o <= top + 1e-12 for f, o in zip(fresh, out, strict=True))
    for i, j in ((i, j) for i in range(len(rows)) for j in range(len(rows))):
        if rows[i][1] == rows[j][1] and fresh[i] >= fresh[j]:
            assert out[i] >= out[j] - 1e-12  # on one topic, the order is plain freshness'


def test_topic_words_are_the_stems_that_carry_meaning() -> None:
    assert topic_words("Release notes are written by the PM of each team.") == {
        "releas",
        "not",
        "written",
        "team",
    }
    assert topic_words("We use it for them.") == frozenset()
    assert topic_words("not the notes") == {"not"}  # "not" goes as a word, "notes" stays


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


def test_unfloored_limits_drop_the_gate_too() -> None:
    """A verdict is not a ranking: with floors off, the membership gate is off as well."""
    gated = next(p for p in PLANS.values() if p.gate is not None)
    deep = gated.with_limits(k_max=100, floors=False)
    assert deep.gate is None and deep.floor_abs == 0 and deep.floor_rel == 0
    assert deep.streams == gated.streams and deep.fusion == gated.fusion
    shipped = gated.with_limits(k_max=100, floors=True)
    assert shipped.gate == gated.gate and shipped.floor_abs == gated.floor_abs


def test_convex_minmax_scores_in_rrf_units() -> None:
    kw = [("a", 10.0), ("b", 5.0), ("c", 0.0)]
    vec = [("b", 0.9), ("a", 0.5), ("d", 0.1)]
    shares = {"keyword": 0.5, "vector": 0.5}
    fused = convex([kw, vec], ["keyword", "vector"], shares, k=60, min_crowd=1)
    # a: 0.5 * 1 + 0.5 * 0.5; b: 0.5 * 0.5 + 0.5 * 1; scaled so that 1 + 1 = 2 / 61.
    assert fused["a"] == pytest.approx(0.75 * 2 / 61)
    assert fused["b"] == pytest.approx(0.75 * 2 / 61)
    assert fused["c"] == 0.0 and fused["d"] == 0.0
    top_both = convex([[("x", 3.0)], [("x", 0.2)]], ["keyword", "vector"], {"keyword": 1.0})
    assert top_both["x"] == pytest.approx(2 / 61)


def test_convex_counts_a_kind_without_a_crowd_by_rank() -> None:
    # Two rows would normalise to 1 and 0 however close their scores: a near tie must
    # stay a near tie (a fresher copy of a fact can still outrank an older one).
    kw = [("old", 2.01), ("new", 2.00)]
    vec = [("old", 0.81), ("new", 0.80)]
    shares = {"keyword": 0.5, "vector": 0.5}
    for normalise in ("minmax", "zscore"):
        fused = convex([kw, vec], ["keyword", "vector"], shares, normalise=normalise)  # type: ignore[arg-type]
        assert fused["old"] == pytest.approx(2 / 61)
        assert fused["new"] == pytest.approx(2 / 61 * 61 / 62)
        spread = convex(
            [kw, vec],
            ["keyword", "vector"],
            shares,
            normalise=normalise,
            min_crowd=1,  # type: ignore[arg-type]
        )
        assert spread["new"] == 0.0


def test_convex_zscore_lets_an_outlier_outweigh_a_bunched_kind() -> None:
    # The keyword list has one hit far ahead of a crowd; the vector list is bunched.
    kw = [("kw-top", 30.0)] + [(f"n{i}", 2.0 + 0.01 * i) for i in range(20)]
    vec = [("vec-top", 0.60), ("kw-top", 0.59)] + [(f"n{i}", 0.58 - 0.001 * i) for i in range(20)]
    shares = {"keyword": 0.5, "vector": 0.5}
    minmax = convex([kw, vec], ["keyword", "vector"], shares)
    zscore = convex([kw, vec], ["keyword", "vector"], shares, normalise="zscore")
    assert next(iter(minmax)) == next(iter(zscore)) == "kw-top"
    # Under z-score a bunched kind's best row is many deviations out: vec-top gains on n0.
    assert zscore["vec-top"] / zscore["n0"] > minmax["vec-top"] / minmax["n0"]
    # Same units: a hit holding both kinds' best rows scores 2 / (k + 1) under either.
    both = [[("x", 5.0), ("y", 1.0), ("z", 0.0)], [("x", 0.9), ("y", 0.5), ("z", 0.4)]]
    assert convex(both, ["keyword", "vector"], shares, normalise="zscore", min_crowd=1)[
        "x"
    ] == pytest.approx(2 / 61)


def test_convex_one_populated_kind_stays_under_two_agreeing() -> None:
    for normalise in ("minmax", "zscore"):
        alone = convex(
            [[("a", 4.0), ("b", 1.0)], []],
            ["keyword", "vector"],
            {"keyword": 0.5, "vector": 0.5},
            normalise=normalise,  # type: ignore[arg-type]
            min_crowd=1,
        )
        assert alone["a"] == pytest.approx(1 / 61)
    assert convex([[], []], ["keyword", "vector"], {"keyword": 0.5}) == {}


def test_query_names_are_names_not_codes() -> None:
    assert query_names("What did Caroline's sister paint in May?") == ["caroline"]
    assert query_names("Did Melanie meet Jon?") == ["melanie", "jon"]
    # Acronyms and codes are ordinary terms: text spells them in too many ways.
    claim = "Cellular clocks predict mitosis timing in NIH 3T3 cells with UK PrP and 4-PBA."
    assert query_names(claim) == []
    assert {"nih", "3t3", "uk", "prp", "pba"} <= set(content_terms(query_terms(claim), []))
    assert query_names("Treatment with BMP4 and Galectin helps") == ["galectin"]
    assert is_code("G94P") and is_code("KRAS") and is_code("PrP") and not is_code("Caroline")


def test_the_pronoun_and_the_calendar_are_no_names() -> None:
    # "I" is capitalised wherever it stands, contracted too; a month may be cut short.
    said = "It's Saturday and I'm not sure a filing went through. I'd call docketing?"
    assert query_names(said) == []
    assert query_names("Group arriving 20 Sept, when do we need the names?") == []
    assert query_names("It's late, I've got a collapsed spaniel at Millgate.") == ["millgate"]
    # a three-letter cut is a name too ("Jan"), English's "May" is not
    assert query_names("Did Jan move in May?") == ["jan"]


def test_a_scene_setting_clause_names_no_one_a_hit_must_name() -> None:
    # The names before ", where/am I/who ...?" set the scene; the clause after asks.
    swap = "I'm swapping my on-call shift with Tom next week, where do I set that up?"
    assert query_names(swap) == ["tom"] and asked_names(swap) == []
    flight = "flying Berlin to San Francisco next month (about 11h), am I allowed to book business?"
    assert query_names(flight) == ["berlin", "san", "francisco"] and asked_names(flight) == []
    renewal = "our Figma subscription renews next month, who do I send the quote to?"
    assert asked_names(renewal) == []
    # A dash between spaces sets the scene as a comma does; a hyphen in a word does not.
    york = "We've had a reportable incident on the York job - which safety advisor do I phone?"
    assert query_names(york) == ["york"] and asked_names(york) == []
    assert asked_names("I'm at Wrexham \u2014 can I get a hot meal at 1am?") == []
    assert asked_names("Is Kestrel-how we named it-still live?") == ["kestrel"]
    # A name in the asking clause stays required, and so does every name of a question
    # that has no such clause (or whose comma is not followed by the asking clause).
    assert asked_names("After the trip with Melanie, what did Caroline do?") == ["caroline"]
    assert asked_names("Which Slack channel do I use to declare an incident?") == ["slack"]
    assert asked_names("What did Caroline and Melanie do, and when?") == ["caroline", "melanie"]
    assert asked_names("I swapped with Tom, so the standup is at ten now?") == ["tom"]
    assert asked_names("Did Melanie meet Jon?") == ["melanie", "jon"]


def test_the_gate_reads_only_the_asking_clauses_names() -> None:
    """A hit that answers the asking clause, naming no one of the scene, matches; the
    names it holds are still read (``mentions``, the name count)."""
    origin = Origin("test", "test", datetime(2026, 12, 5, tzinfo=UTC))
    rota = "Shift swaps are set up in PagerDuty under Schedules, Overrides."
    item = Item("it1", "ws", "note", "note", rota, rota, "k", True, "org", origin)
    asked = "I'm swapping my on-call shift with Tom next week, where do I set that up?"
    [e] = hit_evidence(Query(asked, AT), [item], {"it1": 0.68})
    assert e.names and not e.mentions and e.names_asked == 1
    assert membership([e], PLANS["tuned-z"].gate or Gate())[0]
    # The same words with Tom in the asking clause: the hit must name him.
    about_tom = "Where does Tom set up his on-call shift swaps?"
    [f] = hit_evidence(Query(about_tom, AT), [item], {"it1": 0.68})
    assert not f.names and not membership([f], PLANS["tuned-z"].gate or Gate())[0]


def test_deep_limits_keep_enough_candidates() -> None:
    z = PLANS["convex-z"]
    assert z.normalise == "zscore" and z.candidates is not None
    assert z.candidates < z.per_stream  # deep lists, few fetches
    deep = z.with_limits(k_max=z.candidates + 50, floors=False)
    assert deep.candidates == z.candidates + 50 and deep.per_stream == z.per_stream
    assert PLANS["hybrid"].with_limits(k_max=100, floors=False).candidates is None


def test_keyword_depth_reads_the_keyword_streams_alone_and_deepens_with_limits() -> None:
    z = PLANS["convex-z"]
    assert z.keyword_depth is None and z.depth("keyword") == z.depth("vector") == z.per_stream
    short = replace(z, keyword_depth=100)
    assert short.depth("keyword") == 100 and short.depth("vector") == z.per_stream
    assert short.reading(50) is short  # deep enough already
    assert short.reading(200).depth("keyword") == 200
    assert short.with_limits(k_max=300, floors=False).depth("keyword") == 300


def test_names_said_to_someone_are_dropped() -> None:
    assert "Caroline" not in without_vocatives("Melanie: Thanks, Caroline! It was a great race.")
    assert "Melanie" not in without_vocatives("Caroline: Yep, Melanie! I have got a bowl.")
    assert "Caroline" not in without_vocatives("Melanie: Hey Caroline, how are you?")
    assert "Jon" not in without_vocatives("Gina: Wow, Jon, that is big")
    # Spoken of, not to: kept.
    for text in ("Jon: I went to the park with Caroline and Bob.", "Jon: I met Gina."):
        assert without_vocatives(text) == text
    assert without_vocatives("Caroline: I went home.").startswith("Caroline:")


def test_a_question_about_the_thing_is_not_evidence_of_it() -> None:
    assert only_asks("Melanie: Sounds great! What kind of counseling do you want to pursue?")
    assert not only_asks("Decision: we moved billing to Stripe.")
    assert not only_asks("Caroline: I chose them because they help. Why?")
    spice = "Tim: That's ok! I can look some up. Can you tell me what spices you used in the soup?"
    assert not only_asks(spice)  # it states something...
    assert only_asks(spice, ["spice", "soup"])  # ...but of spices and soup it only asks
    assert not only_asks("John: I added some sage to the soup. Any other spices?", ["soup"])


def test_a_line_said_about_its_listener_is_theirs() -> None:
    line = "Caroline: That charity race sounds great, Mel! You must be proud of yourself."
    assert spoken_to(line) == "That charity race sounds great, Mel! You must be proud of yourself."
    assert spoken_to("Caroline: Thanks, Mel! I ran it with my sister.") is None
    assert spoken_to("No speaker here, you see.") is None


def test_the_gate_speaks_on_text_then_closeness_alone_then_the_graph() -> None:
    from orgbrain.retrieve import Gate, HitEvidence, membership

    gate = Gate(depth=3, min_cosine=0.45, min_coverage=0.67, plain_depth=1, plain_cosine=0.55)
    unnamed_close = HitEvidence(names=False, coverage=0.2, cosine=0.6, mentions=True)
    named_far = HitEvidence(names=True, coverage=0.2, cosine=0.3)
    # Close enough alone, but only as the first hit: second place is not enough.
    assert membership([unnamed_close, named_far], gate)[0]
    assert not membership([named_far, unnamed_close], gate)[0]
    # A hit that only asks never speaks by its text, however close.
    asking = HitEvidence(names=True, coverage=1.0, cosine=0.9, asks=True)
    assert not membership([asking], gate)[0]
    # The graph's word speaks for a hit that the text signals would not.
    said = membership([named_far, HitEvidence(False, 0.0, 0.1, graph="states x owns")], gate)
    assert said[:4] == (True, "graph: hit 2 states x owns", 1, "graph")
    # A hit that does not even mention the names is not close enough alone.
    elsewhere = HitEvidence(names=False, coverage=0.2, cosine=0.9, mentions=False)
    assert not membership([elsewhere], gate)[0]
    # Off by default: the plain tier needs plain_depth.
    assert not membership([unnamed_close], Gate())[0]
    named = HitEvidence(names=True, coverage=0.0, cosine=0.46)
    assert membership([named], gate)[0] and not membership([named], Gate())[0]


def test_a_match_far_behind_the_closest_hit_does_not_speak() -> None:
    """Near the best (``Gate.near_best``): a hit that names the query's names counts only
    if its cosine is close to the closest of the hits read. Closest hits that name
    someone else and a naming hit far behind them: the thing is held, not of whom the
    question asks."""
    from orgbrain.retrieve import Gate, HitEvidence, membership

    gate = Gate(depth=5, min_cosine=0.4, min_coverage=0.5, near_best=0.25)
    someone_else = HitEvidence(names=False, coverage=0.5, cosine=0.7, mentions=True)
    named_behind = HitEvidence(names=True, coverage=0.2, cosine=0.44)
    named_near = HitEvidence(names=True, coverage=0.2, cosine=0.46)
    said, why = membership([someone_else, named_behind], gate)[:2]
    assert not said and "1 match 0.25 or more below the best cosine" in why
    assert membership([someone_else, named_near], gate)[0]  # 0.46 >= 0.70 - 0.25
    # Without the bar (the default), the same hits speak.
    assert membership([someone_else, named_behind], replace(gate, near_best=None))[0]
    # Coverage alone is held to the same bar; a hit no vector stream saw has no cosine
    # to compare, so the bar does not apply to it.
    covered_behind = HitEvidence(names=True, coverage=0.8, cosine=0.3)
    assert not membership([someone_else, covered_behind], gate)[0]
    assert membership([someone_else, replace(covered_behind, cosine=None)], gate)[0]
    # Only the hits the gate reads set the best: a closer sixth hit does not count.
    assert membership([*[named_behind] * 5, someone_else], gate)[0]


def test_a_query_with_several_names_speaks_on_a_hit_that_mentions_one() -> None:
    """One of several names (``Gate.some_name_cosine``): a question about two people is
    answered by what one says to the other, which names only one of them."""
    from orgbrain.retrieve import Gate, HitEvidence, membership

    gate = Gate(depth=5, min_cosine=0.4, min_coverage=0.5, some_name_cosine=0.35)
    one_of_two = HitEvidence(names=False, coverage=0.0, cosine=0.38, mentions=True, names_asked=2)
    said, why = membership([one_of_two], gate)[:2]
    assert said and why == "gate: hit 1 mentions one of the query's 2 names (cosine 0.38)"
    # One name asked: the hit must name it (the rule needs two names or more).
    assert not membership([replace(one_of_two, names_asked=1)], gate)[0]
    # It must mention one of them, not only ask, and be close enough.
    assert not membership([replace(one_of_two, mentions=False)], gate)[0]
    assert not membership([replace(one_of_two, asks=True)], gate)[0]
    assert not membership([replace(one_of_two, cosine=0.34)], gate)[0]
    assert not membership([replace(one_of_two, cosine=None)], gate)[0]
    assert not membership([one_of_two], replace(gate, some_name_cosine=None))[0]


def test_coverage_counts_stems_and_their_prefixes() -> None:
    stems = text_stems("Melanie painted the sunrise; the databases were released.")
    assert coverage(["painting", "Mel", "database", "release"], stems) == 1.0
    # Two letters are too few for a prefix, and a longer word is not a prefix of a stem.
    assert coverage(["pa", "sunset", "moon"], stems) == 0.0
    assert coverage([], stems) == 1.0
    assert holds_any(["moon", "sun"], stems) and not holds_any(["moon", "pa"], stems)
    # Cached by text: the same text gives the very same set.
    assert text_stems("Melanie painted the sunrise.") is text_stems("Melanie painted the sunrise.")


@given(
    st.lists(st.text(alphabet="abcdeinrst", min_size=1, max_size=7), max_size=5),
    st.lists(st.text(alphabet="abcdeinrst ", max_size=30), max_size=3),
)
def test_coverage_is_a_share_of_terms_held_or_prefixing(terms: list[str], texts: list[str]) -> None:
    stems = text_stems(" ".join(texts))

    def held(term: str) -> bool:
        t = stem(term)
        return t in stems or (len(t) >= 3 and any(s.startswith(t) for s in stems))

    want = sum(map(held, terms)) / len(terms) if terms else 1.0
    assert coverage(terms, stems) == want
    assert holds_any(terms, stems) == any(map(held, terms))


def test_asking_for_what_holds_now_names_no_term() -> None:
    """ "these days" asks for the current belief; a hit need not say "days" (a note about
    a laptop's "first day" is not closer for it)."""
    assert query_terms("What are we using for exception monitoring these days?") == [
        "exception",
        "monitoring",
    ]
    assert query_terms("who owns billing right now, at the moment?") == ["owns", "billing"]
    assert query_terms("how many days a week are we in the office?") == [
        "many",
        "days",
        "week",
        "office",
    ]


def test_a_superseded_heir_keeps_its_own_factor_when_its_elder_lifts_its_vote() -> None:
    """A chain A → B → C: A's vote lifts B's (B answers what A answered), and B, itself
    replaced by C, still keeps only ``superseded_factor`` of it, whichever of the two
    the loop meets first."""
    from orgbrain.retrieve.candidate import Candidate
    from orgbrain.retrieve.graph import CURRENT
    from orgbrain.retrieve.succession import superseded_yield

    at = datetime(2026, 3, 1, tzinfo=UTC)

    def sketch(i: str, *, by: str | None = None, of: str | None = None) -> ItemSketch:
        return ItemSketch(i, "w", "org", "note", "note", "", i, True, None, None, at, of, by, None)

    a, b, c = sketch("a", by="b"), sketch("b", by="c", of="a"), sketch("c", of="b")
    plan = get_plan()
    for order in ("ba", "ab"):
        made = {
            "a": Candidate("a", 0.9, {}, a, score=0.9),
            "b": Candidate("b", 0.5, {}, b, score=0.5),
            "c": Candidate("c", 0.1, {}, c, score=0.1),
        }
        scored = [made[i] for i in order] + [made["c"]]
        assert superseded_yield(scored, {"b": b, "c": c}, CURRENT, plan, None) == []
        heir = made["b"]
        assert (heir.fused, heir.factor) == (0.9, plan.superseded_factor), order
        assert heir.score == pytest.approx(0.9 * plan.superseded_factor), order
