"""The gate's cosine bars belong to the embedding space: a MiniLM brain keeps the bars
as written, an e5 brain reads them on e5's fitted scale (``retrieve/space_gate.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from orgbrain import Brain
from orgbrain.adapters.embed_e5 import E5_MODEL_NAME, E5Embedder
from orgbrain.adapters.embed_minilm import MODEL_NAME
from orgbrain.ports import Embedder
from orgbrain.retrieve.plan import PLANS
from orgbrain.retrieve.space_gate import in_space, space_bars

NOTES = (
    "The office wifi password is changed every month by Dana.",
    "The canteen opens at half past eleven.",
)
QUESTION = "What is the wifi password in the Rotterdam office?"


def test_minilm_keeps_the_bars_as_written_and_e5_has_its_own() -> None:
    plan = PLANS["tuned-z"]
    assert space_bars(MODEL_NAME) is None
    assert in_space(plan, MODEL_NAME) is plan
    assert in_space(plan, "some-remote-model") is plan
    e5 = in_space(plan, E5_MODEL_NAME).gate
    assert plan.gate is not None and e5 is not None
    assert e5.min_cosine > plan.gate.min_cosine  # e5's cosines sit higher
    assert (e5.depth, e5.min_coverage) == (plan.gate.depth, plan.gate.min_coverage)
    assert in_space(PLANS["hybrid"], E5_MODEL_NAME) is PLANS["hybrid"]  # no gate to move


@pytest.mark.parametrize("model", [MODEL_NAME, E5_MODEL_NAME])
def test_each_brain_gates_with_the_bars_of_its_space(tmp_path: Path, model: str) -> None:
    embedder: Embedder | None = E5Embedder() if model == E5_MODEL_NAME else None
    gate = in_space(PLANS["tuned-z"], model).gate
    assert gate is not None
    with Brain.open(tmp_path / "b", embedder=embedder) as brain:
        for text in NOTES:
            brain.add_note(text)
        result = brain.search(QUESTION)
        assert result.verdict == "none"  # no note names Rotterdam
        assert f"cosine >= {gate.min_cosine} " in result.reason, result.reason
