"""Which processes may be writing into a local blob folder: a lock file each.

A process takes an exclusive ``flock`` on a file of its own under ``<root>/.writers`` before
its first put and holds it until it exits, however it exits (the kernel drops a dead
process's locks). A lock file that can be locked again is a dead writer's; one that cannot
is a live one's. So a sweep at start knows whether a blob no row names might be an upload
in flight elsewhere, or is what a killed writer left, without waiting for it to age.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import threading
from datetime import UTC, datetime
from pathlib import Path

__all__ = ["hold_writer_lock", "other_writers_alive"]

_FOLDER = ".writers"
# One lock per process and folder, shared by every store object over it: puts in this
# process all start after it was taken. The fd stays open for the process's life.
_held: dict[Path, tuple[int, str, datetime]] = {}
_lock = threading.Lock()


def hold_writer_lock(root: Path) -> datetime:
    """Hold this process's writer lock on ``root`` (taken once); when it was taken."""
    key = root.absolute()
    with _lock:
        held = _held.get(key)
        if held is not None and held[1].startswith(f"{os.getpid()}-"):
            return held[2]
        folder = key / _FOLDER
        folder.mkdir(parents=True, exist_ok=True)
        name = f"{os.getpid()}-{secrets.token_hex(4)}"
        fd = os.open(folder / name, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX)
        since = datetime.now(UTC)
        _held[key] = (fd, name, since)
        return since


def other_writers_alive(root: Path) -> bool:
    """Does a live process other than this one hold a writer lock on ``root``? A dead
    one's lock file is removed on the way."""
    key = root.absolute()
    with _lock:
        mine = _held.get(key, (-1, "", None))[1]
    folder = key / _FOLDER
    if not folder.is_dir():
        return False
    alive = False
    for path in folder.iterdir():
        if path.name == mine:
            continue
        try:
            fd = os.open(path, os.O_RDWR)
        except FileNotFoundError:
            continue  # removed by another sweep
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            alive = True
        else:
            path.unlink(missing_ok=True)
        finally:
            os.close(fd)
    return alive
