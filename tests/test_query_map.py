"""The trained map of the query's vector (``retrieve.query_map``): what it holds, when the
search applies it, and that ``tuned-z-unmapped`` turns it off."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from orgbrain import Brain, NoteInput
from orgbrain.adapters.embed_minilm import MODEL_NAME
from orgbrain.ports import Embedder
from orgbrain.retrieve import get_plan
from orgbrain.retrieve.query_map import QueryMap, shipped_query_map
from tests.toy import HashEmbedder

NOTES = [
    "The quarterly budget review moved to Thursday afternoon.",
    "Our cat knocked the plant off the kitchen shelf again.",
    "Vitamin D deficiency is linked to a higher risk of fractures in older adults.",
    "The new hire starts on the payments team next Monday.",
]
QUERY = "does low vitamin D raise the risk of broken bones?"


def _scores(brain: Brain, plan_name: str) -> list[tuple[str, float]]:
    plan = get_plan(plan_name).with_limits(k_max=10, floors=False)
    # Rounded: freshness reads the clock, which moves a little between two searches.
    hits = brain.search(QUERY, k=10, plan=plan).hits
    return [(h.item.source_key, round(h.score, 6)) for h in hits]


def _cosines(brain: Brain, plan_name: str) -> tuple[str, list[float]]:
    """The first hit, and the cosines the gate read (highest first)."""
    plan = get_plan(plan_name).with_limits(k_max=10, floors=False)
    result, trace = brain.search_traced(QUERY, k=10, plan=plan, evidence_depth=10)
    cosines = sorted((e.cosine for e in trace.evidence if e.cosine is not None), reverse=True)
    return result.hits[0].item.source_key, cosines


def test_the_shipped_map_is_a_small_correction_for_minilm_only() -> None:
    m = shipped_query_map()
    assert m.fits(MODEL_NAME, 384)
    assert not m.fits("toy-hash", 384) and not m.fits(MODEL_NAME, 768)
    rng = np.random.default_rng(0)
    q = rng.normal(size=384).astype(np.float32)
    q /= np.linalg.norm(q)
    out = m.apply(q)
    assert out.dtype == np.float32 and abs(float(np.linalg.norm(out)) - 1.0) < 1e-5
    assert 0.8 < float(out @ q) < 1.0  # moved, but near where it was


def test_a_map_survives_saving(tmp_path: Path) -> None:
    delta = np.full((4, 4), 0.25, dtype=np.float32)
    QueryMap("m", delta).save(tmp_path / "m.npz")
    back = QueryMap.load(tmp_path / "m.npz")
    assert back.fits("m", 4) and np.allclose(back.delta, delta)
    q = np.array([1.0, 0.0, 0.0, 0.0], dtype=np.float32)
    moved = np.array([1.25, 0.25, 0.25, 0.25])
    assert np.allclose(back.apply(q), moved / np.linalg.norm(moved))


def test_the_default_maps_the_query_and_unmapped_does_not(brain: Brain) -> None:
    assert get_plan("tuned-z") == replace(
        get_plan("tuned-z-unmapped"), name="tuned-z", map_query=True
    )
    brain.add_notes([NoteInput(body=t, source_key=f"n{i}") for i, t in enumerate(NOTES)])
    (first, mapped), (first_plain, plain) = (
        _cosines(brain, "tuned-z"),
        _cosines(brain, "tuned-z-unmapped"),
    )
    assert first == first_plain == "n2"
    assert len(mapped) == len(plain) == len(NOTES)
    assert all(abs(a - b) > 1e-4 for a, b in zip(mapped, plain, strict=True))  # another vector


def test_another_embedder_is_left_alone(tmp_path: Path) -> None:
    toy: Embedder = HashEmbedder()
    with Brain.open(tmp_path / "brain", embedder=toy) as brain:
        brain.add_notes([NoteInput(body=t, source_key=f"n{i}") for i, t in enumerate(NOTES)])
        assert _scores(brain, "tuned-z") == _scores(brain, "tuned-z-unmapped")
