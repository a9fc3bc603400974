"""all-MiniLM-L6-v2's forward pass in plain numpy, read straight from ``model.safetensors``.

Why not torch: ``import sentence_transformers`` alone costs ~12 s of CPU on the 2-core
boxes this runs on, far more than a whole search. This module imports numpy only (the
tokenizer is orgbrain's own, ``wordpiece.py``), maps the weights file instead of reading
it (a query touches a few rows of the 47 MB word-embedding table, not all of it), and
computes what sentence-transformers computes for this model, to float32 rounding: BERT (6
layers, hidden 384, 12 heads, exact erf GELU, LayerNorm eps 1e-12), mean pooling over the
attention mask, L2 normalisation. ``tests/test_embedders.py`` holds it to the
sentence-transformers output.

The weights, and the checks that the folder holds this architecture, are
``minilm_weights.py``'s.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ..errors import Unavailable
from .minilm_weights import F32, Layer, MiniLMWeights, load_minilm, read_safetensors
from .wordpiece import WordPiece

__all__ = [
    "MiniLMNumpy",
    "MiniLMWeights",
    "encode_ids",
    "load_minilm",
    "pad_batch",
    "read_safetensors",
    "token_matrix",
    "token_states",
]

# Abramowitz & Stegun 7.1.26: erfc(z) = poly(t) * exp(-z^2), t = 1 / (1 + p z), z >= 0,
# absolute error under 1.5e-7 (below float32's resolution of erf near 1). numpy has no
# erf, and scipy's would cost an import of scipy.special (~0.2 s) for one function.
_ERF_P = 0.3275911
_ERF_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
# How many token rows go through the feed-forward block at once, so that its 1536-wide
# activations stay in cache through the GELU's dozen passes (64 rows made the matrix
# products ~30% slower, whole batches made the GELU slower; 256 measured best).
_FFN_ROWS = 256
# Up to this many token rows (a query), a projection runs as one product per block of
# BLOCK output columns, each block its own contiguous (in, BLOCK) matrix: OpenBLAS then
# takes its small-matrix path instead of packing the whole weight matrix on every call.
# For a 10-token query that is 2-2.5x faster per product; from ~48 rows on the plain
# product is faster again (measured on the 2-core boxes, one BLAS thread). The results
# are the plain product's bit for bit, except the down projection's (1536 deep, cut in
# blocks of 32): its sums run in another order, ~1e-7 apart (float32 rounding).
_SMALL_ROWS = 32


def encode_ids(weights: MiniLMWeights, ids: NDArray[np.int64], mask: NDArray[np.bool_]) -> F32:
    """Mean-pooled, L2-normalised sentence vectors for one padded batch.

    ``ids`` and ``mask`` are ``(batch, T)``; padded positions have ``mask`` False and take
    no part in attention or pooling, as in sentence-transformers.
    """
    return _mean_pool(token_states(weights, ids, mask), mask)


def token_states(
    weights: MiniLMWeights,
    ids: NDArray[np.int64],
    mask: NDArray[np.bool_],
    types: NDArray[np.int64] | None = None,
) -> F32:
    """The last layer's ``(batch, T, hidden)`` token vectors of one padded batch, before
    pooling: what the sentence vector is the mean of, and what a token-level match
    (``retrieve.answerable``) compares. ``types`` (``(batch, T)``, 0 or 1) marks the
    second text of a pair read together (``minilm_pair``); one text is all type 0."""
    batch, length = ids.shape
    hidden, heads = weights.hidden, weights.heads
    head_dim = hidden // heads
    rows = batch * length
    x = weights.word[ids.reshape(-1)]  # a gather: a fresh, writable array
    x3 = x.reshape(batch, length, hidden)
    x3 += weights.position[:length]
    if types is None:
        x3 += weights.token_type[0]  # one sentence per text: every token type is 0
    else:
        x3 += weights.token_type[types]
    _layer_norm(x, weights.ln_g, weights.ln_b, weights.eps)
    # Padded keys get the most negative float added, as in transformers: exp() of it is 0.
    padded = not bool(mask.all())
    key_bias = np.where(mask, np.float32(0), np.finfo(np.float32).min).astype(np.float32)
    key_bias4 = key_bias[:, None, None, :]
    up_buf = np.empty((min(rows, _FFN_ROWS), weights.layers[0].up_w.shape[0]), np.float32)
    gelu_buf = np.empty((3, *up_buf.shape), np.float32)
    for layer in weights.layers:
        qkv = _project(x, layer.qkv_w.T, layer.qkv_cols)
        qkv += layer.qkv_b
        # (rows, 3 * hidden) -> three (batch, heads, T, head_dim) views, no copies.
        split = qkv.reshape(batch, length, 3, heads, head_dim).transpose(2, 0, 3, 1, 4)
        scores = split[0] @ split[1].transpose(0, 1, 3, 2)
        if padded:
            scores += key_bias4
        _softmax_rows(scores)
        context = (scores @ split[2]).transpose(0, 2, 1, 3).reshape(rows, hidden)
        attended = _project(context, layer.out_w.T, layer.out_cols)
        attended += layer.out_b
        attended += x
        _layer_norm(attended, layer.ln1_g, layer.ln1_b, weights.eps)
        x = attended
        _feed_forward(x, layer, weights.eps, up_buf, gelu_buf)
    out: F32 = x.reshape(batch, length, hidden)
    return out


def _project(x: F32, w: F32, cols: F32 | None) -> F32:
    """``x @ w``; for a few rows through ``w``'s column blocks ``cols``."""
    rows = x.shape[0]
    if cols is None or rows > _SMALL_ROWS:
        out: F32 = x @ w
        return out
    by_block: F32 = np.matmul(x, cols)  # (blocks, rows, BLOCK)
    return by_block.transpose(1, 0, 2).reshape(rows, w.shape[1])


def _feed_forward(x: F32, layer: Layer, eps: float, up_buf: F32, gelu_buf: F32) -> None:
    """``x = LayerNorm(x + down(gelu(up(x))))`` in place, a block of rows at a time."""
    for start in range(0, x.shape[0], _FFN_ROWS):
        rows = x[start : start + _FFN_ROWS]
        n = rows.shape[0]
        up = up_buf[:n]
        if n <= _SMALL_ROWS and layer.up_cols is not None:
            up[...] = _project(rows, layer.up_w.T, layer.up_cols)
        else:
            np.matmul(rows, layer.up_w.T, out=up)
        up += layer.up_b
        _gelu(up, gelu_buf[:, :n])
        down = _project(up, layer.down_w.T, layer.down_cols)
        down += layer.down_b
        down += rows
        _layer_norm(down, layer.ln2_g, layer.ln2_b, eps)
        rows[...] = down


def _gelu(x: F32, scratch: F32) -> None:
    """Exact (erf) GELU in place, as BERT's ``hidden_act="gelu"``.

    gelu(x) = x (1 + erf(x / sqrt 2)) / 2 = (x + |x| erf(|x| / sqrt 2)) / 2, so erf is only
    needed for a non-negative argument, where A&S 7.1.26 applies. ``scratch`` is
    ``(3, *x.shape)``: allocating it per call would cost page faults every time.
    """
    a, t, p = scratch[0], scratch[1], scratch[2]
    np.abs(x, out=a)
    np.multiply(a, np.float32(_ERF_P / math.sqrt(2)), out=t)
    t += np.float32(1)
    np.reciprocal(t, out=t)  # t = 1 / (1 + p z), z = |x| / sqrt 2
    # p = -poly(t) / 2, by Horner
    np.multiply(t, np.float32(-_ERF_A[4] / 2), out=p)
    for coef in reversed(_ERF_A[:4]):
        p += np.float32(-coef / 2)
        p *= t
    np.square(a, out=t)
    t *= np.float32(-0.5)
    np.exp(t, out=t)  # exp(-z^2)
    p *= t
    p += np.float32(0.5)  # erf(z) / 2 = (1 - poly(t) exp(-z^2)) / 2
    p *= a
    x *= np.float32(0.5)
    x += p


def _layer_norm(x: F32, gamma: F32, beta: F32, eps: float) -> None:
    """LayerNorm over the last axis, in place. The means are ``ndarray.mean``'s own
    arithmetic (a float32 sum, then a division by the count) without its Python wrapper,
    which cost more than the sums for a query's few rows."""
    n = np.float32(x.shape[-1])
    mean = np.add.reduce(x, axis=-1, keepdims=True)
    mean /= n
    x -= mean
    var = np.add.reduce(np.square(x), axis=-1, keepdims=True)
    var /= n
    var += np.float32(eps)
    np.sqrt(var, out=var)
    x /= var
    x *= gamma
    x += beta


def _softmax_rows(scores: F32) -> None:
    """Softmax over the last axis, in place; the max is subtracted so exp never overflows.
    (``ndarray.max`` and ``sum``'s own reductions, without their Python wrappers.)"""
    scores -= np.maximum.reduce(scores, axis=-1, keepdims=True)
    np.exp(scores, out=scores)
    scores /= np.add.reduce(scores, axis=-1, keepdims=True)


def _mean_pool(hidden: F32, mask: NDArray[np.bool_]) -> F32:
    """Mean of the unpadded token vectors, then unit length (sentence-transformers' clamps)."""
    weights = mask.astype(np.float32)[:, :, None]
    summed = (hidden * weights).sum(axis=1)
    counts = np.maximum(weights.sum(axis=1), np.float32(1e-9))
    mean = summed / counts
    norms = np.maximum(np.linalg.norm(mean, axis=1, keepdims=True), np.float32(1e-12))
    out: F32 = (mean / norms).astype(np.float32, copy=False)
    return out


def pad_batch(token_ids: Sequence[Sequence[int]]) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
    """``(ids, mask)`` for texts of different lengths, right-padded with id 0."""
    length = max(len(ids) for ids in token_ids)
    ids = np.zeros((len(token_ids), length), dtype=np.int64)
    mask = np.zeros((len(token_ids), length), dtype=np.bool_)
    for row, seq in enumerate(token_ids):
        ids[row, : len(seq)] = seq
        mask[row, : len(seq)] = True
    return ids, mask


class MiniLMNumpy:
    """Texts in, unit-length float32 rows out: the tokenizer and the encoder together.

    Texts are tokenized as sentence-transformers does (the model's own ``tokenizer.json``,
    read by ``WordPiece``, truncated to ``max_seq_length`` tokens), sorted by length so
    that each batch pads little, and cut into batches of at most ``batch_size`` texts and
    ``batch_tokens`` padded tokens (the attention scores of a batch take ``12 * batch * T *
    T`` floats, so a token budget, not a text count, is what keeps them in cache and memory).
    """

    def __init__(self, weights: MiniLMWeights, tokenizer: WordPiece, max_length: int) -> None:
        self.weights = weights
        self.max_length = max_length
        self._tokenizer = tokenizer

    @classmethod
    def from_folder(cls, folder: Path) -> MiniLMNumpy:
        """The model in a sentence-transformers folder: ``config.json``,
        ``model.safetensors``, ``tokenizer.json`` and ``sentence_bert_config.json``."""
        weights = load_minilm(folder)
        tokenizer = WordPiece.from_file(folder / "tokenizer.json")
        try:
            st_config = json.loads((folder / "sentence_bert_config.json").read_text())
            pooling = json.loads((folder / "1_Pooling" / "config.json").read_text())
        except (OSError, ValueError) as exc:
            raise Unavailable(f"cannot read the configs in {folder}: {exc}") from exc
        if not pooling.get("pooling_mode_mean_tokens") or any(
            pooling.get(mode)
            for mode in (
                "pooling_mode_cls_token",
                "pooling_mode_max_tokens",
                "pooling_mode_mean_sqrt_len_tokens",
            )
        ):
            raise Unavailable(f"{folder} pools other than by the mean: not this encoder's model")
        # The file's own truncation and padding (cut at 128, pad to 128) are for another
        # use: padding is done here per batch, and the cut is sentence-transformers'.
        max_length = min(int(st_config.get("max_seq_length", 512)), weights.max_positions)
        return cls(weights, tokenizer, max_length)

    @property
    def tokenizer(self) -> WordPiece:
        return self._tokenizer

    def token_ids(self, texts: Sequence[str]) -> list[list[int]]:
        return [self._tokenizer.ids(text, max_length=self.max_length) for text in texts]

    def encode(
        self,
        texts: Sequence[str],
        *,
        batch_size: int = 64,
        batch_tokens: int = 2048,
        workers: int = 1,
    ) -> F32:
        """``(len(texts), hidden)`` unit rows; batches run on ``workers`` threads."""
        out = np.zeros((len(texts), self.weights.hidden), dtype=np.float32)
        if not texts:
            return out
        ids = self.token_ids(texts)
        order = sorted(range(len(ids)), key=lambda i: -len(ids[i]))
        batches: list[list[int]] = []
        for i in order:
            # Sorted longest first, so the first text of a batch sets its padded length.
            if batches and len(batches[-1]) < batch_size:
                if (len(batches[-1]) + 1) * len(ids[batches[-1][0]]) <= batch_tokens:
                    batches[-1].append(i)
                    continue
            batches.append([i])

        def one(batch: list[int]) -> None:
            out[batch] = encode_ids(self.weights, *pad_batch([ids[i] for i in batch]))

        if workers <= 1 or len(batches) == 1:
            for batch in batches:
                one(batch)
        else:
            # numpy releases the GIL inside its kernels, so threads overlap the work.
            with ThreadPoolExecutor(max_workers=workers) as pool:
                list(pool.map(one, batches))
        return out


def token_matrix(
    model: MiniLMNumpy, texts: Sequence[str], *, batch_tokens: int = 2048
) -> list[tuple[F32, F32, list[int]]]:
    """Per text: its sentence vector (as ``encode``), its unit-length token vectors
    ``(n, hidden)`` and their ids, [CLS] and [SEP] left out; one pass gives both."""
    ids = model.token_ids(texts)
    out: list[tuple[F32, F32, list[int]]] = [None] * len(ids)  # type: ignore[list-item]
    order = sorted(range(len(ids)), key=lambda i: -len(ids[i]))
    at = 0
    while at < len(order):
        width = len(ids[order[at]])
        batch = order[at : at + max(1, batch_tokens // width)]
        at += len(batch)
        padded, mask = pad_batch([ids[i] for i in batch])
        states = token_states(model.weights, padded, mask)
        pooled = _mean_pool(states, mask)
        for row, i in enumerate(batch):
            n = len(ids[i])
            tokens = states[row, 1 : n - 1]
            norms = np.maximum(np.linalg.norm(tokens, axis=1, keepdims=True), np.float32(1e-12))
            out[i] = (pooled[row], (tokens / norms).astype(np.float32), ids[i][1 : n - 1])
    return out
