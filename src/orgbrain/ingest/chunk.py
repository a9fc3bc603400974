"""Cut extracted text into sections: by headings, by sheet, or in flat overlapping windows.

Every chunk is an exact span of ``Extracted.text`` (character and UTF-8 byte offsets), so a
citation can stream back precisely the bytes a section was cut from. The whole text is
always cut: a text that would make more than ``MAX_SECTIONS`` sections (only hostile input
does; 100 MB of prose makes about 130,000) is refused with ``TooLarge``, never truncated.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass

from orgbrain.errors import TooLarge

from .extracted import MAX_SECTIONS, Extracted, at_most
from .markdown import Heading, frontmatter_end, iter_md_headings, md_headings

__all__ = [
    "MAX_CHARS",
    "MAX_SECTIONS",
    "MIN_AVERAGE_CHARS",
    "OVERLAP",
    "SPARSE_FROM",
    "Chunk",
    "Heading",
    "check_density",
    "chunk",
    "flat_windows",
    "frontmatter_end",
    "md_headings",
]

MAX_CHARS = 1000
OVERLAP = 100

# Indexing costs one embedding per section, so a few bytes a section make a small file
# cost hours: a 1 MB markdown of "# h" lines is 250,000 sections. Past ``SPARSE_FROM``
# sections, a file must average ``MIN_AVERAGE_CHARS`` a section (prose averages about 900).
SPARSE_FROM = 1000
MIN_AVERAGE_CHARS = 100


@dataclass(frozen=True, slots=True)
class Chunk:
    ordinal: int
    key: str
    text: str
    char_start: int
    char_end: int
    byte_start: int
    byte_end: int
    heading_path: tuple[str, ...] = ()
    page_start: int | None = None
    page_end: int | None = None
    sheet: str | None = None


_PARAGRAPH_BREAK = re.compile(r"\n(?:[ \t]*\r?\n)+")
_SPACES = (" ", "\t", "\r", "\f", "\v", "\u00a0", "\u3000")


def flat_windows(
    text: str, start: int, end: int, max_chars: int, overlap: int
) -> list[tuple[int, int]]:
    """Pack ``text[start:end]`` into windows of at most ``max_chars`` characters.

    A window ends at the last paragraph break that still moves forward, else the last line
    break, else the last whitespace, else a hard cut. The next one starts inside the last
    ``overlap`` characters of it, on a boundary (``_next_start``): after a sentence end or
    a line break, else at a word, so that no section opens mid-word; only a single word
    longer than that stretch is cut exactly ``overlap`` characters before the end. Windows
    holding only whitespace are skipped; together the others cover every non-blank
    character.
    """
    _check_sizes(max_chars, overlap)
    if not 0 <= start <= end <= len(text):
        raise ValueError(f"bad span {start}..{end} for a text of {len(text)} chars")
    breaks = [m.end() for m in _PARAGRAPH_BREAK.finditer(text, start, end)]
    windows: list[tuple[int, int]] = []
    s = start
    while s < end:
        limit = s + max_chars
        if limit >= end:
            e = end
        else:
            e = _cut(text, breaks, s + overlap, limit)
        if not text[s:e].isspace():
            windows.append((s, e))
        if e >= end:
            break
        s = _next_start(text, s, e - overlap, e)
    return windows


# A run of whitespace followed by something else: the place where a word starts.
_GAP = re.compile(r"\s+(?=\S)")
_SENTENCE_ENDS = frozenset(".!?\u2026\u3002\uff01\uff1f")
_CLOSERS = frozenset("\"')]}\u2019\u201d\u00bb")


def _next_start(text: str, prev: int, lo: int, e: int) -> int:
    """Where the window after ``[prev, e)`` starts, in ``[lo, e]`` (``lo > prev``).

    The first place in ``[lo, e)`` just after a sentence end or a line break, else the
    first word start there; if neither, ``e`` when whitespace precedes it (the stretch is
    the tail of one long word, so overlapping it would open mid-word), else ``lo``: no
    whitespace at all, one word longer than the stretch, cut where it must be.
    """
    if lo >= e:
        return e
    word = -1
    for m in _GAP.finditer(text, lo - 1, e):
        run = m.start()
        while run > prev and text[run - 1].isspace():  # the run may begin before lo - 1
            run -= 1
        if _after_sentence_or_line(text, run, m.end()):
            return m.end()
        if word < 0:
            word = m.end()
    if word >= 0:
        return word
    return e if text[e - 1].isspace() else lo


def _after_sentence_or_line(text: str, run: int, after: int) -> bool:
    """Does the whitespace ``text[run:after]`` hold a line break or follow a sentence end?"""
    if "\n" in text[run:after] or "\r" in text[run:after]:
        return True
    i = run - 1
    while i >= 0 and run - i <= 2 and text[i] in _CLOSERS:
        i -= 1
    return i >= 0 and text[i] in _SENTENCE_ENDS


def _cut(text: str, breaks: list[int], floor: int, limit: int) -> int:
    """Best window end in ``(floor, limit]``; anything past ``floor`` makes progress."""
    i = bisect_right(breaks, limit) - 1
    if i >= 0 and breaks[i] > floor:
        return breaks[i]
    newline = text.rfind("\n", floor, limit)
    if newline >= 0:
        return newline + 1
    space = max(text.rfind(c, floor, limit) for c in _SPACES)
    if space >= 0:
        return space + 1
    return limit


def chunk(
    ex: Extracted,
    *,
    max_chars: int = MAX_CHARS,
    overlap: int = OVERLAP,
    max_sections: int = MAX_SECTIONS,
) -> list[Chunk]:
    """Every section of ``ex``, in file order; ``TooLarge`` if there would be more than
    ``max_sections`` of them (nothing is ever left out)."""
    _check_sizes(max_chars, overlap)
    if max_sections < 0:
        raise ValueError("max_sections must be >= 0")
    if ex.sheets:
        spans = _sheet_spans(ex, max_chars, overlap)
    elif ex.structured:
        found = iter_md_headings(ex.text) if ex.headings is None else ex.headings
        headings = at_most(found, max_sections, f"the text ({len(ex.text)} characters)")
        spans = _heading_spans(ex.text, headings, max_chars, overlap)
    else:
        spans = _flat_spans(ex.text, max_chars, overlap)
    kept: list[_Span] = []
    for span in spans:
        if span.end <= span.start or ex.text[span.start : span.end].isspace():
            continue
        if len(kept) == max_sections:
            raise TooLarge(
                f"the text ({len(ex.text)} characters) would make more than {max_sections} "
                "sections; split the file"
            )
        kept.append(span)
    to_byte = _byte_offsets(ex.text, [o for sp in kept for o in (sp.start, sp.end)])
    chunks: list[Chunk] = []
    for ordinal, sp in enumerate(kept):
        pages = _pages(ex.page_starts, sp.start, sp.end)
        chunks.append(
            Chunk(
                ordinal=ordinal,
                key=sp.key if sp.key is not None else f"p{ordinal}",
                text=ex.text[sp.start : sp.end],
                char_start=sp.start,
                char_end=sp.end,
                byte_start=to_byte[sp.start],
                byte_end=to_byte[sp.end],
                heading_path=sp.path,
                page_start=pages[0],
                page_end=pages[1],
                sheet=sp.sheet,
            )
        )
    return chunks


@dataclass(frozen=True, slots=True)
class _Span:
    start: int
    end: int
    key: str | None  # None: numbered by position once blank spans are dropped
    path: tuple[str, ...] = ()
    sheet: str | None = None


def _flat_spans(text: str, max_chars: int, overlap: int) -> Iterator[_Span]:
    for s, e in flat_windows(text, 0, len(text), max_chars, overlap):
        yield _Span(s, e, None)


def _sheet_spans(ex: Extracted, max_chars: int, overlap: int) -> Iterator[_Span]:
    for name, start, end in ex.sheets:
        for part, (s, e) in enumerate(flat_windows(ex.text, start, end, max_chars, overlap)):
            yield _Span(s, e, f"sheet:{name}#{part}", (name,), name)


def _heading_spans(
    text: str, headings: list[Heading], max_chars: int, overlap: int
) -> Iterator[_Span]:
    bounds = [0] + [h.start for h in headings] + [len(text)]
    paths: list[tuple[str, ...]] = [()]
    stack: list[Heading] = []
    for h in headings:
        while stack and stack[-1].level >= h.level:
            stack.pop()
        stack.append(h)
        paths.append(tuple(x.title for x in stack))
    seen: dict[str, int] = {}
    for i, path in enumerate(paths):
        start, end = bounds[i], bounds[i + 1]
        if start == end or text[start:end].isspace():
            continue
        crumb = " > ".join(path)
        # Count repeats per breadcrumb so editing one section never renames another.
        repeat = seen.get(crumb, 0)
        seen[crumb] = repeat + 1
        suffix = f"~{repeat}" if repeat else ""
        if end - start <= max_chars:
            parts = [(start, end)]
        else:
            parts = flat_windows(text, start, end, max_chars, overlap)
        for part, (s, e) in enumerate(parts):
            yield _Span(s, e, f"{crumb}#{part}{suffix}", path)


def _pages(page_starts: tuple[int, ...], start: int, end: int) -> tuple[int | None, int | None]:
    if not page_starts:
        return None, None
    first = bisect_right(page_starts, start)
    last = bisect_left(page_starts, end)  # the page holding char end-1
    return max(first, 1), max(last, first, 1)


def _byte_offsets(text: str, offsets: list[int]) -> dict[int, int]:
    """UTF-8 byte offset of each char offset, encoding every stretch of text once."""
    if text.isascii():
        return {o: o for o in offsets}
    result: dict[int, int] = {}
    prev_char = prev_byte = 0
    for o in sorted(set(offsets)):
        prev_byte += len(text[prev_char:o].encode("utf-8"))
        prev_char = o
        result[o] = prev_byte
    return result


def check_density(chars: int, sections: int) -> None:
    """``TooLarge`` for a text whose sections are too many for its size (``SPARSE_FROM``);
    the indexer asks, while ``chunk`` itself cuts any text its caller asks for."""
    if sections > SPARSE_FROM and chars < sections * MIN_AVERAGE_CHARS:
        raise TooLarge(
            f"the text would make {sections} sections of {chars // sections} characters on "
            f"average (a heading every line or so); past {SPARSE_FROM} sections a file must "
            f"average {MIN_AVERAGE_CHARS}, so each section is worth its indexing; merge them"
        )


def _check_sizes(max_chars: int, overlap: int) -> None:
    if max_chars < 1:
        raise ValueError("max_chars must be >= 1")
    if not 0 <= overlap < max_chars:
        raise ValueError("overlap must be >= 0 and < max_chars")
