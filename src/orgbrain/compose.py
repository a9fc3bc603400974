"""The composition root: builds the parts (adapters behind ports) into a ``BrainContext``
from a path and settings; ``Brain(ctx)`` is the facade over it.

The only module above the adapters that imports them (an import-linter contract says so).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from .context import BrainContext
from .derive.outbox import relay
from .errors import InvalidInput, Unavailable
from .graph import backfill_keys
from .jobs.reembed import embedder_space
from .model import item_count
from .ports import BlobStore, Chat, Embedder, JobQueue, Reranker, Store
from .retrieve.plan import get_plan
from .settings import Settings, is_store_url

if TYPE_CHECKING:
    from .adapters.sqlite.store import KeywordEngine
    from .keys import KeyStore

__all__ = [
    "build_context",
    "describe_store",
    "make_blobs",
    "make_chat",
    "make_embedder",
    "make_reranker",
    "open_context",
    "open_embedded",
    "open_key_store",
    "open_memory",
    "open_server",
    "workspace_sizes",
]


def make_embedder(settings: Settings) -> Embedder:
    """The embedder ``settings.embedder`` names; none loads a model before its first embed.

    ``minilm`` is all-MiniLM-L6-v2 in numpy (the default); ``minilm-torch`` the same model
    through sentence-transformers (same vectors, ~10 s more CPU to start, needs torch);
    ``openai`` any OpenAI-compatible server; ``e5`` multilingual-e5-small (4-bit, the
    ``e5`` extra), for brains not in English alone.
    """
    if settings.embedder == "minilm":
        from .adapters.embed_minilm import MiniLMEmbedder

        return MiniLMEmbedder()
    if settings.embedder == "minilm-torch":
        from .adapters.embed_minilm_torch import TorchMiniLMEmbedder

        return TorchMiniLMEmbedder()
    if settings.embedder == "e5":
        from .adapters.embed_e5 import E5Embedder

        return E5Embedder()
    if settings.embedder == "openai":
        from .adapters.embed_http import OpenAIEmbedder

        if not settings.embed_url or not settings.embed_model:
            raise Unavailable(
                "the openai embedder needs ORGBRAIN_EMBED_URL and ORGBRAIN_EMBED_MODEL"
            )
        return OpenAIEmbedder(
            settings.embed_url, settings.embed_model, api_key=settings.embed_api_key
        )
    raise InvalidInput(
        f"unknown embedder {settings.embedder!r}: use minilm, minilm-torch, e5 or openai"
    )


def open_embedded(
    path: str | Path | None = None,
    *,
    embedder: Embedder | None = None,
    settings: Settings | None = None,
    workspace: str | None = None,
) -> BrainContext:
    from .adapters.sqlite import SQLiteStore
    from .adapters.sqlite.jobs import SQLiteJobQueue

    s = settings or Settings()
    root = Path(path) if path is not None else s.brain
    if root.exists() and not root.is_dir():
        raise InvalidInput(f"{root} exists and is not a brain folder")
    blobs = make_blobs(s, root)
    root.mkdir(parents=True, exist_ok=True)
    store = SQLiteStore(root / "brain.sqlite", keyword_engine=_keyword_engine(s.keyword_engine))
    jobs: JobQueue | None = None
    try:
        # The queue lives in the brain's own file, so every process over it shares it.
        jobs = SQLiteJobQueue(root / "brain.sqlite")
        # Paths are keyed from the folder this brain is in, unless a root was declared.
        known = replace(s, brain=root, root=(s.root or root.resolve().parent))
        return build_context(
            store,
            blobs,
            embedder or make_embedder(s),
            known,
            workspace,
            jobs=jobs,
        )
    except BaseException:
        if jobs is not None:
            jobs.close()
        store.close()
        raise


def open_memory(
    *,
    embedder: Embedder | None = None,
    settings: Settings | None = None,
    workspace: str | None = None,
) -> BrainContext:
    """A brain held in this process's memory (``adapters/memory``): its items, graph, log
    and job queue in dicts, its files' bytes in a dict. Nothing is written to disk and
    nothing outlives the process: for tests and throwaway brains (``Brain.in_memory``)."""
    from .adapters.blobs_memory import MemoryBlobStore
    from .adapters.memory import MemoryStore

    s = settings or Settings()
    store = MemoryStore()
    return build_context(
        store, MemoryBlobStore(), embedder or make_embedder(s), s, workspace, jobs=store.tables.jobs
    )


def make_blobs(settings: Settings, brain: Path) -> BlobStore:
    """The blob store ``settings.blobs`` names: the brain's own folder (``<brain>/blobs``,
    the default) or an S3-compatible bucket (``s3://bucket/prefix``), which must answer
    before the brain opens: a wrong endpoint, bucket or key fails here, not at an upload."""
    if not settings.blobs:
        from .adapters.blobs_local import LocalBlobStore

        return LocalBlobStore(brain / "blobs")
    if not settings.blobs.startswith("s3://"):
        raise InvalidInput(
            f"blob store {settings.blobs!r}: use s3://bucket/prefix, or leave ORGBRAIN_BLOBS "
            "unset for the brain's own folder"
        )
    from .adapters.blobs_s3 import S3BlobStore

    blobs = S3BlobStore.from_url(settings.blobs, endpoint_url=settings.s3_endpoint)
    blobs.check()
    return blobs


def open_context(
    target: str | Path | None = None,
    *,
    embedder: Embedder | None = None,
    settings: Settings | None = None,
    workspace: str | None = None,
) -> BrainContext:
    """The brain ``target`` names: a ``postgresql://`` URL (``open_server``) or a brain
    folder (``open_embedded``); with none, the settings' store if one is set
    (``ORGBRAIN_STORE``), else their brain folder."""
    s = settings or Settings()
    if target is None and s.store is not None:
        target = s.store
    if is_store_url(target):
        return open_server(str(target), embedder=embedder, settings=s, workspace=workspace)
    return open_embedded(target, embedder=embedder, settings=s, workspace=workspace)


def open_server(
    url: str,
    *,
    embedder: Embedder | None = None,
    settings: Settings | None = None,
    workspace: str | None = None,
) -> BrainContext:
    """A brain on PostgreSQL at ``url`` (docs/postgres.md): items, edges, the event log and
    the job queue in the database, so N servers and M workers share one brain; blobs where
    the settings say (an S3-compatible bucket for several machines, ``make_blobs``)."""
    from .adapters.postgres import PostgresJobQueue, PostgresStore

    s = replace(settings or Settings(), store=url)
    store = PostgresStore(url, timeout_s=s.store_timeout_s)
    jobs: JobQueue | None = None
    try:
        jobs = PostgresJobQueue(url, timeout_s=s.store_timeout_s)
        blobs = make_blobs(s, s.brain)
        s.brain.mkdir(parents=True, exist_ok=True)
        known = replace(s, root=(s.root or s.brain.resolve().parent))
        return build_context(
            store,
            blobs,
            embedder or make_embedder(s),
            known,
            workspace,
            jobs=jobs,
        )
    except BaseException:
        if jobs is not None:
            jobs.close()
        store.close()
        raise


def build_context(
    store: Store,
    blobs: BlobStore,
    embedder: Embedder,
    settings: Settings | None = None,
    workspace: str | None = None,
    *,
    reranker: Reranker | None = None,
    jobs: JobQueue | None = None,
    chat: Chat | None = None,
) -> BrainContext:
    """The context over built parts, for the local owner: the store learns the embedding
    space first, and an unknown plan name fails here.

    Without ``jobs`` the context gets an in-memory queue: background work then lasts only
    as long as the process (``open_embedded`` passes the durable SQLite one). Without
    ``chat`` the one the settings name (``ORGBRAIN_CHAT_URL``), if any, serves the
    extractor's LLM tier."""
    from .adapters.jobs_memory import MemoryJobQueue
    from .adapters.tokenize_wordpiece import default_tokenizer

    s = settings or Settings()
    get_plan(s.plan)  # an unknown ORGBRAIN_PLAN fails at start, not at the first search
    space = embedder_space(embedder)
    store.bind_embedder(space.model, space.dim, (space.query_prefix, space.passage_prefix))
    backfill_keys(store)  # once, for a brain written before contextual keys (0014)
    ctx = BrainContext(
        store,
        blobs,
        embedder,
        s,
        workspace=workspace or s.workspace,
        tokenizer=default_tokenizer(),
        reranker=reranker if reranker is not None else make_reranker(s),
        jobs=jobs if jobs is not None else MemoryJobQueue(),
        chat=chat if chat is not None else make_chat(s),
    )
    relay(ctx)  # what a write that crashed after its commit still owes (derive/outbox.py)
    return ctx


def make_reranker(settings: Settings) -> Reranker | None:
    """The reranker the settings name (``ORGBRAIN_RERANK_URL``, ``_MODEL``, ``_PROTOCOL``,
    ``_KEY``, ``_TIMEOUT_S``), or None: the search keeps the brain's own order."""
    if not settings.rerank_url:
        return None
    from .adapters.rerank_http import HTTPReranker

    return HTTPReranker(
        settings.rerank_url,
        settings.rerank_model,
        protocol=settings.rerank_protocol,
        api_key=settings.rerank_key,
        timeout=settings.rerank_timeout_s,
    )


def pair_training() -> ModuleType:
    """The pair reader's trainer (``adapters/minilm_pair_train``: ``train``,
    ``out_of_fold``, ``save_head``, ``PairRow``, ``TrainConfig``; needs torch), for the
    fits under ``evals/``, which may not pick an adapter themselves."""
    from .adapters import minilm_pair_train

    return minilm_pair_train


def make_chat(settings: Settings) -> Chat | None:
    """The chat model the settings name (``ORGBRAIN_CHAT_URL``/``_MODEL``/``_KEY``), or
    None when none is configured."""
    from .adapters.chat_openai import make_chat as from_settings

    return from_settings(settings)


def describe_store(url: str) -> str:
    """A store URL fit to print: its password left out."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    user = f"{parts.username}@" if parts.username else ""
    port = f":{parts.port}" if parts.port else ""
    return urlunsplit(parts._replace(netloc=f"{user}{host}{port}"))


def open_key_store(brain: str | Path, *, store: str | None = None) -> KeyStore:
    """The API keys of the brain in folder ``brain`` (created on first use), or, with a
    ``store`` URL, those in that PostgreSQL database."""
    if store is not None:
        from .adapters.postgres.keys import PostgresKeyStore

        return PostgresKeyStore(store)
    from .adapters.sqlite.keys import SQLiteKeyStore

    return SQLiteKeyStore.for_brain(Path(brain))


def workspace_sizes(brain: str | Path, *, store: str | None = None) -> dict[str, int]:
    """How many items each workspace of the brain in ``brain`` (or in the ``store``
    database) holds (no model is loaded); empty when there is no brain there."""
    from .adapters.sqlite import SQLiteStore

    if store is not None:
        from .adapters.postgres import PostgresStore

        server = PostgresStore(store, max_connections=1)
        try:
            return {ws: item_count(server.counts(ws)) for ws in server.workspaces()}
        finally:
            server.close()
    db = Path(brain) / "brain.sqlite"
    if not db.is_file():
        return {}
    embedded = SQLiteStore(db)
    try:
        return {ws: item_count(embedded.counts(ws)) for ws in embedded.workspaces()}
    finally:
        embedded.close()


def _keyword_engine(name: str) -> KeywordEngine:
    if name == "tantivy":
        return "tantivy"
    if name == "fts5":
        return "fts5"
    raise InvalidInput(f"unknown keyword engine {name!r}: use tantivy or fts5")
