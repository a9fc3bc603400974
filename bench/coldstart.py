"""Cold start: what a CLI call costs before and while it answers, per embedding backend.

    python -m bench.coldstart [--rounds 5] [--backends minilm,minilm-torch] [--no-write]

Every figure comes from a fresh interpreter (a child process), as a user's shell starts
one: CPU time is the child's user + system time (``os.wait4``), which a busy neighbour
moves far less than wall time; both are reported, with peak RSS, as medians of
``--rounds`` interleaved rounds. Measured, on a brain holding the bundled sample (the
demo's four documents), indexed once before timing:

- ``python -c "import orgbrain.cli"``: the interpreter and the imports every command pays;
- ``orgbrain items``: a command that needs no model;
- ``orgbrain search QUESTION``: the first answer, model load included, in a process;
- a warm search: the second search in one process (``Brain.search`` twice), timed in the
  child around that second call alone (its peak RSS is the whole process's).

``minilm`` is the numpy encoder (the default); ``minilm-torch`` is sentence-transformers on
torch, what every command paid before (``ORGBRAIN_EMBEDDER`` picks it). Appends a dated
block to the "Cold start" section of docs/benchmarks.md unless ``--no-write``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):  # run as a file: bench/ must not shadow the stdlib `http`
    sys.path[0] = str(Path(__file__).resolve().parent.parent)

from bench._common import ROOT, machine

DOC = ROOT / "docs" / "benchmarks.md"
SECTION = "## Cold start"
QUESTION = "Who owns the billing migration, and when is the cut-over?"
SAMPLE = ROOT / "src" / "orgbrain" / "sample"

# The child prints the wall and CPU seconds of its second search, measured around that
# call alone, on its last line.
_WARM = """
import json, sys, time
from orgbrain import Brain
from orgbrain.settings import Settings
with Brain.open(sys.argv[1], settings=Settings.from_env()) as brain:
    assert brain.search(sys.argv[2]).hits
    wall, cpu = time.perf_counter(), time.process_time()
    assert brain.search(sys.argv[2] + " please").hits
    print(json.dumps([time.perf_counter() - wall, time.process_time() - cpu]))
"""


@dataclass
class Row:
    label: str
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)

    def add(self, wall: float, cpu: float, rss_mb: float) -> None:
        self.wall.append(wall)
        self.cpu.append(cpu)
        self.rss_mb.append(rss_mb)


def run_child(argv: list[str], env: dict[str, str]) -> tuple[float, float, float, str]:
    """Wall and CPU seconds of one child process, its peak RSS in MB, and what it printed.

    ``os.wait4`` reports that one child's own resource use (``RUSAGE_CHILDREN`` would
    give the largest peak of all children so far, not this one's).
    """
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        child = subprocess.Popen(argv, env=env, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out.seek(0)
        err.seek(0)
        if child.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed ({child.returncode}):\n{err.read()}")
        cpu = usage.ru_utime + usage.ru_stime
        return wall, cpu, usage.ru_maxrss / 1024, out.read()


def child_env(backend: str) -> dict[str, str]:
    src = str(ROOT / "src")
    path = os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH", "")) if p)
    return {
        **os.environ,
        "PYTHONPATH": path,
        "ORGBRAIN_EMBEDDER": backend,
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }


def build_brain(folder: Path) -> None:
    env = child_env("minilm")
    cli = [sys.executable, "-m", "orgbrain", "--brain", str(folder)]
    run_child([*cli, "init"], env)
    run_child([*cli, "add", *(str(p) for p in sorted(SAMPLE.iterdir()))], env)
    run_child([*cli, "index", "--pending"], env)


def measure(brain: Path, backends: list[str], rounds: int) -> list[Row]:
    py = sys.executable
    cli = [py, "-m", "orgbrain", "--brain", str(brain)]
    rows: dict[str, Row] = {}

    def row(label: str) -> Row:
        return rows.setdefault(label, Row(label))

    for r in range(rounds):
        for backend in backends:
            env = child_env(backend)
            tag = f"`{backend}`"
            wall, cpu, rss, _ = run_child([py, "-c", "import orgbrain.cli"], env)
            row(f"{tag}: `import orgbrain.cli`").add(wall, cpu, rss)
            wall, cpu, rss, _ = run_child([*cli, "items"], env)
            row(f"{tag}: `orgbrain items`").add(wall, cpu, rss)
            wall, cpu, rss, out = run_child([*cli, "search", QUESTION], env)
            if "billing" not in out.lower():
                raise SystemExit(f"search answered nothing about billing:\n{out}")
            row(f"{tag}: `orgbrain search` (first answer, cold)").add(wall, cpu, rss)
            _, _, rss, out = run_child([py, "-c", _WARM, str(brain), QUESTION], env)
            warm_wall, warm_cpu = json.loads(out.strip().splitlines()[-1])
            row(f"{tag}: warm search (second in one process)").add(warm_wall, warm_cpu, rss)
        print(f"round {r + 1}/{rounds} done", flush=True)
    return list(rows.values())


def table(rows: list[Row]) -> list[str]:
    def cell(values: list[float]) -> str:
        lo, med, hi = min(values), statistics.median(values), max(values)
        if med < 1:
            return f"{med * 1000:.0f} ms ({lo * 1000:.0f} to {hi * 1000:.0f})"
        return f"{med:.2f} s ({lo:.2f} to {hi:.2f})"

    lines = [
        "| what | CPU, median (min to max) | wall, median (min to max) | peak RSS |",
        "|---|---|---|---|",
    ]
    for row in rows:
        rss = statistics.median(row.rss_mb)
        lines.append(f"| {row.label} | {cell(row.cpu)} | {cell(row.wall)} | {rss:.0f} MB |")
    return lines


def append_doc(lines: list[str], header: str) -> None:
    """Add a dated block at the end of this bench's section, creating either if absent."""
    text = DOC.read_text() if DOC.exists() else "# Benchmarks\n"
    block = [header, "", *lines, ""]
    if SECTION not in text:
        text = text.rstrip("\n") + f"\n\n{SECTION}\n\nWritten by `bench/coldstart.py`.\n"
    head, _, rest = text.partition(SECTION)
    next_section = rest.find("\n## ")
    body, tail = (rest, "") if next_section < 0 else (rest[:next_section], rest[next_section:])
    DOC.write_text(head + SECTION + body.rstrip("\n") + "\n\n" + "\n".join(block) + tail)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--backends", default="minilm,minilm-torch")
    parser.add_argument("--no-write", action="store_true", help="print only")
    args = parser.parse_args()
    backends = [b for b in args.backends.split(",") if b]

    load_start = " ".join(f"{x:.2f}" for x in os.getloadavg())
    with tempfile.TemporaryDirectory(prefix="orgbrain-coldstart-") as tmp:
        brain = Path(tmp) / "brain"
        build_brain(brain)
        rows = measure(brain, backends, args.rounds)
    load_end = " ".join(f"{x:.2f}" for x in os.getloadavg())

    command = " ".join(["python -m bench.coldstart", *sys.argv[1:]])
    header = (
        f"### {time.strftime('%Y-%m-%d')}: {machine()}\n\n"
        f"`{command}`; {args.rounds} rounds, fresh processes, brain of the 4 sample "
        f"documents; load average (1, 5, 15 min) {load_start} at the start, {load_end} at "
        f"the end."
    )
    lines = table(rows)
    print()
    print(header)
    print("\n".join(lines))
    if not args.no_write:
        append_doc(lines, header)
        print(f"\nappended to {DOC.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
