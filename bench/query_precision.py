"""A query's embedding in lower precision: CPU per query and distance to today's vector.

    python -m bench.query_precision [--questions 500] [--only f32,nk-i8,...]

Today's query path is ``minilm_numpy.encode_ids`` (float32, one BLAS thread). Each
candidate runs the same forward pass with its four projections a layer (qkv, attention
output, up, down) done another way; everything else (LayerNorm, softmax, GELU, pooling)
is the float32 numpy code. Candidates:

- ``nk-bf16``: numkong ``dots_packed`` over bfloat16-packed weights, activations cast to
  bfloat16 per call;
- ``nk-i8``: numkong ``dots_packed`` over int8 weights (a scale per output channel),
  activations quantised per token row (absmax), int32 sums scaled back;
- ``nk-i8-smooth``: the same after SmoothQuant (alpha 0.7): each projection's input
  channels divided by ``s_j = amax(x_j)^0.7 / amax(w_j)^0.3`` and its weight columns
  multiplied by it, ``amax(x_j)`` taken from 300 *other* LoCoMo questions (a calibration
  fitted to one data set);
- ``nk-i8-outliers``: ``nk-i8`` with the 16 input channels of qkv and up that reach the
  largest |x_j| on those 300 questions kept out of the int8 product, in float32 (LLM.int8's
  split, the channels fitted the same way);
- ``torch-bf16``: ``F.linear`` on bfloat16 weights (torch 2.13, oneDNN, one thread);
- ``torch-i8``: ``torch.ao.quantization.quantize_dynamic`` of an ``nn.Linear`` (fbgemm,
  its default qconfig: a scale per weight tensor, activations per call, reduce_range);
- ``torch-i8-full``: the whole forward pass in torch (``F.layer_norm``,
  ``scaled_dot_product_attention``, ``F.gelu``) with fbgemm's
  ``quantized.linear_dynamic`` over per-channel int8 weights, SmoothQuant as above;
- ``no-proj``: the projections replaced by zeros: what the rest of the pass costs;
- ``shipped-bf16``, ``shipped-int8``: ``adapters/minilm_query.encode_query``, the query
  path a search takes (bf16 is the default on a CPU with AMX, int8 but for qkv elsewhere).

Questions are LoCoMo dev's first ``--questions``; every candidate embeds each question in
turn (interleaved, so each one's weights have been pushed out of cache by the others', as a
real search's other work does). Printed: CPU ms a query (``time.thread_time``, min / p50 /
mean), speed-up of the p50 against ``f32``, and the cosine to the ``f32`` vector (min /
mean). Needs torch only for the torch candidates.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

import numkong as nk
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

from bench._common import DATA
from orgbrain.adapters import minilm_numpy as mn
from orgbrain.adapters import minilm_query
from orgbrain.adapters.embed_minilm import bundled_model_dir

LOCOMO = DATA / "locomo" / "locomo-dev.json"
NAMES = ("qkv", "out", "up", "down")
F32 = np.ndarray[Any, np.dtype[np.float32]]
Proj = Callable[[F32, int, str], F32]
Encode = Callable[[list[int]], F32]


def forward(w: mn.MiniLMWeights, proj: Proj) -> Encode:
    """One text's forward pass (``encode_ids``' arithmetic) with ``proj(x, layer, name)``
    computing ``x @ W.T`` for each projection."""

    def encode(ids: list[int]) -> F32:
        length = len(ids)
        heads, hidden = w.heads, w.hidden
        x = w.word[np.asarray(ids)]
        x += w.position[:length]
        x += w.token_type[0]
        mn._layer_norm(x, w.ln_g, w.ln_b, w.eps)
        scratch = np.empty((3, length, w.layers[0].up_w.shape[0]), np.float32)
        for i, layer in enumerate(w.layers):
            qkv = proj(x, i, "qkv")
            qkv += layer.qkv_b
            split = qkv.reshape(length, 3, heads, hidden // heads).transpose(1, 2, 0, 3)
            scores = split[0] @ split[1].transpose(0, 2, 1)
            mn._softmax_rows(scores)
            context = (scores @ split[2]).transpose(1, 0, 2).reshape(length, hidden)
            x2 = proj(context, i, "out")
            x2 += layer.out_b
            x2 += x
            mn._layer_norm(x2, layer.ln1_g, layer.ln1_b, w.eps)
            up = proj(x2, i, "up")
            up += layer.up_b
            mn._gelu(up, scratch)
            x = proj(up, i, "down")
            x += layer.down_b
            x += x2
            mn._layer_norm(x, layer.ln2_g, layer.ln2_b, w.eps)
        mean = x.mean(axis=0)
        out: F32 = mean / np.linalg.norm(mean)
        return out

    return encode


def shipped(w: mn.MiniLMWeights, *, bf16: bool) -> Encode:
    """The query path searches take (``minilm_query``), in the precision asked for."""
    projections = minilm_query.query_projections(w, bf16=bf16)

    def encode(ids: list[int]) -> F32:
        return minilm_query.encode_query(w, projections, ids)

    return encode


def zeros(x: F32, width: int) -> F32:
    return np.zeros((len(x), width), np.float32)


def weight(w: mn.MiniLMWeights, i: int, name: str) -> F32:
    out: F32 = getattr(w.layers[i], name + "_w")
    return out


def smoothing(w: mn.MiniLMWeights, amax: dict[tuple[int, str], F32], alpha: float) -> Any:
    """Per projection, SmoothQuant's input-channel factors."""
    return {
        key: np.maximum(
            amax[key] ** alpha
            / np.maximum(np.abs(weight(w, *key)).max(axis=0), 1e-5) ** (1 - alpha),
            1e-5,
        ).astype(np.float32)
        for key in amax
    }


def calibrate(w: mn.MiniLMWeights, model: mn.MiniLMNumpy, texts: list[str]) -> Any:
    """The largest |x_j| each projection's input channel sees over ``texts``."""
    amax: dict[tuple[int, str], F32] = {}

    def record(x: F32, i: int, name: str) -> F32:
        seen = np.abs(x).max(axis=0)
        amax[i, name] = np.maximum(amax.get((i, name), seen), seen)
        out: F32 = x @ weight(w, i, name).T
        return out

    encode = forward(w, record)
    for ids in model.token_ids(texts):
        encode(ids)
    return amax


def numkong_int8(w: mn.MiniLMWeights, smooth: Any = None, amax: Any = None) -> Proj:
    """int8 projections; ``smooth``: SmoothQuant factors; ``amax``: keep the 16 loudest
    input channels of qkv and up in float32."""
    packs = {}
    for i in range(len(w.layers)):
        for name in NAMES:
            m = weight(w, i, name)
            inv = keep = rest = None
            if smooth is not None:
                m = m * smooth[i, name]
                inv = (1 / smooth[i, name]).astype(np.float32)
            if amax is not None and name in ("qkv", "up"):
                keep = np.sort(np.argsort(-amax[i, name])[:16])
                rest = np.setdiff1d(np.arange(m.shape[1]), keep)
                kept = np.ascontiguousarray(m[:, keep].T)
                m = m[:, rest]
            scale = np.abs(m).max(axis=1) / 127
            q = np.clip(np.rint(m / scale[:, None]), -127, 127).astype(np.int8)
            packed = nk.dots_pack(np.ascontiguousarray(q), dtype="int8")
            split = None if keep is None else (keep, rest, kept)
            packs[i, name] = (packed, scale.astype(np.float32), inv, split)

    def proj(x: F32, i: int, name: str) -> F32:
        packed, w_scale, inv, split = packs[i, name]
        if inv is not None:
            x = x * inv
        part = x if split is None else x[:, split[1]]
        x_scale = np.abs(part).max(axis=1, keepdims=True) / np.float32(127)
        q = np.ascontiguousarray(np.rint(part / x_scale).astype(np.int8))
        y: F32 = np.asarray(nk.dots_packed(q, packed)).astype(np.float32)
        y *= x_scale
        y *= w_scale
        if split is not None:
            y += x[:, split[0]] @ split[2]
        return y

    return proj


def numkong_bf16(w: mn.MiniLMWeights) -> Proj:
    packs = {
        (i, name): nk.dots_pack(nk.astype(weight(w, i, name), "bf16"), dtype="bf16")
        for i in range(len(w.layers))
        for name in NAMES
    }

    def proj(x: F32, i: int, name: str) -> F32:
        return np.asarray(nk.dots_packed(nk.astype(x, "bf16"), packs[i, name]))

    return proj


def torch_candidates(w: mn.MiniLMWeights, smooth: Any) -> dict[str, Encode]:
    import torch
    import torch.nn.functional as F
    from torch.ao.quantization import quantize_dynamic

    torch.set_num_threads(1)
    tensor = {(i, n): torch.tensor(np.array(weight(w, i, n))) for i in range(6) for n in NAMES}
    bf16 = {key: t.bfloat16() for key, t in tensor.items()}
    dynamic = {}
    for key, t in tensor.items():
        linear = torch.nn.Linear(t.shape[1], t.shape[0], bias=False)
        linear.weight.data = t
        dynamic[key] = quantize_dynamic(torch.nn.Sequential(linear), {torch.nn.Linear})

    def proj_bf16(x: F32, i: int, name: str) -> F32:
        with torch.inference_mode():
            y = F.linear(torch.from_numpy(x).bfloat16(), bf16[i, name])
            out: F32 = y.float().numpy()
            return out

    def proj_dynamic(x: F32, i: int, name: str) -> F32:
        with torch.inference_mode():
            out: F32 = dynamic[i, name](torch.from_numpy(x)).numpy()
            return out

    layers = []
    for i, layer in enumerate(w.layers):
        packed = {}
        for name in NAMES:
            m = np.array(weight(w, i, name)) * smooth[i, name]
            scale = torch.tensor(np.abs(m).max(axis=1) / 127, dtype=torch.float64)
            q = torch.quantize_per_channel(
                torch.tensor(m), scale, torch.zeros(m.shape[0], dtype=torch.int64), 0, torch.qint8
            )
            bias = torch.tensor(np.array(getattr(layer, name + "_b")))
            packed[name] = (
                torch.ops.quantized.linear_prepack(q, bias),
                torch.tensor(1 / smooth[i, name]),
            )
        norms = {n: torch.tensor(np.array(getattr(layer, n))) for n in NORMS}
        layers.append((packed, norms))
    word, position = torch.tensor(np.array(w.word)), torch.tensor(np.array(w.position))
    token_type = torch.tensor(np.array(w.token_type[0]))
    ln = (torch.tensor(np.array(w.ln_g)), torch.tensor(np.array(w.ln_b)))
    hidden, heads = w.hidden, w.heads

    def linear(x: Any, pair: Any) -> Any:
        return torch.ops.quantized.linear_dynamic(x * pair[1], pair[0], False)

    def encode_full(ids: list[int]) -> F32:
        with torch.inference_mode():
            t = torch.tensor(ids)
            n = len(ids)
            x = F.layer_norm(word[t] + position[:n] + token_type, (hidden,), *ln, w.eps)
            for packed, norms in layers:
                qkv = linear(x, packed["qkv"]).view(n, 3, heads, -1).permute(1, 2, 0, 3)
                context = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], scale=1.0)
                attended = linear(context.transpose(0, 1).reshape(n, hidden), packed["out"])
                x = F.layer_norm(attended + x, (hidden,), norms["ln1_g"], norms["ln1_b"], w.eps)
                down = linear(F.gelu(linear(x, packed["up"])), packed["down"])
                x = F.layer_norm(down + x, (hidden,), norms["ln2_g"], norms["ln2_b"], w.eps)
            mean = x.mean(0)
            out: F32 = (mean / mean.norm()).numpy()
            return out

    return {
        "torch-bf16": forward(w, proj_bf16),
        "torch-i8": forward(w, proj_dynamic),
        "torch-i8-full": encode_full,
    }


NORMS = ("ln1_g", "ln1_b", "ln2_g", "ln2_b")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--questions", type=int, default=500)
    parser.add_argument("--only", default="", help="comma-separated candidates (f32 always)")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    model = mn.MiniLMNumpy.from_folder(bundled_model_dir())
    w = model.weights
    questions = [q["question"] for c in json.loads(LOCOMO.read_text()) for q in c["qa"]]
    test, held = questions[: args.questions], questions[600:900]
    ids = model.token_ids(test)

    def today(one: list[int]) -> F32:
        out: F32 = mn.encode_ids(w, *mn.pad_batch([one]))[0]
        return out

    with threadpool_limits(1, user_api="blas"):
        amax = calibrate(w, model, held)
        smooth = smoothing(w, amax, 0.7)
        candidates: dict[str, Encode] = {
            "f32": today,
            "nk-bf16": forward(w, numkong_bf16(w)),
            "nk-i8": forward(w, numkong_int8(w)),
            "nk-i8-smooth": forward(w, numkong_int8(w, smooth)),
            "nk-i8-outliers": forward(w, numkong_int8(w, amax=amax)),
            "shipped-bf16": shipped(w, bf16=True),
            "shipped-int8": shipped(w, bf16=False),
            "no-proj": forward(
                w, lambda x, i, n: np.zeros((len(x), len(weight(w, i, n))), np.float32)
            ),
        }
        try:
            candidates.update(torch_candidates(w, smooth))
        except ImportError:
            print("torch is not installed: its candidates are skipped")
        if args.only:
            keep = {"f32", *args.only.split(",")}
            candidates = {k: v for k, v in candidates.items() if k in keep}
        times: dict[str, list[float]] = {k: [] for k in candidates}
        vectors: dict[str, list[F32]] = {k: [] for k in candidates}
        for one in ids[:5]:
            for encode in candidates.values():
                encode(one)
        for one in ids:
            for name, encode in candidates.items():
                start = time.thread_time()
                vector = encode(one)
                times[name].append(time.thread_time() - start)
                vectors[name].append(vector)
    lengths = [len(i) for i in ids]
    print(
        f"{len(ids)} LoCoMo questions, {np.median(lengths):.0f} tokens median, {max(lengths)} max"
    )
    print("| path | CPU ms min | p50 | mean | speed-up (p50) | cosine min | mean |")
    print("|---|---|---|---|---|---|---|")
    base = np.stack(vectors["f32"])
    base_p50 = float(np.median(times["f32"]))
    for name in candidates:
        ms = np.array(times[name]) * 1e3
        v = np.stack(vectors[name])
        cos = (v * base).sum(axis=1) / np.linalg.norm(v, axis=1)
        print(
            f"| {name} | {ms.min():.2f} | {np.median(ms):.2f} | {ms.mean():.2f} "
            f"| {base_p50 * 1e3 / np.median(ms):.2f} | {cos.min():.6f} | {cos.mean():.6f} |"
        )


if __name__ == "__main__":
    main()
