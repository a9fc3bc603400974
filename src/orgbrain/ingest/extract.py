"""Turn a file's bytes into text that sections can point into, per format.

md and txt keep their bytes exactly (byte ranges then address the raw file); pdf, docx and
xlsx are rendered into a text of their own, which the indexer stores beside the raw file.
Every library error becomes ``CorruptFile``; sizes over ``Limits`` become ``TooLarge``.
"""

from __future__ import annotations

import codecs
import io
import re
import threading
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime, time
from itertools import zip_longest
from typing import Any

from orgbrain.errors import CorruptFile, OrgBrainError, TooLarge, Unsupported
from orgbrain.ingest.markdown import frontmatter_end, md_headings
from orgbrain.ingest.sniff import FileFormat

__all__ = ["Extracted", "Limits", "extract"]


@dataclass(frozen=True, slots=True)
class Extracted:
    """A file's text plus what the chunker needs to cut and locate sections in it.

    ``text_is_raw`` is true iff ``text.encode()`` equals the file's bytes; ``page_starts``
    (pdf) holds the offset where each page begins; ``sheets`` (xlsx) holds
    ``(name, start, end)`` per visible sheet with content.
    """

    text: str
    text_is_raw: bool
    title: str | None
    structured: bool
    page_starts: tuple[int, ...] = ()
    sheets: tuple[tuple[str, int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class Limits:
    """Caps for hostile input: zip totals and ratios (entries over 1 MiB), text length.

    ``max_text_chars`` is as large as the default file cap (100 MiB), so a text file that
    may be added is never refused here; it bounds text that a container inflates to.
    """

    max_uncompressed_bytes: int = 256 * 1024 * 1024
    max_ratio: float = 200.0
    max_entries: int = 10_000
    max_text_chars: int = 100 * 1024 * 1024


_MIB = 1024 * 1024
_BLOCK_SEP = "\n\n"


def extract(data: bytes, fmt: FileFormat, limits: Limits = Limits()) -> Extracted:
    """Extract the text of ``data`` read as ``fmt`` (see ``sniff.detect_format``).

    Raises only ``OrgBrainError``s for bad input: ``CorruptFile`` (damaged, encrypted,
    empty), ``TooLarge`` (over ``limits``), ``Unsupported`` (no extractor).
    """
    if not data:
        raise CorruptFile(f"{fmt} file is empty")
    # Whatever a damaged file makes a library raise, outside the parsers' own guards too.
    with _reading(fmt):
        if fmt in ("md", "txt"):
            return _text(data, fmt, limits)
        if fmt == "pdf":
            return _pdf(data, limits)
        if fmt == "docx":
            return _docx(data, limits)
        if fmt == "xlsx":
            return _xlsx(data, limits)
    raise Unsupported(f"no extractor for format {fmt!r}")


# --- md / txt ---------------------------------------------------------------------------


def _text(data: bytes, fmt: str, limits: Limits) -> Extracted:
    bom = data.startswith(codecs.BOM_UTF8)
    body = data[len(codecs.BOM_UTF8) :] if bom else data
    if len(body) > 4 * limits.max_text_chars:  # UTF-8 spends at most 4 bytes a char
        raise TooLarge(f"{fmt} file has more than {limits.max_text_chars} characters")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        at = exc.start + (len(codecs.BOM_UTF8) if bom else 0)
        raise CorruptFile(f"{fmt} file is not valid UTF-8 at byte {at}") from exc
    _check_chars(fmt, len(text), limits)
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
    return next((h.title for h in md_headings(text) if h.level == 1), None)


def _yaml_scalar(raw: str) -> str:
    """The plain or quoted one-line scalars titles are written as; block scalars give ""."""
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"":
        inner = raw[1:-1]
        return (inner.replace("''", "'") if raw[0] == "'" else inner.replace('\\"', '"')).strip()
    if raw[:1] in ("|", ">", "'", '"'):
        return ""
    return re.sub(r"[ \t]+#.*$", "", raw).strip()


# --- pdf --------------------------------------------------------------------------------

# PDFium is not thread-safe; an indexer running files in threads must not enter it twice.
_PDFIUM_LOCK = threading.Lock()
_PDF_JUNK = str.maketrans({"\x00": None, "\ufffe": None, "\uffff": None})


def _pdf(data: bytes, limits: Limits) -> Extracted:
    import pypdfium2 as pdfium

    with _PDFIUM_LOCK, _reading("pdf"):
        try:
            doc = pdfium.PdfDocument(data)
        except pdfium.PdfiumError as exc:
            detail = str(exc)
            if "password" in detail.lower() or "security" in detail.lower():
                raise CorruptFile(
                    "pdf is encrypted (password-protected); remove the password and add it again"
                ) from exc
            raise CorruptFile(f"pdf cannot be read: {detail}") from exc
        try:
            out = _Text("pdf", limits)
            page_starts = tuple(out.add(_pdf_page_text(doc, i)) for i in range(len(doc)))
            title = (doc.get_metadata_value("Title") or "").strip() or None
        finally:
            doc.close()
    text = out.text()
    if not text.strip():
        raise CorruptFile("pdf has no text layer (scanned?)")
    return Extracted(
        text=text, text_is_raw=False, title=title, structured=False, page_starts=page_starts
    )


def _pdf_page_text(doc: Any, index: int) -> str:
    page = doc[index]
    try:
        textpage = page.get_textpage()
        try:
            raw: str = textpage.get_text_range()
        finally:
            textpage.close()
    finally:
        page.close()
    return raw.replace("\r\n", "\n").replace("\r", "\n").translate(_PDF_JUNK).strip()


# --- docx -------------------------------------------------------------------------------

# Lines of plain docx text that the markdown chunker would take for structure.
_MD_LOOKALIKE = re.compile(r"^( {0,3})(#{1,6}(?:[ \t]|$)|`{3,}|~{3,})", re.MULTILINE)
_HEADING_STYLE = re.compile(r"heading ([1-9])", re.IGNORECASE)


def _docx(data: bytes, limits: Limits) -> Extracted:
    import docx
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    _check_zip(data, "docx", limits)
    out = _Text("docx", limits)
    first_heading: str | None = None
    with _reading("docx"):
        document = docx.Document(io.BytesIO(data))
        for block in document.iter_inner_content():
            if isinstance(block, Paragraph):
                level = _heading_level(block)
                line = " ".join(block.text.split())
                if level and line:
                    out.add("#" * min(level, 6) + " " + line)
                    first_heading = first_heading or line
                elif block.text.strip():
                    out.add(_MD_LOOKALIKE.sub(r"\1\\\2", block.text))
            elif isinstance(block, Table):
                rows = _table_rows(block)
                if rows:
                    out.add(_MD_LOOKALIKE.sub(r"\1\\\2", "\n".join(rows)))
        title = (document.core_properties.title or "").strip() or first_heading
    text = out.text()
    if text.startswith("---"):  # would read as a frontmatter fence
        text = "\\" + text
    return Extracted(text=text, text_is_raw=False, title=title, structured=True)


def _heading_level(paragraph: Any) -> int:
    style = paragraph.style
    name = (style.name or "") if style is not None else ""
    if name.lower() == "title":
        return 1
    m = _HEADING_STYLE.fullmatch(name)
    return int(m.group(1)) if m else 0


def _table_rows(table: Any) -> list[str]:
    rows: list[str] = []
    for row in table.rows:
        cells: list[str] = []
        previous = None
        for cell in row.cells:
            if previous is not None and cell._tc is previous._tc:
                continue  # a merged cell is repeated once per grid column it spans
            previous = cell
            cells.append(" ".join(cell.text.split()))
        if any(cells):
            rows.append(" | ".join(cells))
    return rows


# --- xlsx -------------------------------------------------------------------------------


def _xlsx(data: bytes, limits: Limits) -> Extracted:
    import openpyxl

    infos = _check_zip(data, "xlsx", limits)
    need_formulas = _has_uncached_formulas(data, infos)
    out = _Text("xlsx", limits)
    sheets: list[tuple[str, int, int]] = []
    with _reading("xlsx"):
        book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        formulas = None
        try:
            if need_formulas:
                # Only when some formula has no cached value: a second pass reads its text.
                formulas = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=False)
            for ws in book.worksheets:
                if ws.sheet_state != "visible":
                    continue
                twin = formulas[ws.title] if formulas is not None else None
                block = "\n".join(_sheet_rows(ws, twin))
                if block:
                    start = out.add(block)
                    sheets.append((ws.title, start, start + len(block)))
            title = (book.properties.title or "").strip() or None
        finally:
            book.close()
            if formulas is not None:
                formulas.close()
    return Extracted(
        text=out.text(), text_is_raw=False, title=title, structured=True, sheets=tuple(sheets)
    )


def _sheet_rows(ws: Any, twin: Any) -> Iterator[str]:
    # The stored dimension can be wrong (some writers always say A1); trust the cells.
    ws.reset_dimensions()
    if twin is None:
        pairs: Iterator[tuple[Any, Any]] = ((row, ()) for row in ws.iter_rows(values_only=True))
    else:
        twin.reset_dimensions()
        pairs = zip_longest(
            ws.iter_rows(values_only=True), twin.iter_rows(values_only=True), fillvalue=()
        )
    for values, formulas in pairs:
        cells: list[str] = []
        for i, value in enumerate(values):
            if value is None and i < len(formulas):
                value = _formula_text(formulas[i])
            cells.append(_cell_text(value))
        while cells and not cells[-1]:
            cells.pop()
        if cells:
            yield "\t".join(cells)


def _formula_text(value: Any) -> str | None:
    if isinstance(value, str) and value.startswith("="):
        return value
    text = getattr(value, "text", None)  # ArrayFormula keeps its formula in .text
    return text if isinstance(text, str) else None


def _cell_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, datetime):
        return value.date().isoformat() if value.time() == time() else value.isoformat()
    if isinstance(value, date | time):
        return value.isoformat()
    return " ".join(str(value).split())


_NS = rb"(?:[A-Za-z_][\w.-]*:)?"
_EMPTY_V = rb"(?:\s*<" + _NS + rb"v\s*/>|\s*<" + _NS + rb"v>\s*</" + _NS + rb"v>)?"
# A formula followed by no value, or an empty one, before its cell closes.
_UNCACHED_FORMULA = re.compile(
    rb"(?:</" + _NS + rb"f>|<" + _NS + rb"f\b[^>]*/>)" + _EMPTY_V + rb"\s*</" + _NS + rb"c>"
)


def _has_uncached_formulas(data: bytes, infos: list[zipfile.ZipInfo]) -> bool:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            for info in infos:
                if info.filename.startswith("xl/worksheets/") and info.filename.endswith(".xml"):
                    if _UNCACHED_FORMULA.search(zf.read(info)):
                        return True
    except Exception as exc:  # zlib.error, NotImplementedError, ... on damage
        raise CorruptFile(f"xlsx cannot be read: {_detail(exc)}") from exc
    return False


# --- shared -----------------------------------------------------------------------------


def _check_zip(data: bytes, fmt: str, limits: Limits) -> list[zipfile.ZipInfo]:
    """Refuse zip bombs before a library inflates anything.

    The sizes come from the central directory, and they hold: Python's zipfile stops
    inflating an entry at its declared size, so a lying header cannot expand further.
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            infos = zf.infolist()
    except Exception as exc:  # zipfile raises many kinds on damage
        raise CorruptFile(f"{fmt} is not a readable zip container: {_detail(exc)}") from exc
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


@contextmanager
def _reading(fmt: str) -> Iterator[None]:
    """Turn whatever a parsing library raises into ``CorruptFile`` naming the format."""
    try:
        yield
    except (OrgBrainError, MemoryError):
        raise
    except Exception as exc:
        raise CorruptFile(f"{fmt} cannot be read: {_detail(exc)}") from exc


def _detail(exc: BaseException) -> str:
    """A library error's message on one line, short; its type when it has none."""
    return " ".join(str(exc).split())[:200] or type(exc).__name__


class _Text:
    """Blocks joined by a blank line; ``add`` returns where the block starts; size capped."""

    def __init__(self, fmt: str, limits: Limits) -> None:
        self._fmt = fmt
        self._limits = limits
        self._parts: list[str] = []
        self._length = 0

    def add(self, block: str) -> int:
        if self._parts:
            self._parts.append(_BLOCK_SEP)
            self._length += len(_BLOCK_SEP)
        start = self._length
        self._parts.append(block)
        self._length += len(block)
        _check_chars(self._fmt, self._length, self._limits)
        return start

    def text(self) -> str:
        return "".join(self._parts)


def _check_chars(fmt: str, count: int, limits: Limits) -> None:
    if count > limits.max_text_chars:
        raise TooLarge(f"{fmt} text has more than {limits.max_text_chars} characters")
