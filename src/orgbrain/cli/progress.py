"""A progress bar on stderr for long work, only when a person is watching."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from .render import plural

__all__ = ["progress", "work_progress"]

Step = Callable[[str], None]


def _quiet(_label: str) -> None:
    return None


@contextmanager
def progress(total: int, description: str, *, enabled: bool = True) -> Iterator[Step]:
    """Yield ``step(label)``, to call once per unit of work done.

    Draws a transient bar when stderr is a terminal and ``enabled``; otherwise (piped,
    ``--json``) does nothing, so output stays clean for programs.
    """
    if not enabled or total < 1 or not sys.stderr.isatty():
        yield _quiet
        return
    bar = Progress(
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    with bar:
        task = bar.add_task(description, total=total)

        def step(label: str) -> None:
            bar.update(task, advance=1, description=f"{description} {label}"[:60])

        yield step


@contextmanager
def work_progress(
    total_bytes: int, description: str, *, enabled: bool = True
) -> Iterator[Callable[[float, float], None]]:
    """Yield ``advance(bytes, sections)``: a bar over the files' bytes that moves section by
    section and says how many sections are in and how long is left (ETA)."""
    if not enabled or total_bytes < 1 or not sys.stderr.isatty():
        yield lambda _b, _s: None
        return
    bar = Progress(
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        TextColumn("{task.fields[sections]}", markup=False),
        TimeElapsedColumn(),
        TextColumn("ETA", markup=False),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    with bar:
        task = bar.add_task(description, total=total_bytes, sections=plural(0, "section"))
        counted = 0.0

        def advance(nbytes: float, sections: float) -> None:
            nonlocal counted
            counted += sections
            bar.update(task, advance=nbytes, sections=plural(round(counted), "section"))

        yield advance
