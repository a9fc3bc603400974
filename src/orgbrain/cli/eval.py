"""``orgbrain eval``: measure retrieval on public benchmarks, plans side by side.

Each run builds its own temporary brain; the brain named by ``--brain`` is never touched.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import click

from ..compose import make_embedder
from ..errors import OrgBrainError
from ..evals import EvalReport, limit_beir, load_beir, load_locomo, run_beir, run_locomo
from ..evals.report import render_text, to_json
from ..ports import Chat, Embedder
from ..retrieve import PLANS, SearchPlan, get_plan
from ..retrieve.plan import DEFAULT_PLAN
from ..settings import Settings
from .app import CliState, OrgBrainGroup

__all__ = ["COMMANDS", "chat_factory", "embedder_factory", "eval_group"]

# The ablation (each stream alone, plain RRF) beside what users get.
DEFAULT_PLANS = f"bm25,dense,hybrid,{DEFAULT_PLAN}"


def _default_embedder(settings: Settings) -> Embedder:
    return make_embedder(settings)


# The one way an eval gets its embedder; tests replace it to share a loaded model.
embedder_factory: Callable[[Settings], Embedder] = _default_embedder


def _plans(_ctx: click.Context, _param: click.Parameter, value: str) -> tuple[SearchPlan, ...]:
    names = [n.strip() for n in value.split(",") if n.strip()]
    if not names:
        raise click.BadParameter("name at least one plan")
    try:
        return tuple(get_plan(n) for n in dict.fromkeys(names))
    except OrgBrainError as exc:
        raise click.BadParameter(exc.message) from None


def _settings(ctx: click.Context) -> Settings:
    state = ctx.find_object(CliState)
    return state.settings if state is not None else Settings.from_env()


def _wants_json(ctx: click.Context, flag: bool) -> bool:
    state = ctx.find_object(CliState)
    return flag or (state is not None and state.json)


def _progress(message: str) -> None:
    click.echo(message, err=True)


def _emit(report: EvalReport, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(to_json(report), indent=2))
    else:
        click.echo(render_text(report))


def _emit_scored(
    as_json: bool,
    payload: dict[str, object],
    text: str,
    misses: list[dict[str, object]] | None,
) -> None:
    """A labelled set's report (write-back, sensitive, living): its JSON, or its text and,
    when ``misses`` is given, each miss as a JSON line."""
    if as_json:
        click.echo(json.dumps(payload, indent=2, ensure_ascii=False))
        return
    click.echo(text)
    for miss in misses or ():
        click.echo(json.dumps(miss, ensure_ascii=False))


plan_option = click.option(
    "--plan",
    "plans",
    default=DEFAULT_PLANS,
    show_default=True,
    callback=_plans,
    help=f"Comma-separated plans, run side by side over one index ({', '.join(sorted(PLANS))}).",
)
out_option = click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Per-query results as JSONL (default: a new temp dir; the path is printed).",
)
cache_option = click.option(
    "--cache",
    type=click.Path(file_okay=False, path_type=Path),
    help="Keep built indexes in DIR and reuse one whose key (corpus, embedder, indexing "
    "recipe) matches: query-side changes then run without re-embedding.",
)
json_flag = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")


@click.group("eval", cls=OrgBrainGroup)
def eval_group() -> None:
    """Measure retrieval quality on public benchmarks (each run uses a fresh temp brain)."""


@eval_group.command("beir")
@click.argument(
    "folder", metavar="DIR", type=click.Path(exists=True, file_okay=False, path_type=Path)
)
@click.option("--split", default="test", show_default=True, help="Which qrels/<split>.tsv.")
@plan_option
@click.option("--limit-queries", type=click.IntRange(min=1), help="Only the first N queries.")
@click.option(
    "--limit-docs",
    type=click.IntRange(min=0),
    help="Every judged doc plus the first N others (smoke runs).",
)
@out_option
@cache_option
@json_flag
@click.pass_context
def beir(
    ctx: click.Context,
    folder: Path,
    split: str,
    plans: tuple[SearchPlan, ...],
    limit_queries: int | None,
    limit_docs: int | None,
    out: Path | None,
    cache: Path | None,
    as_json: bool,
) -> None:
    """Index a BEIR folder's corpus and report nDCG@10, recall@10/100, MRR@10."""
    data = limit_beir(load_beir(folder, split), limit_queries=limit_queries, limit_docs=limit_docs)
    _progress(f"{len(data.corpus)} docs, {len(data.queries)} queries; loading the embedder")
    embedder = embedder_factory(_settings(ctx))
    report = run_beir(
        data,
        plans,
        embedder,
        source=f"{folder} ({split})",
        out=out,
        cache=cache,
        progress=_progress,
    )
    _emit(report, _wants_json(ctx, as_json))


@eval_group.command("longmemeval")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@plan_option
@click.option("--limit-questions", type=click.IntRange(min=1), help="Only the first N questions.")
@out_option
@cache_option
@json_flag
@click.pass_context
def longmemeval(
    ctx: click.Context,
    file: Path,
    plans: tuple[SearchPlan, ...],
    limit_questions: int | None,
    out: Path | None,
    cache: Path | None,
    as_json: bool,
) -> None:
    """Store each LongMemEval question's history (every turn a note) in its own brain;
    report session recall_any/all@5/@10 per question type, and silence."""
    from ..evals.longmemeval import run_longmemeval
    from ..evals.longmemeval_data import load_longmemeval

    questions = load_longmemeval(file)[:limit_questions]
    _progress(f"{len(questions)} questions; loading the embedder")
    embedder = embedder_factory(_settings(ctx))
    report = run_longmemeval(
        questions, plans, embedder, source=str(file), out=out, cache=cache, progress=_progress
    )
    _emit(report, _wants_json(ctx, as_json))


@eval_group.command("locomo")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@plan_option
@click.option(
    "--limit-conversations", type=click.IntRange(min=1), help="Only the first N conversations."
)
@click.option(
    "--derive",
    is_flag=True,
    help="Derive the typed graph (entities, statements) before asking, as a server would.",
)
@out_option
@cache_option
@json_flag
@click.pass_context
def locomo(
    ctx: click.Context,
    file: Path,
    plans: tuple[SearchPlan, ...],
    limit_conversations: int | None,
    derive: bool,
    out: Path | None,
    cache: Path | None,
    as_json: bool,
) -> None:
    """Store every LoCoMo turn as a note; report evidence recall@5/@10 and silence."""
    conversations = load_locomo(file)[:limit_conversations]
    _progress(f"{len(conversations)} conversations; loading the embedder")
    embedder = embedder_factory(_settings(ctx))
    report = run_locomo(
        conversations,
        plans,
        embedder,
        source=str(file),
        out=out,
        cache=cache,
        progress=_progress,
        derive=derive,
    )
    _emit(report, _wants_json(ctx, as_json))


def _default_chat(settings: Settings) -> Chat | None:
    from ..compose import make_chat

    return make_chat(settings)


# The one way the statements eval gets its chat model; tests point it at a local server.
chat_factory: Callable[[Settings], Chat | None] = _default_chat


@eval_group.command("statements")
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
@json_flag
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
    settings = _settings(ctx)
    embedder = embedder_factory(settings) if "classifier" in chosen else None
    chat = chat_factory(settings) if "llm" in chosen else None
    ran = tuple(
        t
        for t in chosen
        if t == "pattern" or (t == "classifier" and embedder) or (t == "llm" and chat)
    )
    for tier in sorted(set(chosen) - set(ran)):
        _progress(f"tier {tier} is not configured; skipped")
    records = load_statements(file)
    report = run_statements(
        default_extractor(chat, embedder=embedder, tiers=ran),
        records,
        source=str(file) if file else "packaged dev set",
        tiers=ran,
    )
    if _wants_json(ctx, as_json):
        click.echo(json.dumps(statements_json(report), indent=2, ensure_ascii=False))
        return
    click.echo(render_statements(report))
    if misses:
        for miss in report.misses:
            click.echo(json.dumps(miss, ensure_ascii=False))


@eval_group.command("facts")
@click.argument(
    "file", required=False, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option(
    "--plan",
    "plans",
    default=DEFAULT_PLAN,
    show_default=True,
    callback=_plans,
    help=f"Comma-separated plans, each asked as shipped ({', '.join(sorted(PLANS))}).",
)
@out_option
@json_flag
@click.pass_context
def facts(
    ctx: click.Context,
    file: Path | None,
    plans: tuple[SearchPlan, ...],
    out: Path | None,
    as_json: bool,
) -> None:
    """Store short organisation facts as notes and ask plain questions with each plan as
    shipped; report false silence, recall as shipped and false speech (FILE: a facts JSONL,
    default the development set shipped with orgbrain)."""
    from ..evals.facts import load_facts, run_facts

    data = load_facts(file)
    _progress(f"{len(data.facts)} facts, {len(data.questions)} questions; loading the embedder")
    embedder = embedder_factory(_settings(ctx))
    source = str(file) if file else "facts_dev.jsonl (shipped)"
    report = run_facts(data, plans, embedder, source=source, out=out, progress=_progress)
    _emit(report, _wants_json(ctx, as_json))


@eval_group.command("writeback")
@click.argument(
    "file", required=False, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option("--misses", is_flag=True, help="List the proposals missed, unexpected or misplaced.")
@json_flag
@click.pass_context
def writeback(ctx: click.Context, file: Path | None, misses: bool, as_json: bool) -> None:
    """Score write-back (the writer the settings pick, then the gate) on labelled runs
    (FILE: a runs JSONL, default the development set shipped with orgbrain): each run in
    a fresh brain holding its notes; recall, the gate's accuracy, and the precision of
    what was written straight in."""
    from ..evals.writeback import load_runs, render_writeback, run_writeback, writeback_json

    runs = load_runs(file)
    settings = _settings(ctx)
    _progress(f"{len(runs)} runs; loading the embedder")
    source = str(file) if file else "writeback_dev.jsonl (shipped)"
    report = run_writeback(runs, embedder_factory(settings), source=source, settings=settings)
    _emit_scored(
        _wants_json(ctx, as_json),
        writeback_json(report),
        render_writeback(report),
        report.misses if misses else None,
    )


@eval_group.command("sensitive")
@click.argument(
    "file", required=False, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option("--heldout", is_flag=True, help="The held-out set shipped with orgbrain.")
@click.option("--misses", is_flag=True, help="List the examples whose kinds were wrong.")
@json_flag
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
    _emit_scored(
        _wants_json(ctx, as_json),
        sensitive_json(report),
        render_sensitive(report),
        report.misses if misses else None,
    )


@eval_group.command("living")
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
@json_flag
@click.pass_context
def living(
    ctx: click.Context,
    file: Path | None,
    heldout: bool,
    misses: bool,
    split: bool,
    out: Path | None,
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
    if split and misses:
        raise click.BadParameter("--split reports no misses; leave out --misses")
    cases = load_cases(file, heldout=heldout)
    source = str(file) if file else f"{HELDOUT_SET if heldout else DEV_SET} (shipped)"
    _progress(f"{len(cases)} cases; loading the embedder")
    embedder = embedder_factory(_settings(ctx))
    if split:
        halves = run_split(cases, embedder, source=source)
        _write_rows(out, halves.rows)
        _emit_scored(_wants_json(ctx, as_json), split_json(halves), render_split(halves), None)
        return
    report = run_living(cases, embedder, source=source)
    _write_rows(out, report.rows)
    _emit_scored(
        _wants_json(ctx, as_json),
        living_json(report),
        render_living(report),
        report.misses if misses else None,
    )


def _write_rows(out: Path | None, rows: list[dict[str, object]]) -> None:
    if out is not None:
        out.write_text(
            "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
        )


COMMANDS: tuple[click.Command, ...] = (eval_group,)
