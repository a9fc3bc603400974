"""Real files for tests: md/txt/pdf/docx/xlsx bytes made with the real writers, and broken ones.

pptx has no writer installed, so ``make_pptx`` writes the package's XML parts itself, as
PowerPoint lays them out (the parts a reader needs; no masters or layouts). Import as
``from tests.filegen import make_pdf, ...``. Everything returns ``bytes`` and writes
nothing to disk.
"""

from __future__ import annotations

import io
import struct
import zipfile
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

__all__ = [
    "OLE_MAGIC",
    "TITLE",
    "Block",
    "Slide",
    "bad_zip",
    "broken_docx",
    "broken_xlsx",
    "encrypted_pdf",
    "fake_pptx",
    "garbage_pdf",
    "image_only_pdf",
    "make_docx",
    "make_pdf",
    "make_pptx",
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


# --- pptx -------------------------------------------------------------------------------

# A slide: its title (None: no title shape), then body blocks in order: a string is a text
# box's paragraph ("\n" in it is a line break), a sequence of rows of cells a table.
Slide = tuple[str | None, Sequence[str | Sequence[Sequence[str]]]]

_NS_P = "http://schemas.openxmlformats.org/presentationml/2006/main"
_NS_A = "http://schemas.openxmlformats.org/drawingml/2006/main"
_NS_R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_NS_REL = "http://schemas.openxmlformats.org/package/2006/relationships"
_REL_TYPE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
_PML = "application/vnd.openxmlformats-officedocument.presentationml"
_XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'


def make_pptx(
    slides: Sequence[Slide],
    *,
    notes: Mapping[int, str] | None = None,
    hidden: Collection[int] = (),
    order: Sequence[int] | None = None,
    title: str | None = None,
) -> bytes:
    """A PowerPoint package with one slide part per entry of ``slides``.

    ``notes`` maps a slide's index to its speaker notes, ``hidden`` holds indexes of hidden
    slides, ``order`` the presentation order of the slide parts (their indexes; default as
    given), ``title`` the core title property.
    """
    notes = notes or {}
    order = list(range(len(slides))) if order is None else list(order)
    parts: dict[str, str] = {}
    overrides = [("/ppt/presentation.xml", f"{_PML}.presentation.main+xml")]
    pres_rels = []
    for i, (slide_title, blocks) in enumerate(slides):
        n = i + 1
        parts[f"ppt/slides/slide{n}.xml"] = _slide_xml(slide_title, blocks, i in hidden, n)
        overrides.append((f"/ppt/slides/slide{n}.xml", f"{_PML}.slide+xml"))
        pres_rels.append((f"rId{n + 1}", "slide", f"slides/slide{n}.xml"))
        slide_rels = [("rId1", "slideLayout", "../slideLayouts/slideLayout1.xml")]
        if i in notes:
            parts[f"ppt/notesSlides/notesSlide{n}.xml"] = _notes_xml(notes[i], n)
            overrides.append((f"/ppt/notesSlides/notesSlide{n}.xml", f"{_PML}.notesSlide+xml"))
            slide_rels.append(("rId2", "notesSlide", f"../notesSlides/notesSlide{n}.xml"))
        parts[f"ppt/slides/_rels/slide{n}.xml.rels"] = _rels_xml(slide_rels)
    ids = "".join(f'<p:sldId id="{256 + k}" r:id="rId{i + 2}"/>' for k, i in enumerate(order))
    parts["ppt/presentation.xml"] = (
        f'{_XML_HEAD}<p:presentation xmlns:a="{_NS_A}" xmlns:r="{_NS_R}" xmlns:p="{_NS_P}">'
        f"<p:sldMasterIdLst/><p:sldIdLst>{ids}</p:sldIdLst>"
        '<p:sldSz cx="12192000" cy="6858000"/><p:notesSz cx="6858000" cy="9144000"/>'
        "</p:presentation>"
    )
    parts["ppt/_rels/presentation.xml.rels"] = _rels_xml(pres_rels)
    parts["_rels/.rels"] = _rels_xml([("rId1", "officeDocument", "ppt/presentation.xml")])
    core = "" if title is None else f"<dc:title>{escape(title)}</dc:title>"
    parts["docProps/core.xml"] = (
        f"{_XML_HEAD}<cp:coreProperties xmlns:cp="
        '"http://schemas.openxmlformats.org/package/2006/metadata/core-properties" '
        f'xmlns:dc="http://purl.org/dc/elements/1.1/">{core}</cp:coreProperties>'
    )
    types = "".join(f'<Override PartName="{p}" ContentType="{t}"/>' for p, t in overrides)
    parts["[Content_Types].xml"] = (
        f'{_XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.'
        'relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>'
        f"{types}</Types>"
    )
    first = {"[Content_Types].xml": parts.pop("[Content_Types].xml")}
    return make_zip({name: xml.encode() for name, xml in {**first, **parts}.items()})


def _rels_xml(rels: Iterable[tuple[str, str, str]]) -> str:
    body = "".join(
        f'<Relationship Id="{rid}" Type="{_REL_TYPE}{kind}" Target="{target}"/>'
        for rid, kind, target in rels
    )
    return f'{_XML_HEAD}<Relationships xmlns="{_NS_REL}">{body}</Relationships>'


def _paragraphs(text: str) -> str:
    runs = "<a:br/>".join(
        f'<a:r><a:rPr lang="en-US"/><a:t>{escape(line)}</a:t></a:r>' for line in text.split("\n")
    )
    return f"<a:p>{runs}</a:p>"


def _shape(shape_id: int, name: str, placeholder: str, body: str) -> str:
    return (
        f'<p:sp><p:nvSpPr><p:cNvPr id="{shape_id}" name={quoteattr(name)}/><p:cNvSpPr/>'
        f"<p:nvPr>{placeholder}</p:nvPr></p:nvSpPr><p:spPr/>"
        f"<p:txBody><a:bodyPr/><a:lstStyle/>{body}</p:txBody></p:sp>"
    )


def _table(shape_id: int, rows: Sequence[Sequence[str]]) -> str:
    trs = "".join(
        '<a:tr h="370840">'
        + "".join(f"<a:tc><a:txBody><a:bodyPr/>{_paragraphs(c)}</a:txBody></a:tc>" for c in row)
        + "</a:tr>"
        for row in rows
    )
    return (
        f'<p:graphicFrame><p:nvGraphicFramePr><p:cNvPr id="{shape_id}" name="Table"/>'
        "<p:cNvGraphicFramePr/><p:nvPr/></p:nvGraphicFramePr><p:xfrm/><a:graphic>"
        '<a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/table">'
        f"<a:tbl><a:tblGrid/>{trs}</a:tbl></a:graphicData></a:graphic></p:graphicFrame>"
    )


def _slide_xml(
    title: str | None, blocks: Sequence[str | Sequence[Sequence[str]]], hidden: bool, n: int
) -> str:
    shapes = []
    if title is not None:
        shapes.append(_shape(2, "Title 1", '<p:ph type="title"/>', _paragraphs(title)))
    for k, block in enumerate(blocks, start=3):
        if isinstance(block, str):
            body = "".join(_paragraphs(p) for p in block.split("\n\n"))
            shapes.append(_shape(k, f"Content {k}", f'<p:ph idx="{k}"/>', body))
        else:
            shapes.append(_table(k, block))
    number = f'<a:p><a:fld id="{{1}}" type="slidenum"><a:t>{n}</a:t></a:fld></a:p>'
    shapes.append(_shape(99, "Slide Number", '<p:ph type="sldNum" idx="12"/>', number))
    show = ' show="0"' if hidden else ""
    return (
        f'{_XML_HEAD}<p:sld xmlns:a="{_NS_A}" xmlns:r="{_NS_R}" xmlns:p="{_NS_P}"{show}>'
        '<p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/>'
        f"</p:nvGrpSpPr><p:grpSpPr/>{''.join(shapes)}</p:spTree></p:cSld></p:sld>"
    )


def _notes_xml(text: str, n: int) -> str:
    image = _shape(2, "Slide Image", '<p:ph type="sldImg"/>', "")
    body = _shape(3, "Notes", '<p:ph type="body" idx="1"/>', _paragraphs(text))
    number = _shape(4, "Number", '<p:ph type="sldNum" idx="5"/>', _paragraphs(str(n)))
    return (
        f'{_XML_HEAD}<p:notes xmlns:a="{_NS_A}" xmlns:r="{_NS_R}" xmlns:p="{_NS_P}">'
        '<p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/>'
        f"</p:nvGrpSpPr><p:grpSpPr/>{image}{body}{number}</p:spTree></p:cSld></p:notes>"
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
