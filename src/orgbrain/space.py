"""The embedding space a brain's vectors live in: the model, its dimension, and the text
prefixes it puts before queries and passages (e5-style models want "query: " and
"passage: "; MiniLM wants none).

Vectors from two spaces cannot be compared: a query embedded by one model ranks nothing
embedded by another, even at the same dimension. So each brain records its space when it
is created, and a brain opened with an embedder of another space is refused with both
spaces named (``check_space``), rather than answering with noise. ``orgbrain reembed``
moves a brain to another space (``jobs/reembed.py``).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from .errors import Conflict

__all__ = ["EmbeddingSpace", "check_space", "check_stored_width", "space_of"]


@dataclass(frozen=True, slots=True)
class EmbeddingSpace:
    model: str
    dim: int
    query_prefix: str = ""
    passage_prefix: str = ""

    def describe(self) -> str:
        prefixes = (
            f", prefixes {self.query_prefix!r}/{self.passage_prefix!r}"
            if self.query_prefix or self.passage_prefix
            else ""
        )
        return f"{self.model} ({self.dim} dims{prefixes})"

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> EmbeddingSpace:
        data = json.loads(text)
        return cls(
            str(data["model"]),
            int(data["dim"]),
            str(data.get("query_prefix", "")),
            str(data.get("passage_prefix", "")),
        )


def space_of(name: str, dim: int, prefixes: tuple[str, str] = ("", "")) -> EmbeddingSpace:
    """The space of an embedder that names its model ``name`` (two adapters of one model,
    ``minilm`` and ``minilm-torch``, give the same name: the same vectors)."""
    return EmbeddingSpace(name, dim, *prefixes)


def _way_out(wanted: EmbeddingSpace, recorded: EmbeddingSpace) -> str:
    return (
        f"set the embedder it was built with ({recorded.model}), or move the brain to "
        f"{wanted.model} with `orgbrain reembed --to <embedder>`"
    )


def check_space(recorded: EmbeddingSpace, wanted: EmbeddingSpace) -> None:
    """Refuse to serve a brain recorded in ``recorded`` with an embedder of ``wanted``."""
    if recorded != wanted:
        raise Conflict(
            f"this brain's vectors are in the embedding space {recorded.describe()}, but "
            f"the embedder is {wanted.describe()}: {_way_out(wanted, recorded)}"
        )


def check_stored_width(floats: int | None, wanted: EmbeddingSpace) -> None:
    """For a brain written before spaces were recorded: its first stored embedding holds
    ``floats`` floats (its own vector, then maybe its passages'), which must be whole
    vectors of ``wanted``'s dimension for the brain to adopt ``wanted``."""
    if floats is not None and floats % wanted.dim:
        raise Conflict(
            f"this brain holds vectors of another dimension than {wanted.dim} "
            f"({floats} floats), so not from {wanted.model}: set the embedder it was built "
            "with, or move the brain with `orgbrain reembed --to <embedder>`"
        )
