"""The composition root: builds a Brain from a path and settings."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .errors import InvalidInput, Unavailable
from .ports import BlobStore, Embedder, JobQueue, Reranker, Store
from .retrieve.plan import get_plan
from .settings import Settings

if TYPE_CHECKING:
    from .adapters.sqlite.store import KeywordEngine
    from .brain import Brain

__all__ = ["build_brain", "make_embedder", "open_embedded"]


def make_embedder(settings: Settings) -> Embedder:
    if settings.embedder == "minilm":
        from .adapters.embed_minilm import MiniLMEmbedder

        return MiniLMEmbedder()
    if settings.embedder == "openai":
        from .adapters.embed_http import OpenAIEmbedder

        if not settings.embed_url or not settings.embed_model:
            raise Unavailable(
                "the openai embedder needs ORGBRAIN_EMBED_URL and ORGBRAIN_EMBED_MODEL"
            )
        return OpenAIEmbedder(
            settings.embed_url, settings.embed_model, api_key=settings.embed_api_key
        )
    raise InvalidInput(f"unknown embedder {settings.embedder!r}: use minilm or openai")


def open_embedded(
    path: str | Path | None = None,
    *,
    embedder: Embedder | None = None,
    settings: Settings | None = None,
    workspace: str | None = None,
) -> Brain:
    from .adapters.blobs_local import LocalBlobStore
    from .adapters.sqlite import SQLiteStore
    from .adapters.sqlite.jobs import SQLiteJobQueue

    s = settings or Settings()
    root = Path(path) if path is not None else s.brain
    if root.exists() and not root.is_dir():
        raise InvalidInput(f"{root} exists and is not a brain folder")
    root.mkdir(parents=True, exist_ok=True)
    store = SQLiteStore(root / "brain.sqlite", keyword_engine=_keyword_engine(s.keyword_engine))
    jobs: JobQueue | None = None
    try:
        # The queue lives in the brain's own file, so every process over it shares it.
        jobs = SQLiteJobQueue(root / "brain.sqlite")
        return build_brain(
            store,
            LocalBlobStore(root / "blobs"),
            embedder or make_embedder(s),
            s,
            workspace,
            jobs=jobs,
        )
    except BaseException:
        if jobs is not None:
            jobs.close()
        store.close()
        raise


def build_brain(
    store: Store,
    blobs: BlobStore,
    embedder: Embedder,
    settings: Settings | None = None,
    workspace: str | None = None,
    *,
    reranker: Reranker | None = None,
    jobs: JobQueue | None = None,
) -> Brain:
    """One ``Brain`` over built parts: the store learns the embedding space first.

    Without ``jobs`` the brain gets an in-memory queue: background work then lasts only
    as long as the process (``open_embedded`` passes the durable SQLite one)."""
    from .adapters.jobs_memory import MemoryJobQueue
    from .brain import Brain
    from .context import BrainContext

    s = settings or Settings()
    get_plan(s.plan)  # an unknown ORGBRAIN_PLAN fails at start, not at the first search
    store.bind_embedder(embedder.name, embedder.dim)
    ctx = BrainContext(
        store,
        blobs,
        embedder,
        s,
        workspace=workspace or s.workspace,
        reranker=reranker,
        jobs=jobs if jobs is not None else MemoryJobQueue(),
    )
    return Brain(ctx)


def _keyword_engine(name: str) -> KeywordEngine:
    if name == "tantivy":
        return "tantivy"
    if name == "fts5":
        return "fts5"
    raise InvalidInput(f"unknown keyword engine {name!r}: use tantivy or fts5")
