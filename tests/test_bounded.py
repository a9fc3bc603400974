"""Extraction within bounds: a hostile file fails with its reason in a child process,
and the parent's memory stays flat."""

from __future__ import annotations

import resource
import zlib
from pathlib import Path

import pytest

from orgbrain import Brain, CorruptFile, TooLarge
from orgbrain.ingest.bounded import Bounds, extract_bounded
from orgbrain.settings import Settings
from tests.filegen import make_docx, make_pdf
from tests.toy import HashEmbedder


def inflating_pdf(inflated_mb: int) -> bytes:
    """A one-page PDF whose content stream inflates to ``inflated_mb`` MiB of drawing
    operators, from well under a MiB (built without holding the inflated bytes)."""
    squeeze = zlib.compressobj(9)
    piece = b"0 0 m 1 1 l S\n" * (1 << 16)
    body = b"".join(squeeze.compress(piece) for _ in range((inflated_mb << 20) // len(piece)))
    body += squeeze.flush()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(body) + body + b"\nendstream",
    ]
    out = b"%PDF-1.7\n"
    offsets = []
    for n, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return out


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_an_ordinary_file_reads_the_same_in_a_child() -> None:
    pdf = make_pdf(["Refunds take five days.", "Priya owns billing."])
    docx = make_docx(["Owners", "Mei owns search."])
    bounds = Bounds(seconds=60, memory_bytes=1 << 30)
    for data, fmt in ((pdf, "pdf"), (docx, "docx")):
        assert extract_bounded(data, fmt, bounds) == extract_bounded(data, fmt, None)  # type: ignore[arg-type]


def test_over_the_time_bound_the_child_is_stopped() -> None:
    with pytest.raises(TooLarge, match=r"took over 0\.001 s"):
        extract_bounded(make_pdf(["slow enough"]), "pdf", Bounds(seconds=0.001))


def test_a_pdf_that_inflates_fails_within_the_memory_bound(tmp_path: Path) -> None:
    hostile = inflating_pdf(600)
    assert len(hostile) < 2 << 20
    before = peak_rss_mb()
    settings = Settings(extract_memory_mb=300, extract_seconds=60)
    with Brain.open(tmp_path / "b", embedder=HashEmbedder(), settings=settings) as brain:
        item = brain.add_file(hostile, name="bomb.pdf")
        with pytest.raises((TooLarge, CorruptFile)) as failed:
            brain.index(item.id)
        assert failed.value.code in ("too_large", "corrupt_file")
        assert brain.get(item.id).index_error is not None and not brain.get(item.id).indexed
        fine = brain.add_file(make_pdf(["Still reads."]), name="fine.pdf", index=True)
        assert fine.indexed  # the next file goes on as usual
    assert peak_rss_mb() - before < 250  # the inflating happened (and stopped) elsewhere
