"""Flushing a path to disk: a file's bytes, or a folder's entries after a rename."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["fsync_path"]


def fsync_path(path: Path) -> None:
    """fsync ``path``: a file's contents, or a folder's entries (so a rename into it
    survives a crash)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
