"""A search query's embedding in lower precision (adapters/minilm_query.py): bfloat16
where the CPU has AMX, else int8 but for qkv; each close to the float32 vector, what the
default embedder's ``embed_query`` gives, what a search and the evals' memo use, and
documents still float32."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import numkong as nk
import numpy as np
import pytest

from orgbrain import Brain
from orgbrain.adapters import minilm_numpy
from orgbrain.adapters.embed_minilm import MiniLMEmbedder, bundled_model_dir
from orgbrain.adapters.minilm_numpy import MiniLMNumpy, MiniLMWeights, encode_ids, pad_batch
from orgbrain.adapters.minilm_query import (
    QueryProjections,
    _Int8,
    _softmax,
    amx,
    encode_query,
    phi_table,
    query_projections,
)
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


QUESTIONS = [
    "When did Caroline go to the LGBTQ support group?",
    "What did Melanie paint recently?",
    "Who owns the billing service?",
    "0-dimensional biomaterials lack inductive properties.",
    "How many times has the on-call rotation changed since March?",
]


def _as_before(weights: MiniLMWeights, projections: QueryProjections, ids: list[int]) -> np.ndarray:
    """``encode_query`` as it was before the look-up GELU: ``minilm_numpy``'s
    twenty-one-pass GELU and its per-row softmax."""
    length, hidden, heads = len(ids), weights.hidden, weights.heads
    x = weights.word[np.asarray(ids)]
    x += weights.position[:length]
    x += weights.token_type[0]
    minilm_numpy._layer_norm(x, weights.ln_g, weights.ln_b, weights.eps)
    scratch = np.empty((3, length, weights.layers[0].up_w.shape[0]), np.float32)
    for layer, (qkv_p, out_p, up_p, down_p) in zip(weights.layers, projections.layers, strict=True):
        qkv = qkv_p(x) + layer.qkv_b
        split = qkv.reshape(length, 3, heads, hidden // heads).transpose(1, 2, 0, 3)
        scores = split[0] @ split[1].transpose(0, 2, 1)
        minilm_numpy._softmax_rows(scores)
        context = (scores @ split[2]).transpose(1, 0, 2).reshape(length, hidden)
        attended = out_p(context) + layer.out_b + x
        minilm_numpy._layer_norm(attended, layer.ln1_g, layer.ln1_b, weights.eps)
        up = up_p(attended) + layer.up_b
        minilm_numpy._gelu(up, scratch)
        x = down_p(up) + layer.down_b + attended
        minilm_numpy._layer_norm(x, layer.ln2_g, layer.ln2_b, weights.eps)
    mean = x.mean(axis=0)
    out: np.ndarray = mean / np.linalg.norm(mean)
    return out


def test_the_cheaper_rest_of_the_pass_keeps_the_vector() -> None:
    """The look-up GELU and the softmax against the largest score of all rows move a
    question's bf16 vector by less than a cosine of 1e-5 (every
    LoCoMo, SciFact, LongMemEval and facts question measured: docs/benchmarks.md,
    session 7). The int8 path (the default nowhere) re-rounds its activations after any
    change, so it is held to the float32 vector only (above)."""
    model = MiniLMNumpy.from_folder(bundled_model_dir())
    projections = query_projections(model.weights, bf16=True)
    for ids in model.token_ids(QUESTIONS):
        before = _as_before(model.weights, projections, ids)
        now = encode_query(model.weights, projections, ids)
        assert float(now @ before) > 0.99999


def test_the_phi_table_gives_the_exact_gelu_to_float16_rounding() -> None:
    x = np.linspace(-12, 12, 48_001, dtype=np.float32)
    exact = np.array([v * (1 + math.erf(v / math.sqrt(2))) / 2 for v in x.tolist()])
    halves = np.asarray(nk.astype(x, "f16"))
    got = x * phi_table().take(halves.view(np.uint16))
    # Phi's slope is at most 1/sqrt(2 pi): the float16 rounding of x moves x Phi(x) by at
    # most |x| * 0.4 * |x - f16(x)|.
    bound = np.abs(x) * 0.4 * np.abs(x - halves.astype(np.float32)) + 1e-6
    assert (np.abs(got - exact) <= bound).all()
    assert float(np.abs(got - exact).max()) < 0.02
    table = phi_table()
    special = np.array([np.inf, -np.inf, 0.0, np.nan], np.float16).view(np.uint16)
    assert table[special[:3]].tolist() == [1.0, 0.0, 0.5] and np.isnan(table[special[3]])


def test_the_softmax_against_the_largest_of_all_rows() -> None:
    rng = np.random.default_rng(3)
    scores = (rng.standard_normal((12, 11, 11)) * 4).astype(np.float32)
    scores[3, 5] -= 200  # e^-200 against the others' largest: that row is done on its own
    for case in (scores[:, :10], scores):  # without and with the far row
        want = case.copy()
        minilm_numpy._softmax_rows(want)
        got = case.copy()
        _softmax(got)
        assert np.isfinite(got).all()
        assert np.abs(got - want).max() < 1e-6
        assert np.abs(got.sum(axis=-1) - 1).max() < 1e-5


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
    """The default embedder, counting its calls of each kind (a query's own: on a CPU
    without AMX, ``embed_query`` gives ``embed``'s vector, and that is no batch)."""

    def __init__(self) -> None:
        super().__init__()
        self.queries: list[str] = []
        self.batches: list[int] = []
        self._querying = False

    def embed(self, texts: Sequence[str]) -> Vector:
        if not self._querying:
            self.batches.append(len(texts))
        return super().embed(texts)

    def embed_query(self, text: str) -> Vector:
        self.queries.append(text)
        self._querying = True
        try:
            return super().embed_query(text)
        finally:
            self._querying = False


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
    assert (counting._projections is not None) == amx()  # packed where it is used
