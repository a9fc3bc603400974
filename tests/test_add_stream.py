"""Adding a file streams it: sniffed, hashed and size-checked as the bytes arrive, into a
fresh version folder; bad or oversize input leaves nothing, and an old version stays
whole until a new one commits."""

from __future__ import annotations

import io
import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orgbrain import Brain, CorruptFile, InvalidInput, TooLarge, Unsupported
from orgbrain.adapters.blobs_memory import MemoryBlobStore
from orgbrain.adapters.sqlite import SQLiteStore
from orgbrain.compose import build_context
from orgbrain.ingest.sniff import Sniffer, detect_format
from orgbrain.settings import Settings
from tests.filegen import make_docx, make_pdf
from tests.toy import HashEmbedder


class CountingStream(io.RawIOBase):
    """A binary stream that records the largest read asked of it."""

    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)
        self.largest = 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        self.largest = max(self.largest, size)
        return self._data.read(size)


@pytest.fixture
def parts(tmp_path: Path) -> Iterator[tuple[Brain, MemoryBlobStore]]:
    blobs = MemoryBlobStore()
    settings = Settings(max_file_bytes=3 << 20)
    store = SQLiteStore(tmp_path / "brain.sqlite")
    brain = Brain(build_context(store, blobs, HashEmbedder(), settings))
    try:
        yield brain, blobs
    finally:
        brain.close()


def keys(blobs: MemoryBlobStore) -> set[str]:
    return set(blobs._blobs)


def test_a_stream_is_read_in_pieces_and_stored_whole(
    parts: tuple[Brain, MemoryBlobStore],
) -> None:
    brain, _ = parts
    data = ("# Runbook\n\n" + "Restart the billing worker first.\n" * 60_000).encode()
    stream = CountingStream(data)
    item = brain.add_file(stream, name="runbook.md")  # type: ignore[arg-type]
    assert stream.largest <= 1 << 20 < len(data)  # never asked for the whole file at once
    assert item.size == len(data) and item.media_type == "text/markdown"
    assert b"".join(brain.read_file(item.id)) == data
    assert item.blob_key is not None and item.blob_key.endswith("/raw")
    assert "runbook" not in item.blob_key  # blob names never carry a user's file name


def test_an_oversize_stream_leaves_nothing(parts: tuple[Brain, MemoryBlobStore]) -> None:
    brain, blobs = parts
    with pytest.raises(TooLarge, match="over the cap"):
        brain.add_file(io.BytesIO(b"x" * ((3 << 20) + 1)), name="big.txt")
    assert keys(blobs) == set() and brain.counts().get("file", 0) == 0


def test_bad_bytes_leave_nothing_and_the_old_version_stays(
    parts: tuple[Brain, MemoryBlobStore],
) -> None:
    brain, blobs = parts
    good = brain.add_file(b"# Deploys\n\nFridays are frozen.\n", name="deploys.md")
    before = keys(blobs)
    with pytest.raises(Unsupported):
        brain.add_file(io.BytesIO(b"\x89PNG\r\n\x1a\n" + b"\0" * 100), name="deploys.md")
    with pytest.raises(CorruptFile):
        brain.add_file(io.BytesIO(b""), name="deploys.md")
    assert keys(blobs) == before
    assert brain.get(good.id).content_hash == good.content_hash
    assert b"".join(brain.read_file(good.id)) == b"# Deploys\n\nFridays are frozen.\n"


def test_new_bytes_replace_the_version_and_the_same_bytes_change_nothing(
    parts: tuple[Brain, MemoryBlobStore],
) -> None:
    brain, blobs = parts
    v1 = brain.add_file(b"Owner: Priya\n", name="owners.txt", index=True)
    v1_keys = keys(blobs)
    assert any(k.endswith("/raw") for k in v1_keys)
    same = brain.add_file(io.BytesIO(b"Owner: Priya\n"), name="owners.txt")
    assert same.blob_key == v1.blob_key and keys(blobs) == v1_keys
    v2 = brain.add_file(io.BytesIO(b"Owner: Mei\n"), name="owners.txt")
    # the previous version was indexed, so the new one is indexed at once (it keeps answering)
    assert v2.id == v1.id and v2.blob_key != v1.blob_key and v2.indexed
    assert v1_keys <= keys(blobs)  # the previous version stays, bytes and extracted text
    assert b"".join(brain.read_file(v2.id)) == b"Owner: Mei\n"
    assert b"".join(brain.read_file(v2.id, version=1)) == b"Owner: Priya\n"


def test_an_office_file_streams_through_the_zip_check(
    parts: tuple[Brain, MemoryBlobStore],
) -> None:
    brain, _ = parts
    docx = make_docx(["Billing", "Priya owns billing."])
    item = brain.add_file(io.BytesIO(docx), name="owners.docx", index=True)
    assert item.indexed and "wordprocessingml" in (item.media_type or "")
    pdf = brain.add_file(io.BytesIO(make_pdf(["Refunds take five days."])), name="r.pdf")
    assert pdf.media_type == "application/pdf"


@settings(max_examples=60, deadline=None)
@given(
    data=st.one_of(
        st.binary(max_size=300),
        st.text(max_size=300).map(lambda t: t.encode("utf-8")),
        st.sampled_from([b"%PDF-1.7\n...", b"PK\x03\x04 not really a zip", b"\xe2\x82"]),
    ),
    cuts=st.lists(st.integers(min_value=0, max_value=300), max_size=6),
    name=st.sampled_from(["a.txt", "a.md", "a.pdf", "a.docx", "noext", "a.png"]),
)
def test_sniffing_in_pieces_says_what_sniffing_whole_says(
    data: bytes, cuts: list[int], name: str
) -> None:
    def verdict(feed: list[bytes]) -> str:
        sniffer = Sniffer()
        for piece in feed:
            sniffer.feed(piece)
        try:
            return sniffer.format_of(name)
        except (Unsupported, CorruptFile) as exc:
            return f"{type(exc).__name__}: {exc}"

    bounds = sorted({0, len(data), *(c for c in cuts if c < len(data))})
    pieces = [data[a:b] for a, b in itertools.pairwise(bounds)]
    try:
        whole: str = detect_format(data, name)
    except (Unsupported, CorruptFile) as exc:
        whole = f"{type(exc).__name__}: {exc}"
    assert verdict(pieces) == whole


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("€" * 100, "at most 255 bytes"),  # 100 characters, 300 bytes
        ("x" * 256 + ".txt", "at most 255 bytes"),
        ("bad\ud800name.txt", "not valid Unicode"),
        ("a\x00b.txt", "invalid file name"),
    ],
)
def test_names_a_file_system_cannot_hold_are_refused_and_store_nothing(
    parts: tuple[Brain, MemoryBlobStore], name: str, why: str
) -> None:
    brain, blobs = parts
    with pytest.raises(InvalidInput, match=why):
        brain.add_file(b"text", name=name)
    assert keys(blobs) == set() and brain.counts().get("file", 0) == 0


def test_a_long_office_name_indexes(parts: tuple[Brain, MemoryBlobStore]) -> None:
    """A 251-255 character .docx name once made indexing write '<name>.txt' outside the
    error handling; the text blob now lives in the version folder as raw.txt."""
    brain, _ = parts
    name = "n" * 250 + ".docx"
    item = brain.add_file(make_docx(["Owners", "Mei owns search."]), name=name, index=True)
    assert item.indexed and item.name == name and item.text_key is not None
    assert item.text_key.endswith("/raw.txt")
