"""PDF: the text layer of each page, read with PDFium; pages become ``page_starts``."""

from __future__ import annotations

import threading
from typing import Any

from orgbrain.errors import CorruptFile

from .extracted import Extracted, Limits, TextBlocks, reading

__all__ = ["read_pdf"]

# PDFium is not thread-safe; an indexer running files in threads must not enter it twice.
_PDFIUM_LOCK = threading.Lock()
_PDF_JUNK = str.maketrans({"\x00": None, "\ufffe": None, "\uffff": None})


def read_pdf(data: bytes, limits: Limits) -> Extracted:
    import pypdfium2 as pdfium

    with _PDFIUM_LOCK, reading("pdf"):
        try:
            doc = pdfium.PdfDocument(data)
        except pdfium.PdfiumError as exc:
            why = str(exc)
            if "password" in why.lower() or "security" in why.lower():
                raise CorruptFile(
                    "pdf is encrypted (password-protected); remove the password and add it again"
                ) from exc
            raise CorruptFile(f"pdf cannot be read: {why}") from exc
        try:
            out = TextBlocks("pdf", limits)
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
