"""Two texts read together: a pair reader (a cross-encoder) on the bundled MiniLM.

A bi-encoder compares two vectors made apart; a pair reader puts both texts through one
transformer pass, ``[CLS] a [SEP] b [SEP]``, so each text's tokens attend to the other's:
"the backups run hourly" can look at "every 6 hours" while it is being read. That is the
reading the supersession judge (does b replace a?) and the verdict (does this passage
answer this question?) need and whole-text cosine cannot give.

A reader is the bundled all-MiniLM-L6-v2 with its top K layers replaced and a linear head
on the mean of the last layer's token vectors, giving one logit. Only what differs from
the bundled model ships: K layers and the head, float16, in one ``.npz`` beside the
judgement that uses it (``evals/pair_train.py`` trains it and says how). The bottom
layers, the embeddings and the tokenizer are the embedder's own, so a reader costs ~3.5
MB a layer on disk and nothing more in memory than its K layers.

An ``.npz`` holds BERT's tensors for the layers it replaces, named as in the bundled
model (``encoder.layer.5.attention.self.query.weight``, ...), ``head.weight`` (hidden,),
``head.bias`` (1,), and ``meta``: a JSON object with ``base`` (the model it was trained
on), ``layers`` (the indices replaced), ``max_length`` (tokens of a pair, both texts).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import Unavailable
from .minilm_numpy import pad_batch, token_states
from .minilm_weights import F32, Layer, MiniLMWeights, layer_from
from .wordpiece import WordPiece

__all__ = ["PairHead", "head_from", "load_head", "pair_ids", "read_pairs"]


@dataclass(frozen=True, slots=True)
class PairHead:
    """What a reader changes in the bundled model: its top layers and a head."""

    base: str
    layers: tuple[int, ...]  # the indices of the layers replaced, ascending, the top ones
    replaced: tuple[Layer, ...]
    weight: F32  # (hidden,)
    bias: float
    max_length: int

    def on(self, weights: MiniLMWeights) -> MiniLMWeights:
        """The bundled weights with this head's layers in place of theirs."""
        kept = weights.layers[: len(weights.layers) - len(self.layers)]
        return replace(weights, layers=(*kept, *self.replaced))


def load_head(path: Path, *, base: str, depth: int, head_dim: int) -> PairHead:
    """The reader in ``path``, checked against the model it will run on: trained on
    ``base``, replacing the top of ``depth`` layers."""
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays: dict[str, NDArray[Any]] = {k: z[k] for k in z.files}
    except (OSError, ValueError) as exc:
        raise Unavailable(f"cannot read the pair reader {path}: {exc}") from exc
    return head_from(arrays, base=base, depth=depth, head_dim=head_dim, source=str(path))


def head_from(
    arrays: Mapping[str, NDArray[Any]], *, base: str, depth: int, head_dim: int, source: str
) -> PairHead:
    """A reader from its arrays (as ``load_head`` reads them from a file)."""
    try:
        meta = json.loads(str(arrays["meta"]))
        layers = tuple(int(i) for i in meta["layers"])
        max_length = int(meta["max_length"])
    except (ValueError, KeyError, TypeError) as exc:
        raise Unavailable(f"the pair reader {source} has no readable meta: {exc}") from exc
    if meta.get("base") != base:
        raise Unavailable(
            f"the pair reader {source} was trained on {meta.get('base')!r}, not {base!r}"
        )
    if not layers or layers != tuple(range(depth - len(layers), depth)):
        raise Unavailable(f"the pair reader {source} replaces layers {layers}, not the top ones")

    def get(name: str) -> F32:
        try:
            return np.asarray(arrays[name], dtype=np.float32)
        except KeyError:
            raise Unavailable(f"the pair reader {source} has no tensor {name}") from None

    return PairHead(
        base=base,
        layers=layers,
        replaced=tuple(layer_from(get, f"encoder.layer.{i}.", head_dim) for i in layers),
        weight=get("head.weight"),
        bias=float(get("head.bias")[0]),
        max_length=max_length,
    )


def pair_ids(tokenizer: WordPiece, a: str, b: str, max_length: int) -> tuple[list[int], list[int]]:
    """``[CLS] a [SEP] b [SEP]`` and its token types (0 up to the first ``[SEP]``, then 1),
    cut to ``max_length`` in all by dropping the last token of whichever text is longer
    at each step, the second on a tie (BERT's "longest first")."""
    left, right = tokenizer.tokens(a), tokenizer.tokens(b)
    for _ in range(len(left) + len(right) - max(max_length - 3, 0)):
        (left if len(left) > len(right) else right).pop()
    ids = [tokenizer.cls_id, *left, tokenizer.sep_id, *right, tokenizer.sep_id]
    types = [0] * (len(left) + 2) + [1] * (len(right) + 1)
    return ids, types


def read_pairs(
    weights: MiniLMWeights,
    tokenizer: WordPiece,
    head: PairHead,
    pairs: Sequence[tuple[str, str]],
    *,
    batch_tokens: int = 2048,
) -> NDArray[np.float32]:
    """One logit per ``(a, b)``: the reader's evidence, in log-odds, for whatever it was
    trained to judge of ``b`` against ``a``."""
    out = np.zeros(len(pairs), dtype=np.float32)
    if not pairs:
        return out
    model = head.on(weights)
    encoded = [pair_ids(tokenizer, a, b, head.max_length) for a, b in pairs]
    order = sorted(range(len(encoded)), key=lambda i: -len(encoded[i][0]))
    at = 0
    while at < len(order):
        width = len(encoded[order[at]][0])
        batch = order[at : at + max(1, batch_tokens // width)]
        at += len(batch)
        ids, mask = pad_batch([encoded[i][0] for i in batch])
        types, _ = pad_batch([encoded[i][1] for i in batch])
        states = token_states(model, ids, mask, types)
        keep = mask.astype(np.float32)[:, :, None]
        pooled = (states * keep).sum(axis=1) / keep.sum(axis=1)
        out[batch] = pooled @ head.weight + np.float32(head.bias)
    return out
