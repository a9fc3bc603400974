"""Markdown structure the extractor and the chunker share: frontmatter and ATX headings."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["Heading", "frontmatter_end", "iter_md_headings", "md_headings"]


@dataclass(frozen=True, slots=True)
class Heading:
    """An ATX heading: where its line starts in the text, its level (1-6) and its title."""

    start: int
    level: int
    title: str


# CommonMark-ish: up to three spaces of indent; `#` alone (an empty heading) is no boundary.
_LINE = re.compile(
    r"^ {0,3}(?:(?P<fence>`{3,}|~{3,})(?P<info>[^\n]*)"
    r"|(?P<hashes>#{1,6})(?:[ \t]+(?P<title>[^\n]*))?)$",
    re.MULTILINE,
)
_FRONTMATTER_OPEN = re.compile(r"---[ \t]*\r?\n")
_FRONTMATTER_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$\n?", re.MULTILINE)


def frontmatter_end(text: str) -> int:
    """Offset just past a leading YAML frontmatter block (``---`` ... ``---``), else 0."""
    opening = _FRONTMATTER_OPEN.match(text)
    if opening is None:
        return 0
    closing = _FRONTMATTER_CLOSE.search(text, opening.end())
    return 0 if closing is None else closing.end()


def md_headings(text: str) -> list[Heading]:
    """ATX headings outside fenced code blocks and outside the frontmatter, in order."""
    return list(iter_md_headings(text))


def iter_md_headings(text: str) -> Iterator[Heading]:
    """``md_headings`` one at a time, so a caller can stop early (a title, a cap)."""
    fence: str | None = None
    for m in _LINE.finditer(text, frontmatter_end(text)):
        marker = m.group("fence")
        if marker is not None:
            info = m.group("info")
            if fence is None:
                if not (marker[0] == "`" and "`" in info):
                    fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence) and not info.strip():
                fence = None
            continue
        if fence is not None:
            continue
        title = _without_closing_hashes((m.group("title") or "").rstrip("\r")).strip()
        if title:
            yield Heading(m.start(), len(m.group("hashes")), title)


def _without_closing_hashes(title: str) -> str:
    """``title`` less an optional closing sequence of ``#`` (alone, or after a space or tab).

    Done with string methods: the regex it replaces backtracked quadratically on a heading
    holding a long run of spaces (20,000 took 8 s).
    """
    body = title.rstrip(" \t")
    bare = body.rstrip("#")
    if len(bare) == len(body) or (bare and bare[-1] not in " \t"):
        return title
    return bare
