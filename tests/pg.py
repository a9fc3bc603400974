"""A real PostgreSQL (16, with pgvector) for tests: the ``pgserver`` wheel's server, one per
test session, started on first use (~1 s) in a temporary folder and listening on a Unix
socket only. Each test gets a schema of its own (``pg_url``), dropped after it, so tests
are isolated and the server is started once.
"""

from __future__ import annotations

import shutil
import signal
import tempfile
import uuid
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from urllib.parse import quote

import psycopg
import pytest

__all__ = ["fresh_schema", "pg_server", "pg_url", "schema_url"]


def schema_url(server_url: str, schema: str) -> str:
    """``server_url`` with its tables in ``schema`` (and pgvector's types from public)."""
    options = quote(f"-csearch_path={schema},public", safe="")
    sep = "&" if "?" in server_url else "?"
    return f"{server_url}{sep}options={options}"


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """The URL of the session's PostgreSQL server (database ``postgres``)."""
    # Not under pytest's temporary folder: run as root, the server runs as its own user
    # (``pgserver``), and another pytest session may close that folder's parent to it.
    home = Path(tempfile.mkdtemp(prefix="orgbrain-pg-"))
    with warnings.catch_warnings():  # platformdirs warns about XDG_RUNTIME_DIR on import
        warnings.simplefilter("ignore")
        import pgserver

        server = pgserver.get_server(home / "data", cleanup_mode="stop")
    url = server.get_uri()
    # A run stopped with SIGTERM (a timeout) unwinds like Ctrl-C, so the server stops too
    # instead of outliving the run.
    previous = signal.signal(signal.SIGTERM, _interrupt)
    with psycopg.connect(url, autocommit=True) as conn:
        # Database-wide, once: every test schema finds the vector type in public.
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
    try:
        yield url
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            server.cleanup()
        shutil.rmtree(home, ignore_errors=True)
        signal.signal(signal.SIGTERM, previous)


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


@contextmanager
def fresh_schema(server_url: str) -> Iterator[str]:
    """A URL whose tables live in a fresh schema on ``server_url``, dropped on the way out
    (for fixtures of any scope)."""
    schema = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    try:
        yield schema_url(server_url, schema)
    finally:
        with psycopg.connect(server_url, autocommit=True) as conn:
            conn.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture
def pg_url(pg_server: str) -> Iterator[str]:
    """A URL whose tables live in a fresh schema, dropped after the test."""
    with fresh_schema(pg_server) as url:
        yield url
