"""``orgbrain eval`` on labelled sets: statements, write-back, sensitive data, living.

Each scores one part of orgbrain against a labelled JSONL file (by default the set
shipped with it) and prints its figures, or JSON, and with ``--misses`` what it got
wrong.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import click

from . import eval_kit as kit

__all__ = ["LABELLED", "judge", "living", "rules", "sensitive", "statements", "writeback"]


@click.command("statements")
@click.argument(
    "file", required=False, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option(
    "--tiers",
    default="pattern,classifier,llm",
    show_default=True,
    help="Comma-separated extractor tiers to run (pattern always runs; the classifier "
    "needs the embedder; llm needs ORGBRAIN_CHAT_URL and ORGBRAIN_CHAT_MODEL).",
)
@click.option("--misses", is_flag=True, help="List the statements missed or wrong, per text.")
@kit.json_flag
@click.pass_context
def statements(
    ctx: click.Context, file: Path | None, tiers: str, misses: bool, as_json: bool
) -> None:
    """Score the statement extractor on a labelled JSONL file (default: the dev set)."""
    from ..evals.statements import (
        load_statements,
        render_statements,
        run_statements,
        statements_json,
    )
    from ..extraction import TIERS, default_extractor

    chosen = tuple(t.strip() for t in tiers.split(",") if t.strip())
    unknown = [t for t in chosen if t not in TIERS]
    if unknown:
        raise click.BadParameter(f"unknown tier {unknown[0]!r}; use {', '.join(TIERS)}")
    chosen = ("pattern", *(t for t in chosen if t != "pattern"))
    settings = kit.settings_of(ctx)
    embedder = kit.embedder_factory(settings) if "classifier" in chosen else None
    chat = kit.chat_factory(settings) if "llm" in chosen else None
    ran = tuple(
        t
        for t in chosen
        if t == "pattern" or (t == "classifier" and embedder) or (t == "llm" and chat)
    )
    for tier in sorted(set(chosen) - set(ran)):
        kit.progress(f"tier {tier} is not configured; skipped")
    records = load_statements(file)
    report = run_statements(
        default_extractor(chat, embedder=embedder, tiers=ran),
        records,
        source=str(file) if file else "packaged dev set",
        tiers=ran,
    )
    if kit.wants_json(ctx, as_json):
        click.echo(json.dumps(statements_json(report), indent=2, ensure_ascii=False))
        return
    click.echo(render_statements(report))
    if misses:
        for miss in report.misses:
            click.echo(json.dumps(miss, ensure_ascii=False))


@click.command("writeback")
@click.argument(
    "file", required=False, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option("--misses", is_flag=True, help="List the proposals missed, unexpected or misplaced.")
@kit.json_flag
@click.pass_context
def writeback(ctx: click.Context, file: Path | None, misses: bool, as_json: bool) -> None:
    """Score write-back (the writer the settings pick, then the gate) on labelled runs
    (FILE: a runs JSONL, default the development set shipped with orgbrain): each run in
    a fresh brain holding its notes; recall, the gate's accuracy, and the precision of
    what was written straight in."""
    from ..evals.writeback import load_runs, render_writeback, run_writeback, writeback_json

    runs = load_runs(file)
    settings = kit.settings_of(ctx)
    kit.progress(f"{len(runs)} runs; loading the embedder")
    source = str(file) if file else "writeback_dev.jsonl (shipped)"
    report = run_writeback(runs, kit.embedder_factory(settings), source=source, settings=settings)
    kit.emit_scored(
        kit.wants_json(ctx, as_json),
        writeback_json(report),
        render_writeback(report),
        report.misses if misses else None,
    )


@click.command("sensitive")
@click.argument(
    "file", required=False, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option("--heldout", is_flag=True, help="The held-out set shipped with orgbrain.")
@click.option("--misses", is_flag=True, help="List the examples whose kinds were wrong.")
@kit.json_flag
@click.pass_context
def sensitive(
    ctx: click.Context, file: Path | None, heldout: bool, misses: bool, as_json: bool
) -> None:
    """Score the write-back gate's detector of secrets, credentials and personal data on
    labelled texts (FILE: an examples JSONL, default the dev set shipped with orgbrain);
    precision, recall and F1 per kind (docs/sensitive.md)."""
    from ..evals.sensitive import (
        DEV_SET,
        HELDOUT_SET,
        load_examples,
        render_sensitive,
        run_sensitive,
        sensitive_json,
    )

    if file is not None and heldout:
        raise click.BadParameter("give a FILE or --heldout, not both")
    source = str(file) if file else f"{HELDOUT_SET if heldout else DEV_SET} (shipped)"
    report = run_sensitive(load_examples(file, heldout=heldout), source=source)
    kit.emit_scored(
        kit.wants_json(ctx, as_json),
        sensitive_json(report),
        render_sensitive(report),
        report.misses if misses else None,
    )


@click.command("living")
@click.argument(
    "file", required=False, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option("--heldout", is_flag=True, help="The held-out set shipped with orgbrain.")
@click.option("--misses", is_flag=True, help="List the cases that failed, and how.")
@click.option(
    "--split",
    is_flag=True,
    help="Deal the cases into two halves, each half's notes in one brain, and ask every "
    "belief change's question of both: false silence where its answer is held, speech "
    "where it is not.",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Each belief change's search as a JSONL row with the gate's view of its first "
    "hits (for bench/verdict_curve.py).",
)
@click.option(
    "--loo",
    is_flag=True,
    help="Leave one organisation out: run every living set shipped with orgbrain, each "
    "with the supersession judge's weights fitted on the other sets only.",
)
@kit.json_flag
@click.pass_context
def living(
    ctx: click.Context,
    file: Path | None,
    heldout: bool,
    misses: bool,
    split: bool,
    out: Path | None,
    loo: bool,
    as_json: bool,
) -> None:
    """The living test: dated notes in which a belief changes (and controls where none
    does), each set in a fresh brain; report how often the top hit is the current belief,
    how often the replaced note is marked superseded by it, and how often a control had a
    note superseded (FILE: a cases JSONL, default the dev set shipped with orgbrain)."""
    from ..evals.living import (
        DEV_SET,
        HELDOUT_SET,
        living_json,
        load_cases,
        render_living,
        render_split,
        run_living,
        run_split,
        split_json,
    )

    if file is not None and heldout:
        raise click.BadParameter("give a FILE or --heldout, not both")
    if loo:
        if file is not None or heldout or split or misses or out is not None:
            raise click.BadParameter("--loo runs every shipped set; it takes no other option")
        from ..evals.living_loo import loo_json, render_loo, run_loo

        settings = kit.settings_of(ctx)
        rows = run_loo(kit.embedder_factory(settings), settings, progress=True)
        kit.emit_scored(kit.wants_json(ctx, as_json), loo_json(rows), render_loo(rows), None)
        return
    if split and misses:
        raise click.BadParameter("--split reports no misses; leave out --misses")
    cases = load_cases(file, heldout=heldout)
    source = str(file) if file else f"{HELDOUT_SET if heldout else DEV_SET} (shipped)"
    kit.progress(f"{len(cases)} cases; loading the embedder")
    embedder = kit.embedder_factory(kit.settings_of(ctx))
    if split:
        halves = run_split(cases, embedder, source=source, settings=kit.settings_of(ctx))
        _write_rows(out, halves.rows)
        kit.emit_scored(
            kit.wants_json(ctx, as_json), split_json(halves), render_split(halves), None
        )
        return
    report = run_living(cases, embedder, source=source, settings=kit.settings_of(ctx))
    _write_rows(out, report.rows)
    kit.emit_scored(
        kit.wants_json(ctx, as_json),
        living_json(report),
        render_living(report),
        report.misses if misses else None,
    )


def _write_rows(out: Path | None, rows: list[dict[str, object]]) -> None:
    if out is not None:
        out.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
        )


@click.command("judge")
@click.option(
    "--write",
    is_flag=True,
    help="Refit on every shipped living set and write the weights orgbrain ships "
    "(src/orgbrain/judge/weights.json in a source checkout).",
)
@kit.json_flag
@click.pass_context
def judge(ctx: click.Context, write: bool, as_json: bool) -> None:
    """The supersession judge on the living sets' pairs of notes, each organisation (set)
    measured with weights fitted on the others: how many replaced notes it knows, how
    many controls it falsely supersedes. With --write, refit on all and ship."""
    from ..evals.judge_fit import (
        fit,
        leave_one_out,
        living_sets,
        load_all,
        measure,
        write_shipped,
    )

    paths = living_sets()
    kit.progress(f"{len(paths)} living sets; loading the embedder")
    embedder = kit.embedder_factory(kit.settings_of(ctx))
    bags = load_all(paths, embedder)
    per_set = leave_one_out(bags)
    n = sum(m["changes"] for m in per_set.values())
    c = sum(m["controls"] for m in per_set.values())
    known = sum(m["knows_replaced"] * m["changes"] for m in per_set.values())
    false = sum(m["false_supersession"] * m["controls"] for m in per_set.values())
    summary: dict[str, object] = {
        "sets": per_set,
        "changes": n,
        "controls": c,
        "knows_replaced": round(known / max(1, n), 3),
        "false_supersession": round(false / max(1, c), 3),
    }
    if write:
        weights = replace(fit(bags), embedder=embedder.name)
        summary["written"] = str(write_shipped(weights, [p.stem for p in paths]))
        summary["fitted"] = measure(bags, weights)
    lines = [
        f"{org:12} " + "  ".join(f"{k} {v:.3f}" for k, v in m.items()) for org, m in per_set.items()
    ]
    lines.append(
        f"leave one organisation out: knows replaced {summary['knows_replaced']:.3f} of {n}, "
        f"false supersession {summary['false_supersession']:.3f} of {c}"
    )
    if write:
        lines.append(f"wrote {summary['written']}")
    kit.emit_scored(kit.wants_json(ctx, as_json), summary, "\n".join(lines), None)


@click.command("rules")
@click.argument("files", nargs=-1, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@kit.json_flag
@click.pass_context
def rules(ctx: click.Context, files: tuple[Path, ...], as_json: bool) -> None:
    """Each rule that supersedes (a statement's predicate, the restatement rules, the
    judge, a document's revision): how often it fires on the living sets (FILES, default
    every set shipped) and how often it links the replaced note to the current one,
    supersedes in a control, or links the wrong notes; dev sets beside the others.
    ORGBRAIN_SUPERSESSION says which run."""
    from ..evals.judge_fit import living_sets
    from ..evals.rules import render_rules, rules_json, run_rules

    paths = list(files) or living_sets()
    settings = kit.settings_of(ctx)
    kit.progress(f"{len(paths)} living sets; loading the embedder")
    report = run_rules(paths, kit.embedder_factory(settings), settings)
    kit.emit_scored(kit.wants_json(ctx, as_json), rules_json(report), render_rules(report), None)


LABELLED: tuple[click.Command, ...] = (statements, writeback, sensitive, living, judge, rules)
