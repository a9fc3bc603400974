"""The facade's reading side: a file's raw bytes (whole, a byte range, a section, a
version) and a cited passage shown where it stands in its file."""

from __future__ import annotations

from collections.abc import Iterator

from ..context import BrainContext
from ..errors import InvalidInput, NotFound
from ..model import Item, Passage
from .history import read_version

__all__ = ["PASSAGE_AROUND", "ReadingFacade"]

PASSAGE_AROUND = 600
"""How many bytes of a file's text a passage shows on each side of a cited range."""


class ReadingFacade:
    """``Brain``'s file and passage reads (one class of the facade)."""

    _ctx: BrainContext

    def read_file(
        self,
        item_id: str,
        *,
        section: int | str | None = None,
        version: int | None = None,
        start: int = 0,
        end: int | None = None,
    ) -> Iterator[bytes]:
        """Stream a file's raw bytes, a section's exact range, or a section item's range.

        ``section`` is a section's ordinal (1-based, as shown) or id within the file.
        ``version`` reads the raw bytes of one of the file's versions (``history``
        numbers them; sections are cut from the current version only). ``start`` and
        ``end`` (half-open) read only those bytes of the raw file, from the blob store
        itself (a ranged GET on S3), not by skipping.
        """
        if version is not None:
            if section is not None:
                raise InvalidInput("sections are cut from the current version: give one")
            return read_version(self._ctx, item_id, version, start, end)
        item = self._ctx.get(item_id)
        if item.storage_class == "file" and section is None:
            assert item.blob_key is not None
            return self._ctx.blobs.stream(item.blob_key, start, end)
        if (start, end) != (0, None):
            raise InvalidInput("a byte range reads a file's raw bytes; a section is read whole")
        if item.storage_class == "section":
            target = item
        elif item.storage_class == "file":
            assert section is not None
            target = _section_of(self._ctx, item, section)
        else:
            raise InvalidInput(f"{item.id} is a {item.storage_class}; it has no file to read")
        if target.text_key is None or target.byte_range is None:
            raise NotFound(f"{target.id} has no stored text range")
        return self._ctx.blobs.stream(
            target.text_key, target.byte_range.start, target.byte_range.end
        )

    def passage(self, item_id: str, *, around: int = PASSAGE_AROUND) -> Passage:
        """A visible item's text in its place: a section's exact byte range with up to
        ``around`` bytes of the file's text on each side (what a citation points at, shown
        where it stands); a file's opening text; a note's or entity's body."""
        if not 0 <= around <= 64 * 1024:
            raise InvalidInput("around is 0 to 65536 bytes")
        item = self._ctx.get(item_id)
        if item.storage_class == "section" and item.text_key and item.byte_range:
            r = item.byte_range
            lo = max(0, r.start - around)
            data = b"".join(self._ctx.blobs.stream(item.text_key, lo, r.end + around))
            cut, tail = r.start - lo, r.end - lo
            at_start, at_end = lo == 0, len(data) < tail + around
            return Passage(
                item.id,
                _edge(data[:cut], trim_start=not at_start),
                data[cut:tail].decode("utf-8", "replace"),
                _edge(data[tail:], trim_end=not at_end),
                r,
                item.locator,
                at_start=at_start,
                at_end=at_end,
            )
        if item.storage_class == "file" and item.text_key:
            want = 4 * around
            head = b"".join(self._ctx.blobs.stream(item.text_key, 0, want))
            at_end = len(head) < want
            text = _edge(head, trim_end=not at_end)
            return Passage(item.id, "", text, "", None, item.locator, at_end=at_end)
        return Passage(item.id, "", item.body, "", item.byte_range, item.locator)


def _section_of(ctx: BrainContext, file: Item, section: int | str) -> Item:
    sections = ctx.sections_of(ctx.get(file.id).id)
    if isinstance(section, int) or (section.isascii() and section.isdigit()):
        n = int(section)
        if not 1 <= n <= len(sections):
            raise NotFound(f"{file.id} has {len(sections)} sections; no section {n}")
        return sections[n - 1]
    for s in sections:
        if s.id == section:
            return s
    raise NotFound(f"no section {section} in {file.id}")


def _edge(data: bytes, *, trim_start: bool = False, trim_end: bool = False) -> str:
    """Text cut out of the middle of a file: a character split by the cut is dropped, and
    so is the partial line at a cut, when the piece holds a whole line besides."""
    text = data.decode("utf-8", "ignore")
    if trim_start and "\n" in text[:-1]:
        text = text[text.index("\n") + 1 :]
    if trim_end and "\n" in text[1:]:
        text = text[: text.rindex("\n", 1) + 1]
    return text
