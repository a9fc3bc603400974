"""reStructuredText section titles, found cheaply and without docutils.

A title is a one-line paragraph under a line of one repeated punctuation character at least
as long as it (and at least three), optionally with the same line over it as well. Levels
follow the order in which each style (character, overlined or not) first appears, as in
docutils.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .markdown import Heading

__all__ = ["rst_headings"]

# A line of one punctuation character, repeated, from column 1.
_ADORNMENT = re.compile(r"^([!-/:-@\[-`{-~])\1*[ \t]*\r?$", re.MULTILINE)
_MIN_WIDTH = 3


def rst_headings(text: str) -> Iterator[Heading]:
    """Section titles in order; ``Heading.start`` is where the overline or title begins."""
    styles: dict[tuple[str, bool], int] = {}
    for m in _ADORNMENT.finditer(text):
        under = m.group().rstrip()
        if m.start() == 0 or len(under) < _MIN_WIDTH:
            continue
        title_start, title_line = _line_before(text, m.start())
        title = title_line.strip()
        if not title or _ADORNMENT.fullmatch(title_line) or len(title_line.rstrip()) > len(under):
            continue
        start, overlined = title_start, False
        if title_start > 0:
            above_start, above = _line_before(text, title_start)
            if above.rstrip() == under:
                start, overlined = above_start, True
            elif above.strip():
                continue  # the last line of a longer paragraph, not a title
        if not overlined and title_line[:1] in (" ", "\t"):
            continue  # an indented line (a quote, a literal block) is no title
        level = styles.setdefault((under[0], overlined), len(styles) + 1)
        yield Heading(start, level, " ".join(title.split()))


def _line_before(text: str, line_start: int) -> tuple[int, str]:
    """Start and text (without its line break) of the line that ends at ``line_start``."""
    end = line_start - 1  # the "\n" ending that line
    start = text.rfind("\n", 0, end) + 1
    return start, text[start:end].rstrip("\r")
