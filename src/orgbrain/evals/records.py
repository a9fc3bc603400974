"""The labelled sets' files: JSON Lines, given as a path or shipped in ``evals/data``."""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources
from pathlib import Path

__all__ = ["data_lines"]


def data_lines(path: Path | None, packaged: str) -> Iterator[tuple[int, str]]:
    """Each non-blank line of ``path`` (or, when it is None, of the set ``packaged`` shipped
    with orgbrain), with its line number for the loader's errors."""
    if path is None:
        text = resources.files("orgbrain.evals.data").joinpath(packaged).read_text("utf-8")
    else:
        text = path.read_text("utf-8")
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            yield number, line
