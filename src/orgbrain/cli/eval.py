"""``orgbrain eval``: measure retrieval on public benchmarks, plans side by side.

Each run builds its own temporary brain; the brain named by ``--brain`` is never touched.
The commands that score labelled sets (statements, write-back, sensitive, living) are in
``eval_labelled.py``, what they all share in ``eval_kit.py``.
"""

from __future__ import annotations

from pathlib import Path

import click

from ..evals import limit_beir, load_beir, load_locomo, run_beir, run_locomo
from ..retrieve import PLANS, SearchPlan
from ..retrieve.plan import DEFAULT_PLAN
from . import eval_kit as kit
from .eval_answer import answer
from .eval_kit import eval_group
from .eval_labelled import LABELLED

__all__ = ["COMMANDS", "eval_group"]


@click.command("beir")
@click.argument(
    "folder", metavar="DIR", type=click.Path(exists=True, file_okay=False, path_type=Path)
)
@click.option("--split", default="test", show_default=True, help="Which qrels/<split>.tsv.")
@kit.plan_option
@click.option("--limit-queries", type=click.IntRange(min=1), help="Only the first N queries.")
@click.option(
    "--limit-docs",
    type=click.IntRange(min=0),
    help="Every judged doc plus the first N others (smoke runs).",
)
@kit.out_option
@kit.cache_option
@kit.json_flag
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
    kit.progress(f"{len(data.corpus)} docs, {len(data.queries)} queries; loading the embedder")
    embedder = kit.embedder_factory(kit.settings_of(ctx))
    report = run_beir(
        data,
        plans,
        embedder,
        source=f"{folder} ({split})",
        out=out,
        cache=cache,
        progress=kit.progress,
    )
    kit.emit(report, kit.wants_json(ctx, as_json))


@click.command("longmemeval")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@kit.plan_option
@click.option("--limit-questions", type=click.IntRange(min=1), help="Only the first N questions.")
@kit.out_option
@kit.cache_option
@kit.json_flag
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
    kit.progress(f"{len(questions)} questions; loading the embedder")
    embedder = kit.embedder_factory(kit.settings_of(ctx))
    report = run_longmemeval(
        questions, plans, embedder, source=str(file), out=out, cache=cache, progress=kit.progress
    )
    kit.emit(report, kit.wants_json(ctx, as_json))


@click.command("locomo")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@kit.plan_option
@click.option(
    "--limit-conversations", type=click.IntRange(min=1), help="Only the first N conversations."
)
@click.option(
    "--derive",
    is_flag=True,
    help="Derive the typed graph (entities, statements) before asking, as a server would.",
)
@kit.out_option
@kit.cache_option
@kit.json_flag
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
    kit.progress(f"{len(conversations)} conversations; loading the embedder")
    embedder = kit.embedder_factory(kit.settings_of(ctx))
    report = run_locomo(
        conversations,
        plans,
        embedder,
        source=str(file),
        out=out,
        cache=cache,
        progress=kit.progress,
        derive=derive,
    )
    kit.emit(report, kit.wants_json(ctx, as_json))


@click.command("facts")
@click.argument(
    "file", required=False, type=click.Path(exists=True, dir_okay=False, path_type=Path)
)
@click.option(
    "--plan",
    "plans",
    default=DEFAULT_PLAN,
    show_default=True,
    callback=kit.parse_plans,
    help=f"Comma-separated plans, each asked as shipped ({', '.join(sorted(PLANS))}).",
)
@kit.out_option
@kit.json_flag
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
    kit.progress(f"{len(data.facts)} facts, {len(data.questions)} questions; loading the embedder")
    embedder = kit.embedder_factory(kit.settings_of(ctx))
    source = str(file) if file else "facts_dev.jsonl (shipped)"
    report = run_facts(data, plans, embedder, source=source, out=out, progress=kit.progress)
    kit.emit(report, kit.wants_json(ctx, as_json))


for _command in (beir, longmemeval, locomo, facts, *LABELLED, answer):
    eval_group.add_command(_command)

COMMANDS: tuple[click.Command, ...] = (eval_group,)
