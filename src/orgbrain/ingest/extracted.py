"""What extraction produces, and the guards every format's reader shares.

``Extracted`` is a file's text plus what the chunker needs; ``Limits`` caps hostile input.
The readers (``text``, ``html_text``, ``pdf``, ``office``, ``slides``) build their text
with ``TextBlocks``, wrap their parsing in ``reading`` and check a zip with ``check_zip``.
"""

from __future__ import annotations

import codecs
import io
import re
import zipfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from orgbrain.errors import CorruptFile, OrgBrainError, TooLarge

from .markdown import Heading

__all__ = [
    "BLOCK_SEP",
    "MAX_SECTIONS",
    "Extracted",
    "Limits",
    "TextBlocks",
    "at_most",
    "check_chars",
    "check_zip",
    "decode_utf8",
    "detail",
    "escape_markdown",
    "reading",
]


@dataclass(frozen=True, slots=True)
class Extracted:
    """A file's text plus what the chunker needs to cut and locate sections in it.

    ``text_is_raw`` is true iff ``text.encode()`` equals the file's bytes. ``structured``
    texts are cut at headings: ``headings`` when given (reStructuredText finds its own),
    else the Markdown headings in ``text``. ``page_starts`` (pdf pages, pptx slides) holds
    the offset where each page begins; ``sheets`` (xlsx) holds ``(name, start, end)`` per
    visible sheet with content.
    """

    text: str
    text_is_raw: bool
    title: str | None
    structured: bool
    page_starts: tuple[int, ...] = ()
    sheets: tuple[tuple[str, int, int], ...] = ()
    headings: tuple[Heading, ...] | None = None


# Most sections a file may make; only hostile input comes near (100 MB of prose makes
# about 130,000). Every heading makes a section, so it also caps the headings collected.
MAX_SECTIONS = 250_000


@dataclass(frozen=True, slots=True)
class Limits:
    """Caps for hostile input: zip totals and ratios (entries over 1 MiB), text length,
    headings (each makes a section, so more than ``MAX_SECTIONS`` could never be cut).

    ``max_text_chars`` is as large as the default file cap (100 MiB), so a text file that
    may be added is never refused here; it bounds text that a container inflates to.
    """

    max_uncompressed_bytes: int = 256 * 1024 * 1024
    max_ratio: float = 200.0
    max_entries: int = 10_000
    max_text_chars: int = 100 * 1024 * 1024
    max_headings: int = MAX_SECTIONS


BLOCK_SEP = "\n\n"
_MIB = 1024 * 1024


class TextBlocks:
    """Blocks joined by a blank line; ``add`` returns where the block starts; size capped."""

    def __init__(self, fmt: str, limits: Limits) -> None:
        self._fmt = fmt
        self._limits = limits
        self._parts: list[str] = []
        self._length = 0

    def add(self, block: str) -> int:
        if self._parts:
            self._parts.append(BLOCK_SEP)
            self._length += len(BLOCK_SEP)
        start = self._length
        self._parts.append(block)
        self._length += len(block)
        check_chars(self._fmt, self._length, self._limits)
        return start

    def text(self) -> str:
        return "".join(self._parts)


def at_most(headings: Iterable[Heading], limit: int, what: str) -> list[Heading]:
    """The headings, or ``TooLarge`` as soon as there are more than ``limit`` (each makes a
    section: a text with more could never be cut whole)."""
    kept: list[Heading] = []
    for heading in headings:
        if len(kept) == limit:
            raise TooLarge(f"{what} has more than {limit} headings, each a section; split it")
        kept.append(heading)
    return kept


def check_chars(fmt: str, count: int, limits: Limits) -> None:
    if count > limits.max_text_chars:
        raise TooLarge(f"{fmt} text has more than {limits.max_text_chars} characters")


def decode_utf8(data: bytes, fmt: str, limits: Limits) -> tuple[str, bool]:
    """The text of ``data`` and whether it had a UTF-8 byte-order mark (then dropped)."""
    bom = data.startswith(codecs.BOM_UTF8)
    body = data[len(codecs.BOM_UTF8) :] if bom else data
    if len(body) > 4 * limits.max_text_chars:  # UTF-8 spends at most 4 bytes a char
        raise TooLarge(f"{fmt} file has more than {limits.max_text_chars} characters")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        at = exc.start + (len(codecs.BOM_UTF8) if bom else 0)
        raise CorruptFile(f"{fmt} file is not valid UTF-8 at byte {at}") from exc
    check_chars(fmt, len(text), limits)
    return text, bom


# Lines of plain text that the Markdown chunker would take for structure.
_MD_LOOKALIKE = re.compile(r"^( {0,3})(#{1,6}(?:[ \t]|$)|`{3,}|~{3,})", re.MULTILINE)


def escape_markdown(block: str) -> str:
    """``block`` with a backslash before anything that would read as a Markdown heading or
    fence, for rendered text (docx, html, pptx) whose headings are the only structure."""
    return _MD_LOOKALIKE.sub(r"\1\\\2", block)


@contextmanager
def reading(fmt: str) -> Iterator[None]:
    """Turn whatever a parsing library raises into ``CorruptFile`` naming the format."""
    try:
        yield
    except (OrgBrainError, MemoryError):
        raise
    except Exception as exc:
        raise CorruptFile(f"{fmt} cannot be read: {detail(exc)}") from exc


def detail(exc: BaseException) -> str:
    """A library error's message on one line, short; its type when it has none."""
    return " ".join(str(exc).split())[:200] or type(exc).__name__


def check_zip(data: bytes, fmt: str, limits: Limits) -> list[zipfile.ZipInfo]:
    """Refuse zip bombs before a library inflates anything.

    The sizes come from the central directory, and they hold: Python's zipfile stops
    inflating an entry at its declared size, so a lying header cannot expand further.
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = zf.infolist()
    except Exception as exc:  # zipfile raises many kinds on damage
        raise CorruptFile(f"{fmt} is not a readable zip container: {detail(exc)}") from exc
    if len(infos) > limits.max_entries:
        raise TooLarge(f"{fmt} has {len(infos)} zip entries (limit {limits.max_entries})")
    total = sum(i.file_size for i in infos)
    if total > limits.max_uncompressed_bytes:
        raise TooLarge(
            f"{fmt} would expand to {total} bytes (limit {limits.max_uncompressed_bytes})"
        )
    for info in infos:
        ratio = info.file_size / max(info.compress_size, 1)
        if info.file_size > _MIB and ratio > limits.max_ratio:
            raise TooLarge(
                f"{fmt} entry {info.filename!r} expands {ratio:.0f}:1 "
                f"(limit {limits.max_ratio:.0f}:1); refusing a likely zip bomb"
            )
    return infos
