"""Real files for tests: md/txt/pdf/docx/xlsx bytes made with the real writers, and broken ones.

Import as ``from tests.filegen import make_pdf, ...``. Everything returns ``bytes`` and
writes nothing to disk.
"""

from __future__ import annotations

import io
import struct
import zipfile
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path

__all__ = [
    "OLE_MAGIC",
    "TITLE",
    "Block",
    "bad_zip",
    "broken_docx",
    "broken_xlsx",
    "encrypted_pdf",
    "fake_pptx",
    "garbage_pdf",
    "image_only_pdf",
    "make_docx",
    "make_pdf",
    "make_xlsx",
    "make_zip",
    "ole_file",
    "truncated_pdf",
    "with_extract_version",
    "with_zip_entries",
    "zip_bomb_docx",
    "zip_bomb_xlsx",
]

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
# Level for make_docx: the "Title" paragraph style (0 is a plain paragraph, 1-9 headings).
TITLE = -1

# A docx block: (level, text) for a paragraph or heading, or a table as rows of cells.
Block = tuple[int, str] | Sequence[Sequence[str]]

_UNICODE_FONT = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


# --- pdf --------------------------------------------------------------------------------


def make_pdf(
    pages: Sequence[str],
    *,
    title: str | None = None,
    user_password: str | None = None,
    owner_password: str = "owner",
) -> bytes:
    """One PDF page per string (an empty string makes a page without text).

    Latin-1 text uses a core font; other text needs DejaVu Sans on the machine.
    ``user_password`` encrypts the file so that it cannot be opened without it.
    """
    from fpdf import FPDF

    pdf = FPDF()
    if title is not None:
        pdf.set_title(title)
    if user_password is not None:
        pdf.set_encryption(owner_password=owner_password, user_password=user_password)
    if all(_latin1(p) for p in pages):
        pdf.set_font("Helvetica", size=11)
    else:
        pdf.add_font("DejaVu", fname=str(_UNICODE_FONT))
        pdf.set_font("DejaVu", size=11)
    for text in pages:
        pdf.add_page()
        if text:
            pdf.multi_cell(0, 6, text)
    return bytes(pdf.output())


def encrypted_pdf(text: str = "a secret page", password: str = "user") -> bytes:
    """A PDF that needs ``password`` to open."""
    return make_pdf([text], user_password=password)


def truncated_pdf() -> bytes:
    """The first half of a real PDF: the header is right, the rest is missing."""
    whole = make_pdf(["This PDF was cut short in transit.", "Page two."])
    return whole[: len(whole) // 2]


def garbage_pdf() -> bytes:
    """A PDF header followed by noise."""
    return b"%PDF-1.7\n" + bytes(range(256)) * 8


def image_only_pdf() -> bytes:
    """A page with drawing but no text layer, like a scan."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.rect(20, 20, 100, 60, style="F")
    return bytes(pdf.output())


def _latin1(text: str) -> bool:
    try:
        text.encode("latin-1")
    except UnicodeEncodeError:
        return False
    return True


# --- docx -------------------------------------------------------------------------------


def make_docx(blocks: Iterable[Block], *, title: str | None = None) -> bytes:
    """A Word document from blocks in order.

    ``(0, text)`` is a paragraph, ``(n, text)`` a "Heading n" (1-9), ``(TITLE, text)`` the
    "Title" style, and a sequence of rows of cell strings a table. ``title`` sets the core
    property.
    """
    import docx

    document = docx.Document()
    if title is not None:
        document.core_properties.title = title
    for block in blocks:
        if isinstance(block, tuple) and len(block) == 2 and isinstance(block[0], int):
            level, text = block
            if level == 0:
                document.add_paragraph(text)
            else:
                document.add_heading(text, 0 if level == TITLE else level)
        else:
            rows = [list(r) for r in block]
            width = max((len(r) for r in rows), default=1)
            table = document.add_table(rows=len(rows), cols=width)
            for i, row in enumerate(rows):
                for j, cell in enumerate(row):
                    table.cell(i, j).text = cell
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def broken_docx() -> bytes:
    """A zip that claims to be a Word document but whose document part is not XML."""
    return make_zip(
        {
            "[Content_Types].xml": b"<?xml version='1.0'?><Types/>",
            "word/document.xml": b"this is not xml <<<",
        }
    )


# --- xlsx -------------------------------------------------------------------------------


def make_xlsx(
    sheets: Mapping[str, Sequence[Sequence[object]]],
    hidden: Collection[str] = frozenset(),
    *,
    very_hidden: Collection[str] = frozenset(),
    title: str | None = None,
) -> bytes:
    """A workbook with one sheet per key, in order; rows of cell values.

    A string starting with "=" is stored as a formula with no cached value, as openpyxl
    always writes them.
    """
    import openpyxl

    book = openpyxl.Workbook()
    default = book.active
    for name, rows in sheets.items():
        ws = book.create_sheet(name)
        for row in rows:
            ws.append(list(row))
        if name in hidden:
            ws.sheet_state = "hidden"
        if name in very_hidden:
            ws.sheet_state = "veryHidden"
    if sheets and default is not None:
        book.remove(default)
    if title is not None:
        book.properties.title = title
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def broken_xlsx() -> bytes:
    """A zip that claims to be a workbook but whose workbook part is not XML."""
    return make_zip(
        {
            "[Content_Types].xml": b"<?xml version='1.0'?><Types/>",
            "xl/workbook.xml": b"<workbook><sheets><sheet",
        }
    )


# --- zips and other containers ----------------------------------------------------------


def make_zip(entries: Mapping[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, payload in entries.items():
            zf.writestr(name, payload)
    return out.getvalue()


def with_zip_entries(container: bytes, entries: Mapping[str, bytes]) -> bytes:
    """A copy of a zip-based file with extra entries added (deflated)."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(container)) as src,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst,
    ):
        for info in src.infolist():
            dst.writestr(info, src.read(info))
        for name, payload in entries.items():
            dst.writestr(name, payload)
    return out.getvalue()


def with_extract_version(container: bytes, entry: str, version: int) -> bytes:
    """A copy of a zip whose central directory says ``entry`` needs zip ``version`` (times
    ten, as stored) to extract: how a flipped bit makes zipfile raise NotImplementedError."""
    out = bytearray(container)
    at = out.find(b"PK\x01\x02")
    while at >= 0:
        (name_len,) = struct.unpack_from("<H", out, at + 28)
        if out[at + 46 : at + 46 + name_len] == entry.encode():
            struct.pack_into("<H", out, at + 6, version)
            return bytes(out)
        at = out.find(b"PK\x01\x02", at + 46 + name_len)
    raise KeyError(entry)


def zip_bomb_docx(mib: int = 16) -> bytes:
    """A real docx carrying a ``mib`` MiB entry of zeros (about 1000:1 compression)."""
    bomb = {"word/media/bomb.bin": bytes(mib * 1024 * 1024)}
    return with_zip_entries(make_docx([(1, "Bomb"), (0, "looks innocent")]), bomb)


def zip_bomb_xlsx(mib: int = 16) -> bytes:
    """A real xlsx carrying a ``mib`` MiB entry of zeros (about 1000:1 compression)."""
    bomb = {"xl/media/bomb.bin": bytes(mib * 1024 * 1024)}
    return with_zip_entries(make_xlsx({"Sheet": [["looks innocent"]]}), bomb)


def bad_zip() -> bytes:
    """Starts with a zip local-file signature, then nothing a zip reader can use."""
    return b"PK\x03\x04" + b"\x14\x00" + bytes(range(200))


def fake_pptx() -> bytes:
    """The parts that make a zip look like a PowerPoint file (enough for sniffing)."""
    return make_zip(
        {
            "[Content_Types].xml": b"<?xml version='1.0'?><Types/>",
            "ppt/presentation.xml": b"<p:presentation/>",
        }
    )


def ole_file() -> bytes:
    """The compound-file header of legacy .doc/.xls and password-protected Office files."""
    return OLE_MAGIC + bytes(504)
