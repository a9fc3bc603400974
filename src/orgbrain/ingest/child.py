"""The extraction child: a process of its own that reads files and cuts them into chunks
under a memory bound, for ``bounded``.

It is started as a fresh interpreter that imports only orgbrain (``python -c`` with
``main``), never through ``multiprocessing``: a ``spawn`` or ``forkserver`` child imports
the caller's ``__main__`` again, and a script without an ``if __name__ == "__main__"``
guard would run its whole body once more in there. Requests come over one pipe and
answers go back over another, each a pickled tuple; the child lives until its parent
closes the request pipe (or exits), so one child reads many files.
"""

from __future__ import annotations

import resource
import sys
from multiprocessing.connection import Connection
from typing import Any

from orgbrain.errors import CorruptFile, OrgBrainError, TooLarge

from .chunk import check_density, chunk
from .extract import extract

__all__ = ["main", "memory_message", "read_and_chunk"]


def memory_message(fmt: str, memory: int) -> str:
    return (
        f"reading this {fmt} needs over {memory >> 20} MiB of memory, the bound, and was "
        "stopped (ORGBRAIN_EXTRACT_MEMORY_MB sets it)"
    )


def read_and_chunk(data: bytes, fmt: str, memory: int) -> tuple[str, Any]:
    """``("ok", (extracted, chunks))`` or ``("error", (code, message))``; never raises."""
    try:
        extracted = extract(data, fmt)  # type: ignore[arg-type]  # checked by the parent
        chunks = chunk(extracted)
        check_density(len(extracted.text), len(chunks))
        return "ok", (extracted, chunks)
    except OrgBrainError as exc:
        return "error", (exc.code, exc.message)
    except MemoryError:
        return "error", (TooLarge.code, memory_message(fmt, memory))
    except Exception as exc:  # a reader's bug fails the file, never the parent
        return "error", (CorruptFile.code, f"{fmt} could not be read ({type(exc).__name__})")


def main() -> None:
    """``argv``: the request pipe's fd, the answer pipe's fd, the memory bound in bytes."""
    requests = Connection(int(sys.argv[1]), writable=False)
    answers = Connection(int(sys.argv[2]), readable=False)
    memory = int(sys.argv[3])
    try:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    except (ValueError, OSError):  # macOS may refuse to lower it; the time bound still holds
        pass
    while True:
        try:
            data, fmt = requests.recv()
        except EOFError:
            return  # the parent is gone or done with us
        outcome = read_and_chunk(data, fmt, memory)
        del data
        try:
            answers.send(outcome)
        except MemoryError:
            answers.send(("error", (TooLarge.code, memory_message(fmt, memory))))
        except OSError:
            return  # the parent died or gave up on this file while we read it
