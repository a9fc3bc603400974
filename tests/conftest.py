"""Shared fixtures: one real embedding model per test session, real brains in tmp dirs.

Tests never write into the checkout: the session fails, naming the paths, if it leaves a new
or changed file there (caches aside; ``ORGBRAIN_CHECKOUT_GUARD=0`` turns the check off).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from orgbrain import Brain
from orgbrain.ports import Embedder

ROOT = Path(__file__).resolve().parent.parent
# Tool caches a test run may leave (and *.egg-info, the editable install's metadata).
CACHES = {
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".hypothesis",
    ".import_linter_cache",
}
State = dict[str, tuple[int, int] | None]
BEFORE = pytest.StashKey[State]()


def checkout_state() -> State | None:
    """Each ``git status`` line (untracked and ignored files included) with its file's size
    and mtime, caches left out; None outside a git checkout. Python files are left out too:
    people edit those while a run goes on, and no test writes one into the checkout."""
    if os.environ.get("ORGBRAIN_CHECKOUT_GUARD") == "0":
        return None
    cmd = ["git", "status", "--porcelain", "--ignored", "--untracked-files=all"]
    try:
        out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    if out.returncode != 0:
        return None
    state: State = {}
    for line in out.stdout.splitlines():
        path = Path(line[3:].strip('"'))
        if CACHES.intersection(path.parts) or any(p.endswith(".egg-info") for p in path.parts):
            continue
        if path.suffix in {".py", ".pyc"}:
            continue
        try:
            st = (ROOT / path).stat()
            state[line] = (st.st_size, st.st_mtime_ns)
        except OSError:
            state[line] = None
    return state


def pytest_sessionstart(session: pytest.Session) -> None:
    state = checkout_state()
    if state is not None:
        session.config.stash[BEFORE] = state


def pytest_sessionfinish(session: pytest.Session) -> None:
    before = session.config.stash.get(BEFORE, None)
    after = checkout_state() if before is not None else None
    if before is None or after is None:
        return
    written = sorted(line for line, stat in after.items() if before.get(line, -1) != stat)
    if not written:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line("")
        reporter.write_sep("!", "the tests wrote into the checkout (write under tmp_path)")
        for line in written:
            reporter.write_line(line)
    else:  # pragma: no cover - terminal reporting turned off
        print("the tests wrote into the checkout:", *written, sep="\n")
    session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    from orgbrain.adapters.embed_minilm import MiniLMEmbedder

    return MiniLMEmbedder()


@pytest.fixture
def brain(tmp_path: Path, embedder: Embedder) -> Iterator[Brain]:
    b = Brain.open(tmp_path / "brain", embedder=embedder)
    try:
        yield b
    finally:
        b.close()


@pytest.fixture
def memory_brain() -> Iterator[Brain]:
    """A brain held in memory (``Brain.in_memory``) with the hashed bag-of-words embedder
    (tests/toy.py): for tests of one decision (a rule, the judge), which need neither a
    file nor the model's sense of meaning. Its store passes the contract suites the SQLite
    one passes (tests/contract/); a test whose search must understand a question takes
    ``embedder`` and opens its own."""
    from tests.toy import HashEmbedder

    b = Brain.in_memory(embedder=HashEmbedder())
    try:
        yield b
    finally:
        b.close()


# A real PostgreSQL for the tests that run against it (tests/pg.py).
from tests.backends import BACKENDS, Backend, backend_for  # noqa: E402
from tests.pg import pg_server, pg_url  # noqa: E402, F401


@pytest.fixture(scope="session")
def s3rver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real s3rver on 127.0.0.1 (``scripts/s3rver``) with the bucket ``BUCKET``,
    for the whole session; its endpoint URL. Without node and npm the tests that need it
    fail, saying so: they are never skipped."""
    from tests.s3rver import BUCKET, S3rverMissing, running_s3rver

    try:
        with running_s3rver(tmp_path_factory.mktemp("s3rver"), BUCKET) as endpoint:
            yield endpoint
            return
    except S3rverMissing as exc:
        why = str(exc)
    pytest.fail(f"no S3 server for the S3 blob tests: {why}", pytrace=False)


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Iterator[Backend]:
    """Where the test's brain lives (tests/backends.py): a test that asks for it, or for a
    fixture that does (the server suites' ``served``), runs once on each."""
    with backend_for(request.param, request) as b:
        yield b
