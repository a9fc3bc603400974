"""One search query's forward pass with its projections in lower precision (numkong's
kernels), documents still embedded in float32 (``minilm_numpy.encode_ids``).

Which precision depends on the CPU (``query_projections``):

- with AMX (Intel Sapphire Rapids and later), every projection in **bfloat16**: the
  weights packed once, a projection's input cast per call, float32 sums. A query's
  vector is within a cosine of 0.99999 of the float32 one, at ~2.5x less CPU for the
  pass (docs/benchmarks.md, "the query embedding in bf16 or int8").
- without, three projections a layer in **int8** (attention output, up and down: three
  quarters of a layer's multiply-adds): int8 weights with a scale per output channel,
  the input quantised per token row (absmax) in three numpy calls and one numkong cast
  (which rounds and saturates), the int32 sums brought back in one multiply that folds
  both scales. bf16 computes at float32's rate there (docs/benchmarks.md, "a
  lower-precision query embedding"), int8 at twice it. The qkv projection stays float32
  (``minilm_numpy``'s column blocks): in int8 it is where the precision goes, and it
  moved the gate's cosines enough to silence 2 more SciFact queries. A LoCoMo question's
  vector is within a cosine of ~0.998 of the float32 one (mean ~0.999); int8 sums are
  exact, so this path gives the same vector on every CPU that runs it.

The rest of the pass is float32 arithmetic in fewer numpy calls than ``minilm_numpy``'s
(a query's arrays are ~11 rows, so a call's overhead is most of its cost):

- GELU, ``x Phi(x)``, looks ``Phi`` (the normal CDF, ``(1 + erf(x / sqrt 2)) / 2``) up:
  the up projection's output (bias added) is rounded to float16 and its 16 bits index a
  table of ``Phi`` at every float16 value (256 KB, built once); the product is with the
  unrounded ``x``. float16 keeps 11 significant bits and ``Phi``'s slope is at most 0.4,
  so the look-up is closer than the bfloat16 (8 bits) that the down projection's input
  is cast to next. Three calls, against ``minilm_numpy._gelu``'s twenty-one passes.
- The attention softmax subtracts the largest score of all heads and rows (one
  contiguous reduction) rather than each row's own, and sums rows by a product with a
  column of ones; a row whose sum would come out tiny (its scores more than ~40 below
  the largest) is done per row, as before.

Every LoCoMo, SciFact, LongMemEval and facts query's vector is within a cosine of
0.99999 of the per-row, twenty-one-pass version (docs/benchmarks.md, "session 7").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numkong as nk
import numpy as np

from .minilm_numpy import _layer_norm, _softmax_rows
from .minilm_numpy import _project as _project_f32
from .minilm_weights import F32, MiniLMWeights

__all__ = ["QueryProjections", "amx", "encode_query", "query_projections"]


class _Projection(Protocol):
    def __call__(self, x: F32) -> F32:
        """``x @ w.T``."""
        ...


@dataclass(frozen=True, slots=True)
class _F32:
    w: F32
    """``(in, out)``: the file's ``(out, in)`` transposed."""
    cols: F32 | None

    def __call__(self, x: F32) -> F32:
        return _project_f32(x, self.w, self.cols)


@dataclass(frozen=True, slots=True)
class _Bf16:
    matrix: Any
    """numkong's packed ``(out, in)`` bfloat16 matrix."""

    def __call__(self, x: F32) -> F32:
        out: F32 = np.asarray(nk.dots_packed(nk.astype(x, "bf16"), self.matrix))
        return out

    @classmethod
    def of(cls, w: F32) -> _Bf16:
        return cls(nk.dots_pack(nk.astype(np.ascontiguousarray(w), "bf16"), dtype="bf16"))


_TINY = np.float32(1e-30)


@dataclass(frozen=True, slots=True)
class _Int8:
    matrix: Any
    """numkong's packed ``(out, in)`` int8 matrix."""
    scale: F32
    """Per output channel: the weight scale over 127 (the activation's absmax times it
    brings a sum back to float32)."""

    def __call__(self, x: F32) -> F32:
        absmax = np.abs(x).max(axis=1, keepdims=True)
        np.maximum(absmax, _TINY, out=absmax)  # a row of zeros quantises to zeros
        q = nk.astype(x * (np.float32(127) / absmax), "int8")
        sums = np.asarray(nk.dots_packed(q, self.matrix))
        out: F32 = np.multiply(sums, absmax * self.scale, dtype=np.float32, casting="unsafe")
        return out

    @classmethod
    def of(cls, w: F32) -> _Int8:
        """``w`` (``(out, in)``) as int8 rows, a symmetric absmax scale per row."""
        absmax = np.abs(w).max(axis=1)
        scale = np.where(absmax > 0, absmax / np.float32(127), np.float32(1)).astype(np.float32)
        q = np.clip(np.rint(w / scale[:, None]), -127, 127).astype(np.int8)
        packed = nk.dots_pack(np.ascontiguousarray(q), dtype="int8")
        return cls(packed, scale / np.float32(127))


@dataclass(frozen=True, slots=True)
class QueryProjections:
    """Each layer's (qkv, attention output, up, down) projections, and their precision."""

    layers: tuple[tuple[_Projection, _Projection, _Projection, _Projection], ...]
    precision: str
    """``bf16`` or ``int8`` (int8 but for qkv, in float32)."""
    phi: F32
    """``phi_table()``."""


def phi_table() -> F32:
    """The normal CDF ``(1 + erf(h / sqrt 2)) / 2`` of every float16 ``h``, as float32,
    indexed by ``h``'s 16 bits (NaN at NaN)."""
    h = np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float64).tolist()
    erf = np.fromiter(map(math.erf, (v / math.sqrt(2) for v in h)), np.float64, count=len(h))
    out: F32 = ((1.0 + erf) / 2.0).astype(np.float32)
    return out


def amx() -> bool:
    """Whether numkong runs its AMX kernels on this CPU."""
    return bool(nk.get_capabilities().get("sapphireamx"))


def query_projections(weights: MiniLMWeights, *, bf16: bool | None = None) -> QueryProjections:
    """The projections ``encode_query`` runs, packed once (~10-20 MB): bfloat16 where
    ``bf16`` (default: where the CPU has AMX), else int8 but for qkv."""
    if bf16 is None:
        bf16 = amx()
    if bf16:
        return QueryProjections(
            tuple(
                (_Bf16.of(L.qkv_w), _Bf16.of(L.out_w), _Bf16.of(L.up_w), _Bf16.of(L.down_w))
                for L in weights.layers
            ),
            "bf16",
            phi_table(),
        )
    return QueryProjections(
        tuple(
            (_F32(L.qkv_w.T, L.qkv_cols), _Int8.of(L.out_w), _Int8.of(L.up_w), _Int8.of(L.down_w))
            for L in weights.layers
        ),
        "int8",
        phi_table(),
    )


_SUM_FLOOR = np.float32(math.exp(-40))
"""A softmax row whose exponentials, taken against the largest score of all rows, sum
below this is redone against its own largest (nothing of it is lost below float32's
normal range, ~e^-87, above this)."""


def _softmax(scores: F32) -> None:
    """Softmax over the last axis of ``(heads, T, T)``, in place."""
    top = np.maximum.reduce(scores, axis=None)
    shifted = scores - top
    np.exp(shifted, out=shifted)
    sums = shifted @ np.ones((scores.shape[-1], 1), np.float32)
    if np.minimum.reduce(sums, axis=None) < _SUM_FLOOR:
        _softmax_rows(scores)
        return
    np.divide(shifted, sums, out=scores)


def encode_query(weights: MiniLMWeights, projections: QueryProjections, ids: Sequence[int]) -> F32:
    """One text's mean-pooled, L2-normalised vector (``(hidden,)``), through
    ``projections``."""
    length = len(ids)
    hidden, heads = weights.hidden, weights.heads
    x = weights.word[np.asarray(ids, dtype=np.int64)]
    x += weights.position[:length]
    x += weights.token_type[0]
    _layer_norm(x, weights.ln_g, weights.ln_b, weights.eps)
    width = weights.layers[0].up_w.shape[0]
    halves = np.empty((length, width), np.float16)
    bits = halves.view(np.uint16)
    cdf = np.empty((length, width), np.float32)
    phi = projections.phi
    for layer, (qkv_p, out_p, up_p, down_p) in zip(weights.layers, projections.layers, strict=True):
        qkv = qkv_p(x)
        qkv += layer.qkv_b
        # (T, 3 * hidden) -> three (heads, T, head_dim) views, no copies.
        split = qkv.reshape(length, 3, heads, hidden // heads).transpose(1, 2, 0, 3)
        scores = split[0] @ split[1].transpose(0, 2, 1)
        _softmax(scores)
        context = (scores @ split[2]).transpose(1, 0, 2).reshape(length, hidden)
        attended = out_p(context)
        attended += layer.out_b
        attended += x
        _layer_norm(attended, layer.ln1_g, layer.ln1_b, weights.eps)
        up = up_p(attended)
        up += layer.up_b
        nk.astype(up, "f16", out=halves)  # GELU: up * Phi(up), Phi looked up
        phi.take(bits, out=cdf, mode="wrap")
        up *= cdf
        x = down_p(up)
        x += layer.down_b
        x += attended
        _layer_norm(x, layer.ln2_g, layer.ln2_b, weights.eps)
    mean = np.add.reduce(x, axis=0) / np.float32(length)
    norm = max(float(np.sqrt(np.dot(mean, mean))), 1e-12)
    out: F32 = (mean / np.float32(norm)).astype(np.float32, copy=False)
    return out
