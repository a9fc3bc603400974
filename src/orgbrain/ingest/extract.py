"""Turn a file's bytes into text that sections can point into, per format.

md, txt and rst keep their bytes exactly (byte ranges then address the raw file); pdf,
docx, xlsx, pptx, html, csv and json are rendered into a text of their own, which the
indexer stores beside the raw file (a csv or json that does not parse keeps its own text).
Each format's reader lives in its own module; every library error becomes ``CorruptFile``
and sizes over ``Limits`` become ``TooLarge``.
"""

from __future__ import annotations

from orgbrain.errors import CorruptFile, Unsupported

from .extracted import Extracted, Limits, reading
from .html_text import read_html
from .office import read_docx, read_xlsx
from .pdf import read_pdf
from .slides import read_pptx
from .sniff import FileFormat
from .text import read_csv, read_json, read_text

__all__ = ["Extracted", "Limits", "extract"]

_DEFAULT_LIMITS = Limits()


def extract(data: bytes, fmt: FileFormat, limits: Limits = _DEFAULT_LIMITS) -> Extracted:
    """Extract the text of ``data`` read as ``fmt`` (see ``sniff.detect_format``).

    Raises only ``OrgBrainError``s for bad input: ``CorruptFile`` (damaged, encrypted,
    empty), ``TooLarge`` (over ``limits``), ``Unsupported`` (no extractor).
    """
    if not data:
        raise CorruptFile(f"{fmt} file is empty")
    # Whatever a damaged file makes a library raise, outside the readers' own guards too.
    with reading(fmt):
        if fmt in ("md", "txt", "rst"):
            return read_text(data, fmt, limits)
        if fmt == "pdf":
            return read_pdf(data, limits)
        if fmt == "docx":
            return read_docx(data, limits)
        if fmt == "xlsx":
            return read_xlsx(data, limits)
        if fmt == "pptx":
            return read_pptx(data, limits)
        if fmt == "html":
            return read_html(data, limits)
        if fmt == "csv":
            return read_csv(data, limits)
        if fmt == "json":
            return read_json(data, limits)
    raise Unsupported(f"no extractor for format {fmt!r}")
