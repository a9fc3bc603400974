"""A real S3-compatible server on loopback for tests and benches: ``scripts/s3rver``
(the npm package s3rver, installed once into a cache folder outside the checkout)."""

from __future__ import annotations

import os
import re
import selectors
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

__all__ = ["ACCESS_KEY", "BUCKET", "SECRET_KEY", "S3rverMissing", "running_s3rver", "s3_env"]

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "s3rver"
ACCESS_KEY = SECRET_KEY = "S3RVER"  # s3rver's fixed credentials
BUCKET = "orgbrain-test"  # the bucket the tests' server is started with
_LISTENING = re.compile(rb"listening on (\S+):(\d+)")


class S3rverMissing(RuntimeError):
    """s3rver could not be installed or started (no node or npm, no npm registry)."""


def s3_env(endpoint: str) -> dict[str, str]:
    """The standard AWS variables (and orgbrain's endpoint setting) that reach s3rver."""
    return {
        "AWS_ACCESS_KEY_ID": ACCESS_KEY,
        "AWS_SECRET_ACCESS_KEY": SECRET_KEY,
        "AWS_DEFAULT_REGION": "us-east-1",
        "ORGBRAIN_S3_ENDPOINT": endpoint,
    }


@contextmanager
def running_s3rver(data: Path, *buckets: str, start_s: float = 300.0) -> Iterator[str]:
    """Serve ``data`` on a free 127.0.0.1 port with ``buckets`` made; yield the endpoint
    URL; stop the server (and only it) on the way out."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        raise S3rverMissing(
            f"{' and '.join(missing)} not found: the S3 blob store is tested against s3rver, "
            "an npm package (apt-get install nodejs npm)"
        )
    # stderr goes to a file, so a chatty server never blocks on a full pipe.
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            [str(SCRIPT), str(data), *buckets],
            stdout=subprocess.PIPE,
            stderr=err,
            start_new_session=True,
            env={**os.environ, "NO_UPDATE_NOTIFIER": "1"},
        )
        try:
            yield _wait_for_address(proc, err, time.monotonic() + start_s)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()


def _wait_for_address(proc: subprocess.Popen[bytes], err: IO[bytes], deadline: float) -> str:
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    seen = b""
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ)
        while time.monotonic() < deadline:
            if not sel.select(timeout=max(0.0, min(1.0, deadline - time.monotonic()))):
                continue
            data = os.read(fd, 4096)  # unbuffered: select and a buffered readline disagree
            if not data:  # the script exited
                proc.wait()
                err.seek(0)
                said = err.read().decode(errors="replace").strip()
                raise S3rverMissing(f"scripts/s3rver exited ({proc.returncode}): {said}")
            seen += data
            if found := _LISTENING.search(seen):
                return f"http://{found[1].decode()}:{found[2].decode()}"
    raise S3rverMissing(f"s3rver did not start in time; it said {seen!r}")
