"""What made the default search cheaper must not change what it returns: the narrow
read's sketches, a turn's sentences read once, a rescored candidate, a ranker that skips
the features it does not weigh."""

from __future__ import annotations

from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from orgbrain.analysis import stem, text_stems
from orgbrain.model import Item, ItemSketch, Origin, utcnow
from orgbrain.retrieve.candidate import Candidate
from orgbrain.retrieve.evidence import (
    _FIRST_PERSON,
    _SECOND_PERSON,
    _SENTENCE,
    _speaker_line,
    only_asks,
    spoken_to,
)
from orgbrain.retrieve.learned import FEATURES, LinearRanker
from orgbrain.retrieve.learned_model import LEARNED
from orgbrain.retrieve.terms import coverage, holds_any

WORDS = ["soup", "spices", "the", "race", "Caroline", "billing", "you", "painting", "pai"]


def _only_asks_by_sentence(text: str, terms: list[str]) -> bool:
    """``only_asks`` read sentence by sentence, as it was before a turn's were cached."""
    _, body = _speaker_line(text)
    stated = asked = False
    everything_asked = True
    for sentence in _SENTENCE.findall(body):
        sentence = sentence.strip()
        question = sentence.endswith("?")
        if len(sentence.split()) > 3 and not question:
            everything_asked = False
        if terms and holds_any(terms, text_stems(sentence)):
            asked, stated = asked or question, stated or not question
    return everything_asked or (asked and not stated)


sentences = st.lists(st.sampled_from(WORDS), min_size=0, max_size=6).map(" ".join)
turns = st.lists(
    st.tuples(sentences, st.sampled_from(["?", ".", "!", "", "?!"])), min_size=0, max_size=5
).map(lambda parts: "Tim: " + " ".join(s + end for s, end in parts))


@given(turns, st.lists(st.sampled_from([w.lower() for w in WORDS]), max_size=3))
def test_only_asks_reads_a_turn_as_its_sentences_do(text: str, terms: list[str]) -> None:
    assert only_asks(text, terms) == _only_asks_by_sentence(text, terms)


def test_only_asks_unions_hold_what_one_sentence_holds() -> None:
    spice = "Tim: That's ok! I can look some up. Can you tell me what spices you used in the soup?"
    for terms in (["spice", "soup"], ["look"], ["spi"], ["xyz"], []):
        assert only_asks(spice, terms) == _only_asks_by_sentence(spice, terms), terms


def _spoken_to_counting(text: str) -> str | None:
    """``spoken_to`` as it was, counting the pronouns of every line."""
    has_speaker, said = _speaker_line(text)
    lowered = said.lower().replace("\u2019", "'")
    you, me = len(_SECOND_PERSON.findall(lowered)), len(_FIRST_PERSON.findall(lowered))
    return said if has_speaker and you > me else None


@given(
    st.lists(
        st.sampled_from([*WORDS, "You", "your", "I", "we", "yours", "youth", "Me"]), max_size=8
    )
)
def test_spoken_to_reads_a_line_as_when_it_counted_every_line(parts: list[str]) -> None:
    for text in ("Tim: " + " ".join(parts), " ".join(parts)):
        assert spoken_to(text) == _spoken_to_counting(text)


def _holds(term: str, stems: frozenset[str]) -> bool:
    """A term's test as written before ``holds_any`` and ``coverage`` inlined it."""
    t = stem(term)
    return t in stems or (len(t) >= 3 and any(s.startswith(t) for s in stems))


@given(
    st.lists(st.sampled_from([*WORDS, "pa", "soups", "racing", "caro", "bill"]), max_size=4),
    st.lists(sentences, max_size=3).map(lambda texts: text_stems(" ".join(texts))),
)
def test_holds_any_and_coverage_test_each_term_as_before(
    terms: list[str], stems: frozenset[str]
) -> None:
    assert holds_any(terms, stems) == any(_holds(t, stems) for t in terms)
    want = sum(_holds(t, stems) for t in terms) / len(terms) if terms else 1.0
    assert coverage(terms, stems) == want


def test_a_rescored_candidate_is_replace_with_another_score() -> None:
    sketch = ItemSketch(
        "n1", "w", "org", "turn", "note", "label", "body", True, None, "run", utcnow(),
        None, "n2", None,
    )  # fmt: skip
    successor = sketch._replace(id="n2", supersedes="n1", superseded_by=None)
    c = Candidate("n1", 0.03, {"vector:note": 2}, sketch, 0.02, successor, 0.9, 0.001)
    assert c.rescored(0.5) == replace(c, score=0.5)
    assert c.rescored(0.5) is not c and c.score == 0.02


def test_a_sketch_of_an_item_is_what_the_item_says() -> None:
    o = Origin("human:a", "note", utcnow(), run_id="r1")
    it = Item("n1", "w", "turn", "note", "lab", "body", "k", True, "org", o, parent_id="p")
    s = ItemSketch.of(it)
    assert (s.id, s.run_id, s.when, s.parent_id, s.storage_class) == ("n1", "r1", o.at, "p", "note")
    assert s.when == it.when and s.tombstoned_at is None


@given(st.lists(st.floats(-3, 3, allow_nan=False), min_size=len(FEATURES), max_size=len(FEATURES)))
def test_the_ranker_skips_features_it_does_not_weigh(row: list[float]) -> None:
    every = sum(
        w * (x - m) / (s or 1.0)
        for w, x, m, s in zip(LEARNED.weights, row, LEARNED.mean, LEARNED.scale, strict=True)
    )
    assert LEARNED.score(row) == every
    dense = LinearRanker("d", tuple(1.0 for _ in FEATURES), LEARNED.mean, LEARNED.scale)
    assert dense.score(row) == sum(
        (x - m) / (s or 1.0) for x, m, s in zip(row, LEARNED.mean, LEARNED.scale, strict=True)
    )
