"""Fit one embedding model's cosine bars for the gate (``retrieve/space_gate.py``).

Replays the default plan's gate (``bench/verdict_curve.py``'s rows and scoring, the code
a search runs) over rows that ``orgbrain eval facts|living --split --out FILE`` wrote
with ``ORGBRAIN_EMBEDDER`` set to the model, for lines ``offset + scale * t`` of a grid,
and writes the pick into ``src/orgbrain/retrieve/space_gates.json``:

    python -m bench.fit_space_gate multilingual-e5-small-q4 \\
        en:facts=/tmp/e5_dev.jsonl de:facts=/tmp/e5_de.jsonl ... de:living=/tmp/de_split.jsonl

Two lines are fitted: ``same`` for the hits in the question's language and ``across``
for those in another (each row's evidence says which, ``HitEvidence.lang``), with the
reading the data decides, whether across languages a hit must still spell the question's
names (``--names-waiver yes|no`` fixes it). For each reading, coordinate descent: the best
``across`` line given ``same``, then the best ``same`` given ``across``, twice, from the
best single line.

The rule (``RULE``): false silence at most ``--target`` on each set (English, the sets
the bars were first measured on, at most ``--target-en``), or where the bars as written
already miss that, no more than they do; among those, the most silence on the questions
without an answer (mean over the sets that have some); a tie goes to the bars nearest
MiniLM's own (offset 0, scale 1, one line, names spelled). ``--dry-run`` prints the table
and writes nothing.

That rule leaves no margin on the sets it was fitted on, so ``--held-out`` asks what the
procedure is worth on a set it has not seen: for each set, the bars fitted on the others,
scored on it (leave one set out), with every line lowered by a margin ``m`` of a grid
(``MARGINS``). The margin written is the least that keeps each held-out set's false
silence within its target; the bars written are those fitted on every set, lowered by it.
``--margin M`` fixes it instead.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from bench.verdict_curve import Cell, Row, load_rows, score
from orgbrain.retrieve.plan import PLANS, Gate
from orgbrain.retrieve.space_gate import CosineScale, SpaceBars, scaled_gate

RULE = (
    "false silence <= target on every set (<= target-en on English ones; no more than the "
    "bars as written where they already miss it); then the most mean silence without an "
    "answer; then the bars nearest offset 0, scale 1, one line, names spelled; every line "
    "then lowered by the margin, the least at which each set, held out of the fit, keeps its "
    "target"
)
GATES = Path(__file__).resolve().parents[1] / "src/orgbrain/retrieve/space_gates.json"
Sets = dict[str, tuple[float, list[Row]]]
Fit = tuple[bool, float, float, SpaceBars, dict[str, Cell]]
MARGINS = tuple(round(m / 1000, 3) for m in range(0, 41, 5))
"""Cosine a line's bars are lowered by: 0 to 0.04 in steps of 0.005 (e5's cosines for
an answer and for a note beside the point lie a few hundredths apart)."""


def grid() -> list[CosineScale]:
    return [
        CosineScale(round(o / 100, 2), round(s / 100, 2))
        for o in range(0, 91, 2)
        for s in range(10, 101, 5)
        if o / 100 + s / 100 * 0.6 <= 1.0  # the highest bar (plain_cosine) a cosine can meet
    ]


def _far(bars: SpaceBars) -> float:
    lines = [bars.same] if bars.across is None else [bars.same, bars.across]
    far = sum(abs(x.offset) + abs(1 - x.scale) for x in lines)
    return far + (bars.across is not None) + (not bars.spelled_across)


def judge(sets: Sets, gate: Gate, bars: SpaceBars) -> Fit:
    cells = {n: score(rows, scaled_gate(gate, bars)) for n, (_, rows) in sets.items()}
    fits = all((c.false_silence or 0.0) <= sets[n][0] for n, c in cells.items())
    quiet = [c.silent_no_answer for c in cells.values() if c.silent_no_answer is not None]
    return fits, sum(quiet) / len(quiet) if quiet else 0.0, -_far(bars), bars, cells


def _key(f: Fit) -> tuple[bool, float, float]:
    return f[0], f[1], f[2]


def best_of(sets: Sets, gate: Gate, make: Callable[[CosineScale], SpaceBars]) -> Fit:
    return max((judge(sets, gate, make(line)) for line in grid()), key=_key)


def _pair(sets: Sets, gate: Gate, start: CosineScale, spelled: bool) -> Fit:
    """Coordinate descent from ``start`` for both lines: ``across`` given ``same``, then
    ``same`` given ``across``, twice."""
    same = across = start
    for _ in range(2):
        pick = best_of(sets, gate, lambda a, s=same: SpaceBars(s, a, spelled))[3]
        across = pick.across or across
        pick = best_of(sets, gate, lambda s, a=across: SpaceBars(s, a, spelled))[3]
        same = pick.same
    return judge(sets, gate, SpaceBars(same, across, spelled))


Readings = tuple[bool, ...]
FREE: Readings = (True, False)
"""The readings a pair is fitted under, names spelled across (yes, no); ``--names-waiver``
fixes one, so that the waiver can be held out on its own."""


def fit(sets: Sets, gate: Gate, *, one_line: bool = False, readings: Readings = FREE) -> list[Fit]:
    """The best single line (where the readings allow MiniLM's: names spelled), then
    (unless ``one_line``) the best pair per reading."""
    single = best_of(sets, gate, lambda line: SpaceBars(line))
    found = [single] if True in readings else []
    if not one_line:
        for spelled in readings:
            found.append(_pair(sets, gate, single[3].same, spelled))
    return sorted(found, key=_key, reverse=True)


def lowered(bars: SpaceBars, margin: float) -> SpaceBars:
    """``bars`` with every cosine bar ``margin`` lower (gaps between cosines stay)."""

    def down(line: CosineScale) -> CosineScale:
        return CosineScale(round(line.offset - margin, 3), line.scale)

    across = None if bars.across is None else down(bars.across)
    return replace(bars, same=down(bars.same), across=across)


def held_out(
    sets: Sets, gate: Gate, *, one_line: bool = False, readings: Readings = FREE
) -> dict[str, SpaceBars]:
    """Each set's bars fitted on the other sets alone (MiniLM's where none fit them)."""
    picks = {}
    for name in sets:
        others = {n: v for n, v in sets.items() if n != name}
        fits, _, _, bars, _ = fit(others, gate, one_line=one_line, readings=readings)[0]
        picks[name] = bars if fits else SpaceBars(CosineScale())
    return picks


def held_out_score(sets: Sets, gate: Gate, picks: dict[str, SpaceBars], margin: float) -> Fit:
    """Each set scored at the bars fitted without it, lowered by ``margin``: whether every
    set keeps its target, and the mean silence without an answer (``judge``'s shape)."""
    cells = {
        n: score(rows, scaled_gate(gate, lowered(picks[n], margin)))
        for n, (_, rows) in sets.items()
    }
    fits = all((c.false_silence or 0.0) <= sets[n][0] for n, c in cells.items())
    quiet = [c.silent_no_answer for c in cells.values() if c.silent_no_answer is not None]
    return fits, sum(quiet) / len(quiet) if quiet else 0.0, -margin, SpaceBars(CosineScale()), cells


def least_margin(sets: Sets, gate: Gate, picks: dict[str, SpaceBars]) -> float | None:
    """The least margin of ``MARGINS`` at which every held-out set keeps its target."""
    return next((m for m in MARGINS if held_out_score(sets, gate, picks, m)[0]), None)


def _label(b: SpaceBars) -> str:
    across = "-" if b.across is None else f"{b.across.offset} + {b.across.scale} t"
    return f"{b.same.offset} + {b.same.scale} t | {across} | {'yes' if b.spelled_across else 'no'}"


def _table(names: list[str], first: str, found: list[tuple[str, Fit]]) -> None:
    print(f"| {first} | fits | silence without answer | " + " | ".join(names) + " |")
    print("|---|---|---:|" + "---:|" * len(names))
    for label, (fits, mean, _, _, cells) in found:
        each = " | ".join(
            f"{cells[n].false_silence or 0:.3f}/{cells[n].silent_no_answer or 0:.3f}" for n in names
        )
        print(f"| {label} | {fits} | {mean:.3f} | {each} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model")
    ap.add_argument("sets", nargs="+", help="LANG:NAME=rows.jsonl")
    ap.add_argument("--plan", default="tuned-z")
    ap.add_argument("--target", type=float, default=0.05)
    ap.add_argument("--target-en", type=float, default=0.02)
    ap.add_argument("--one-line", action="store_true", help="fit one line for every hit")
    ap.add_argument("--held-out", action="store_true", help="margin by leaving each set out")
    ap.add_argument("--margin", type=float, default=0.0, help="lower the bars written by this")
    ap.add_argument("--dry-run", action="store_true")
    spelled = {"yes": (False,), "no": (True,), "fit": FREE}
    ap.add_argument("--names-waiver", choices=spelled, default="fit", help="names not spelled")
    args = ap.parse_args()
    readings = spelled[args.names_waiver]
    gate = PLANS[args.plan].gate
    assert gate is not None
    sets: Sets = {}
    for spec in args.sets:
        name, path = spec.split("=", 1)
        target = args.target_en if name.startswith("en:") else args.target
        rows = load_rows(Path(path), args.plan)
        written = score(rows, gate).false_silence or 0.0
        sets[name] = (max(target, written), rows)
    names = list(sets)
    margin: float | None = args.margin
    if args.held_out:
        picks = held_out(sets, gate, one_line=args.one_line, readings=readings)
        for n in names:
            print(f"- without {n}: {_label(picks[n])}")
        scored = [(f"{m}", held_out_score(sets, gate, picks, m)) for m in MARGINS]
        _table(names, "held out, margin", scored)
        margin = least_margin(sets, gate, picks)
        print(f"least margin that keeps every held-out set: {margin}")
    found = fit(sets, gate, one_line=args.one_line, readings=readings)
    written = judge(sets, gate, SpaceBars(CosineScale()))
    header = "same | across | names spelled across"
    _table(names, header, [(_label(f[3]), f) for f in [written, *found]])
    fits, _, _, best, _ = found[0]
    if not fits or margin is None:
        raise SystemExit("no bars keep false silence under the targets: nothing written")
    best = lowered(best, margin)
    _table(names, f"{header} (fitted, margin {margin})", [(_label(best), judge(sets, gate, best))])
    if args.dry_run:
        return
    line: dict[str, object] = {"offset": best.same.offset, "scale": best.same.scale}
    if best.across is not None:
        line["across"] = {"offset": best.across.offset, "scale": best.across.scale}
    line |= {
        "spelled_across": best.spelled_across,
        "margin": margin,
        "fitted_on": names,
        "rule": RULE,
    }
    data = json.loads(GATES.read_text(encoding="utf-8"))
    data["models"][args.model] = line
    GATES.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {args.model}: {_label(best)} to {GATES}")


if __name__ == "__main__":
    main()
