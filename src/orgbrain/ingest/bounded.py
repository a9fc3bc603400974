"""Extraction within bounds of time and memory, in a child process.

A hostile file (a PDF stream that inflates to gigabytes, a million-cell sheet, markup that
takes minutes, a small text of a million headings) must not take the server's memory or
a worker's time with it. Every file, whatever its format, is read and cut into chunks in a
child process (``child``) under ``RLIMIT_AS`` and a wall-clock deadline; over either, the
child is gone and the file fails with ``too_large`` and the reason, while the parent's
memory stays flat.

Children are fresh interpreters that import only orgbrain (never ``multiprocessing``,
whose children import the caller's ``__main__`` again), kept idle between files so that
only the first file a child reads pays for its start.
"""

from __future__ import annotations

import atexit
import os
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from orgbrain.errors import CorruptFile, OrgBrainError, TooLarge

from .child import memory_message, read_and_chunk
from .chunk import Chunk
from .extracted import Extracted
from .sniff import FileFormat

__all__ = ["Bounds", "read_bounded"]


@dataclass(frozen=True, slots=True)
class Bounds:
    """How long (wall clock) and how much memory (address space) one extraction may take;
    ``None`` runs it in this process, unbounded but for the readers' own caps."""

    seconds: float = 120.0
    memory_bytes: int = 2 << 30


def read_bounded(
    data: bytes, fmt: FileFormat, bounds: Bounds | None
) -> tuple[Extracted, list[Chunk]]:
    """``extract(data, fmt)`` and its chunks, in a bounded child unless ``bounds`` is None."""
    if bounds is None:
        outcome, payload = read_and_chunk(data, fmt, 0)
    else:
        child = _take(bounds.memory_bytes)
        healthy = False
        try:
            outcome, payload = child.read(data, fmt, bounds)
            healthy = outcome == "ok"
        finally:
            _give_back(child, healthy)
    if outcome == "ok":
        extracted, chunks = payload
        return extracted, chunks
    code, message = payload
    raise OrgBrainError.from_code(code, message)


# Signals a reader dies of when an allocation fails under RLIMIT_AS: PDFium and C++
# readers abort on out-of-memory, and the kernel's OOM killer sends SIGKILL.
_OUT_OF_MEMORY = frozenset({-signal.SIGABRT, -signal.SIGKILL})
_IDLE_PER_BOUND = 4
_idle: dict[int, list[_Child]] = {}
_lock = threading.Lock()
_closing_at_exit = False


def _take(memory: int) -> _Child:
    global _closing_at_exit
    with _lock:
        waiting = _idle.get(memory)
        if waiting:
            return waiting.pop()
        if not _closing_at_exit:
            atexit.register(_close_idle)
            _closing_at_exit = True
    return _Child(memory)


def _close_idle() -> None:
    with _lock:
        children = [c for waiting in _idle.values() for c in waiting]
        _idle.clear()
    for child in children:
        child.close()


def _give_back(child: _Child, healthy: bool) -> None:
    # A child that failed a file may hold what the failure left behind (a heap grown to
    # the bound); a new one is cheaper than finding out.
    if healthy:
        with _lock:
            waiting = _idle.setdefault(child.memory, [])
            if len(waiting) < _IDLE_PER_BOUND:
                waiting.append(child)
                return
    child.close()


_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])
_START = "from orgbrain.ingest.child import main; main()"


class _Child:
    def __init__(self, memory: int) -> None:
        self.memory = memory
        request_r, request_w = os.pipe()
        answer_r, answer_w = os.pipe()
        env = dict(os.environ)
        # The child finds this very orgbrain even when the caller put it on sys.path itself.
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [_PACKAGE_ROOT, env.get("PYTHONPATH")]))
        # Thread pools reserve address space per thread, which counts against RLIMIT_AS.
        env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-c", _START, str(request_r), str(answer_w), str(memory)],
                pass_fds=(request_r, answer_w),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                env=env,
            )
        finally:
            os.close(request_r)
            os.close(answer_w)
        self._requests = Connection(request_w, readable=False)
        self._answers = Connection(answer_r, writable=False)

    def read(self, data: bytes, fmt: str, bounds: Bounds) -> tuple[str, Any]:
        try:
            self._requests.send((data, fmt))
            answered = self._answers.poll(bounds.seconds)
            if answered:
                outcome: tuple[str, Any] = self._answers.recv()
                return outcome
        except (EOFError, BrokenPipeError, ConnectionResetError):
            return "error", self._died(fmt)
        self.close()
        return "error", (
            TooLarge.code,
            f"reading this {fmt} took over {bounds.seconds:g} s and was stopped "
            "(ORGBRAIN_EXTRACT_SECONDS sets the bound)",
        )

    def _died(self, fmt: str) -> tuple[str, str]:
        code = self._process.wait(10)
        if code in _OUT_OF_MEMORY:
            return TooLarge.code, memory_message(fmt, self.memory)
        return CorruptFile.code, f"the {fmt} reader died on this file (exit code {code})"

    def close(self) -> None:
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait(10)
        self._requests.close()
        self._answers.close()
