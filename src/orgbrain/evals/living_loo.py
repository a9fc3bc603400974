"""The living test, leave one organisation out: every living set shipped with orgbrain is
one organisation; each is run (``run_living``) with the supersession judge's weights
fitted on all the others (``judge_fit``), so no figure comes from weights that saw its
organisation. The figures are summed over the sets, and each set's kept beside them."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from ..judge import judging_with
from ..ports import Embedder
from ..settings import Settings
from .judge_fit import fit, living_sets, load_all, organisation
from .living import LivingReport, load_cases, run_living

__all__ = ["loo_json", "render_loo", "run_loo"]


def run_loo(
    embedder: Embedder,
    settings: Settings,
    paths: Sequence[Path] | None = None,
    *,
    progress: bool = True,
) -> list[tuple[str, LivingReport]]:
    """Every set run with weights fitted without it, deriving as ``settings`` say: with
    ``rules`` (the default) the judge decides only pairs in a language the rules do not
    read (``derive/judged._advises``), with ``judge`` or ``both`` every pair."""
    sets = list(paths or living_sets())
    bags = load_all(sets, embedder)
    out: list[tuple[str, LivingReport]] = []
    for path in sets:
        org = organisation(path)
        weights = fit([b for b in bags if b.org != org])
        with judging_with(weights):
            report = run_living(load_cases(path), embedder, source=str(path), settings=settings)
        out.append((org, report))
        if progress:
            print(f"{org}: {_line(report)}", file=sys.stderr, flush=True)
    return out


def _counts(r: LivingReport) -> tuple[int, int, int, int, int, int]:
    return (
        r.current_first,
        r.knows_replaced,
        r.knows_replaced_items,
        r.changes,
        r.false_supersession,
        r.controls,
    )


def _line(r: LivingReport) -> str:
    cf, kr, ki, n, fs, c = _counts(r)
    return f"current first {cf}/{n}, knows replaced {kr}/{n} (items {ki}), false {fs}/{c}"


def loo_json(rows: Sequence[tuple[str, LivingReport]]) -> dict[str, object]:
    cf, kr, ki, n, fs, c = (sum(x) for x in zip(*(_counts(r) for _, r in rows), strict=True))
    return {
        "sets": {
            org: dict(
                zip(
                    (
                        "current_first",
                        "knows_replaced",
                        "knows_replaced_items",
                        "changes",
                        "false_supersession",
                        "controls",
                    ),
                    _counts(r),
                    strict=True,
                )
            )
            for org, r in rows
        },
        "changes": n,
        "controls": c,
        "current_first": round(cf / max(1, n), 3),
        "knows_replaced": round(kr / max(1, n), 3),
        "knows_replaced_items": round(ki / max(1, n), 3),
        "false_supersession": round(fs / max(1, c), 3),
    }


def render_loo(rows: Sequence[tuple[str, LivingReport]]) -> str:
    j = loo_json(rows)
    return "\n".join(
        [
            f"living test, leave one organisation out: {len(rows)} sets, "
            f"{j['changes']} belief changes, {j['controls']} controls",
            f"  current first       {j['current_first']:.3f}",
            f"  knows replaced      {j['knows_replaced']:.3f}",
            f"    items only        {j['knows_replaced_items']:.3f}",
            f"  false supersession  {j['false_supersession']:.3f}",
        ]
    )
