"""Extraction within bounds: a hostile file fails with its reason in a child process,
the parent's memory stays flat, and the child never runs the caller's script again."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import textwrap
import time
import zlib
from pathlib import Path

import pytest

from orgbrain import Brain, TooLarge
from orgbrain.ingest.bounded import Bounds, read_bounded
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
    md = b"# Owners\n\nMei owns search.\n"
    for data, fmt in ((pdf, "pdf"), (docx, "docx"), (md, "md")):
        assert read_bounded(data, fmt, bounds) == read_bounded(data, fmt, None)  # type: ignore[arg-type]


SLOW_TEXT = b"word " * 1_000_000  # cut into 5,000 sections: far longer than a millisecond


def test_over_the_time_bound_the_child_is_stopped() -> None:
    with pytest.raises(TooLarge, match=r"took over 0\.001 s"):
        read_bounded(make_pdf(["slow enough"] * 200), "pdf", Bounds(seconds=0.001))


def test_a_pdf_that_inflates_fails_within_the_memory_bound(tmp_path: Path) -> None:
    hostile = inflating_pdf(600)
    assert len(hostile) < 2 << 20
    before = peak_rss_mb()
    settings = Settings(extract_memory_mb=300, extract_seconds=60)
    with Brain.open(tmp_path / "b", embedder=HashEmbedder(), settings=settings) as brain:
        item = brain.add_file(hostile, name="bomb.pdf")
        # PDFium aborts when an allocation fails: the memory bound, as docs/formats.md says.
        with pytest.raises(TooLarge, match=r"needs over 300 MiB of memory, the bound"):
            brain.index(item.id)
        error = brain.get(item.id).index_error
        assert error is not None and error.startswith("too_large:")
        assert not brain.get(item.id).indexed
        fine = brain.add_file(make_pdf(["Still reads."]), name="fine.pdf", index=True)
        assert fine.indexed  # the next file goes on as usual
    assert peak_rss_mb() - before < 250  # the inflating happened (and stopped) elsewhere


def test_a_markdown_file_is_read_in_the_child_within_the_time_bound() -> None:
    # Every format goes to the child: the bound stops text as it stops a pdf.
    with pytest.raises(TooLarge, match=r"reading this md took over 0\.001 s"):
        read_bounded(b"# A\n\n" + SLOW_TEXT, "md", Bounds(seconds=0.001))


README_SHAPED = """\
    from orgbrain import Brain

    with open("runs.log", "a") as runs:
        runs.write("ran\\n")

    with Brain.open(".orgbrain") as brain:
        item = brain.add_file("handbook.pdf", index=True)
        print("indexed", item.indexed, item.index_error)
        result = brain.search("who owns billing?")
        for hit in result.hits:
            print(hit.score, hit.citation.describe())
"""


def test_a_script_without_a_main_guard_indexes_a_pdf_once(tmp_path: Path) -> None:
    """The README's example, as a user saves it: no ``if __name__ == "__main__"``. A
    ``spawn`` or ``forkserver`` child imports ``__main__`` again and runs the body twice."""
    (tmp_path / "handbook.pdf").write_bytes(make_pdf(["Priya owns billing.", "Refunds."]))
    (tmp_path / "example.py").write_text(textwrap.dedent(README_SHAPED))
    src = str(Path(__file__).resolve().parents[1] / "src")
    env = {**os.environ, "PYTHONPATH": src}
    done = subprocess.run(
        [sys.executable, "example.py"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "runs.log").read_text() == "ran\n"
    assert done.stdout.count("indexed True None") == 1, done.stdout
    # the brain's own embedder (the script's): a brain refuses another space (s13-space)
    with Brain.open(tmp_path / ".orgbrain") as brain:
        (file,) = brain.items(storage_class="file").items
        assert file.indexed and file.name == "handbook.pdf"


def test_children_are_reused_and_a_failed_one_is_replaced() -> None:
    bounds = Bounds(seconds=60, memory_bytes=1 << 30)
    read_bounded(b"warm\n", "txt", bounds)
    started = time.monotonic()
    for n in range(5):
        read_bounded(f"file {n}\n".encode(), "txt", bounds)
    assert time.monotonic() - started < 2  # no interpreter start per file
    with pytest.raises(TooLarge):
        read_bounded(SLOW_TEXT, "txt", Bounds(seconds=0.001, memory_bytes=1 << 30))
    assert read_bounded(b"after\n", "txt", bounds)[0].text == "after\n"


def test_a_small_markdown_of_tiny_headings_is_refused_before_it_holds_a_worker(
    tmp_path: Path,
) -> None:
    # 800 KB, 200,000 sections: an embedding each, which would take a worker for hours.
    hostile = b"# h\n" * 200_000
    with Brain.open(tmp_path / "b", embedder=HashEmbedder()) as brain:
        item = brain.add_file(hostile, name="headings.md")
        started = time.monotonic()
        with pytest.raises(TooLarge, match=r"200000 sections of 4 characters on average"):
            brain.index(item.id)
        assert time.monotonic() - started < 30
        entry = b"## Term %d\n\nWhat term %d means, said once.\n\n"
        glossary = b"".join(entry % (n, n) for n in range(600))
        assert brain.add_file(glossary, name="glossary.md", index=True).indexed
