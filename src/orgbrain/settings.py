"""Typed settings, read once by the CLI or server and passed down; nothing reads the
environment at import time."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .errors import InvalidInput

__all__ = ["DEFAULT_BRAIN", "DEFAULT_PLAN", "Settings", "is_store_url"]

DEFAULT_BRAIN = ".orgbrain"

# What users get: the best measured ranking (z-scored convex fusion over deep lists, next
# turn credit) with the membership gate, so that a question the brain holds nothing about
# gets silence (docs/journal.md, "The default plan"). `hybrid` is plain RRF with no gate.
DEFAULT_PLAN = "tuned-z"
"""The plan ``Brain.search`` uses when none is named (``retrieve.plan.PLANS`` holds it)."""


def is_store_url(value: object) -> bool:
    """Whether ``value`` names a server store (PostgreSQL) rather than a brain folder."""
    return isinstance(value, str) and value.startswith(("postgresql://", "postgres://"))


SUPERSESSION = ("rules", "judge", "both")
"""What may decide that a newer note replaces an older one (``Settings.supersession``)."""
VERDICTS = ("gate", "judge")
"""What decides whether a search speaks (``Settings.verdict``)."""
SWITCH = ("on", "off")
"""An on/off setting's values (``Settings.verdict_llm``)."""


@dataclass(frozen=True, slots=True)
class Settings:
    brain: Path = Path(DEFAULT_BRAIN)
    # A file added by path is known by its path from here (its default source key), so the
    # same file is one item however it is added; default: the folder the brain is in.
    root: Path | None = None
    workspace: str = "default"
    max_file_bytes: int = 100 * 1024 * 1024
    embed_batch: int = 100
    embedder: str = "minilm"  # "minilm" (numpy), "minilm-torch", "e5" or "openai"
    embed_url: str | None = None
    embed_model: str | None = None
    embed_api_key: str | None = None
    keyword_engine: str = "tantivy"  # "tantivy" or "fts5" (docs/benchmarks.md)
    plan: str = DEFAULT_PLAN  # the search plan when a caller names none (docs/eval.md)
    # One extraction of a pdf, docx, xlsx, pptx or html file runs in a child process
    # within these bounds (ingest/bounded.py); 0 seconds runs it in process, unbounded.
    extract_seconds: float = 120.0
    extract_memory_mb: int = 2048
    # An OpenAI-compatible chat model for the statement extractor's LLM tier and the
    # supersession judge's (the pairs it is unsure of, derive/judge_llm.py); none: off.
    chat_url: str | None = None
    chat_model: str | None = None
    chat_key: str | None = None
    # A reranker behind a rerank API (``ORGBRAIN_RERANK_URL``; protocol ``cohere`` or
    # ``tei``): it reorders a search's first candidates; none: the brain's own order.
    rerank_url: str | None = None
    rerank_model: str | None = None
    rerank_protocol: str = "cohere"
    rerank_key: str | None = field(default=None, repr=False)
    rerank_timeout_s: float = 5.0
    # The extractor's tiers derivation runs (comma-separated): patterns always; the
    # classifier is opt-in (on the dev set it lowers strict F1, docs/extraction.md); the
    # LLM runs only when a chat model is configured.
    extract_tiers: str = "pattern,llm"
    # How long a write with wait="derived" blocks for its derivation before it says the
    # write is acknowledged and derivation goes on (HTTP: at most half the deadline).
    derive_wait_s: float = 30.0
    # What decides that a newer note replaces an older one (docs/derivation.md): the
    # phrase ``rules`` (restated.py), the learned ``judge`` (orgbrain/judge), or ``both``.
    supersession: str = "rules"
    # What decides whether a search speaks (docs/search.md): the ``gate``'s floors on
    # cosine and shared words, or the learned answerability ``judge``
    # (retrieve/answerable.py), which tells a passage that answers from one that is near.
    verdict: str = "gate"
    # Whether the search verdict's close calls go to the chat model, when one is
    # configured (retrieve/verdict_llm.py): ``on`` or ``off`` (the model kept for the rest).
    verdict_llm: str = "on"
    # Who writes back a run's work products: ``auto`` (the LLM writer when a chat model
    # is configured, else the offline one), ``offline`` or ``llm`` (docs/writeback.md).
    writer: str = "auto"
    # The audit pass after a file is indexed (docs/audit.md): its budget of tool calls
    # (0 turns it off) and its auditor, ``auto``, ``offline`` or ``llm`` as the writer.
    audit_steps: int = 30
    auditor: str = "auto"
    # Where files' bytes live: None, the brain's own folder (<brain>/blobs); or an
    # S3-compatible bucket, s3://bucket/prefix, at s3_endpoint when not AWS (docs/s3.md).
    blobs: str | None = None
    s3_endpoint: str | None = None
    # Where items, edges, jobs and keys live instead of ``<brain>/brain.sqlite``: a
    # PostgreSQL URL (``postgresql://...``, docs/postgres.md); blobs stay in the brain
    # folder. ``store_timeout_s`` bounds every statement on it (and a request's deadline
    # bounds it further).
    store: str | None = None
    store_timeout_s: float = 30.0
    # What the web UI signs its session cookies with (``ORGBRAIN_UI_SECRET``, at least 32
    # characters): give every server process the same one so they share sessions and a
    # restart signs no one out; None: a random one per process (docs/ui.md).
    ui_secret: str | None = field(default=None, repr=False)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        """Settings from ``ORGBRAIN_*`` variables, then explicit overrides (not None)."""
        e = os.environ if env is None else env
        values: dict[str, object] = {}
        if "ORGBRAIN_BRAIN" in e:
            values["brain"] = Path(e["ORGBRAIN_BRAIN"])
        if "ORGBRAIN_ROOT" in e:
            values["root"] = Path(e["ORGBRAIN_ROOT"])
        if "ORGBRAIN_WORKSPACE" in e:
            values["workspace"] = e["ORGBRAIN_WORKSPACE"]
        for key, var, kind in (
            ("extract_seconds", "ORGBRAIN_EXTRACT_SECONDS", float),
            ("extract_memory_mb", "ORGBRAIN_EXTRACT_MEMORY_MB", int),
            ("derive_wait_s", "ORGBRAIN_DERIVE_WAIT_S", float),
            ("audit_steps", "ORGBRAIN_AUDIT_STEPS", int),
            ("store_timeout_s", "ORGBRAIN_STORE_TIMEOUT_S", float),
            ("rerank_timeout_s", "ORGBRAIN_RERANK_TIMEOUT_S", float),
        ):
            if var in e:
                try:
                    values[key] = kind(e[var])
                except ValueError:
                    raise InvalidInput(f"{var} must be a number") from None
        if "ORGBRAIN_MAX_FILE_BYTES" in e:
            try:
                values["max_file_bytes"] = int(e["ORGBRAIN_MAX_FILE_BYTES"])
            except ValueError:
                raise InvalidInput("ORGBRAIN_MAX_FILE_BYTES must be an integer") from None
        for key, var in (
            ("embedder", "ORGBRAIN_EMBEDDER"),
            ("embed_url", "ORGBRAIN_EMBED_URL"),
            ("embed_model", "ORGBRAIN_EMBED_MODEL"),
            ("embed_api_key", "ORGBRAIN_EMBED_API_KEY"),
            ("keyword_engine", "ORGBRAIN_KEYWORD_ENGINE"),
            ("plan", "ORGBRAIN_PLAN"),
            ("chat_url", "ORGBRAIN_CHAT_URL"),
            ("chat_model", "ORGBRAIN_CHAT_MODEL"),
            ("chat_key", "ORGBRAIN_CHAT_KEY"),
            ("rerank_url", "ORGBRAIN_RERANK_URL"),
            ("rerank_model", "ORGBRAIN_RERANK_MODEL"),
            ("rerank_protocol", "ORGBRAIN_RERANK_PROTOCOL"),
            ("rerank_key", "ORGBRAIN_RERANK_KEY"),
            ("extract_tiers", "ORGBRAIN_EXTRACT_TIERS"),
            ("supersession", "ORGBRAIN_SUPERSESSION"),
            ("verdict", "ORGBRAIN_VERDICT"),
            ("verdict_llm", "ORGBRAIN_VERDICT_LLM"),
            ("writer", "ORGBRAIN_WRITER"),
            ("auditor", "ORGBRAIN_AUDITOR"),
            ("blobs", "ORGBRAIN_BLOBS"),
            ("s3_endpoint", "ORGBRAIN_S3_ENDPOINT"),
            ("store", "ORGBRAIN_STORE"),
            ("ui_secret", "ORGBRAIN_UI_SECRET"),
        ):
            if var in e:
                values[key] = e[var]
        values.update({k: v for k, v in overrides.items() if v is not None})
        if values.get("store") == "":
            values["store"] = None  # ORGBRAIN_STORE= (empty): the embedded store
        store = values.get("store")
        if store is not None and not is_store_url(store):
            raise InvalidInput(
                f"ORGBRAIN_STORE must be a postgresql:// URL, not {str(store)[:40]!r}"
            )
        secret = values.get("ui_secret")
        if secret == "":
            values["ui_secret"] = None
        elif secret is not None and len(str(secret).encode()) < 32:
            raise InvalidInput(
                "ORGBRAIN_UI_SECRET must be at least 32 characters "
                "(python -c 'import secrets; print(secrets.token_hex(32))')"
            )
        if values.get("supersession", "rules") not in SUPERSESSION:
            raise InvalidInput(
                f"ORGBRAIN_SUPERSESSION must be one of {', '.join(SUPERSESSION)}, "
                f"not {str(values['supersession'])[:40]!r}"
            )
        if values.get("verdict", "gate") not in VERDICTS:
            raise InvalidInput(
                f"ORGBRAIN_VERDICT must be one of {', '.join(VERDICTS)}, "
                f"not {str(values['verdict'])[:40]!r}"
            )
        if values.get("verdict_llm", "on") not in SWITCH:
            raise InvalidInput(
                f"ORGBRAIN_VERDICT_LLM must be on or off, not {str(values['verdict_llm'])[:40]!r}"
            )
        if "brain" in values:
            values["brain"] = Path(str(values["brain"]))
        return cls(**values)  # type: ignore[arg-type]
