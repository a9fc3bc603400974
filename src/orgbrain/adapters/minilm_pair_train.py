"""Training a pair reader (``minilm_pair``): the bundled MiniLM's top K layers and a head,
fine-tuned on labelled pairs. Needs torch (the ``torch`` extra); nothing at run time does.

Rows are JSON objects ``{"a": ..., "b": ..., "label": 0 or 1, "group": ...}``: ``group`` is
the organisation (or set) a row comes from, so that ``out_of_fold`` can score every row
with a reader that never saw its group, which is how a judgement that stacks the reader's
logit among its signals must be fitted.

The frozen bottom layers run once per row, in numpy, through the very code the reader
runs in (``minilm_numpy.token_states``); torch trains only the top K layers and the head,
on those states. The weights written are float16, and ``train`` returns the head as
written, so the logits measured are the logits shipped. One thread, a fixed seed and a
fixed batch order per epoch: the same rows give the same file.

    python -m orgbrain.adapters.minilm_pair_train TRAIN.jsonl OUT.npz [--layers 2] ...
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ..errors import InvalidInput, Unavailable
from .embed_minilm import MODEL_NAME, bundled_model_dir
from .minilm_numpy import MiniLMNumpy, pad_batch, token_states
from .minilm_pair import PairHead, head_from, pair_ids, read_pairs
from .minilm_weights import read_safetensors

if TYPE_CHECKING:
    import torch

__all__ = [
    "PairRow",
    "TrainConfig",
    "load_rows",
    "out_of_fold",
    "reference_logits",
    "save_head",
    "train",
]

# The names of one layer's tensors in BERT, without the ``encoder.layer.{i}.`` prefix.
_TENSORS = (
    "attention.self.query",
    "attention.self.key",
    "attention.self.value",
    "attention.output.dense",
    "attention.output.LayerNorm",
    "intermediate.dense",
    "output.dense",
    "output.LayerNorm",
)


@dataclass(frozen=True, slots=True)
class PairRow:
    a: str
    b: str
    label: int
    group: str = ""


@dataclass(frozen=True, slots=True)
class TrainConfig:
    """``layers``: how many top layers to retrain (1-6). ``pos_weight``: the loss weight
    of a positive row (None: negatives / positives, so both classes weigh the same)."""

    layers: int = 2
    epochs: int = 3
    lr: float = 5e-5
    head_lr: float = 1e-3
    batch_size: int = 16
    max_length: int = 128
    dropout: float = 0.1
    pos_weight: float | None = None
    seed: int = 0


def load_rows(path: Path) -> list[PairRow]:
    """The rows of a JSONL file, each checked."""
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            raw = json.loads(line)
            row = PairRow(
                str(raw["a"]), str(raw["b"]), int(raw["label"]), str(raw.get("group", ""))
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise InvalidInput(f"{path}:{n}: not a pair row ({exc})") from exc
        if row.label not in (0, 1):
            raise InvalidInput(f"{path}:{n}: label must be 0 or 1, not {row.label}")
        rows.append(row)
    return rows


def train(
    rows: Sequence[PairRow],
    config: TrainConfig = TrainConfig(),
    *,
    log: Callable[[str], None] | None = None,
) -> dict[str, NDArray[Any]]:
    """A reader fitted on ``rows``: the arrays ``save_head`` writes (float16 tensors and
    ``meta``). Raises ``InvalidInput`` without both labels present."""
    torch = _torch()
    labels = [r.label for r in rows]
    if not (0 < sum(labels) < len(labels)):
        raise InvalidInput("training a pair reader needs both positive and negative rows")
    model = MiniLMNumpy.from_folder(bundled_model_dir())
    depth = len(model.weights.layers)
    if not 1 <= config.layers <= depth:
        raise InvalidInput(f"layers must be 1 to {depth}, not {config.layers}")
    top = list(range(depth - config.layers, depth))
    torch.manual_seed(config.seed)
    torch.set_num_threads(1)
    rng = random.Random(config.seed)

    batches = _bottom_states(model, rows, depth - config.layers, config)
    net = _Reader(torch, _bundled_tensors(top), top, model.weights.hidden, model.weights.heads)
    net.dropout = config.dropout
    positives = sum(labels)
    pos_weight = config.pos_weight or (len(labels) - positives) / positives
    loss_fn = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor(pos_weight))
    optimiser = torch.optim.AdamW(
        [
            {"params": net.layer_params(), "lr": config.lr},
            {"params": net.head_params(), "lr": config.head_lr},
        ],
        weight_decay=0.01,
    )
    for epoch in range(config.epochs):
        order = list(range(len(batches)))
        rng.shuffle(order)
        net.train(True)
        total = 0.0
        for i in order:
            states, bias, target = batches[i]
            optimiser.zero_grad()
            loss = loss_fn(net(states, bias), target)
            loss.backward()
            optimiser.step()
            total += float(loss.detach()) * len(target)
        if log is not None:
            log(f"epoch {epoch + 1}/{config.epochs}: loss {total / len(rows):.4f}")
    return net.export(config.max_length)


def save_head(arrays: Mapping[str, NDArray[Any]], path: Path) -> None:
    """Write a reader's arrays (``train``'s) as one ``.npz``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        # numpy's stubs read any keyword as savez's own ``allow_pickle``.
        np.savez(f, **arrays)  # type: ignore[arg-type]


def out_of_fold(
    rows: Sequence[PairRow],
    fold_of: Mapping[str, int],
    config: TrainConfig = TrainConfig(),
    *,
    log: Callable[[str], None] | None = None,
) -> list[float]:
    """Every row's logit from a reader trained on the other folds' rows (``fold_of`` maps
    a row's group to its fold; a group it does not name is an error)."""
    missing = {r.group for r in rows} - set(fold_of)
    if missing:
        raise InvalidInput(f"groups without a fold: {sorted(missing)}")
    model = MiniLMNumpy.from_folder(bundled_model_dir())
    out = [0.0] * len(rows)
    for fold in sorted(set(fold_of.values())):
        held = [i for i, r in enumerate(rows) if fold_of[r.group] == fold]
        if not held:
            continue
        trained = train([r for r in rows if fold_of[r.group] != fold], config, log=log)
        head = _head_of(trained, model)
        logits = read_pairs(
            model.weights, model.tokenizer, head, [(rows[i].a, rows[i].b) for i in held]
        )
        for i, logit in zip(held, logits, strict=True):
            out[i] = float(logit)
        if log is not None:
            log(f"fold {fold}: {len(held)} rows scored")
    return out


def reference_logits(
    arrays: Mapping[str, NDArray[Any]], pairs: Sequence[tuple[str, str]]
) -> list[float]:
    """The logits torch computes for ``pairs`` with a reader's arrays (as written): what
    the numpy reader (``minilm_pair.read_pairs``) is held to."""
    meta = json.loads(str(arrays["meta"]))
    top = [int(i) for i in meta["layers"]]
    model = MiniLMNumpy.from_folder(bundled_model_dir())
    tensors = {
        k: np.asarray(v, dtype=np.float32)
        for k, v in arrays.items()
        if k != "meta" and not k.startswith("head.")
    }
    torch = _torch()
    net = _Reader(torch, tensors, top, model.weights.hidden, model.weights.heads)
    with torch.no_grad():
        for name in ("head.weight", "head.bias"):
            net.params[name].copy_(torch.from_numpy(arrays[name].astype(np.float32)))
        rows = [PairRow(a, b, 0) for a, b in pairs]
        config = TrainConfig(layers=len(top), max_length=int(meta["max_length"]), batch_size=1)
        batches = _bottom_states(model, rows, top[0], config, by_length=False)
        return [float(net(states, bias)[0]) for states, bias, _ in batches]


def _head_of(arrays: Mapping[str, NDArray[Any]], model: MiniLMNumpy) -> PairHead:
    """The numpy reader of ``train``'s arrays, checked as a shipped file is."""
    weights = model.weights
    return head_from(
        arrays,
        base=MODEL_NAME,
        depth=len(weights.layers),
        head_dim=weights.hidden // weights.heads,
        source="(trained in memory)",
    )


def _torch() -> Any:
    try:
        import torch
    except ImportError as exc:
        raise Unavailable(
            f"training a pair reader needs torch: pip install 'orgbrain[torch]' ({exc})"
        ) from exc
    return torch


def _bundled_tensors(top: Sequence[int]) -> dict[str, NDArray[np.float32]]:
    raw = read_safetensors(bundled_model_dir() / "model.safetensors")
    prefix = "bert." if "bert.embeddings.word_embeddings.weight" in raw else ""
    out: dict[str, NDArray[np.float32]] = {}
    for i in top:
        for name in _TENSORS:
            for part in ("weight", "bias"):
                key = f"encoder.layer.{i}.{name}.{part}"
                out[key] = np.array(raw[prefix + key], dtype=np.float32)
    return out


def _bottom_states(
    model: MiniLMNumpy,
    rows: Sequence[PairRow],
    keep: int,
    config: TrainConfig,
    *,
    by_length: bool = True,
) -> list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
    """Batches of (states after the frozen layers, attention bias, labels), computed once
    for every epoch: rows of similar lengths together (little padding), or in order.
    numpy's BLAS runs on one thread here, as the embedder runs it: on a busy 2-core box
    its threads fought and the frozen layers took 95 ms a pair instead of 19."""
    from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]

    with threadpool_limits(limits=1, user_api="blas"):
        return _states(model, rows, keep, config, by_length=by_length)


def _states(
    model: MiniLMNumpy,
    rows: Sequence[PairRow],
    keep: int,
    config: TrainConfig,
    *,
    by_length: bool,
) -> list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
    torch = _torch()
    bottom = replace(model.weights, layers=model.weights.layers[:keep])
    encoded = [pair_ids(model.tokenizer, r.a, r.b, config.max_length) for r in rows]
    order = list(range(len(rows)))
    if by_length:
        order.sort(key=lambda i: len(encoded[i][0]))
    out = []
    for start in range(0, len(order), config.batch_size):
        batch = order[start : start + config.batch_size]
        ids, mask = pad_batch([encoded[i][0] for i in batch])
        types, _ = pad_batch([encoded[i][1] for i in batch])
        states = token_states(bottom, ids, mask, types)
        bias = np.where(mask, np.float32(0), np.finfo(np.float32).min).astype(np.float32)
        out.append(
            (
                torch.from_numpy(np.ascontiguousarray(states)),
                torch.from_numpy(bias)[:, None, None, :],
                torch.tensor([float(rows[i].label) for i in batch]),
            )
        )
    return out


class _Reader:
    """The top layers and the head in torch, BERT's arithmetic (exact GELU, LayerNorm
    eps 1e-12, masked mean pooling), built from and exported to BERT's tensor names."""

    def __init__(
        self,
        torch: Any,
        tensors: Mapping[str, NDArray[np.float32]],
        top: Sequence[int],
        hidden: int,
        heads: int,
    ) -> None:
        self.torch = torch
        self.top = list(top)
        self.heads = heads
        self.head_dim = hidden // heads
        self.dropout = 0.0
        self.training = False
        self.params = {
            k: torch.nn.Parameter(torch.from_numpy(np.array(v, dtype=np.float32)))
            for k, v in tensors.items()
        }
        self.params["head.weight"] = torch.nn.Parameter(torch.zeros(hidden))
        self.params["head.bias"] = torch.nn.Parameter(torch.zeros(1))

    def layer_params(self) -> list[Any]:
        return [p for k, p in self.params.items() if not k.startswith("head.")]

    def head_params(self) -> list[Any]:
        return [self.params["head.weight"], self.params["head.bias"]]

    def train(self, on: bool) -> None:
        self.training = on

    def __call__(self, x: Any, bias: Any) -> Any:
        f = self.torch.nn.functional
        p = self.params
        batch, length, hidden = x.shape
        for i in self.top:
            n = f"encoder.layer.{i}."

            def lin(name: str, v: Any, n: str = n) -> Any:
                return f.linear(v, p[n + name + ".weight"], p[n + name + ".bias"])

            def norm(name: str, v: Any, n: str = n) -> Any:
                w, b = p[n + name + ".weight"], p[n + name + ".bias"]
                return f.layer_norm(v, (hidden,), w, b, 1e-12)

            def split(v: Any) -> Any:
                return v.view(batch, length, self.heads, self.head_dim).transpose(1, 2)

            q = split(lin("attention.self.query", x))
            k = split(lin("attention.self.key", x))
            v = split(lin("attention.self.value", x))
            scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim) + bias
            context = (scores.softmax(-1) @ v).transpose(1, 2).reshape(batch, length, hidden)
            x = norm("attention.output.LayerNorm", x + lin("attention.output.dense", context))
            up = f.gelu(lin("intermediate.dense", x))
            x = norm("output.LayerNorm", x + lin("output.dense", up))
        keep = (bias[:, 0, 0, :] == 0).to(x.dtype)[:, :, None]
        pooled = (x * keep).sum(1) / keep.sum(1)
        if self.training and self.dropout:
            pooled = f.dropout(pooled, self.dropout)
        return pooled @ p["head.weight"] + p["head.bias"]

    def export(self, max_length: int) -> dict[str, NDArray[Any]]:
        out: dict[str, NDArray[Any]] = {
            k: v.detach().numpy().astype(np.float16) for k, v in self.params.items()
        }
        meta = {"base": MODEL_NAME, "layers": self.top, "max_length": max_length}
        out["meta"] = np.array(json.dumps(meta))
        return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m orgbrain.adapters.minilm_pair_train",
        description="Train a pair reader on labelled pairs (JSONL) and write its .npz.",
    )
    parser.add_argument("rows", type=Path)
    parser.add_argument("out", type=Path)
    defaults = TrainConfig()
    for name in ("layers", "epochs", "batch_size", "max_length", "seed"):
        parser.add_argument(
            f"--{name.replace('_', '-')}", type=int, default=getattr(defaults, name)
        )
    for name in ("lr", "head_lr", "dropout", "pos_weight"):
        parser.add_argument(
            f"--{name.replace('_', '-')}", type=float, default=getattr(defaults, name)
        )
    args = parser.parse_args(argv)
    config = TrainConfig(**{k: getattr(args, k) for k in TrainConfig.__dataclass_fields__})
    arrays = train(load_rows(args.rows), config, log=lambda line: print(line, file=sys.stderr))
    save_head(arrays, args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
