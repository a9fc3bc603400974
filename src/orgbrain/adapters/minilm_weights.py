"""all-MiniLM-L6-v2's weights, read straight from ``model.safetensors`` over a memory map.

Mapping the file instead of reading it means a query touches a few rows of the 47 MB
word-embedding table, not all of it. The architecture numbers are read from the model
folder's ``config.json`` and checked, so a different checkpoint fails loudly instead of
computing something plausible. The forward pass over these weights is
``minilm_numpy.py``'s.
"""

from __future__ import annotations

import json
import math
import mmap
import struct
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import Unavailable

__all__ = [
    "BLOCK",
    "F32",
    "Layer",
    "MiniLMWeights",
    "layer_from",
    "load_minilm",
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

# A query's projections run as one product per block of BLOCK output columns
# (``minilm_numpy._project``); the down projection (1536 deep) in blocks of 32.
BLOCK = 64
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
class Layer:
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
    layers: tuple[Layer, ...]
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
    layers = tuple(
        layer_from(get, f"encoder.layer.{i}.", hidden // heads)
        for i in range(int(config["num_hidden_layers"]))
    )
    weights = MiniLMWeights(
        word=get("embeddings.word_embeddings.weight"),
        position=get("embeddings.position_embeddings.weight"),
        token_type=get("embeddings.token_type_embeddings.weight"),
        ln_g=get("embeddings.LayerNorm.weight"),
        ln_b=get("embeddings.LayerNorm.bias"),
        layers=layers,
        heads=heads,
        eps=float(config.get("layer_norm_eps", 1e-12)),
    )
    if weights.hidden != hidden:
        raise Unavailable(f"{folder}: word embeddings are {weights.hidden} wide, not {hidden}")
    return weights


def layer_from(get: Callable[[str], F32], p: str, head_dim: int) -> Layer:
    """One encoder layer from BERT's tensors named ``p`` + its usual names (``get`` gives
    each as float32): the bundled model's, or a pair reader's retrained top layers."""
    # Folding the 1/sqrt(head_dim) score scale into the query projection saves a pass
    # over every (heads, T, T) score matrix; the rounding moves the result by ~1e-8.
    scale = np.float32(1.0 / math.sqrt(head_dim))
    att = p + "attention."
    layer = Layer(
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
    return replace(
        layer,
        qkv_cols=_blocks(layer.qkv_w, BLOCK),
        out_cols=_blocks(layer.out_w, BLOCK),
        up_cols=_blocks(layer.up_w, BLOCK),
        down_cols=_blocks(layer.down_w, _DOWN_BLOCK),
    )


def _blocks(w: F32, width: int) -> F32 | None:
    """``w.T`` (``w`` is ``(out, in)``) as contiguous column blocks, ``(out / width, in,
    width)``; None when ``out`` does not split into whole blocks."""
    n, k = w.shape
    if n % width:
        return None
    return np.ascontiguousarray(w.reshape(n // width, width, k).transpose(0, 2, 1))
