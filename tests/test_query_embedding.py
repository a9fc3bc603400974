"""A search query's embedding in lower precision (adapters/minilm_query.py): bfloat16
where the CPU has AMX, else int8 but for qkv; each close to the float32 vector, what the
default embedder's ``embed_query`` gives, what a search and the evals' memo use, and
documents still float32."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from orgbrain import Brain
from orgbrain.adapters.embed_minilm import MiniLMEmbedder, bundled_model_dir
from orgbrain.adapters.minilm_numpy import MiniLMNumpy, encode_ids, pad_batch
from orgbrain.adapters.minilm_query import _Int8, amx, encode_query, query_projections
from orgbrain.errors import InvalidInput
from orgbrain.evals.memo import QueryMemo
from orgbrain.ports import Embedder, QueryEmbedder, Vector
from tests.toy import HashEmbedder

QUERIES = [
    "Who owns the billing service?",
    "When did Caroline go to the LGBTQ support group?",
    "?",
    "what changed " * 200,  # past the 256-token cut
    "Ünïcödé, emoji 🙂 and ACME-1247",
]


def test_embed_query_is_near_the_float32_vector(embedder: Embedder) -> None:
    assert isinstance(embedder, QueryEmbedder)
    full = embedder.embed(QUERIES)
    cosines = []
    for text, f32 in zip(QUERIES, full, strict=True):
        q = embedder.embed_query(text)
        assert q.shape == (384,) and q.dtype == np.float32
        assert abs(float(np.linalg.norm(q)) - 1.0) < 1e-5
        cosines.append(float(q @ f32))
    # A question of a dozen tokens lands at ~0.999; the fewer the tokens, the less the
    # mean pooling averages the rounding out ("?": 3 tokens, ~0.988).
    assert min(cosines[:2]) > 0.998 and min(cosines) > 0.98, cosines


@pytest.mark.parametrize("bf16", [True, False])
def test_each_precision_is_near_the_float32_vector(bf16: bool) -> None:
    model = MiniLMNumpy.from_folder(bundled_model_dir())
    projections = query_projections(model.weights, bf16=bf16)
    assert projections.precision == ("bf16" if bf16 else "int8")
    floor = 0.9999 if bf16 else 0.98
    for ids in model.token_ids(QUERIES):
        f32 = encode_ids(model.weights, *pad_batch([ids]))[0]
        assert float(encode_query(model.weights, projections, ids) @ f32) > floor


def test_the_default_precision_follows_the_cpu(embedder: Embedder) -> None:
    """bfloat16 where the CPU has AMX; elsewhere a query is embedded as a document is
    (the int8 path is not the default)."""
    model = MiniLMNumpy.from_folder(bundled_model_dir())
    assert query_projections(model.weights).precision == ("bf16" if amx() else "int8")
    assert isinstance(embedder, QueryEmbedder)
    same = [bool(np.array_equal(embedder.embed_query(q), embedder.embed([q])[0])) for q in QUERIES]
    assert same == [not amx()] * len(QUERIES)


def test_embed_query_keeps_the_meaning(embedder: Embedder) -> None:
    assert isinstance(embedder, QueryEmbedder)
    docs = embedder.embed(["Refunds over 500 EUR need approval from finance.", "Cats sleep a lot."])
    q = embedder.embed_query("who approves big refunds")
    assert float(q @ docs[0]) > float(q @ docs[1]) + 0.2


def test_embed_query_takes_a_str_only() -> None:
    with pytest.raises(InvalidInput):
        MiniLMEmbedder().embed_query(["a list"])  # type: ignore[arg-type]


def test_a_row_of_zeros_projects_to_the_bias_free_zero() -> None:
    rng = np.random.default_rng(7)
    w = rng.standard_normal((64, 32)).astype(np.float32)
    x = rng.standard_normal((3, 32)).astype(np.float32)
    x[1] = 0
    y = _Int8.of(w)(x)
    assert np.isfinite(y).all() and not y[1].any()
    exact = x @ w.T
    assert np.abs(y - exact).max() < 0.05 * np.abs(exact).max()


class _Counting(MiniLMEmbedder):
    """The default embedder, counting its calls of each kind."""

    def __init__(self) -> None:
        super().__init__()
        self.queries: list[str] = []
        self.batches: list[int] = []

    def embed(self, texts: Sequence[str]) -> Vector:
        self.batches.append(len(texts))
        return super().embed(texts)

    def embed_query(self, text: str) -> Vector:
        self.queries.append(text)
        return super().embed_query(text)


def test_a_search_embeds_its_query_through_embed_query(tmp_path: Path) -> None:
    counting = _Counting()
    with Brain.open(tmp_path / "brain", embedder=counting) as brain:
        brain.add_note("Refunds over 500 EUR need approval from finance.")
        brain.add_note("The on-call rotation changes every Monday at 09:00 UTC.")
        indexed = list(counting.batches)
        hits = brain.search("who approves big refunds", plan="dense").hits
    assert hits and "finance" in hits[0].item.body
    assert counting.queries == ["who approves big refunds"]
    assert counting.batches == indexed  # the notes went through embed, the query did not


def test_the_memo_remembers_query_vectors_apart(embedder: Embedder) -> None:
    memo = QueryMemo(embedder)
    assert isinstance(memo, QueryEmbedder)
    text = QUERIES[0]
    q = memo.embed_query(text)
    assert isinstance(embedder, QueryEmbedder)
    assert np.array_equal(q, embedder.embed_query(text))
    assert np.array_equal(memo.embed([text])[0], embedder.embed([text])[0])  # not the query's
    q[:] = 0  # a copy: the memo's own stays
    assert np.array_equal(memo.embed_query(text), embedder.embed_query(text))
    plain = QueryMemo(HashEmbedder())
    assert np.array_equal(plain.embed_query(text), HashEmbedder().embed([text])[0])


def test_warm_up_readies_the_query_path_too(tmp_path: Path) -> None:
    counting = _Counting()
    with Brain.open(tmp_path / "brain", embedder=counting) as brain:
        brain.warm_up()
    assert counting.batches == [1] and counting.queries == ["warm up"]
    assert counting._projections is not None
