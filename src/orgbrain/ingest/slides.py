"""PowerPoint (pptx): one section per visible slide, read from the package's XML.

A pptx is a zip of XML parts, so no presentation library is needed: the slide order comes
from ``ppt/presentation.xml`` and its relationships, each slide's text from its shapes'
paragraphs (a table's rows as lines of cells separated by " | "), and its speaker notes
from the notes part it links to. Each slide becomes a Markdown heading "Slide N: title"
over its text, so the chunker cuts one section per slide (more when a slide is long), and
``page_starts`` numbers them: a citation's page is the slide number. Hidden slides are
skipped, as hidden sheets are, and so are slides with no text.
"""

from __future__ import annotations

import io
import posixpath
import re
import xml.etree.ElementTree as ET
import zipfile
from dataclasses import dataclass, field
from typing import IO

from .extracted import Extracted, Limits, TextBlocks, check_zip, escape_markdown, reading

__all__ = ["read_pptx"]

_P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_REL = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_DC_TITLE = "{http://purl.org/dc/elements/1.1/}title"
_TITLES = frozenset({"title", "ctrTitle"})
_FURNITURE = frozenset({"sldNum", "dt", "ftr", "hdr", "sldImg"})
_SLIDE_NAME = re.compile(r"ppt/slides/slide(\d+)\.xml")


def read_pptx(data: bytes, limits: Limits) -> Extracted:
    check_zip(data, "pptx", limits)
    out = TextBlocks("pptx", limits)
    page_starts: list[int] = []
    skipped = 0  # hidden or empty slides since the last one written
    first_title: str | None = None
    with reading("pptx"), zipfile.ZipFile(io.BytesIO(data)) as zf:
        names = set(zf.namelist())
        for number, part in enumerate(_slide_parts(zf, names), start=1):
            slide = _read_part(zf.open(part))
            if slide.hidden:
                skipped += 1
                continue
            notes_part = _related(zf, names, part, "/notesSlide")
            notes = _read_part(zf.open(notes_part)).lines({"body"}) if notes_part else []
            title = " ".join(slide.lines(_TITLES)) or None
            body = slide.lines(None, skip=_TITLES | _FURNITURE)
            if not (title or body or notes):
                skipped += 1
                continue
            first_title = first_title or title
            start = out.add(_slide_text(number, title, body, notes))
            # A skipped slide starts where the next one does, so page numbers stay slide
            # numbers and no section reaches into a slide that is not there.
            page_starts += [start] * (skipped + 1)
            skipped = 0
        doc_title = _core_title(zf, names)
    return Extracted(
        out.text(),
        text_is_raw=False,
        title=doc_title or first_title,
        structured=True,
        page_starts=tuple(page_starts),
    )


def _slide_text(number: int, title: str | None, body: list[str], notes: list[str]) -> str:
    heading = f"# Slide {number}" + (f": {title}" if title else "")
    parts = [heading]
    if body:
        parts.append(escape_markdown("\n".join(body)))
    if notes:
        parts.append(escape_markdown("Notes: " + "\n".join(notes)))
    return "\n\n".join(parts)


@dataclass
class _Part:
    """A slide's or notes page's text: each shape's lines with its placeholder type."""

    hidden: bool = False
    shapes: list[tuple[str | None, list[str]]] = field(default_factory=list)

    def lines(
        self, kinds: frozenset[str] | set[str] | None, skip: frozenset[str] = frozenset()
    ) -> list[str]:
        """Lines of shapes whose placeholder type is in ``kinds`` (any, when None), less
        those in ``skip``."""
        return [
            line
            for kind, lines in self.shapes
            if (kinds is None or kind in kinds) and kind not in skip
            for line in lines
        ]


def _read_part(stream: IO[bytes]) -> _Part:
    """Stream one slide or notes part, keeping only text (elements are cleared as read)."""
    part = _Part()
    shape: tuple[str | None, list[str]] | None = None
    row: list[str] | None = None
    cell: list[str] | None = None
    with stream:
        for event, el in ET.iterparse(stream, events=("start", "end")):
            tag = el.tag
            if event == "start":
                if tag in (_P + "sld", _P + "notes"):
                    part.hidden = el.get("show") in ("0", "false")
                elif tag == _P + "sp":
                    shape = (None, [])
                elif tag == _P + "ph" and shape is not None:
                    shape = (el.get("type", "body"), shape[1])
                elif tag == _A + "tr":
                    row = []
                elif tag == _A + "tc":
                    cell = []
                continue
            if tag == _A + "p":
                text = _paragraph(el)
                el.clear()
                if not text:
                    continue
                if cell is not None:
                    cell.append(text)
                elif shape is not None:
                    shape[1].append(text)
                else:
                    part.shapes.append((None, [text]))
            elif tag == _A + "tc" and row is not None and cell is not None:
                row.append(" ".join(cell))
                cell = None
            elif tag == _A + "tr" and row is not None:
                if any(row):
                    part.shapes.append((None, [" | ".join(row)]))
                row = None
            elif tag == _P + "sp" and shape is not None:
                part.shapes.append(shape)
                shape = None
                el.clear()
    return part


def _paragraph(p: ET.Element) -> str:
    pieces: list[str] = []
    for el in p.iter():
        if el.tag == _A + "t" and el.text:
            pieces.append(el.text)
        elif el.tag == _A + "br":
            pieces.append(" ")
    return " ".join("".join(pieces).split())


def _slide_parts(zf: zipfile.ZipFile, names: set[str]) -> list[str]:
    """The slide parts in presentation order; by their numbers when the order is unreadable."""
    order: list[str] = []
    seen: set[str] = set()
    if "ppt/presentation.xml" in names:
        targets = _relationships(zf, names, "ppt/presentation.xml")
        root = ET.fromstring(zf.read("ppt/presentation.xml"))
        for sld in root.iter(_P + "sldId"):
            target, _ = targets.get(sld.get(_R + "id", ""), ("", ""))
            if target in names and target not in seen:  # a slide listed twice is read once
                seen.add(target)
                order.append(target)
    if order:
        return order
    numbered = [(int(m.group(1)), n) for n in names if (m := _SLIDE_NAME.fullmatch(n))]
    return [n for _, n in sorted(numbered)]


def _related(zf: zipfile.ZipFile, names: set[str], part: str, kind: str) -> str | None:
    """The first part ``part`` links to with a relationship type ending in ``kind``."""
    for target, type_ in _relationships(zf, names, part).values():
        if type_.endswith(kind) and target in names:
            return target
    return None


def _relationships(zf: zipfile.ZipFile, names: set[str], part: str) -> dict[str, tuple[str, str]]:
    """``part``'s relationships: id -> (the part it targets, the relationship type)."""
    folder, base = posixpath.split(part)
    rels = posixpath.join(folder, "_rels", base + ".rels")
    if rels not in names:
        return {}
    found: dict[str, tuple[str, str]] = {}
    for rel in ET.fromstring(zf.read(rels)).iter(_REL + "Relationship"):
        target = rel.get("Target", "")
        if rel.get("TargetMode") == "External" or not target:
            continue
        if target.startswith("/"):
            path = target.lstrip("/")
        else:
            path = posixpath.normpath(posixpath.join(folder, target))
        found[rel.get("Id", "")] = (path, rel.get("Type", ""))
    return found


def _core_title(zf: zipfile.ZipFile, names: set[str]) -> str | None:
    if "docProps/core.xml" not in names:
        return None
    el = ET.fromstring(zf.read("docProps/core.xml")).find(_DC_TITLE)
    title = " ".join((el.text or "").split()) if el is not None else ""
    return title or None
