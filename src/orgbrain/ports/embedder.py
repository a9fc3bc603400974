"""Text to vectors: the ``Embedder`` port and its optional abilities."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "Embedder",
    "PairReader",
    "PrefixedEmbedder",
    "QueryEmbedder",
    "TokenEmbedder",
    "TokenVectors",
    "Vector",
]


Vector = NDArray[np.float32]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit-length vectors of a fixed dimension. ``name`` names the
    model (two adapters giving the same vectors give the same name). A model that wants
    text before queries and passages states it as ``prefixes`` (``PrefixedEmbedder``);
    an embedder without it puts none."""

    @property
    def name(self) -> str: ...

    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> Vector:
        """Return an ``(len(texts), dim)`` float32 array of L2-normalised rows."""
        ...


@runtime_checkable
class QueryEmbedder(Embedder, Protocol):
    """An embedder with a cheaper path for one search query (lower precision, say): its
    vector only ranks documents that ``embed`` gave theirs, so it may differ from
    ``embed([text])[0]`` by rounding, never in meaning."""

    def embed_query(self, text: str) -> Vector:
        """``text``'s ``(dim,)`` float32 unit vector."""
        ...


@runtime_checkable
class PrefixedEmbedder(Embedder, Protocol):
    @property
    def prefixes(self) -> tuple[str, str]:
        """(query prefix, passage prefix): e5-style models want ("query: ", "passage: ")."""
        ...


class TokenVectors(NamedTuple):
    """One text as a token-level model reads it: its sentence vector (``embed``'s),
    its unit-length token vectors ``(n, dim)`` and the tokens as the model spells them
    (word pieces: "##ing"), the model's own markers left out."""

    sentence: Vector
    tokens: Vector
    pieces: tuple[str, ...]


@runtime_checkable
class TokenEmbedder(Embedder, Protocol):
    """An embedder that can also say what each token of a text became, for a match of
    question and passage token by token (``retrieve.answerable``)."""

    def embed_tokens(self, texts: Sequence[str]) -> list[TokenVectors]: ...


@runtime_checkable
class PairReader(Protocol):
    """An embedder whose model can also read two texts together, through a trained head
    shipped beside the judgement that uses it (``adapters/minilm_pair``): the supersession
    judge's "does b replace a?", the verdict's "does this passage answer this question?".
    A head trained on another model is refused (``Unavailable``)."""

    def read_pairs(self, head: Path, pairs: Sequence[tuple[str, str]]) -> Vector:
        """One float32 logit per ``(a, b)``."""
        ...
