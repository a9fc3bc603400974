"""Word and Excel: docx paragraphs, headings and tables; xlsx visible sheets, row by row.

A docx becomes Markdown-shaped text (its headings as ``#`` lines, anything else that would
read as structure escaped), so it is cut at its headings; each visible xlsx sheet is a
span of its own (``Extracted.sheets``), cut into several sections when it is long.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Iterator
from datetime import date, datetime, time
from itertools import zip_longest
from typing import Any

from orgbrain.errors import CorruptFile

from .extracted import Extracted, Limits, TextBlocks, check_zip, detail, escape_markdown, reading

__all__ = ["read_docx", "read_xlsx"]

_HEADING_STYLE = re.compile(r"heading ([1-9])", re.IGNORECASE)


def read_docx(data: bytes, limits: Limits) -> Extracted:
    import docx
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    check_zip(data, "docx", limits)
    out = TextBlocks("docx", limits)
    first_heading: str | None = None
    with reading("docx"):
        document = docx.Document(io.BytesIO(data))
        for block in document.iter_inner_content():
            if isinstance(block, Paragraph):
                level = _heading_level(block)
                line = " ".join(block.text.split())
                if level and line:
                    out.add("#" * min(level, 6) + " " + line)
                    first_heading = first_heading or line
                elif block.text.strip():
                    out.add(escape_markdown(block.text))
            elif isinstance(block, Table):
                rows = _table_rows(block)
                if rows:
                    out.add(escape_markdown("\n".join(rows)))
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


def read_xlsx(data: bytes, limits: Limits) -> Extracted:
    import openpyxl

    infos = check_zip(data, "xlsx", limits)
    need_formulas = _has_uncached_formulas(data, infos)
    out = TextBlocks("xlsx", limits)
    sheets: list[tuple[str, int, int]] = []
    with reading("xlsx"):
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
        raise CorruptFile(f"xlsx cannot be read: {detail(exc)}") from exc
    return False
