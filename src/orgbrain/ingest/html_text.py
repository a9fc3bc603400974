"""HTML: the visible text, with h1-h6 as Markdown headings so that it is cut at them.

Paragraphs and other blocks are separated by a blank line, list items start with "- ",
table rows become lines of cells separated by " | ", ``<pre>`` keeps its lines; scripts,
styles, templates and ``<noscript>`` are dropped; entities are decoded. The title is the
``<title>``, else the first heading.

The tags are found by a small tokenizer of our own rather than ``html.parser``: that one
backtracks quadratically on some broken markup (40,000 characters of ``<a<a<a`` took 9 s
on Python 3.11), and every step here is linear. It reads tags, comments and raw text the
way a browser would, only as far as extracting text needs.
"""

from __future__ import annotations

import html
import re

from .extracted import Extracted, Limits, TextBlocks, decode_utf8, escape_markdown

__all__ = ["read_html"]

# A start or end tag; attribute values in quotes may not hold < or > (possessive: a tag
# that does not close fails at once, and its "<" is read as text).
_TAG = re.compile(
    r"<(?:(?P<end>/)?(?P<name>[A-Za-z][A-Za-z0-9:-]*)"
    r"(?P<attrs>(?:[^<>\"']|\"[^\"<>]*\"|'[^'<>]*')*+)>"
    r"|(?P<comment>!--)|[!?][^<>]*+>)"
)
_RAW_END = {
    name: re.compile(rf"</{name}\b[^>]*>", re.IGNORECASE) for name in ("script", "style", "title")
}
_BLOCKS = frozenset(
    "address article aside blockquote body caption center details dialog dd div dl dt "
    "fieldset figcaption figure footer form header hgroup hr html li main nav ol p section "
    "summary ul".split()
)
_HIDDEN = frozenset({"template", "noscript"})
_HEADINGS = {f"h{n}": n for n in range(1, 7)}


def read_html(data: bytes, limits: Limits) -> Extracted:
    text, _ = decode_utf8(data, "html", limits)
    reader = _Reader(TextBlocks("html", limits))
    reader.read(text)
    out = reader.out.text()
    if out.startswith("---"):  # would read as a frontmatter fence
        out = "\\" + out
    return Extracted(out, text_is_raw=False, title=reader.title, structured=True)


class _Reader:
    def __init__(self, out: TextBlocks) -> None:
        self.out = out
        self.title: str | None = None
        self._first_heading: str | None = None
        self._words: list[str] = []  # the line being read
        self._lines: list[str] = []  # the block being read
        self._heading = 0
        self._row: list[str] | None = None
        self._in_cell = False
        self._pre = 0
        self._hidden = 0
        self._bullet = False

    def read(self, text: str) -> None:
        pos = 0
        unclosed: set[str] = set()  # raw elements with no end tag left in the text
        while pos < len(text):
            lt = text.find("<", pos)
            if lt < 0:
                self._data(text[pos:])
                break
            m = _TAG.match(text, lt)
            if m is None:  # a "<" that starts no markup is text
                self._data(text[pos : lt + 1])
                pos = lt + 1
                continue
            self._data(text[pos:lt])
            pos = m.end()
            name = (m.group("name") or "").lower()
            if m.group("comment"):
                close = text.find("-->", pos)
                pos = len(text) if close < 0 else close + 3
            elif not name:
                continue  # a doctype, CDATA or processing instruction
            elif m.group("end"):
                self._end(name)
            elif name in _RAW_END:
                raw_end = None if name in unclosed else _RAW_END[name].search(text, pos)
                if raw_end is None:
                    # Unclosed: read on as if it were not there, and search no more (each
                    # search would run to the end: quadratic over many such tags).
                    unclosed.add(name)
                    continue
                if name == "title" and self.title is None:
                    self.title = " ".join(html.unescape(text[pos : raw_end.start()]).split())
                pos = raw_end.end()
            else:
                self._start(name, m.group("attrs").rstrip().endswith("/"))
        self._end_row()
        self._flush()
        self.title = self.title or self._first_heading

    def _data(self, raw: str) -> None:
        if not raw or self._hidden or (self._row is not None and not self._in_cell):
            return  # hidden, or the blanks between a table's cells
        self._words.append(html.unescape(raw) if "&" in raw else raw)

    def _start(self, name: str, self_closing: bool) -> None:
        if name in _HIDDEN:
            self._hidden += 0 if self_closing else 1
        elif self._hidden:
            return
        elif name == "br":
            self._words.append(" " if self._row is not None else "\n")
        elif name in _HEADINGS:
            self._flush()
            self._heading = _HEADINGS[name]
        elif name == "tr":
            self._end_row()
            self._row = []
        elif name in ("td", "th"):
            self._end_cell()
            self._in_cell = self._row is not None
        elif name == "table":
            self._end_row()
            self._flush()
        elif name == "pre":
            self._flush()
            self._pre += 1
        elif name in _BLOCKS:
            self._boundary()
            self._bullet = self._bullet or name == "li"

    def _end(self, name: str) -> None:
        if name in _HIDDEN:
            self._hidden = max(0, self._hidden - 1)
        elif self._hidden:
            return
        elif name in _HEADINGS and self._heading:
            self._end_heading()
        elif name in ("td", "th"):
            self._end_cell()
        elif name in ("tr", "table"):
            self._end_row()
            if name == "table":
                self._flush()
        elif name == "pre":
            self._flush()
            self._pre = max(0, self._pre - 1)
        elif name in _BLOCKS:
            self._boundary()
            if name == "li":
                self._bullet = False

    def _boundary(self) -> None:
        """A block starts or ends: a new paragraph, or only a space inside a table cell."""
        if self._row is not None:
            self._words.append(" ")
        else:
            self._flush()

    def _end_heading(self) -> None:
        self._line()
        title = " ".join(" ".join(self._lines).split())
        self._lines = []
        if title:
            self.out.add("#" * self._heading + " " + title)
            self._first_heading = self._first_heading or title
        self._heading = 0

    def _end_cell(self) -> None:
        if self._row is not None and self._in_cell:
            self._row.append(" ".join("".join(self._words).split()))
            self._words = []
        self._in_cell = False

    def _end_row(self) -> None:
        self._end_cell()
        if self._row is not None:
            if any(self._row):
                self._lines.append(" | ".join(self._row))
            self._row = None

    def _line(self) -> None:
        joined = "".join(self._words)
        self._words = []
        if self._pre:
            self._lines += joined.removeprefix("\n").rstrip().split("\n")
        else:
            self._lines += [" ".join(part.split()) for part in joined.split("\n") if part.strip()]

    def _flush(self) -> None:
        """End the block being read: a paragraph, list item, table or ``<pre>``."""
        if self._heading:
            self._line()  # a block inside a heading is part of its title
            return
        self._line()
        block = "\n".join(self._lines).strip("\n")
        self._lines = []
        if block.strip():
            self.out.add(escape_markdown(("- " if self._bullet else "") + block))
            self._bullet = False
