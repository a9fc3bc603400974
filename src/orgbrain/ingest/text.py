"""Text formats: md, txt and rst keep their bytes; csv and json are rendered.

Markdown and reStructuredText are cut at their headings, plain text in flat windows; their
text is the file's own (less a UTF-8 byte-order mark), so byte ranges address the raw file.
A csv becomes its rows as lines, cells separated by tabs (the header row stays the first
line); a json value is pretty-printed. Either falls back to the file's own text when it
does not parse, so a file named .csv or .json is never refused for its syntax.
"""

from __future__ import annotations

import csv
import io
import json
import re

from .extracted import Extracted, Limits, at_most, check_chars, decode_utf8
from .markdown import frontmatter_end, iter_md_headings
from .rst import rst_headings

__all__ = ["read_csv", "read_json", "read_text"]


def read_text(data: bytes, fmt: str, limits: Limits) -> Extracted:
    """md, txt or rst: the file's own text."""
    text, bom = decode_utf8(data, fmt, limits)
    if fmt == "rst":
        headings = tuple(at_most(rst_headings(text), limits.max_headings, "rst"))
        title = headings[0].title if headings else None
        return Extracted(text, not bom, title, structured=True, headings=headings)
    return Extracted(
        text=text,
        text_is_raw=not bom,
        title=_md_title(text) if fmt == "md" else None,
        structured=fmt == "md",
    )


_YAML_TITLE = re.compile(r"title:[ \t]*(?P<value>.*?)[ \t]*$")


def _md_title(text: str) -> str | None:
    end = frontmatter_end(text)
    for line in text[:end].splitlines()[1:-1]:
        m = _YAML_TITLE.match(line)
        if m is not None:
            value = _yaml_scalar(m.group("value"))
            if value:
                return value
    return next((h.title for h in iter_md_headings(text) if h.level == 1), None)


def _yaml_scalar(raw: str) -> str:
    """The plain or quoted one-line scalars titles are written as; block scalars give ""."""
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        inner = raw[1:-1]
        return (inner.replace("''", "'") if raw[0] == "'" else inner.replace('\\"', '"')).strip()
    if raw[:1] in ("|", ">", "'", '"'):
        return ""
    return re.sub(r"[ \t]+#.*$", "", raw).strip()


# --- csv --------------------------------------------------------------------------------

_DELIMITERS = ",;\t|"


def read_csv(data: bytes, limits: Limits) -> Extracted:
    """Rows as lines of tab-separated cells (whitespace in a cell folded to one space),
    blank rows dropped. The delimiter is the one of , ; tab | that the first line holds
    most of (a comma when it holds none)."""
    text, bom = decode_utf8(data, "csv", limits)
    first_line = text[: text.find("\n")] if "\n" in text else text
    delimiter = max(_DELIMITERS, key=first_line.count)
    if first_line.count(delimiter) == 0:
        delimiter = ","
    lines: list[str] = []
    length = 0
    try:
        for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter):
            cells = [" ".join(cell.split()) for cell in row]
            while cells and not cells[-1]:
                cells.pop()
            if cells:
                line = "\t".join(cells)
                lines.append(line)
                length += len(line) + 1
                check_chars("csv", length, limits)
    except csv.Error:  # a field over csv's size limit, say: keep the text as it is
        return Extracted(text, not bom, None, structured=False)
    return Extracted("\n".join(lines), text_is_raw=False, title=None, structured=False)


# --- json -------------------------------------------------------------------------------


def read_json(data: bytes, limits: Limits) -> Extracted:
    """The value pretty-printed (two-space indent, non-ASCII kept); invalid JSON (comments,
    several values, a trailing comma) or JSON nested too deep to print, as the file's own
    text."""
    text, bom = decode_utf8(data, "json", limits)
    try:
        pretty = _pretty_json(json.loads(text), limits)
    except (ValueError, RecursionError):
        return Extracted(text, not bom, None, structured=False)
    return Extracted(pretty, text_is_raw=False, title=None, structured=False)


def _pretty_json(value: object, limits: Limits) -> str:
    # The encoder yields tiny pieces: join them a mebibyte at a time, checking the size.
    stretches: list[str] = []
    pending: list[str] = []
    pending_chars = total = 0
    for piece in json.JSONEncoder(indent=2, ensure_ascii=False).iterencode(value):
        pending.append(piece)
        pending_chars += len(piece)
        if pending_chars >= 1 << 20:
            stretches.append("".join(pending))
            total += pending_chars
            pending, pending_chars = [], 0
            check_chars("json", total, limits)
    stretches.append("".join(pending))
    check_chars("json", total + pending_chars, limits)
    return "".join(stretches)
