"""all-MiniLM-L6-v2's forward pass in plain numpy, read straight from ``model.safetensors``.

Why not torch: ``import sentence_transformers`` alone costs ~12 s of CPU on the 2-core
boxes this runs on, far more than a whole search. This module imports numpy only (the
tokenizer is orgbrain's own, ``wordpiece.py``), maps the weights file instead of reading
it (a query touches a few rows of the 47 MB word-embedding table, not all of it), and
computes what sentence-transformers computes for this model, to float32 rounding: BERT (6
layers, hidden 384, 12 heads, exact erf GELU, LayerNorm eps 1e-12), mean pooling over the
attention mask, L2 normalisation. ``tests/test_embedders.py`` holds it to the
sentence-transformers output.

The architecture numbers are read from the model folder's ``config.json`` and checked, so
a different checkpoint fails loudly instead of computing something plausible.
"""

from __future__ import annotations

import json
import math
import mmap
import struct
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import Unavailable
from .wordpiece import WordPiece

__all__ = [
    "MiniLMNumpy",
    "MiniLMWeights",
    "encode_ids",
    "load_minilm",
    "pad_batch",
    "read_safetensors",
]

F32 = NDArray[np.float32]
_DTYPES: dict[str, np.dtype[Any]] = {
    "F32": np.dtype("<f4"),
    "F16": np.dtype("<f2"),
    "I64": np.dtype("<i8"),
}
_EXPECTED = {
    "model_type": "bert",
    "hidden_act": "gelu",
    "position_embedding_type": "absolute",
}
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
# _BLOCK output columns, each block its own contiguous (in, _BLOCK) matrix: OpenBLAS then
# takes its small-matrix path instead of packing the whole weight matrix on every call.
# For a 10-token query that is 2-2.5x faster per product; from ~48 rows on the plain
# product is faster again (measured on the 2-core boxes, one BLAS thread). The results
# are the plain product's bit for bit, except the down projection's (1536 deep, cut in
# blocks of 32): its sums run in another order, ~1e-7 apart (float32 rounding).
_SMALL_ROWS = 32
_BLOCK = 64
_DOWN_BLOCK = 32


def read_safetensors(path: Path) -> dict[str, NDArray[Any]]:
    """The tensors of a ``.safetensors`` file as read-only arrays over a memory map.

    The format is an 8-byte little-endian header length, a JSON header naming each
    tensor's dtype, shape and byte range, then the raw bytes. Mapping instead of reading
    means only the pages a forward pass touches are ever loaded.
    """
    try:
        with path.open("rb") as f:
            mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError) as exc:
        raise Unavailable(f"cannot read the model weights {path}: {exc}") from exc
    try:
        (header_len,) = struct.unpack_from("<Q", mapped, 0)
        start = 8 + header_len
        if start > len(mapped):
            raise ValueError(f"the header claims {header_len} bytes, past the end of the file")
        header = json.loads(mapped[8:start])
        if not isinstance(header, dict):
            raise ValueError("the header is not a JSON object")
        tensors: dict[str, NDArray[Any]] = {}
        for name, spec in header.items():
            if name == "__metadata__":
                continue
            dtype = _DTYPES[spec["dtype"]]
            begin, end = spec["data_offsets"]
            shape = tuple(int(n) for n in spec["shape"])
            count = (end - begin) // dtype.itemsize
            if count != math.prod(shape) or start + end > len(mapped):
                raise ValueError(f"tensor {name} does not fit its byte range")
            tensors[name] = np.frombuffer(mapped, dtype, count, start + begin).reshape(shape)
    except (struct.error, KeyError, TypeError, ValueError) as exc:
        raise Unavailable(f"{path} is not a readable safetensors file: {exc}") from exc
    return tensors


@dataclass(frozen=True, slots=True)
class _Layer:
    """One encoder layer. The projections are the file's ``(out, in)`` (views of its map,
    ``x @ w.T`` for a batch) and, for a query's few rows, the same numbers again as
    ``(in, out)`` column blocks (``_blocks``, ``_project``): ~40 MB more memory for six
    layers, and half the CPU of a query's embedding."""

    qkv_w: F32  # (3 * hidden, hidden): query (pre-scaled by 1/sqrt(head_dim)), key, value
    qkv_b: F32
    out_w: F32
    out_b: F32
    ln1_g: F32
    ln1_b: F32
    up_w: F32
    up_b: F32
    down_w: F32
    down_b: F32
    ln2_g: F32
    ln2_b: F32
    qkv_cols: F32 | None = None
    out_cols: F32 | None = None
    up_cols: F32 | None = None
    down_cols: F32 | None = None


@dataclass(frozen=True, slots=True)
class MiniLMWeights:
    word: F32
    position: F32
    token_type: F32
    ln_g: F32
    ln_b: F32
    layers: tuple[_Layer, ...]
    heads: int
    eps: float

    @property
    def hidden(self) -> int:
        return int(self.word.shape[1])

    @property
    def max_positions(self) -> int:
        return int(self.position.shape[0])


def load_minilm(folder: Path) -> MiniLMWeights:
    """The BERT encoder in ``folder`` (``config.json`` and ``model.safetensors``)."""
    try:
        config = json.loads((folder / "config.json").read_text())
    except (OSError, ValueError) as exc:
        raise Unavailable(f"cannot read {folder / 'config.json'}: {exc}") from exc
    for key, want in _EXPECTED.items():
        if config.get(key, want) != want:
            raise Unavailable(
                f"{folder} is not a model this encoder runs: {key} is {config[key]!r}"
            )
    raw = read_safetensors(folder / "model.safetensors")
    prefix = "bert." if "bert.embeddings.word_embeddings.weight" in raw else ""

    def get(name: str) -> F32:
        try:
            tensor = raw[prefix + name]
        except KeyError:
            raise Unavailable(f"{folder / 'model.safetensors'} has no tensor {name}") from None
        # float16 checkpoints become float32 here; float32 ones stay views of the map.
        return np.asarray(tensor, dtype=np.float32)

    hidden = int(config["hidden_size"])
    heads = int(config["num_attention_heads"])
    if hidden % heads:
        raise Unavailable(f"hidden size {hidden} does not split into {heads} heads")
    # Folding the 1/sqrt(head_dim) score scale into the query projection saves a pass
    # over every (heads, T, T) score matrix; the rounding moves the result by ~1e-8.
    scale = np.float32(1.0 / math.sqrt(hidden // heads))
    layers = []
    for i in range(int(config["num_hidden_layers"])):
        p = f"encoder.layer.{i}."
        att = p + "attention."
        layers.append(
            _Layer(
                qkv_w=np.concatenate(
                    [
                        get(att + "self.query.weight") * scale,
                        get(att + "self.key.weight"),
                        get(att + "self.value.weight"),
                    ]
                ),
                qkv_b=np.concatenate(
                    [
                        get(att + "self.query.bias") * scale,
                        get(att + "self.key.bias"),
                        get(att + "self.value.bias"),
                    ]
                ),
                out_w=get(att + "output.dense.weight"),
                out_b=get(att + "output.dense.bias"),
                ln1_g=get(att + "output.LayerNorm.weight"),
                ln1_b=get(att + "output.LayerNorm.bias"),
                up_w=get(p + "intermediate.dense.weight"),
                up_b=get(p + "intermediate.dense.bias"),
                down_w=get(p + "output.dense.weight"),
                down_b=get(p + "output.dense.bias"),
                ln2_g=get(p + "output.LayerNorm.weight"),
                ln2_b=get(p + "output.LayerNorm.bias"),
            )
        )
        layer = layers[-1]
        layers[-1] = replace(
            layer,
            qkv_cols=_blocks(layer.qkv_w, _BLOCK),
            out_cols=_blocks(layer.out_w, _BLOCK),
            up_cols=_blocks(layer.up_w, _BLOCK),
            down_cols=_blocks(layer.down_w, _DOWN_BLOCK),
        )
    weights = MiniLMWeights(
        word=get("embeddings.word_embeddings.weight"),
        position=get("embeddings.position_embeddings.weight"),
        token_type=get("embeddings.token_type_embeddings.weight"),
        ln_g=get("embeddings.LayerNorm.weight"),
        ln_b=get("embeddings.LayerNorm.bias"),
        layers=tuple(layers),
        heads=heads,
        eps=float(config.get("layer_norm_eps", 1e-12)),
    )
    if weights.hidden != hidden:
        raise Unavailable(f"{folder}: word embeddings are {weights.hidden} wide, not {hidden}")
    return weights


def encode_ids(weights: MiniLMWeights, ids: NDArray[np.int64], mask: NDArray[np.bool_]) -> F32:
    """Mean-pooled, L2-normalised sentence vectors for one padded batch.

    ``ids`` and ``mask`` are ``(batch, T)``; padded positions have ``mask`` False and take
    no part in attention or pooling, as in sentence-transformers.
    """
    batch, length = ids.shape
    hidden, heads = weights.hidden, weights.heads
    head_dim = hidden // heads
    rows = batch * length
    x = weights.word[ids.reshape(-1)]  # a gather: a fresh, writable array
    x3 = x.reshape(batch, length, hidden)
    x3 += weights.position[:length]
    x3 += weights.token_type[0]  # one sentence per text: every token type is 0
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
    return _mean_pool(x.reshape(batch, length, hidden), mask)


def _blocks(w: F32, width: int) -> F32 | None:
    """``w.T`` (``w`` is ``(out, in)``) as contiguous column blocks, ``(out / width, in,
    width)``; None when ``out`` does not split into whole blocks."""
    n, k = w.shape
    if n % width:
        return None
    return np.ascontiguousarray(w.reshape(n // width, width, k).transpose(0, 2, 1))


def _project(x: F32, w: F32, cols: F32 | None) -> F32:
    """``x @ w``; for a few rows through ``w``'s column blocks ``cols``."""
    rows = x.shape[0]
    if cols is None or rows > _SMALL_ROWS:
        out: F32 = x @ w
        return out
    by_block: F32 = np.matmul(x, cols)  # (blocks, rows, _BLOCK)
    return by_block.transpose(1, 0, 2).reshape(rows, w.shape[1])


def _feed_forward(x: F32, layer: _Layer, eps: float, up_buf: F32, gelu_buf: F32) -> None:
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
