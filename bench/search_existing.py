"""``bench/backends.py``'s search part over brains that already exist: an embedded brain
folder and a PostgreSQL URL holding the same synthetic brain (for instance a
``bench.backends`` run's, while that run is paused after its build), so a change to a
store's search can be measured without building a million sections again.

    python -m bench.search_existing --sqlite /tmp/orgbrain-bench-sqlite-X \\
        --pg 'postgresql://...?options=-csearch_path%3Db_X,public' [--queries 200]

Prints the search table of ``bench/backends.py`` (``Brain.search`` as a team:eng member,
query embedding included, the sides taking turns per query) and the load average.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path[0] = str(Path(__file__).resolve().parent.parent)
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from bench import _report as report
from bench._sides import Side, fresh_folder, search_latency
from bench._synth import queries
from orgbrain.adapters.embed_minilm import MiniLMEmbedder


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sqlite", type=Path, required=True, help="the embedded brain's folder")
    ap.add_argument("--pg", required=True, help="the PostgreSQL brain's URL")
    ap.add_argument("--sections", type=int, required=True, help="for the table")
    ap.add_argument("--queries", type=int, default=200)
    args = ap.parse_args()
    blobs = fresh_folder("orgbrain-bench-blobs-")
    start = os.getloadavg()
    try:
        sides = [Side("SQLite", args.sqlite, args.sqlite), Side("PostgreSQL", args.pg, blobs)]
        got = search_latency(sides, MiniLMEmbedder(), queries()[: args.queries])
    finally:
        shutil.rmtree(blobs, ignore_errors=True)
    print(report.search_rows({args.sections: got}))
    print(f"load average {start} at the start, {os.getloadavg()} at the end")


if __name__ == "__main__":
    main()
