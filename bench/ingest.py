"""Extraction and chunking at scale: time, memory and section counts per file shape.

    python -m bench.ingest [--cases txt-8mb,md-100k-headings,...] [--indexer]

Each case runs in its own process, so its peak RSS is its own: the process reads the
file's bytes (synthetic prose from a fixed seed, made once into the temp folder), then times
``extract`` and ``chunk`` and reports the sections, whether the last one ends at the end
of the text (the whole file is indexed), and the peak RSS above what the bytes took.
``--indexer`` also times what the indexer does with the whole text besides chunking it
(``passages`` of the file's own text and its summary), which is not the ingest package's
code but runs on every indexed file. Prints a Markdown table; writes nothing.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):  # run as a file: bench/ must not shadow the stdlib `http`
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

import numpy as np

from bench._common import machine, peak_rss_mb
from orgbrain.errors import OrgBrainError
from orgbrain.ingest import FileFormat, chunk, extract

MB = 1_000_000

_WORDS = (
    "the of and to in a is that for it as was with be by on not he this are or his from "
    "at which but have an they you were her she there been one all we their has would when "
    "if so no will more can out up about who them some could into only time new like than "
    "then other its also two first because way over after work people very such even through "
    "migration billing owner decision deploy freeze friday release policy handbook onboarding "
    "invoice customer contract renewal quarter budget forecast roadmap incident postmortem "
    "latency database schema index section citation embedding search answer memory tarball "
    "bundled configuration environment variable default timeout retry backoff queue worker"
).split()


def prose(n_bytes: int, seed: int = 0, *, newlines: bool = True, spaces: bool = True) -> bytes:
    """About ``n_bytes`` of sentence-like ASCII text, in paragraphs of a few sentences."""
    rng = np.random.default_rng(seed)
    words = np.array(_WORDS)
    out: list[str] = []
    size = 0
    while size < n_bytes:
        lengths = rng.integers(6, 22, size=2000)
        picks = words[rng.integers(0, len(words), size=int(lengths.sum()))]
        at = 0
        for i, n in enumerate(lengths):
            sentence = " ".join(picks[at : at + n]).capitalize() + "."
            at += n
            sep = "\n\n" if newlines and i % 5 == 4 else " "
            out.append(sentence + sep)
            size += len(sentence) + len(sep)
    text = "".join(out)[:n_bytes]
    if not spaces:
        text = text.replace(" ", "_").replace("\n", "_")
    return text.encode()


def markdown_headings(count: int, seed: int = 1) -> bytes:
    """``count`` headings (levels 1-3 in turn), each over a short paragraph."""
    body = prose(count * 90, seed).decode().split(". ")
    parts = [f"{'#' * (1 + i % 3)} Heading {i}\n\n{body[i % len(body)]}.\n\n" for i in range(count)]
    return "".join(parts).encode()


def html_page(n_bytes: int) -> bytes:
    """Paragraphs of prose in ``<p>``, an ``<h2>`` every 20, with links and a table."""
    paras = prose(n_bytes, 2).decode().split("\n\n")
    out = ["<!DOCTYPE html><html><head><title>Bench</title></head><body>"]
    for i, para in enumerate(paras):
        if i % 20 == 0:
            out.append(f"<h2>Part {i // 20}</h2><table><tr><td>a</td><td>{i}</td></tr></table>")
        out.append(f'<p>{para} <a href="#x{i}">link</a></p>\n')
    return "".join(out).encode()


def csv_table(n_bytes: int) -> bytes:
    words = prose(n_bytes, 3).decode().split()
    rows = ["id,owner,team,note"]
    for i in range(0, len(words) - 8, 8):
        rows.append(f'{i},{words[i]},{words[i + 1]},"{" ".join(words[i + 2 : i + 8])}"')
    return "\n".join(rows).encode()


def json_records(n_bytes: int) -> bytes:
    words = prose(n_bytes * 4 // 9, 4).decode().split()  # a record spends ~2.25 bytes a byte
    records = [
        {
            "id": i,
            "owner": words[i],
            "tags": words[i + 1 : i + 3],
            "note": " ".join(words[i : i + 9]),
        }
        for i in range(0, len(words) - 9, 9)
    ]
    return json.dumps(records, separators=(",", ":")).encode()


def pptx_deck(slides: int) -> bytes:
    from tests.filegen import make_pptx

    body = prose(slides * 400, 5).decode().split("\n\n")
    deck = [(f"Slide title {i}", [body[i % len(body)]]) for i in range(slides)]
    return make_pptx(deck, notes={i: body[(i + 1) % len(body)] for i in range(0, slides, 3)})


CASES: dict[str, tuple[FileFormat, Callable[[], bytes]]] = {
    "txt-8mb": ("txt", lambda: prose(8 * MB)),
    "txt-30mb": ("txt", lambda: prose(30 * MB)),
    "txt-100mb": ("txt", lambda: prose(100 * MB)),
    "txt-30mb-one-line": ("txt", lambda: prose(30 * MB, newlines=False)),
    "txt-30mb-no-whitespace": ("txt", lambda: prose(30 * MB, newlines=False, spaces=False)),
    "md-100k-headings": ("md", lambda: markdown_headings(100_000)),
    "md-100mb-of-headings": ("md", lambda: b"# a\n" * (25 * MB)),
    "md-heading-of-20k-spaces": ("md", lambda: b"# a" + b" " * 20_000 + b"b\n\nbody\n"),
    "md-heading-of-1m-spaces": ("md", lambda: b"# a" + b" " * MB + b"b\n\nbody\n"),
    "html-30mb": ("html", lambda: html_page(30 * MB)),
    "html-1mb-of-<a": ("html", lambda: b"<p>x</p>" + b"<a" * (MB // 2)),
    "csv-30mb": ("csv", lambda: csv_table(30 * MB)),
    "json-30mb": ("json", lambda: json_records(30 * MB)),
    "pptx-2000-slides": ("pptx", lambda: pptx_deck(2000)),
}


def input_file(name: str) -> Path:
    """The case's bytes, made once and kept in the temp folder (made in a process of its
    own, so that making them does not count in the measured process's peak)."""
    path = Path(tempfile.gettempdir()) / "orgbrain-bench-ingest" / f"{name}.bin"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(CASES[name][1]())
        tmp.replace(path)
    return path


def run_one(name: str, indexer: bool) -> dict[str, object]:
    fmt = CASES[name][0]
    data = input_file(name).read_bytes()
    base = peak_rss_mb()
    t0 = time.perf_counter()
    try:
        ex = extract(data, fmt)
        t1 = time.perf_counter()
        chunks = chunk(ex)
    except OrgBrainError as exc:  # hostile cases are refused: say so, and how fast
        return {
            "case": name,
            "mb": len(data) / MB,
            "refused": f"{exc.code} after {time.perf_counter() - t0:.2f} s",
            "rss_over_input_mb": peak_rss_mb() - base,
        }
    t2 = time.perf_counter()
    result: dict[str, object] = {
        "case": name,
        "mb": len(data) / MB,
        "extract_s": t1 - t0,
        "chunk_s": t2 - t1,
        "sections": len(chunks),
        "whole": bool(chunks) and not ex.text[chunks[-1].char_end :].strip(),
        "rss_mb": peak_rss_mb(),
        "rss_over_input_mb": peak_rss_mb() - base,
    }
    if indexer:
        from orgbrain.indexer import passages

        t3 = time.perf_counter()
        passages(f"title\n{ex.text}")
        " ".join(ex.text.split())[:280]  # what indexer._summary does
        result["indexer_text_s"] = time.perf_counter() - t3
        result["indexer_rss_mb"] = peak_rss_mb()
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--indexer", action="store_true")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--make", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.make:
        input_file(args.make)
        return
    if args.one:
        print(json.dumps(run_one(args.one, args.indexer)))
        return
    rows = []
    for name in args.cases.split(","):
        subprocess.run([sys.executable, "-m", "bench.ingest", "--make", name], check=True)
        cmd = [sys.executable, "-m", "bench.ingest", "--one", name]
        if args.indexer:
            cmd.append("--indexer")
        out = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if out.returncode != 0:
            print(f"{name}: failed\n{out.stderr[-2000:]}", file=sys.stderr)
            continue
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(rows[-1], file=sys.stderr, flush=True)
    print(f"_{machine()}_\n")
    head = (
        "| case | MB | extract s | chunk s | sections | whole file | peak RSS MB | over input MB |"
    )
    extra = " indexer text s | peak RSS MB with it |" if args.indexer else ""
    print(head + extra)
    print("|" + "---|" * ((head + extra).count("|") - 1))
    for r in rows:
        if "refused" in r:
            print(
                f"| {r['case']} | {r['mb']:.1f} | refused: {r['refused']}, "
                f"{r['rss_over_input_mb']:.0f} MB over input |"
            )
            continue
        line = (
            f"| {r['case']} | {r['mb']:.1f} | {r['extract_s']:.2f} | {r['chunk_s']:.2f} | "
            f"{r['sections']} | {'yes' if r['whole'] else 'NO'} | {r['rss_mb']:.0f} | "
            f"{r['rss_over_input_mb']:.0f} |"
        )
        if args.indexer:
            line += f" {r['indexer_text_s']:.2f} | {r['indexer_rss_mb']:.0f} |"
        print(line)


if __name__ == "__main__":
    main()
