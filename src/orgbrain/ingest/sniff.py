"""Decide a file's format from its bytes and its name, cheaply and before any parsing.

The name says what the uploader claims; the content decides. A file whose content is of
another kind than its name claims is refused rather than guessed at, so an indexer never
feeds a zip to the PDF reader or a PDF to the text decoder. A name with no extension, or
with one we do not know (``README.Debian``, ``notes.org``, ``setup.cfg``), is read by its
content alone: UTF-8 text is plain text (format ``txt``; the item keeps its name, so the
extension it was given stays visible), and a PDF or Office file is that format.
Extensions of things we cannot read (images, archives, legacy Office) are refused by name.
"""

from __future__ import annotations

import codecs
import tempfile
import zipfile
from typing import IO, Literal

from orgbrain.errors import CorruptFile, Unsupported

__all__ = ["MEDIA_TYPES", "FileFormat", "Sniffer", "detect_format"]

FileFormat = Literal["md", "txt", "rst", "csv", "json", "html", "pdf", "docx", "xlsx", "pptx"]

MEDIA_TYPES: dict[FileFormat, str] = {
    "md": "text/markdown",
    "txt": "text/plain",
    "rst": "text/x-rst",
    "csv": "text/csv",
    "json": "application/json",
    "html": "text/html",
    "pdf": "application/pdf",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
}

_EXTENSIONS: dict[str, FileFormat] = {
    "md": "md",
    "markdown": "md",
    "txt": "txt",
    "text": "txt",
    "rst": "rst",
    "csv": "csv",
    "json": "json",
    "html": "html",
    "htm": "html",
    "pdf": "pdf",
    "docx": "docx",
    "xlsx": "xlsx",
    "pptx": "pptx",
}

# Formats whose content is UTF-8 text: a file named so must hold text.
_TEXT_FORMATS: frozenset[FileFormat] = frozenset({"md", "txt", "rst", "csv", "json", "html"})
_CONTAINERS: frozenset[FileFormat] = frozenset({"docx", "xlsx", "pptx"})

_IMAGE = "an image format"
_ARCHIVE = "an archive format"
_MEDIA = "an audio or video format"
# Formats people will try; named so the refusal can say what to do instead. A file named
# so is refused even when its bytes happen to be text.
_KNOWN_UNSUPPORTED: dict[str, str] = {
    "doc": "legacy Word .doc (save it as .docx)",
    "xls": "legacy Excel .xls (save it as .xlsx)",
    "ppt": "legacy PowerPoint .ppt (save it as .pptx)",
    "odt": "OpenDocument text (save it as .docx)",
    "ods": "OpenDocument spreadsheet (save it as .xlsx)",
    "odp": "OpenDocument presentation (save it as .pptx)",
    "rtf": "rich text .rtf (save it as .docx)",
    "docm": "macro-enabled Word .docm (save it as .docx)",
    "xlsm": "macro-enabled Excel .xlsm (save it as .xlsx)",
    "pptm": "macro-enabled PowerPoint .pptm (save it as .pptx)",
    **dict.fromkeys(
        ("png", "jpg", "jpeg", "gif", "webp", "bmp", "tif", "tiff", "heic", "svg", "ico"), _IMAGE
    ),
    **dict.fromkeys(("zip", "gz", "tgz", "bz2", "xz", "7z", "rar", "tar", "jar"), _ARCHIVE),
    **dict.fromkeys(("mp3", "mp4", "wav", "mov", "avi", "mkv", "flac", "ogg", "m4a"), _MEDIA),
    **dict.fromkeys(("exe", "dll", "so", "dylib", "class", "pyc", "o"), "a program binary"),
}

_SUPPORTED = ", ".join(f".{ext}" for ext in _EXTENSIONS) + ", and UTF-8 text under any other name"

# Magic numbers of common things uploaded by mistake, only to describe them in a refusal.
_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "a legacy or password-protected Office file (OLE)"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"),
    (b"GIF89a", "a GIF image"),
    (b"\x1f\x8b", "gzip data"),
    (b"{\\rtf", "rich text (RTF)"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-zip archive"),
    (b"Rar!", "a RAR archive"),
)

# A PDF may carry junk before its header; readers look in the first KiB.
_PDF_HEADER_WINDOW = 1024
# Enough to hold any real [Content_Types].xml; read only when the part names are unusual.
_CONTENT_TYPES_CAP = 256 * 1024
_DAMAGED_ZIP = "a damaged zip container"
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")


def detect_format(data: bytes, name: str) -> FileFormat:
    """Return the format of ``data`` or raise ``Unsupported`` / ``CorruptFile``.

    Extensions: .md/.markdown, .txt/.text, .rst, .csv, .json, .html/.htm, .pdf, .docx,
    .xlsx, .pptx, each checked against the content; a name without an extension, or with
    one not listed (and not a known binary kind), is accepted when its content is one of
    those formats, UTF-8 text counting as txt.
    """
    sniffer = Sniffer()
    sniffer.feed(data)
    return sniffer.format_of(name)


class Sniffer:
    """Reads a file's bytes once, as they arrive, and then says what they are.

    It keeps the first KiB (magic numbers, a PDF header), notes NUL bytes and the first
    byte that is not UTF-8, and spools a zip container to a temporary file (in memory up
    to ``SPOOL_IN_MEMORY``, on disk beyond), because its directory is at the end. So an
    upload of any size is sniffed without being joined into one ``bytes``.
    """

    SPOOL_IN_MEMORY = 1 << 20

    def __init__(self) -> None:
        self.size = 0
        self._head = bytearray()
        self._nul = False
        self._bad_utf8_at: int | None = None
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._spool: tempfile.SpooledTemporaryFile[bytes] | None = None
        self._decided = False

    def feed(self, chunk: bytes) -> None:
        if not chunk:
            return
        before = self.size
        if before < _PDF_HEADER_WINDOW:
            self._head += chunk[: _PDF_HEADER_WINDOW - before]
        if self._spool is not None:
            self._spool.write(chunk)
        elif not self._decided and len(self._head) >= 4:
            # Decided on the chunk that completes four bytes, so what came before it is
            # all in the head.
            self._decided = True
            if bytes(self._head[:4]) in _ZIP_MAGIC:
                self._spool = tempfile.SpooledTemporaryFile(max_size=self.SPOOL_IN_MEMORY)
                self._spool.write(bytes(self._head[:before]))
                self._spool.write(chunk)
        self._nul = self._nul or b"\x00" in chunk
        if self._bad_utf8_at is None and not self._nul:
            self._decode(chunk, final=False)
        self.size += len(chunk)

    def _decode(self, chunk: bytes, *, final: bool) -> None:
        pending = len(self._decoder.getstate()[0])
        try:
            self._decoder.decode(chunk, final=final)
        except UnicodeDecodeError as exc:
            self._bad_utf8_at = self.size - pending + exc.start

    def close(self) -> None:
        if self._spool is not None:
            self._spool.close()
            self._spool = None

    def format_of(self, name: str) -> FileFormat:
        """The format of what was fed, or ``Unsupported`` / ``CorruptFile``."""
        try:
            return self._format_of(name)
        finally:
            self.close()

    def _format_of(self, name: str) -> FileFormat:
        if self.size == 0:
            raise CorruptFile(f"{name!r} is empty")
        if self._bad_utf8_at is None and not self._nul:
            self._decode(b"", final=True)
        head = bytes(self._head)
        ext = _extension(name)
        if ext in _KNOWN_UNSUPPORTED:
            raise Unsupported(
                f"{name!r}: {_KNOWN_UNSUPPORTED[ext]} is not supported (it looks like "
                f"{self._content()[1]}); supported: {_SUPPORTED}"
            )
        claimed = _EXTENSIONS.get(ext)
        if claimed == "pdf" and b"%PDF-" in head[:_PDF_HEADER_WINDOW]:
            return "pdf"
        kind, description = self._content()
        if description.startswith(_DAMAGED_ZIP) and claimed in _CONTAINERS:
            raise CorruptFile(f"{name!r} is {description}")
        if claimed is None:  # no extension, or one we do not know: the content decides
            if kind is None:
                named = (
                    f"is named .{ext}, which is not a format we know,"
                    if ext
                    else ("has no extension")
                )
                raise Unsupported(
                    f"{name!r} {named} and looks like {description}; supported: {_SUPPORTED}"
                )
            return kind
        if kind == claimed or (kind == "txt" and claimed in _TEXT_FORMATS):
            return claimed
        if claimed in _TEXT_FORMATS and kind is None and description.startswith("binary"):
            raise Unsupported(f"{name!r} is named .{ext} but is {description}")
        raise Unsupported(f"{name!r} is named .{ext} but looks like {description}")

    def _content(self) -> tuple[FileFormat | None, str]:
        """What the bytes look like: a format we read (or None) and words for a message."""
        head = bytes(self._head)
        if head.startswith(b"%PDF-"):
            return "pdf", "a PDF document"
        if head.startswith(_ZIP_MAGIC) and self._spool is not None:
            self._spool.seek(0)
            return _zip_kind(self._spool)
        for magic, description in _MAGIC:
            if head.startswith(magic):
                return None, description
        if self._nul:
            return None, "binary data (it contains NUL bytes)"
        if self._bad_utf8_at is not None:
            return None, f"binary data (not valid UTF-8 at byte {self._bad_utf8_at})"
        return "txt", "UTF-8 text"


def _extension(name: str) -> str:
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    stem, dot, ext = base.rpartition(".")
    if not dot or not stem.strip("."):
        return ""  # no dot, or a dotfile such as ".notes"
    return ext.lower()


def _zip_kind(data: IO[bytes]) -> tuple[FileFormat | None, str]:
    # Reading the central directory only; no entry is decompressed unless the package
    # uses unusual part names, and then only a capped read of [Content_Types].xml.
    try:
        with zipfile.ZipFile(data) as zf:
            names = set(zf.namelist())
            if "[Content_Types].xml" not in names:
                return None, "a zip archive"
            if "word/document.xml" in names:
                return "docx", "a Word document (docx)"
            if "xl/workbook.xml" in names:
                return "xlsx", "an Excel workbook (xlsx)"
            if "ppt/presentation.xml" in names:
                return "pptx", "a PowerPoint presentation (pptx)"
            with zf.open("[Content_Types].xml") as fh:
                types = fh.read(_CONTENT_TYPES_CAP)
    except Exception as exc:
        # zipfile raises many kinds on damage: zlib.error, NotImplementedError ("zip file
        # version 18.6"), RuntimeError, struct.error, ...
        detail = " ".join(str(exc).split())[:200] or type(exc).__name__
        return None, f"{_DAMAGED_ZIP} that cannot be read ({detail})"
    if b"wordprocessingml.document.main+xml" in types:
        return "docx", "a Word document (docx)"
    if b"spreadsheetml.sheet.main+xml" in types:
        return "xlsx", "an Excel workbook (xlsx)"
    if b"presentationml.presentation.main+xml" in types:
        return "pptx", "a PowerPoint presentation (pptx)"
    return None, "an Office Open XML package of an unknown kind"
