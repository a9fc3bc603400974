"""Extraction within bounds of time and memory, in a child process.

A hostile file (a PDF stream that inflates to gigabytes, a million-cell sheet, markup that
takes minutes) must not take the server's memory or a worker's time with it. A file of a
format whose reader can blow up is extracted in a child process under ``RLIMIT_AS`` and a
wall-clock deadline; over either, the child is gone and the file fails with ``too_large``
and the reason, while the parent's memory stays flat. Formats read here in linear time
and memory (text, markdown, rst, csv, json) stay in process: a child per file would cost
more than it could save.

Children come from a ``forkserver`` (never ``fork``: the server has threads) that has
imported the readers once, so a child starts in tens of milliseconds.
"""

from __future__ import annotations

import multiprocessing
import resource
import threading
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from orgbrain.errors import CorruptFile, OrgBrainError, TooLarge

from .extract import extract
from .extracted import Extracted
from .sniff import FileFormat

__all__ = ["ISOLATED_FORMATS", "Bounds", "extract_bounded"]

ISOLATED_FORMATS: frozenset[str] = frozenset({"pdf", "docx", "xlsx", "pptx", "html"})


@dataclass(frozen=True, slots=True)
class Bounds:
    """How long (wall clock) and how much memory (address space) one extraction may take;
    ``None`` runs it in this process, unbounded but for the readers' own caps."""

    seconds: float = 120.0
    memory_bytes: int = 2 << 30


_CONTEXT: Any = None
_LOCK = threading.Lock()


def _forkserver() -> Any:
    global _CONTEXT
    with _LOCK:
        if _CONTEXT is None:
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(["orgbrain.ingest.extract"])
            _CONTEXT = ctx
        return _CONTEXT


def extract_bounded(data: bytes, fmt: FileFormat, bounds: Bounds | None) -> Extracted:
    """``extract(data, fmt)``, in a bounded child for the formats that need one."""
    if bounds is None or fmt not in ISOLATED_FORMATS:
        return extract(data, fmt)
    ctx = _forkserver()
    receive, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=_child, args=(send, data, fmt, bounds.memory_bytes), daemon=True)
    child.start()
    send.close()
    try:
        if not receive.poll(bounds.seconds):
            raise TooLarge(
                f"reading this {fmt} took over {bounds.seconds:g} s and was stopped "
                "(ORGBRAIN_EXTRACT_SECONDS sets the bound)"
            )
        try:
            outcome, payload = receive.recv()
        except EOFError:
            child.join(5)
            raise CorruptFile(
                f"the {fmt} reader died on this file (exit code {child.exitcode}; over "
                f"{bounds.memory_bytes >> 20} MiB of memory, the bound, is the usual cause)"
            ) from None
    finally:
        receive.close()
        if child.is_alive():
            child.kill()
        child.join(5)
    if outcome == "ok":
        assert isinstance(payload, Extracted)
        return payload
    code, message = payload
    raise OrgBrainError.from_code(code, message)


def _child(send: Connection, data: bytes, fmt: FileFormat, memory: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    over = (
        TooLarge.code,
        f"reading this {fmt} needs over {memory >> 20} MiB of memory and was stopped "
        "(ORGBRAIN_EXTRACT_MEMORY sets the bound)",
    )
    result: tuple[str, Any]
    try:
        result = ("ok", extract(data, fmt))
    except OrgBrainError as exc:
        result = ("error", (exc.code, exc.message))
    except MemoryError:
        result = ("error", over)
    except Exception as exc:  # a reader's bug fails the file, never the parent
        result = ("error", (CorruptFile.code, f"{fmt} could not be read ({type(exc).__name__})"))
    try:
        send.send(result)
    except MemoryError:
        send.send(("error", over))
    finally:
        send.close()
