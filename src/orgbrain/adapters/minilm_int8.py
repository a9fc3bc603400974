"""One query's forward pass with three of its four projections a layer in int8
(numkong's VNNI kernels), for a search's query; documents are still embedded in float32
(``minilm_numpy.encode_ids``).

The attention output, up and down projections (three quarters of a layer's
multiply-adds) are int8 weights with a scale per output channel, packed once
(``quantise``); a projection's input is quantised per token row (absmax) in three numpy
calls and one numkong cast (which rounds and saturates), and the int32 sums come back to
float32 in one multiply that folds both scales. The qkv projection stays float32
(``minilm_numpy``'s column blocks): it is where int8 loses the most (docs/benchmarks.md,
"a lower-precision query embedding"), and with it in int8 too the gate's cosines moved
enough to silence 2 more SciFact queries; without, the four evaluations hold
(docs/benchmarks.md, "the query embedding beside the keyword streams, and in int8").
Everything else (LayerNorm, softmax, GELU, pooling) is ``minilm_numpy``'s float32
arithmetic. A LoCoMo question's vector is within a cosine of ~0.998 of the float32 one
(mean ~0.999).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numkong as nk
import numpy as np

from .minilm_numpy import F32, MiniLMWeights, _gelu, _layer_norm, _softmax_rows
from .minilm_numpy import _project as _project_f32

__all__ = ["Int8Projections", "encode_query", "quantise"]


@dataclass(frozen=True, slots=True)
class _Packed:
    matrix: Any
    """numkong's packed ``(out, in)`` int8 matrix."""
    scale: F32
    """Per output channel: the weight scale over 127 (the activation's absmax times it
    brings a sum back to float32)."""


@dataclass(frozen=True, slots=True)
class Int8Projections:
    """Each layer's (attention output, up, down), quantised."""

    layers: tuple[tuple[_Packed, _Packed, _Packed], ...]


def _pack(w: F32) -> _Packed:
    """``w`` (``(out, in)``) as int8 rows, a symmetric absmax scale per row."""
    absmax = np.abs(w).max(axis=1)
    scale = np.where(absmax > 0, absmax / np.float32(127), np.float32(1)).astype(np.float32)
    q = np.clip(np.rint(w / scale[:, None]), -127, 127).astype(np.int8)
    return _Packed(nk.dots_pack(np.ascontiguousarray(q), dtype="int8"), scale / np.float32(127))


def quantise(weights: MiniLMWeights) -> Int8Projections:
    """The projections of ``weights`` that ``encode_query`` runs in int8, packed (~8 MB)."""
    return Int8Projections(
        tuple(
            (_pack(layer.out_w), _pack(layer.up_w), _pack(layer.down_w)) for layer in weights.layers
        )
    )


_TINY = np.float32(1e-30)


def _project(x: F32, p: _Packed) -> F32:
    """``x @ w.T`` through int8: ``x`` quantised per row, the sums scaled back."""
    absmax = np.abs(x).max(axis=1, keepdims=True)
    np.maximum(absmax, _TINY, out=absmax)  # a row of zeros quantises to zeros
    q = nk.astype(x * (np.float32(127) / absmax), "int8")
    sums = np.asarray(nk.dots_packed(q, p.matrix))
    out: F32 = np.multiply(sums, absmax * p.scale, dtype=np.float32, casting="unsafe")
    return out


def encode_query(weights: MiniLMWeights, q8: Int8Projections, ids: Sequence[int]) -> F32:
    """One text's mean-pooled, L2-normalised vector (``(hidden,)``), three of its
    projections a layer in int8."""
    length = len(ids)
    hidden, heads = weights.hidden, weights.heads
    x = weights.word[np.asarray(ids, dtype=np.int64)]
    x += weights.position[:length]
    x += weights.token_type[0]
    _layer_norm(x, weights.ln_g, weights.ln_b, weights.eps)
    scratch = np.empty((3, length, weights.layers[0].up_w.shape[0]), np.float32)
    for layer, (out_p, up_p, down_p) in zip(weights.layers, q8.layers, strict=True):
        qkv = _project_f32(x, layer.qkv_w.T, layer.qkv_cols)
        qkv += layer.qkv_b
        # (T, 3 * hidden) -> three (heads, T, head_dim) views, no copies.
        split = qkv.reshape(length, 3, heads, hidden // heads).transpose(1, 2, 0, 3)
        scores = split[0] @ split[1].transpose(0, 2, 1)
        _softmax_rows(scores)
        context = (scores @ split[2]).transpose(1, 0, 2).reshape(length, hidden)
        attended = _project(context, out_p)
        attended += layer.out_b
        attended += x
        _layer_norm(attended, layer.ln1_g, layer.ln1_b, weights.eps)
        up = _project(attended, up_p)
        up += layer.up_b
        _gelu(up, scratch)
        x = _project(up, down_p)
        x += layer.down_b
        x += attended
        _layer_norm(x, layer.ln2_g, layer.ln2_b, weights.eps)
    mean = np.add.reduce(x, axis=0) / np.float32(length)
    norm = max(float(np.sqrt(np.dot(mean, mean))), 1e-12)
    out: F32 = (mean / np.float32(norm)).astype(np.float32, copy=False)
    return out
