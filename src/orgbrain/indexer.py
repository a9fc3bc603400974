"""Index added files: extract, chunk, embed, then commit each file + its sections atomically.

Everything before a file's commit is pure computation (plus an idempotent text blob), so a
crash at any point leaves that file ``indexed=false`` and a later run starts it again
cleanly. ``Indexer.index_many`` embeds several files' texts together, in batches that cross
file boundaries, but still commits each file in its own transaction.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from .context import BrainContext
from .derive.outbox import owe_derive, relay
from .errors import Conflict, CorruptFile, InvalidInput, OrgBrainError, Unavailable
from .ids import new_id
from .ingest import Chunk, Extracted
from .ingest.bounded import Bounds, read_bounded
from .ingest.sniff import MEDIA_TYPES, FileFormat
from .model import ByteRange, IndexReport, Item, Locator, Origin, utcnow
from .ports import BlobStore, Embedder, ItemStore, Vector
from .telemetry import (
    MEMORY_RECORD_COUNT,
    MEMORY_RECORD_ID,
    MEMORY_STORE_ID,
    OPERATION_NAME,
    Attr,
    set_attributes,
    span,
)

__all__ = ["INDEX_RECIPE", "Embedded", "IndexReport", "Indexer", "embed_texts", "passages"]

EMBED_CHARS = 2000
EMBED_TOTAL_CHARS = 8000
PASSAGE_WORDS = 150
MAX_PASSAGES = 8
# What decides the vectors a text gets, beyond the embedder: eval caches key on it, so
# change it with any change to how texts are cut or embedded here.
INDEX_RECIPE = (
    f"embed_texts: head line + passages of <= {PASSAGE_WORDS} words, at most {MAX_PASSAGES}, "
    f"mean of unit vectors, then each passage's kept; single text cut at {EMBED_CHARS} "
    "chars; v3"
)
FILE_BODY_CHARS = 100_000
SUMMARY_CHARS = 280


# A sentence ends at . ! or ? before a space, or glued to the next capital ("cells.The"):
# SciFact abstracts join sentences that way.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[a-z0-9)\]][.!?])(?=[A-Z])")


def passages(text: str) -> list[str]:
    """The texts that ``text`` is embedded as: itself when its body is short, else its head
    line (label, title) before each run of whole sentences of at most ``PASSAGE_WORDS``
    words.

    MiniLM reads 256 word pieces and drops the rest: 71% of SciFact abstracts are longer.
    Averaging the passages' vectors lets the tail count, and keeping each passage's vector
    beside the mean lets a question that one passage answers match it closely
    (docs/eval.md measures both), at one embedding per passage at write time and none
    extra per query.
    """
    head, newline, body = text.partition("\n")
    if not newline:
        head, body = "", text
    if len(body.split(maxsplit=PASSAGE_WORDS)) <= PASSAGE_WORDS:  # without splitting it all
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


def embed_texts(embedder: Embedder, texts: Sequence[str], batch: int = 100) -> list[Vector]:
    """Each text's vectors, one row each: first the normalised mean of its ``passages``'
    vectors (the text's own), then, for a text of several passages, each passage's.
    Passages are embedded in batches of ``batch``."""
    if not texts:
        return []
    pieces, owner = _split(texts)
    parts = [embedder.embed(pieces[i : i + batch]) for i in range(0, len(pieces), batch)]
    return _pool(np.vstack(parts), owner, len(texts))


def _split(texts: Sequence[str]) -> tuple[list[str], list[int]]:
    """Every text's passages in order, and the index of the text each one belongs to."""
    pieces: list[str] = []
    owner: list[int] = []
    for i, text in enumerate(texts):
        for piece in passages(text):
            pieces.append(piece)
            owner.append(i)
    return pieces, owner


def _pool(vectors: Vector, owner: Sequence[int], n_texts: int) -> list[Vector]:
    """Per text: the unit mean of its passages' vectors, then those vectors when there are
    several (``owner[i]`` is the text of passage ``i``, texts in order)."""
    vectors = vectors.astype(np.float32, copy=False)
    out: list[Vector] = []
    start = 0
    for text in range(n_texts):
        end = start
        while end < len(owner) and owner[end] == text:
            end += 1
        mine = vectors[start:end]
        if len(mine) == 1:
            out.append(mine)
        else:
            mean = mine.sum(axis=0)
            norm = float(np.linalg.norm(mean)) or 1.0
            out.append(np.vstack([mean / norm, mine]).astype(np.float32, copy=False))
        start = end
    return out


@dataclass(frozen=True, slots=True)
class _Prepared:
    """A file read, extracted and cut, with the texts its vectors come from (its sections'
    then its own), waiting for those vectors."""

    file: Item
    extracted: Extracted
    chunks: list[Chunk]
    text_key: str
    title: str
    heads: list[str]  # each chunk's breadcrumb (``_heads``)
    texts: list[str]


@dataclass(frozen=True, slots=True)
class _Waiting:
    position: int
    prepared: _Prepared
    owner: list[int]  # text index of each of its passages, in order


@dataclass(frozen=True, slots=True)
class Embedded:
    """Work one embedding call stood for: bytes of the files, and their sections (both
    shared out evenly over each file's passages, so they may be fractions)."""

    bytes: float
    sections: float


class Indexer:
    """Indexes files with a context's ports. A file is read and committed in its own
    workspace (the one the item names), so one indexer serves a whole queue."""

    def __init__(self, ctx: BrainContext) -> None:
        self.ctx = ctx
        self.items: ItemStore = ctx.items
        self.blobs: BlobStore = ctx.blobs
        self.embedder: Embedder = ctx.embedder
        self.batch = ctx.settings.embed_batch
        s = ctx.settings
        self.bounds = (
            Bounds(s.extract_seconds, s.extract_memory_mb << 20) if s.extract_seconds > 0 else None
        )

    def index(self, file: Item) -> IndexReport:
        """Index ``file``; a bad file raises after recording its error on the item."""
        with span("upsert_memory", _index_attributes(file.workspace, 1)) as current:
            set_attributes(current, {MEMORY_RECORD_ID: file.id})
            prepared = self._prepare(file)
            report = self._commit(prepared, embed_texts(self.embedder, prepared.texts, self.batch))
            set_attributes(current, {MEMORY_RECORD_COUNT: report.sections})
            return report

    def index_many(
        self,
        files: Iterable[Item],
        *,
        progress: Callable[[IndexReport], None] | None = None,
        on_embedded: Callable[[Embedded], None] | None = None,
    ) -> list[IndexReport]:
        """Index ``files``, one report each in their order; one bad file never stops the rest.
        One ``upsert_memory`` span covers the whole call (``telemetry``).

        Their passages are embedded together in batches of ``batch``, file after file as
        ``embed_texts`` would cut them, so a batch does not end where a file does; each
        file commits in its own transaction once its last vector is in. A bad file gets
        its error recorded on the item, as ``index`` does. An embedder error (of any type)
        or a failed commit fails only the files waiting on it, records nothing on them and
        marks their reports ``retry`` (unless the file changed mid-run): the fault is not
        theirs, so they stay pending.
        ``progress`` sees each report as it is settled, which is not always in file order
        (a file that cannot be read settles before earlier ones embed). ``on_embedded``
        hears after each embedding call (and each file that cannot be read) how much work
        it stood for: the files' bytes and sections, shared out over their passages, so a
        bar over the files' sizes moves section by section.
        """
        files = list(files)
        workspaces = {f.workspace for f in files}  # a worker's batch may hold several
        where = workspaces.pop() if len(workspaces) == 1 else None
        with span("upsert_memory", _index_attributes(where, len(files))) as current:
            done = self._index_many(files, progress, on_embedded)
            set_attributes(
                current,
                {
                    MEMORY_RECORD_COUNT: sum(r.sections for r in done),
                    "orgbrain.index.failed": sum(1 for r in done if not r.ok),
                },
            )
            return done

    def _index_many(
        self,
        files: Sequence[Item],
        progress: Callable[[IndexReport], None] | None,
        on_embedded: Callable[[Embedded], None] | None,
    ) -> list[IndexReport]:
        reports: list[IndexReport | None] = []
        waiting: deque[_Waiting] = deque()
        pieces: list[str] = []  # passages of waiting files, not embedded yet
        shares: list[Embedded] = []  # what each waiting passage stands for, in step
        ready = np.zeros((0, self.embedder.dim), dtype=np.float32)  # embedded, not committed

        def done(work: Sequence[Embedded]) -> None:
            if on_embedded is not None and work:
                total = Embedded(sum(w.bytes for w in work), sum(w.sections for w in work))
                on_embedded(total)

        def settle(position: int, report: IndexReport) -> None:
            reports[position] = report
            if progress is not None:
                progress(report)

        def embed_and_commit(n: int) -> None:
            nonlocal pieces, ready, shares
            try:
                vectors = self.embedder.embed(pieces[:n])
            except Exception as exc:  # any embedder fault is the embedder's, not the files'
                fault = exc if isinstance(exc, OrgBrainError) else _embedder_fault(exc)
                while waiting:
                    w = waiting.popleft()
                    settle(w.position, _failed(w.prepared.file, fault, retry=True))
                done(shares)
                pieces, ready, shares = [], ready[:0], []
                return
            done(shares[:n])
            pieces, shares = pieces[n:], shares[n:]
            ready = np.vstack([ready, vectors]) if len(ready) else vectors
            while waiting and len(waiting[0].owner) <= len(ready):
                w = waiting.popleft()
                k = len(w.owner)
                mine, ready = ready[:k], ready[k:]
                vecs = _pool(mine, w.owner, len(w.prepared.texts))
                try:
                    settle(w.position, self._commit(w.prepared, vecs))
                except OrgBrainError as exc:
                    # A store that blinked may take the same work later; a version replaced
                    # mid-run (Conflict) never will: the new bytes are other work; nor will a
                    # section key another item holds (InvalidInput).
                    retry = not isinstance(exc, Conflict | InvalidInput)
                    settle(w.position, _failed(w.prepared.file, exc, retry=retry))

        for position, file in enumerate(files):
            reports.append(None)
            try:
                prepared = self._prepare(file)
            except OrgBrainError as exc:
                settle(position, _failed(file, exc))
                done([Embedded(float(file.size or 0), 0.0)])
                continue
            mine, owner = _split(prepared.texts)
            waiting.append(_Waiting(position, prepared, owner))
            pieces += mine
            share = Embedded(
                (file.size or len(prepared.extracted.text)) / len(mine),
                len(prepared.chunks) / len(mine),
            )
            shares += [share] * len(mine)
            while len(pieces) >= self.batch:
                embed_and_commit(self.batch)
        if pieces:
            embed_and_commit(len(pieces))
        assert not waiting and all(r is not None for r in reports)
        return [r for r in reports if r is not None]

    def _prepare(self, file: Item) -> _Prepared:
        """Read, extract and cut ``file``; a bad file raises after recording its error."""
        if file.storage_class != "file" or file.blob_key is None:
            raise InvalidInput(f"{file.id} is a {file.storage_class}, not a file: nothing to index")
        try:
            data = self.blobs.read(file.blob_key)
            fmt = _format_of(file)
            extracted, chunks = read_bounded(data, fmt, self.bounds)
            if not chunks:
                raise CorruptFile(f"{file.name}: no text to index")
        except OrgBrainError as exc:
            self._record(file, f"{exc.code}: {exc.message}")
            raise
        except Exception as exc:  # a library bug must not take the process down
            msg = f"{file.name}: could not be read ({type(exc).__name__}: {exc})"
            self._record(file, f"corrupt_file: {msg}")
            raise CorruptFile(msg) from exc

        text_key = file.blob_key
        if not extracted.text_is_raw:
            text_key = f"{file.blob_key}.txt"
            self.blobs.put(text_key, [extracted.text.encode("utf-8")])

        title = extracted.title or file.label
        heads = _heads(title, chunks)
        texts = [f"{h}\n{c.text}" for h, c in zip(heads, chunks, strict=True)]
        texts.append(f"{title}\n{extracted.text}")
        return _Prepared(file, extracted, chunks, text_key, title, heads, texts)

    def _record(self, file: Item, error: str) -> None:
        # On the version that was read: bytes re-added since are not blamed for it.
        self.items.set_index_error(
            file.workspace, file.id, error, content_hash=file.content_hash or None
        )

    def _commit(self, prepared: _Prepared, vectors: Sequence[Vector]) -> IndexReport:
        """Write the file and its sections in one transaction (fsynced when it returns)."""
        file, extracted, title, text_key = (
            prepared.file,
            prepared.extracted,
            prepared.title,
            prepared.text_key,
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
            (self._section(indexed_file, c, text_key, prepared.heads[i], origin), vectors[i])
            for i, c in enumerate(prepared.chunks)
        ]
        # The file keeps only its own (mean) vector: its sections hold the passages, and a
        # file matched with its sections folds into them.
        file_vector = vectors[-1][:1]
        try:
            owed = owe_derive(replace(self.ctx, workspace=file.workspace))
            stored = self.items.commit_index(
                indexed_file, file_vector, sections, "system:indexer", owed=owed
            )
        except Conflict:
            # A newer version replaced this one mid-run: its extracted text names no row.
            if text_key != file.blob_key:
                self.blobs.delete_prefix(text_key)
            raise
        except InvalidInput as exc:  # a section's key held by another item: say why
            self._record(file, f"{exc.code}: {exc.message}")
            raise
        relay(self.ctx, [owed.id])  # the sections' derivation (derive/outbox.py)
        return IndexReport(file.id, indexed_file.label, len(stored))

    def _section(self, file: Item, c: Chunk, text_key: str, head: str, origin: Origin) -> Item:
        return Item(
            id=new_id("sec"),
            workspace=file.workspace,
            kind="section",
            storage_class="section",
            label=head if c.heading_path else f"{head} §{c.ordinal + 1}",
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


def _index_attributes(workspace: str | None, files: int) -> dict[str, Attr]:
    return {
        OPERATION_NAME: "upsert_memory",
        MEMORY_STORE_ID: workspace,
        "orgbrain.index.files": files,
    }


def _heads(title: str, chunks: Sequence[Chunk]) -> list[str]:
    """Each chunk's breadcrumb: ``title > heading > ...``, or the title alone for text before
    any heading. When the title is itself one of the document's headings (a Markdown file's
    title is its first ``#`` heading, a docx's often its first heading) it is never put in
    front of a heading that is not under it: a second top-level ``# Search`` is ``Search``,
    not ``Billing > Search``."""
    among = any(c.heading_path[:1] == (title,) for c in chunks)
    return [
        " > ".join(c.heading_path if among and c.heading_path else (title, *c.heading_path))
        for c in chunks
    ]


def _failed(file: Item, exc: OrgBrainError, *, retry: bool = False) -> IndexReport:
    label = file.label or file.name or file.id
    return IndexReport(file.id, label, 0, exc.message, exc.code, retry)


def _embedder_fault(exc: Exception) -> Unavailable:
    return Unavailable(f"the embedder failed: {type(exc).__name__}: {exc}")


def _summary(ex: Extracted) -> str:
    text = " ".join(ex.text[: SUMMARY_CHARS * 4].split())
    return text if len(text) <= SUMMARY_CHARS else text[: SUMMARY_CHARS - 1] + "…"


_BY_MEDIA: dict[str, FileFormat] = {media: fmt for fmt, media in MEDIA_TYPES.items()}


def _format_of(file: Item) -> FileFormat:
    fmt = _BY_MEDIA.get(file.media_type or "")
    if fmt is None:
        raise CorruptFile(f"{file.name}: unknown media type {file.media_type!r}")
    return fmt
