"""Cold start: what a CLI call costs before and while it answers, per embedding backend.

    python -m bench.coldstart [--rounds 5] [--backends minilm,minilm-torch] [--no-write]

Every figure comes from a fresh interpreter (a child process), as a user's shell starts
one: CPU time is the child's user + system time (``getrusage(RUSAGE_CHILDREN)``), which a
busy neighbour moves far less than wall time; both are reported, as medians of
``--rounds`` interleaved rounds. Measured, on a brain holding the bundled sample (the
demo's four documents), indexed once before timing:

- ``python -c "import orgbrain.cli"``: the interpreter and the imports every command pays;
- ``orgbrain items``: a command that needs no model;
- ``orgbrain search QUESTION``: the first answer, model load included;
- a warm search: the second search in one process (``Brain.search`` twice), timed in the
  child around that second call alone.

``minilm`` is the numpy encoder (the default); ``minilm-torch`` is sentence-transformers on
torch, what every command paid before (``ORGBRAIN_EMBEDDER`` picks it). Appends a dated
block to the "Cold start" section of docs/benchmarks.md unless ``--no-write``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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


def run_child(argv: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall and CPU seconds of one child process, and what it printed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}):\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


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
            wall, cpu, _ = run_child([py, "-c", "import orgbrain.cli"], env)
            row(f"{tag}: `import orgbrain.cli`").wall.append(wall)
            row(f"{tag}: `import orgbrain.cli`").cpu.append(cpu)
            wall, cpu, _ = run_child([*cli, "items"], env)
            row(f"{tag}: `orgbrain items`").wall.append(wall)
            row(f"{tag}: `orgbrain items`").cpu.append(cpu)
            wall, cpu, out = run_child([*cli, "search", QUESTION], env)
            if "billing" not in out.lower():
                raise SystemExit(f"search answered nothing about billing:\n{out}")
            row(f"{tag}: `orgbrain search` (first answer, cold)").wall.append(wall)
            row(f"{tag}: `orgbrain search` (first answer, cold)").cpu.append(cpu)
            _, _, out = run_child([py, "-c", _WARM, str(brain), QUESTION], env)
            warm_wall, warm_cpu = json.loads(out.strip().splitlines()[-1])
            row(f"{tag}: warm search (second in one process)").wall.append(warm_wall)
            row(f"{tag}: warm search (second in one process)").cpu.append(warm_cpu)
        print(f"round {r + 1}/{rounds} done", flush=True)
    return list(rows.values())


def table(rows: list[Row]) -> list[str]:
    def cell(values: list[float]) -> str:
        med = statistics.median(values)
        text = f"{med * 1000:.0f} ms" if med < 1 else f"{med:.2f} s"
        return f"{text} ({min(values):.2f} to {max(values):.2f} s)"

    lines = [
        "| what | CPU, median (min to max) | wall, median (min to max) |",
        "|---|---|---|",
    ]
    for row in rows:
        lines.append(f"| {row.label} | {cell(row.cpu)} | {cell(row.wall)} |")
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
