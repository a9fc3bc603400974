"""Fit one embedding model's cosine scale for the gate (``retrieve/space_gate.py``).

Replays the default plan's gate (``bench/verdict_curve.py``'s rows and scoring, the code
a search runs) over rows that ``orgbrain eval facts|living --split --out FILE`` wrote
with ``ORGBRAIN_EMBEDDER`` set to the model, once for every line ``offset + scale * t``
of a grid, and writes the pick into ``src/orgbrain/retrieve/space_gates.json``:

    python -m bench.fit_space_gate multilingual-e5-small-q4 \\
        en:facts=/tmp/e5_dev.jsonl de:facts=/tmp/e5_de.jsonl ... de:living=/tmp/de_split.jsonl

The rule (``RULE``): false silence at most ``--target`` on each set (English, the sets
the bars were first measured on, at most ``--target-en``), or where the bars as written
already miss that, no more than they do; among those lines, the most
silence on the questions without an answer (mean over the sets that have some); a tie
goes to the line nearest MiniLM's own (offset 0, scale 1). ``--dry-run`` prints the
table and writes nothing.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bench.verdict_curve import Row, load_rows, score
from orgbrain.retrieve.plan import PLANS
from orgbrain.retrieve.space_gate import CosineScale, scaled_gate

RULE = (
    "false silence <= target on every set (<= target-en on English ones; no more than the "
    "bars as written where they already miss it); then the most "
    "mean silence without an answer; then the line nearest offset 0, scale 1"
)
GATES = Path(__file__).resolve().parents[1] / "src/orgbrain/retrieve/space_gates.json"


def grid() -> list[CosineScale]:
    return [
        CosineScale(round(o / 100, 2), round(s / 100, 2))
        for o in range(0, 91, 2)
        for s in range(10, 101, 5)
        if o / 100 + s / 100 * 0.6 <= 1.0  # the highest bar (plain_cosine) a cosine can meet
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("sets", nargs="+", help="LANG:NAME=rows.jsonl")
    ap.add_argument("--plan", default="tuned-z")
    ap.add_argument("--target", type=float, default=0.05)
    ap.add_argument("--target-en", type=float, default=0.02)
    ap.add_argument("--dry-run", action="store_true")
    args = ap.parse_args()
    sets: dict[str, tuple[float, list[Row]]] = {}
    for spec in args.sets:
        name, path = spec.split("=", 1)
        target = args.target_en if name.startswith("en:") else args.target
        sets[name] = (target, load_rows(Path(path), args.plan))
    gate = PLANS[args.plan].gate
    assert gate is not None
    for n, (target, rows) in sets.items():
        written = score(rows, gate).false_silence or 0.0
        sets[n] = (max(target, written), rows)
    scored = []
    for line in grid():
        cells = {n: score(rows, scaled_gate(gate, line)) for n, (_, rows) in sets.items()}
        fits = all((c.false_silence or 0.0) <= sets[n][0] for n, c in cells.items())
        quiet = [c.silent_no_answer for c in cells.values() if c.silent_no_answer is not None]
        mean = sum(quiet) / len(quiet) if quiet else 0.0
        far = abs(line.offset) + abs(1 - line.scale)
        scored.append((fits, mean, -far, line, cells))
    scored.sort(key=lambda s: (s[0], s[1], s[2]), reverse=True)
    names = list(sets)
    print("| offset | scale | fits | silence without answer | " + " | ".join(names) + " |")
    print("|---:|---:|---|---:|" + "---:|" * len(names))
    for fits, mean, _, line, cells in scored[:12]:
        each = " | ".join(
            f"{cells[n].false_silence or 0:.3f}/{cells[n].silent_no_answer or 0:.3f}" for n in names
        )
        print(f"| {line.offset} | {line.scale} | {fits} | {mean:.3f} | {each} |")
    best = scored[0]
    if not best[0]:
        raise SystemExit("no line keeps false silence under the targets: nothing written")
    if args.dry_run:
        return
    data = json.loads(GATES.read_text(encoding="utf-8"))
    data["models"][args.model] = {
        "offset": best[3].offset,
        "scale": best[3].scale,
        "fitted_on": names,
        "rule": RULE,
    }
    GATES.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {args.model}: offset {best[3].offset}, scale {best[3].scale} to {GATES}")


if __name__ == "__main__":
    main()
