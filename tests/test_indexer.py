"""Indexing many files at once: batches across files, one transaction per file."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from orgbrain import Brain
from orgbrain.adapters.sqlite import SQLiteStore
from orgbrain.errors import Unavailable
from orgbrain.indexer import IndexReport, embed_texts, passages
from orgbrain.ports import Embedder, Vector
from orgbrain.settings import Settings
from tests.filegen import broken_docx, make_docx, truncated_pdf
from tests.toy import HashEmbedder

ADR = b"""# Architecture decisions

Why the system looks the way it does.

## ADR-007 One SQLite file per brain

We keep the whole brain in one SQLite file so that a backup is a file copy.

## ADR-008 MiniLM embeddings

The default embedder is all-MiniLM-L6-v2, bundled so that it loads offline.
"""


def _long_text(n: int) -> bytes:
    paras = [f"Note {n}.{j}: the {n} team ships release {j} on a Tuesday. " * 6 for j in range(5)]
    return "\n\n".join(paras).encode()


def _files() -> list[tuple[str, bytes]]:
    docx = make_docx(
        [
            (1, "Security"),
            (0, "Rotate API keys every 90 days."),
            (2, "Laptops"),
            (0, "Disks are encrypted."),
        ]
    )
    return [
        ("adr.md", ADR),
        ("notes1.txt", _long_text(1)),
        ("policy.docx", docx),
        ("notes2.txt", _long_text(2)),
        ("short.txt", b"Lunch is at noon on Fridays."),
    ]


def _shape(brain: Brain, file_id: str) -> list[tuple[object, ...]]:
    return [
        (s.source_key, s.label, s.body, s.byte_range, s.locator, s.ordinal, s.indexed)
        for s in brain.sections(file_id)
    ]


def _vectors(root: Path, item_ids: Sequence[str]) -> Vector:
    """The stored rows of ``item_ids``, read through a second store on the brain's file."""
    store = SQLiteStore(root / "brain.sqlite")
    try:
        rows = [store.embedding_of("default", i) for i in item_ids]
    finally:
        store.close()
    assert all(r is not None for r in rows)
    return np.vstack([r for r in rows if r is not None])


def _open(path: Path, embedder: Embedder, batch: int) -> Brain:
    return Brain.open(path, embedder=embedder, settings=Settings(embed_batch=batch))


@pytest.mark.slow
def test_many_at_once_match_one_by_one(tmp_path: Path, embedder: Embedder) -> None:
    # A batch of 7 passages ends inside most files here, so vectors cross file boundaries.
    with _open(tmp_path / "one", embedder, 7) as one, _open(tmp_path / "many", embedder, 7) as many:
        singles = [one.add_file(data, name=name) for name, data in _files()]
        for item in singles:
            assert one.index(item.id).ok
        batched = [many.add_file(data, name=name) for name, data in _files()]
        reports = many.index_pending()
        assert [r.item_id for r in reports] == [i.id for i in batched]
        assert all(r.ok for r in reports)
        for a, b in zip(singles, batched, strict=True):
            assert _shape(one, a.id) == _shape(many, b.id)
            a_file, b_file = one.get(a.id), many.get(b.id)
            assert (a_file.label, a_file.body, a_file.summary) == (
                b_file.label,
                b_file.body,
                b_file.summary,
            )
            assert b_file.indexed and b_file.index_error is None
            ids_a = [a.id] + [s.id for s in one.sections(a.id)]
            ids_b = [b.id] + [s.id for s in many.sections(b.id)]
            # Padding to another batch's longest text moves float noise, not meaning.
            assert np.allclose(
                _vectors(tmp_path / "one", ids_a), _vectors(tmp_path / "many", ids_b), atol=1e-4
            )
        assert one.counts() == many.counts()

        # The same brain, indexed one by one, then all at once: the same section ids.
        before = {i.id: [s.id for s in one.sections(i.id)] for i in singles}
        vectors_before = _vectors(tmp_path / "one", [s for ids in before.values() for s in ids])
        again = one.index_pending([i.id for i in singles])
        assert all(r.ok for r in again)
        assert {i.id: [s.id for s in one.sections(i.id)] for i in singles} == before
        vectors_after = _vectors(tmp_path / "one", [s for ids in before.values() for s in ids])
        assert np.allclose(vectors_before, vectors_after, atol=1e-4)


def test_reindexing_many_is_idempotent(tmp_path: Path) -> None:
    with _open(tmp_path / "b", HashEmbedder(), 5) as brain:
        items = [brain.add_file(data, name=name) for name, data in _files()]
        first = brain.index_pending()
        counts = brain.counts()
        shapes = {i.id: _shape(brain, i.id) for i in items}
        ids = {i.id: [s.id for s in brain.sections(i.id)] for i in items}
        assert brain.index_pending() == []  # nothing pending any more
        second = brain.index_pending([i.id for i in items])
        assert second == first
        assert brain.counts() == counts  # no duplicate sections or edges
        assert {i.id: _shape(brain, i.id) for i in items} == shapes
        assert {i.id: [s.id for s in brain.sections(i.id)] for i in items} == ids


def test_a_corrupt_file_among_good_ones(tmp_path: Path) -> None:
    with _open(tmp_path / "b", HashEmbedder(), 4) as brain:
        good = [brain.add_file(data, name=name) for name, data in _files()]
        bad_pdf = brain.add_file(truncated_pdf(), name="broken.pdf")
        bad_docx = brain.add_file(broken_docx(), name="broken.docx")
        order = [good[0], bad_pdf, *good[1:3], bad_docx, *good[3:]]
        seen: list[IndexReport] = []
        reports = brain.index_pending([i.id for i in order] + ["fil_nope"], progress=seen.append)

        assert [r.item_id for r in reports] == [i.id for i in order] + ["fil_nope"]
        assert sorted(seen, key=lambda r: r.item_id) == sorted(reports, key=lambda r: r.item_id)
        by_id = {r.item_id: r for r in reports}
        for item in good:
            assert by_id[item.id].ok and by_id[item.id].sections == len(brain.sections(item.id)) > 0
            assert brain.get(item.id).indexed
        for item in (bad_pdf, bad_docx):
            report = by_id[item.id]
            assert not report.ok and report.error_code == "corrupt_file"
            assert report.label == item.label
            stored = brain.get(item.id)
            assert not stored.indexed and stored.index_error
            assert brain.sections(item.id) == []
        assert by_id["fil_nope"].error_code == "not_found"
        assert brain.pending() == []  # failed files are not retried forever


class FailingOnce(HashEmbedder):
    """Unavailable on its second call, then well again: a model server that blinked."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> Vector:
        self.calls += 1
        if self.calls == 2:
            raise Unavailable("the embedder is restarting")
        return super().embed(texts)


def test_an_embedder_error_leaves_the_waiting_files_pending(tmp_path: Path) -> None:
    embedder = FailingOnce()
    with _open(tmp_path / "b", embedder, 6) as brain:
        items = [brain.add_file(data, name=name) for name, data in _files()]
        reports = brain.index_pending()
        assert [r.item_id for r in reports] == [i.id for i in items]
        failed = [r for r in reports if not r.ok]
        assert failed and all(r.error_code == "unavailable" for r in failed)
        assert any(r.ok for r in reports)  # files committed before the blink stay indexed
        pending = {i.id for i in brain.pending()}
        assert pending == {r.item_id for r in failed}  # not the file's fault: no error kept
        for r in failed:
            assert brain.get(r.item_id).index_error is None
        assert all(r.ok for r in brain.index_pending())
        assert all(brain.get(i.id).indexed for i in items)


def test_section_labels_name_the_title_once(brain: Brain) -> None:
    item = brain.add_file(ADR, name="adr.md", index=True)
    sections = brain.sections(item.id)
    assert [s.label for s in sections] == [
        "Architecture decisions",
        "Architecture decisions > ADR-007 One SQLite file per brain",
        "Architecture decisions > ADR-008 MiniLM embeddings",
    ]
    # The citation's breadcrumb keeps the whole heading path.
    assert sections[1].locator.heading_path == (
        "Architecture decisions",
        "ADR-007 One SQLite file per brain",
    )
    # A title that is not the first heading still leads the label.
    other = brain.add_file(
        b"---\ntitle: Handbook\n---\n# Billing\n\nPriya owns it.\n", name="h.md", index=True
    )
    assert [s.label for s in brain.sections(other.id)] == ["Handbook §1", "Handbook > Billing"]


def test_a_second_top_level_heading_is_not_put_under_the_first(brain: Brain) -> None:
    # The title is the first heading; a sibling `# Search` is not under it.
    text = b"# Billing\n\nPriya owns it.\n\n## Refunds\n\nOver 500 EUR.\n\n# Search\n\nMei.\n"
    item = brain.add_file(text, name="handbook.md", index=True)
    sections = brain.sections(item.id)
    assert [s.label for s in sections] == ["Billing", "Billing > Refunds", "Search"]
    assert sections[2].locator.heading_path == ("Search",)


@pytest.mark.parametrize("batch", [1, 3, 100])
def test_each_vector_lands_on_its_own_section(tmp_path: Path, batch: int) -> None:
    # The hash embedder embeds each text on its own, so any batching gives equal vectors:
    # a vector handed to the wrong section or file would show.
    with (
        _open(tmp_path / "one", HashEmbedder(), 100) as one,
        _open(tmp_path / "many", HashEmbedder(), batch) as many,
    ):
        singles = [one.add_file(data, name=name) for name, data in _files()]
        for item in singles:
            one.index(item.id)
        batched = [many.add_file(data, name=name) for name, data in _files()]
        assert all(r.ok for r in many.index_pending())
        for a, b in zip(singles, batched, strict=True):
            ids_a = [a.id] + [s.id for s in one.sections(a.id)]
            ids_b = [b.id] + [s.id for s in many.sections(b.id)]
            assert np.array_equal(
                _vectors(tmp_path / "one", ids_a), _vectors(tmp_path / "many", ids_b)
            )


def test_a_long_text_keeps_its_passages_vectors_beside_their_mean(
    brain: Brain, tmp_path: Path
) -> None:
    sentences = [f"Sentence {i} is about topic {i} and nothing else at all." for i in range(60)]
    long_text = "Long note\n" + " ".join(sentences)
    pieces = passages(long_text)
    assert len(pieces) > 2 and all(p.startswith("Long note\n") for p in pieces)
    short, long = embed_texts(HashEmbedder(), ["Short note\nOne line.", long_text])
    assert short.shape == (1, 384)
    assert long.shape == (1 + len(pieces), 384)
    mean = long[1:].sum(axis=0)
    assert np.allclose(long[0], mean / np.linalg.norm(mean), atol=1e-6)

    note = brain.add_note(" ".join(sentences), label="Long note")
    stored = _vectors(tmp_path / "brain", [note.id])
    assert stored.shape[0] == 1 + len(pieces)
    # The search finds the note by the passage a question matches, once.
    hits = brain.search("Sentence 55 is about topic 55", plan="dense").hits
    assert [h.item.id for h in hits].count(note.id) == 1

    # A file keeps its mean only: its sections hold the passages.
    doc = brain.add_file(("# Long doc\n\n" + " ".join(sentences) + "\n").encode(), name="l.md")
    brain.index(doc.id)
    assert _vectors(tmp_path / "brain", [doc.id]).shape == (1, 384)
    rows_per_section = [
        _vectors(tmp_path / "brain", [s.id]).shape[0] for s in brain.sections(doc.id)
    ]
    assert max(rows_per_section) > 2
