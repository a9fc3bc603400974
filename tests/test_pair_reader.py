"""The pair reader (``adapters/minilm_pair``) and its trainer (``minilm_pair_train``): two
texts read together by the bundled MiniLM with retrained top layers and a head."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from orgbrain.adapters.embed_minilm import MiniLMEmbedder
from orgbrain.adapters.minilm_pair import pair_ids
from orgbrain.adapters.minilm_pair_train import (
    PairRow,
    TrainConfig,
    out_of_fold,
    reference_logits,
    save_head,
    train,
)
from orgbrain.adapters.wordpiece import WordPiece
from orgbrain.errors import InvalidInput, Unavailable
from orgbrain.ports import PairReader

# The newcomer's kind of pairs: a later line that replaces an earlier one, or does not.
ROWS = [
    PairRow("Backups run every 6 hours.", "From November backups run hourly.", 1, "a"),
    PairRow("The all-hands meets in Leeds.", "All-hands moved to Manchester.", 1, "a"),
    PairRow("Contractors may not push to main.", "Contractors can now merge to main.", 1, "b"),
    PairRow("We track sprints in Trello.", "Trello is dropped; sprints live in Linear.", 1, "b"),
    PairRow("Chen Wei leads the data team.", "Chen Wei also leads the review.", 0, "a"),
    PairRow("Production deploys need two approvals.", "Staging needs one approval.", 0, "a"),
    PairRow("The office opens at 8.", "Lunch is served at noon.", 0, "b"),
    PairRow("Payroll runs on the 25th.", "The canteen has a new menu.", 0, "b"),
]
PAIRS = [(r.a, r.b) for r in ROWS]


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, np.ndarray], Path]:
    arrays = train(ROWS, TrainConfig(layers=1, epochs=8, batch_size=4))
    path = tmp_path_factory.mktemp("reader") / "reader.npz"
    save_head(arrays, path)
    return arrays, path


def test_the_shipped_numpy_reader_is_the_trained_torch_reader(
    trained: tuple[dict[str, np.ndarray], Path], embedder: MiniLMEmbedder
) -> None:
    arrays, path = trained
    assert isinstance(embedder, PairReader)
    got = embedder.read_pairs(path, PAIRS)
    want = reference_logits(arrays, PAIRS)
    np.testing.assert_allclose(got, want, atol=1e-4)
    # It learned its rows, and what ships is one layer and a head: ~3.5 MB, not a model.
    assert min(got[:4]) > max(got[4:])
    assert path.stat().st_size < 4_000_000
    assert json.loads(str(arrays["meta"]))["layers"] == [5]


def test_training_is_reproducible(trained: tuple[dict[str, np.ndarray], Path]) -> None:
    again = train(ROWS, TrainConfig(layers=1, epochs=8, batch_size=4))
    for name, array in trained[0].items():
        assert np.array_equal(array, again[name]), name


def test_out_of_fold_scores_each_group_with_a_reader_that_never_saw_it() -> None:
    with pytest.raises(InvalidInput, match="groups without a fold"):
        out_of_fold(ROWS, {"a": 0})
    scores = out_of_fold(ROWS, {"a": 0, "b": 1}, TrainConfig(layers=1, epochs=1, batch_size=4))
    assert len(scores) == len(ROWS) and len(set(scores)) == len(ROWS)
    # Trained on all eight rows, the reader scores group a's rows otherwise.
    arrays = train(ROWS, TrainConfig(layers=1, epochs=1, batch_size=4))
    seen = reference_logits(arrays, PAIRS)
    assert all(abs(s - t) > 1e-6 for s, t in zip(scores[:2], seen[:2], strict=True))


def test_training_refuses_one_label_and_a_depth_the_model_lacks() -> None:
    with pytest.raises(InvalidInput, match="both positive and negative"):
        train(ROWS[:4])
    with pytest.raises(InvalidInput, match="layers must be 1 to 6"):
        train(ROWS, TrainConfig(layers=7))


def test_a_reader_trained_on_another_model_is_refused(
    trained: tuple[dict[str, np.ndarray], Path], tmp_path: Path, embedder: MiniLMEmbedder
) -> None:
    arrays = dict(trained[0])
    meta = json.loads(str(arrays["meta"]))
    arrays["meta"] = np.array(json.dumps({**meta, "base": "multilingual-e5-small"}))
    other = tmp_path / "other.npz"
    save_head(arrays, other)
    with pytest.raises(Unavailable, match="trained on 'multilingual-e5-small'"):
        embedder.read_pairs(other, PAIRS)


def test_a_pair_is_cut_longest_first_and_typed_by_text(embedder: MiniLMEmbedder) -> None:
    tokenizer: WordPiece = embedder._load().tokenizer
    short, long = "backups hourly", " ".join(["the staging database is backed up"] * 20)
    ids, types = pair_ids(tokenizer, short, long, 24)
    assert len(ids) == len(types) == 24
    sep = ids.index(tokenizer.sep_id)
    # The short text is whole; the long one lost its tail; the types split at [SEP].
    assert ids[1:sep] == tokenizer.tokens(short)
    assert types == [0] * (sep + 1) + [1] * (24 - sep - 1)
    both_long, _ = pair_ids(tokenizer, long, long, 24)
    first_sep = both_long.index(tokenizer.sep_id)
    assert first_sep - 1 in (10, 11) and both_long[-1] == tokenizer.sep_id
