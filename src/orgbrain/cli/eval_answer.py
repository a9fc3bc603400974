"""``orgbrain eval answer``: the answerability judge, collected, fitted and measured."""

from __future__ import annotations

from pathlib import Path

import click

from ..errors import Unavailable
from ..ports import TokenEmbedder
from . import eval_kit as kit

__all__ = ["answer"]


@click.command("answer")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--collect",
    is_flag=True,
    help="Ask every set's questions as shipped and write them, with the candidates the "
    "verdict read, to FILE (the slow part: run once).",
)
@click.option(
    "--data",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="With --collect: the folder holding locomo/ and scifact/ (else the shipped sets only).",
)
@click.option("--conversations", default=3, show_default=True, help="LoCoMo conversations.")
@click.option("--claims", default=150, show_default=True, help="SciFact claims.")
@click.option(
    "--write",
    is_flag=True,
    help="Refit on every set of FILE and write the weights orgbrain ships "
    "(src/orgbrain/retrieve/answer_weights.json in a source checkout).",
)
@kit.json_flag
@click.pass_context
def answer(
    ctx: click.Context,
    file: Path,
    collect: bool,
    data: Path | None,
    conversations: int,
    claims: int,
    write: bool,
    as_json: bool,
) -> None:
    """The answerability judge on the searches in FILE: each group (an organisation, a
    fact set, a LoCoMo conversation, SciFact) measured with weights fitted on the others,
    beside the shipped verdict (the gate). With --collect, first run the searches."""
    import tempfile

    from ..evals.answer_data import collect as collect_all
    from ..evals.answer_data import load_asked, write_asked
    from ..evals.answer_fit import (
        examples_of,
        fit,
        leave_one_out,
        load_examples,
        measure,
        save_examples,
        shipped_path,
        weights_json,
    )

    embedder = kit.embedder_factory(kit.settings_of(ctx))
    if not isinstance(embedder, TokenEmbedder):
        raise Unavailable(f"the judge reads token vectors, which {embedder.name} does not give")
    if collect:
        with tempfile.TemporaryDirectory(prefix="orgbrain-eval-answer-") as tmp:
            rows = collect_all(
                embedder, Path(tmp), shared=data, conversations=conversations, claims=claims
            )
            kit.progress(f"wrote {write_asked(rows, file)} searches to {file}")
    features = file.with_name(file.name + ".features.jsonl")
    if features.is_file() and features.stat().st_mtime >= file.stat().st_mtime:
        examples = load_examples(features)
    else:
        asked = load_asked(file)
        kit.progress(f"{len(asked)} searches; reading their candidates")
        examples = examples_of(asked, embedder)
        save_examples(examples, features)
    held_out = {s: o.row() for s, o in leave_one_out(examples).items()}
    weights = fit(examples)
    fitted = {s: o.row() for s, o in measure(examples, weights).items()}
    summary: dict[str, object] = {"held_out": held_out, "fitted": fitted}
    lines = [
        "set          held out: silence speech | fitted: silence speech | gate: silence speech"
    ]
    for s, h in held_out.items():
        f = fitted[s]
        lines.append(
            f"{s:12} {h['false_silence']:>15.3f} {h['false_speech']:.3f}"
            f" | {f['false_silence']:>15.3f} {f['false_speech']:.3f}"
            f" | {h['false_silence_before']:>13.3f} {h['false_speech_before']:.3f}"
        )
    if write:
        target = shipped_path()
        sets = sorted({e.set for e in examples})
        target.write_text(weights_json(weights, sets) + "\n", "utf-8")
        summary["written"] = str(target)
        lines.append(f"wrote {target}")
    kit.emit_scored(kit.wants_json(ctx, as_json), summary, "\n".join(lines), None)
