"""The server backend: PostgreSQL with pgvector (``pip install 'orgbrain[postgres]'``)."""

from .jobs import PostgresJobQueue
from .store import PostgresStore

__all__ = ["PostgresJobQueue", "PostgresStore"]
