"""Shared bench helpers: percentiles, the machine's description, appending results."""

from __future__ import annotations

import json
import os
import platform
import resource
import statistics
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data"
RESULTS = ROOT / "docs" / "benchmarks.md"


def percentile(values: Sequence[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    idx = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[idx]


def summary_ms(values: Sequence[float]) -> str:
    return (
        f"p50 {percentile(values, 50):.1f} ms, p95 {percentile(values, 95):.1f} ms, "
        f"mean {statistics.fmean(values):.1f} ms (n={len(values)})"
    )


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {cpu}, Python {platform.python_version()}"


def append_results(title: str, body: str) -> None:
    """Add one dated block to docs/benchmarks.md, at the end of its topic's section (one
    section per topic; a new topic goes last)."""
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    if not RESULTS.exists():
        RESULTS.write_text("# Benchmarks\n\nMeasured by the scripts in `bench/`.\n")
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    block = f"\n_{stamp} · {machine()}_\n\n{body.strip()}\n"
    text = RESULTS.read_text()
    heading = f"\n## {title}\n"
    at = text.find(heading)
    if at < 0:
        RESULTS.write_text(text.rstrip("\n") + "\n" + heading + block)
        return
    following = text.find("\n## ", at + len(heading))
    end = len(text) if following < 0 else following
    RESULTS.write_text(text[:end].rstrip("\n") + "\n" + block + text[end:])


def scifact_texts(limit: int | None = None) -> Iterator[tuple[str, str]]:
    """(title, text) of real SciFact abstracts, for realistic sections."""
    path = DATA / "scifact" / "corpus.jsonl"
    with path.open() as f:
        for n, line in enumerate(f):
            if limit is not None and n >= limit:
                return
            doc = json.loads(line)
            yield doc.get("title", ""), doc.get("text", "")
