"""The agent tools. Each returns a view from ``orgbrain.views``, so an item, hit or edge
reads the same here as over HTTP, the CLI and the client.

Search hits carry their bodies as the search cut them (4000 characters). Every other item
a tool returns beside its answer (the note written, the entity named, a neighbourhood,
the item a read came from) carries the head of its body, ``ITEM_BODY_CHARS``: a
neighbourhood of 100 files would otherwise be megabytes in a model's context.
"""

from __future__ import annotations

import codecs
import typing
from datetime import datetime
from typing import Annotated, Literal

from pydantic import Field

from ...brain import Brain
from ...errors import Conflict, InvalidInput
from ...model import Item, StatementType, storage_class_for
from ...views import (
    ForgottenView,
    HistoryView,
    ItemView,
    LinkView,
    MentionView,
    NeighborhoodView,
    SearchResultView,
    StatementList,
    StatementView,
    StoryView,
    View,
)
from .registry import ToolContext, tool

__all__ = [
    "DEFAULT_READ_BYTES",
    "ITEM_BODY_CHARS",
    "MAX_READ_BYTES",
    "SEARCH_BODY_CHARS",
    "FileText",
    "NoteWritten",
    "add_to_brain",
    "brain_forget",
    "brain_history",
    "brain_link",
    "brain_neighborhood",
    "brain_observe_mention",
    "brain_read_file",
    "brain_search",
    "brain_statements",
    "brain_story",
]

SEARCH_BODY_CHARS = 4000
ITEM_BODY_CHARS = 280
DEFAULT_READ_BYTES = 16_000
MAX_READ_BYTES = 100_000

ItemId = Annotated[str, Field(min_length=1, max_length=64, description="An item id, e.g. not_…")]


class NoteWritten(View):
    item: ItemView


class FileText(View):
    item: ItemView = Field(description="The file, or the section the text was read from")
    text: str
    bytes: int = Field(description="How many bytes were read")
    truncated: bool = Field(description="Whether max_bytes cut the text")
    source: Literal["stored bytes", "extracted text"]


@tool(read_only=True)
def brain_search(
    brain: Brain,
    ctx: ToolContext,
    query: Annotated[
        str, Field(min_length=1, max_length=4000, description="What to look for, in words.")
    ],
    k: Annotated[int, Field(ge=1, le=8, description="At most this many hits (1-8).")] = 5,
    as_of: Annotated[
        datetime | None,
        Field(description="Answer as the brain believed at this RFC 3339 date-time."),
    ] = None,
) -> SearchResultView:
    """Search the organisation's brain: decisions, owners, definitions, gotchas. Read only.
    Every hit carries its citation; no hits means nothing relevant (do not guess). Current
    belief first: superseded_by marks a replaced hit, newer_answer an older one, supersedes
    what a hit replaced; verdict "conflict": the best answers disagree. Bodies are cut at
    4000 characters; brain_read_file reads more."""
    result = brain.search(query, k=k, as_of=as_of)
    return SearchResultView.of(result, body_chars=SEARCH_BODY_CHARS)


@tool(read_only=False)
def add_to_brain(
    brain: Brain,
    ctx: ToolContext,
    body: Annotated[
        str, Field(min_length=1, max_length=100_000, description="The fact, in full sentences.")
    ],
    kind: Annotated[
        str,
        Field(
            min_length=1,
            max_length=64,
            description="Free text: decision, owner, definition, rule, gotcha, fact...",
        ),
    ],
    label: Annotated[str, Field(min_length=1, max_length=200, description="A short title.")],
    scope: Annotated[
        str | None,
        Field(
            description="org (default), team:<id> or user:<id>; never wider than yours.",
        ),
    ] = None,
    supersedes: Annotated[
        tuple[ItemId, ...],
        Field(
            max_length=20,
            description="Ids of notes or files this fact replaces (same scope, or org).",
        ),
    ] = (),
) -> NoteWritten:
    """Write one durable fact into the brain straight away (no review): something useful to
    the organisation in a month, not task chatter. It is searchable as soon as this
    returns, and records you and your run as its origin. Name what it replaces in
    supersedes: those stay readable, marked superseded.
    """
    if storage_class_for(kind) != "note":
        raise InvalidInput(
            f"kind {kind!r} is reserved; use brain_observe_mention for entities and "
            "add files through the brain's add command"
        )
    item = brain.add_note(
        body,
        kind=kind,
        label=label,
        scope=scope,
        run_id=ctx.run_id,
        source=ctx.source,
        supersedes=supersedes,
    )
    return NoteWritten(item=ItemView.of(item, body_chars=ITEM_BODY_CHARS))


@tool(read_only=False, idempotent=True)
def brain_observe_mention(
    brain: Brain,
    ctx: ToolContext,
    item_id: ItemId,
    type: Annotated[
        str, Field(min_length=1, max_length=40, description="person, company, project, ...")
    ],
    value: Annotated[
        str, Field(min_length=1, max_length=200, description="The name, e.g. Priya Raman.")
    ],
    text: Annotated[
        str, Field(min_length=1, max_length=1000, description="The text span it was read from.")
    ],
    start: Annotated[int | None, Field(ge=0, description="Span start offset.")] = None,
    end: Annotated[int | None, Field(ge=0, description="Span end offset.")] = None,
) -> MentionView:
    """Record that an item mentions a named thing (person, company, project, ...), with the
    text span it came from. The entity is found again by (type, value) or created; the
    same mention twice is recorded once. Never merges anything.
    """
    m = brain.observe_mention(item_id, type, value, text, start=start, end=end, run_id=ctx.run_id)
    return MentionView.of(m, body_chars=ITEM_BODY_CHARS)


@tool(read_only=False, idempotent=True)
def brain_link(
    brain: Brain,
    ctx: ToolContext,
    src: ItemId,
    dst: ItemId,
    type: Annotated[
        str,
        Field(
            min_length=1,
            max_length=64,
            description="Edge type, e.g. DEPENDS_ON, OWNS, SAME_AS (HAS_SECTION is reserved).",
        ),
    ],
    note: Annotated[str | None, Field(max_length=2000, description="Why they are linked.")] = None,
) -> LinkView:
    """Link two items you can see with a typed edge. SAME_AS is only a soft claim that two
    items are the same thing; nothing is ever merged. The same link again is a no-op.
    """
    return LinkView.of(brain.link(src, dst, type, note=note, run_id=ctx.run_id))


@tool(read_only=True)
def brain_neighborhood(
    brain: Brain,
    ctx: ToolContext,
    item_id: ItemId,
    hops: Annotated[int, Field(ge=1, le=2, description="How far to walk: 1 or 2.")] = 1,
) -> NeighborhoodView:
    """The items and edges around one item, 1 or 2 hops out (at most 50 items and 100 edges
    per hop), through what you can see. Use it to find who owns, mentions or depends on it.
    Bodies are cut at 280 characters; brain_read_file reads more.
    """
    return NeighborhoodView.of(brain.neighborhood(item_id, hops), body_chars=ITEM_BODY_CHARS)


@tool(read_only=True)
def brain_read_file(
    brain: Brain,
    ctx: ToolContext,
    item_id: ItemId,
    section: Annotated[
        int | str | None,
        Field(description="A section's number (1-based) or id; omit for the whole file."),
    ] = None,
    max_bytes: Annotated[
        int, Field(ge=1, le=MAX_READ_BYTES, description="Read at most this many bytes.")
    ] = DEFAULT_READ_BYTES,
) -> FileText:
    """Read the text behind a citation: a whole file, or one section's exact range, capped
    at max_bytes. Use it when a search hit's body is not enough.
    """
    item = brain.get(item_id)
    whole_binary = (
        item.storage_class == "file"
        and section is None
        and not (item.media_type or "").startswith("text/")
    )
    if whole_binary:
        # The raw bytes of a PDF or workbook mean nothing to a model: give its text.
        if not item.indexed:
            raise Conflict(f"{item.id} is not indexed yet; index it to read its text")
        data = item.body.encode("utf-8")
        chunks = iter([data])
    elif item.storage_class in ("file", "section"):
        chunks = brain.read_file(item.id, section=section)
    else:
        raise InvalidInput(f"{item.id} is a {item.storage_class}; search shows its body")
    raw, truncated = _read_capped(chunks, max_bytes)
    text = codecs.getincrementaldecoder("utf-8")(errors="replace").decode(raw, final=False)
    return FileText(
        item=ItemView.of(_section_read(brain, item, section), body_chars=ITEM_BODY_CHARS),
        text=text,
        bytes=len(raw),
        truncated=truncated,
        source="extracted text" if whole_binary else "stored bytes",
    )


@tool(read_only=False, idempotent=False)
def brain_forget(
    brain: Brain,
    ctx: ToolContext,
    item_id: ItemId,
    reason: Annotated[
        str, Field(min_length=1, max_length=2000, description="Why it must be forgotten.")
    ],
) -> ForgottenView:
    """Forget an item you can see and may write (a wrong or outdated fact you or your run
    wrote, say): it leaves every search, listing and read at once; a file takes its
    sections with it. The row and an audit record (you, your run, the reason) stay. It
    does not erase bytes: a person does that with `orgbrain erase`.
    """
    return ForgottenView.of(brain.forget(item_id, reason=reason))


@tool(read_only=True)
def brain_history(brain: Brain, ctx: ToolContext, item_id: ItemId) -> HistoryView:
    """An item's history: its earlier versions (newest first) and what it supersedes and
    what superseded it, both ways, each link with who said so and why. Use it before
    trusting an old fact. Bodies are cut at 280 characters.
    """
    return HistoryView.of(brain.history(item_id), body_chars=ITEM_BODY_CHARS)


@tool(read_only=True)
def brain_statements(
    brain: Brain,
    ctx: ToolContext,
    about: Annotated[
        str,
        Field(min_length=1, max_length=200, description="A name (Priya Raman) or entity id."),
    ],
    types: Annotated[
        list[StatementType] | None,
        Field(max_length=4, description="Only these: fact, preference, event, decision."),
    ] = None,
    include_superseded: Annotated[
        bool, Field(description="Also what was true before (default: current only).")
    ] = False,
) -> StatementList:
    """Typed recall: what the brain holds as statements about a person, team, system or
    topic ("what does Priya prefer?": about Priya, types [preference]). Each has its
    source item and sentence, when it became true, and conflicts if sources disagree.
    """
    found = brain.statements(
        about=about, types=types or None, current=None if include_superseded else True, limit=50
    )
    return StatementList(statements=[StatementView.of(s) for s in found])


@tool(read_only=True)
def brain_story(brain: Brain, ctx: ToolContext, item_id: ItemId) -> StoryView:
    """What happened to an item after it was written: when it was acknowledged, what
    derivation found (entities, statements), what it supersedes and what superseded it.
    Use it to check whether a fact is still current.
    """
    return StoryView.of(brain.story(item_id), body_chars=ITEM_BODY_CHARS)


def _section_read(brain: Brain, item: Item, section: int | str | None) -> Item:
    """The item a read came from: the section asked for by number or id, else ``item``."""
    if item.storage_class != "file" or section is None:
        return item
    sections = brain.sections(item.id)
    if isinstance(section, int) or section.isdigit():
        n = int(section)
        return sections[n - 1] if 1 <= n <= len(sections) else item
    return next((s for s in sections if s.id == section), item)


def _read_capped(chunks: typing.Iterator[bytes], limit: int) -> tuple[bytes, bool]:
    buf = bytearray()
    try:
        for chunk in chunks:
            room = limit - len(buf)
            if len(chunk) > room:
                buf += chunk[:room]
                return bytes(buf), True
            buf += chunk
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()
    return bytes(buf), False
