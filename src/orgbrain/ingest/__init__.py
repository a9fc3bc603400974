"""From bytes to sections: detect the format, extract the text, cut it into chunks."""

from __future__ import annotations

from orgbrain.ingest.chunk import MAX_CHARS, MAX_SECTIONS, OVERLAP, Chunk, chunk, flat_windows
from orgbrain.ingest.extract import Extracted, Limits, extract
from orgbrain.ingest.sniff import MEDIA_TYPES, FileFormat, detect_format

__all__ = [
    "MAX_CHARS",
    "MAX_SECTIONS",
    "MEDIA_TYPES",
    "OVERLAP",
    "Chunk",
    "Extracted",
    "FileFormat",
    "Limits",
    "chunk",
    "detect_format",
    "extract",
    "flat_windows",
]
