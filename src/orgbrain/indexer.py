"""Index one added file: extract, chunk, embed, then commit file + sections atomically.

Everything before the commit is pure computation (plus an idempotent text blob), so a crash
at any point leaves the file ``indexed=false`` and a later run starts it again cleanly.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from .errors import CorruptFile, InvalidInput, OrgBrainError
from .ids import new_id
from .ingest import Chunk, Extracted, chunk, extract
from .ingest.sniff import MEDIA_TYPES, FileFormat
from .model import ByteRange, Item, Locator, Origin, utcnow
from .ports import BlobStore, Embedder, Store, Vector

__all__ = ["INDEX_RECIPE", "IndexReport", "Indexer", "embed_texts", "passages"]

EMBED_CHARS = 2000
EMBED_TOTAL_CHARS = 8000
PASSAGE_WORDS = 150
MAX_PASSAGES = 8
# What decides the vectors a text gets, beyond the embedder: eval caches key on it, so
# change it with any change to how texts are cut or embedded here.
INDEX_RECIPE = (
    f"embed_texts: head line + passages of <= {PASSAGE_WORDS} words, at most {MAX_PASSAGES}, "
    f"mean of unit vectors; single text cut at {EMBED_CHARS} chars; v2"
)
FILE_BODY_CHARS = 100_000
SUMMARY_CHARS = 280


@dataclass(frozen=True, slots=True)
class IndexReport:
    item_id: str
    label: str
    sections: int
    error: str | None = None
    error_code: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


# A sentence ends at . ! or ? before a space, or glued to the next capital ("cells.The"):
# SciFact abstracts join sentences that way.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[a-z0-9)\]][.!?])(?=[A-Z])")


def passages(text: str) -> list[str]:
    """The texts that ``text`` is embedded as: itself when its body is short, else its head
    line (label, title) before each run of whole sentences of at most ``PASSAGE_WORDS``
    words.

    MiniLM reads 256 word pieces and drops the rest: 71% of SciFact abstracts are longer.
    Averaging the passages' vectors lets the tail count (docs/eval.md measures the gain),
    at one embedding per passage at write time and none extra per query.
    """
    head, newline, body = text.partition("\n")
    if not newline:
        head, body = "", text
    if len(body.split()) <= PASSAGE_WORDS:
        return [text[:EMBED_CHARS]]
    prefix = f"{head}\n" if head.strip() else ""
    out: list[str] = []
    run: list[str] = []
    for sentence in _SENTENCE_END.split(body[:EMBED_TOTAL_CHARS].strip()):
        words = sentence.split()
        if run and len(run) + len(words) > PASSAGE_WORDS:
            out.append(prefix + " ".join(run))
            run = []
        while len(words) > PASSAGE_WORDS:  # one sentence longer than a passage
            out.append(prefix + " ".join(words[:PASSAGE_WORDS]))
            words = words[PASSAGE_WORDS:]
        run += words
    if run:
        out.append(prefix + " ".join(run))
    return [p[:EMBED_CHARS] for p in out[:MAX_PASSAGES]]


def embed_texts(embedder: Embedder, texts: Sequence[str], batch: int = 100) -> Vector:
    """One unit vector per text: the normalised mean of its ``passages``' vectors,
    embedded in batches of ``batch`` passages."""
    if not texts:
        return np.zeros((0, embedder.dim), dtype=np.float32)
    pieces: list[str] = []
    owner: list[int] = []
    for i, text in enumerate(texts):
        for piece in passages(text):
            pieces.append(piece)
            owner.append(i)
    parts = [embedder.embed(pieces[i : i + batch]) for i in range(0, len(pieces), batch)]
    vectors = np.vstack(parts).astype(np.float32, copy=False)
    if len(pieces) == len(texts):
        return vectors
    pooled = np.zeros((len(texts), vectors.shape[1]), dtype=np.float32)
    np.add.at(pooled, np.asarray(owner), vectors)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    out: Vector = (pooled / norms).astype(np.float32, copy=False)
    return out


@dataclass
class Indexer:
    store: Store
    blobs: BlobStore
    embedder: Embedder
    batch: int = 100

    def index(self, file: Item) -> IndexReport:
        """Index ``file``; a bad file raises after recording its error on the item."""
        if file.storage_class != "file" or file.blob_key is None:
            raise InvalidInput(f"{file.id} is a {file.storage_class}, not a file: nothing to index")
        try:
            data = self.blobs.read(file.blob_key)
            fmt = _format_of(file)
            extracted = extract(data, fmt)
            chunks = chunk(extracted)
            if not chunks:
                raise CorruptFile(f"{file.name}: no text to index")
        except OrgBrainError as exc:
            self.store.set_index_error(file.workspace, file.id, f"{exc.code}: {exc.message}")
            raise
        except Exception as exc:  # a library bug must not take the process down
            msg = f"{file.name}: could not be read ({type(exc).__name__}: {exc})"
            self.store.set_index_error(file.workspace, file.id, f"corrupt_file: {msg}")
            raise CorruptFile(msg) from exc

        text_key = file.blob_key
        if not extracted.text_is_raw:
            text_key = f"{file.blob_key}.txt"
            self.blobs.put(text_key, [extracted.text.encode("utf-8")])

        title = extracted.title or file.label
        vectors = embed_texts(
            self.embedder,
            [_embed_text(title, c) for c in chunks] + [f"{title}\n{extracted.text}"],
            self.batch,
        )
        now = utcnow()
        indexed_file = replace(
            file,
            label=file.label or title,
            body=extracted.text[:FILE_BODY_CHARS],
            summary=_summary(extracted),
            text_key=text_key,
            indexed=True,
            index_error=None,
        )
        origin = Origin("system:indexer", f"index:{file.id}", now, file.origin.run_id)
        sections = [
            (self._section(indexed_file, c, text_key, title, origin), vectors[i])
            for i, c in enumerate(chunks)
        ]
        stored = self.store.commit_index(indexed_file, vectors[-1], sections, "system:indexer")
        return IndexReport(file.id, indexed_file.label, len(stored))

    def _section(self, file: Item, c: Chunk, text_key: str, title: str, origin: Origin) -> Item:
        crumb = " > ".join(c.heading_path)
        return Item(
            id=new_id("sec"),
            workspace=file.workspace,
            kind="section",
            storage_class="section",
            label=f"{title} > {crumb}" if crumb else f"{title} §{c.ordinal + 1}",
            body=c.text,
            source_key=f"{file.source_key}#{c.key}",
            indexed=True,
            scope=file.scope,
            origin=origin,
            blob_key=file.blob_key,
            text_key=text_key,
            byte_range=ByteRange(c.byte_start, c.byte_end),
            locator=Locator(c.page_start, c.page_end, c.sheet, c.heading_path),
            occurred_at=file.occurred_at,
            parent_id=file.id,
            ordinal=c.ordinal,
            name=file.name,
            media_type=file.media_type,
        )


def _embed_text(title: str, c: Chunk) -> str:
    crumb = " > ".join(c.heading_path)
    head = f"{title} > {crumb}" if crumb else title
    return f"{head}\n{c.text}"


def _summary(ex: Extracted) -> str:
    text = " ".join(ex.text.split())
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"


_BY_MEDIA: dict[str, FileFormat] = {media: fmt for fmt, media in MEDIA_TYPES.items()}


def _format_of(file: Item) -> FileFormat:
    fmt = _BY_MEDIA.get(file.media_type or "")
    if fmt is None:
        raise CorruptFile(f"{file.name}: unknown media type {file.media_type!r}")
    return fmt
