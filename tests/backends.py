"""The backends the server suites run on: the embedded brain (SQLite and the brain's own
folder) and the scale-out one (PostgreSQL for items, jobs and keys; an S3 bucket for
files). The server tests take a ``Backend`` from the ``backend`` fixture (tests/conftest.py)
and open their brain, keys and settings through it, so each such test runs on both.

On ``postgres+s3`` each backend has a fresh schema in the session's PostgreSQL
(tests/pg.py) and a fresh prefix in the session's s3rver bucket (tests/s3rver.py): tests
share the two servers, never their data.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from orgbrain import Brain, Settings
from orgbrain.keys import KeyStore
from orgbrain.ports import Embedder, JobQueue
from tests.pg import fresh_schema
from tests.s3rver import BUCKET, s3_env

__all__ = ["BACKENDS", "SQLITE", "Backend", "backend_for"]

BACKENDS = ("sqlite", "postgres+s3")


@dataclass(frozen=True)
class Backend:
    """Where a test's brain lives. ``store`` is a PostgreSQL URL (its own schema) and
    ``blobs`` an ``s3://bucket/prefix?endpoint=…`` URL (its own prefix), both None on
    sqlite."""

    name: str
    store: str | None = None
    blobs: str | None = None
    s3_endpoint: str | None = None

    @property
    def on_postgres(self) -> bool:
        return self.store is not None

    def settings(self, folder: Path, **values: Any) -> Settings:
        """The settings a server over this backend runs with (``folder`` for what stays
        local: nothing on postgres+s3 but the folder itself)."""
        return Settings(brain=folder, store=self.store, blobs=self.blobs, **values)

    def open(
        self, folder: Path, *, embedder: Embedder | None = None, settings: Settings | None = None
    ) -> Brain:
        s = settings or self.settings(folder)
        if self.store is None:
            return Brain.open(folder, embedder=embedder, settings=s)
        s = replace(s, brain=folder, store=self.store, blobs=self.blobs)
        return Brain.open(self.store, embedder=embedder, settings=s)

    def key_store(self, folder: Path) -> KeyStore:
        """Another handle on this backend's keys (the brain's file, or its database)."""
        if self.store is None:
            from orgbrain.adapters.sqlite.keys import SQLiteKeyStore

            return SQLiteKeyStore.for_brain(folder)
        from orgbrain.adapters.postgres.keys import PostgresKeyStore

        return PostgresKeyStore(self.store)

    def job_queue(self, folder: Path) -> JobQueue:
        """Another handle on this backend's job queue, as a worker elsewhere has."""
        if self.store is None:
            from orgbrain.adapters.sqlite.jobs import SQLiteJobQueue

            return SQLiteJobQueue(folder / "brain.sqlite")
        from orgbrain.adapters.postgres import PostgresJobQueue

        return PostgresJobQueue(self.store)

    def env(self) -> dict[str, str]:
        """The variables that point a subprocess (``orgbrain serve``, ``orgbrain mcp``)
        at this backend; none on sqlite, where ``--brain`` says it all."""
        if self.store is None:
            return {}
        assert self.blobs is not None and self.s3_endpoint is not None
        return {
            **s3_env(self.s3_endpoint),
            "ORGBRAIN_STORE": self.store,
            "ORGBRAIN_BLOBS": self.blobs,
        }

    def blob_keys(self, folder: Path) -> set[str]:
        """Every blob this backend holds: files under ``<folder>/blobs``, or the objects
        under the bucket prefix."""
        if self.blobs is None:
            blobs = folder / "blobs"
            return {str(p) for p in blobs.rglob("*")} if blobs.exists() else set()
        from orgbrain.adapters.blobs_s3 import S3BlobStore

        store = S3BlobStore.from_url(self.blobs)
        return {key for key, _ in store.keys("workspaces")}


SQLITE = Backend("sqlite")


@contextmanager
def backend_for(name: str, request: pytest.FixtureRequest) -> Iterator[Backend]:
    """A fresh backend called ``name``, from a fixture of any scope: on postgres+s3 a new
    schema (dropped after) and a new bucket prefix on the session's servers, with the AWS
    variables that reach s3rver set meanwhile (obstore reads them when a store is made)."""
    if name == "sqlite":
        yield SQLITE
        return
    assert name == "postgres+s3", name
    server: str = request.getfixturevalue("pg_server")
    endpoint: str = request.getfixturevalue("s3rver")
    prefix = f"servers/{uuid.uuid4().hex}"
    with fresh_schema(server) as url, pytest.MonkeyPatch.context() as mp:
        for var, value in s3_env(endpoint).items():
            mp.setenv(var, value)
        blobs = f"s3://{BUCKET}/{prefix}?endpoint={endpoint}"
        yield Backend(name, url, blobs, endpoint)
