"""The ``orgbrain`` command line, driven in-process (CliRunner) and as a real process."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result

from orgbrain import Brain
from orgbrain.cli import app, cli
from orgbrain.ports import Embedder
from orgbrain.retrieve.plan import DEFAULT_PLAN
from orgbrain.settings import Settings
from tests.filegen import broken_docx, make_docx

ROOT = Path(__file__).resolve().parent.parent

HANDBOOK = b"""# Billing

The billing service is owned by Priya Raman. It charges cards through Stripe.

## Refunds

Refunds over 500 EUR need approval from finance.

# Search

The search service indexes listings nightly; Mei Chen owns it.
"""
ONCALL = b"The on-call rotation changes every Monday at 09:00 UTC.\n"

Invoke = Callable[..., Result]


@pytest.fixture
def brain_dir(tmp_path: Path) -> Path:
    return tmp_path / "brain"


@pytest.fixture
def run(brain_dir: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch) -> Invoke:
    """``run("add", "x.md")``: the CLI in-process on ``brain_dir``, with the shared model."""

    def open_brain(settings: Settings) -> Brain:
        return Brain.open(settings.brain, settings=settings, embedder=embedder)

    monkeypatch.setattr(app, "open_brain", open_brain)
    monkeypatch.delenv("ORGBRAIN_DEBUG", raising=False)
    runner = CliRunner()
    # As a user would: `orgbrain init` first (only init and the demo create a brain).
    assert runner.invoke(cli, ["--brain", str(brain_dir), "init"]).exit_code == 0

    def invoke(*args: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
        return runner.invoke(cli, ["--brain", str(brain_dir), *args], input=input, env=env)

    return invoke


def ok(result: Result) -> Result:
    assert result.exit_code == 0, (result.exit_code, result.output, result.exception)
    return result


def as_json(result: Result) -> Any:
    return json.loads(ok(result).stdout)


def error_line(result: Result, code: int) -> str:
    assert result.exit_code == code, (result.exit_code, result.output, result.exception)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "Traceback" not in result.output
    return lines[0]


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A folder as people have them: nested, same names twice, hidden and unsupported files."""
    root = tmp_path / "docs"
    (root / "team-a").mkdir(parents=True)
    (root / "team-b").mkdir()
    (root / ".git").mkdir()
    (root / "handbook.md").write_bytes(HANDBOOK)
    (root / "oncall.txt").write_bytes(ONCALL)
    (root / "team-a" / "README.md").write_bytes(b"# Team A\n\nTeam A owns the payments API.\n")
    (root / "team-b" / "README.md").write_bytes(b"# Team B\n\nTeam B owns the mobile app.\n")
    (root / "security.docx").write_bytes(
        make_docx([(1, "Security"), (0, "Rotate API keys every 90 days.")])
    )
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
    (root / ".secret.md").write_bytes(b"# hidden\n")
    (root / ".git" / "config.md").write_bytes(b"# hidden too\n")
    return root


def pending_ids(run: Invoke) -> list[str]:
    return [i["id"] for i in as_json(run("items", "--pending", "--json"))["items"]]


def add_one(run: Invoke, path: Path, *extra: str) -> dict[str, Any]:
    added = as_json(run("add", str(path), "--json", *extra))["added"]
    assert len(added) == 1
    item: dict[str, Any] = added[0]["item"]
    return item


# -- init ---------------------------------------------------------------------------------


def test_init_creates_the_brain_and_is_idempotent(run: Invoke, brain_dir: Path) -> None:
    first = ok(run("init"))
    assert str(brain_dir.resolve()) in first.stdout
    assert (brain_dir / "brain.sqlite").is_file()
    again = as_json(run("init", "--json"))
    assert again["brain"] == str(brain_dir.resolve()) and again["workspace"] == "default"


def test_the_brain_comes_from_the_environment(
    tmp_path: Path, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        app, "open_brain", lambda s: Brain.open(s.brain, settings=s, embedder=embedder)
    )
    where = tmp_path / "from-env"
    result = CliRunner().invoke(cli, ["init"], env={"ORGBRAIN_BRAIN": str(where)})
    ok(result)
    assert (where / "brain.sqlite").is_file()


# -- add and index ------------------------------------------------------------------------


def test_add_a_folder_then_index_pending(run: Invoke, corpus: Path) -> None:
    added = ok(run("add", str(corpus)))
    assert added.stdout.count("added (not indexed)") == 5
    assert "skipped" in added.stdout and "logo.png" in added.stdout
    assert "secret" not in added.stdout and "config.md" not in added.stdout
    assert "orgbrain index --pending" in added.stdout
    assert added.stderr == ""  # piped: no progress bar

    pending = as_json(run("items", "--pending", "--json"))["items"]
    assert len(pending) == 5 and not any(i["indexed"] for i in pending)
    keys = {i["source_key"] for i in pending}
    assert {"file:docs/team-a/README.md", "file:docs/team-b/README.md"} <= keys
    table = ok(run("items", "--pending")).stdout
    assert all(i["id"] in table for i in pending) and "pending" in table

    # Adding before indexing is not knowing: nothing to say yet.
    assert "Nothing answers" in ok(run("search", "who owns billing")).stdout

    indexed = ok(run("index", "--pending"))
    assert indexed.stdout.count("indexed ") == 5
    assert pending_ids(run) == []
    assert "nothing pending" in ok(run("items", "--pending")).stdout
    assert "nothing to index" in ok(run("index")).stdout


def test_add_index_makes_it_answerable_at_once(run: Invoke, corpus: Path) -> None:
    result = ok(run("add", str(corpus / "handbook.md"), "--index"))
    assert result.stdout.startswith("indexed")
    assert "not indexed" not in result.stdout
    assert pending_ids(run) == []


def test_same_named_files_are_two_items_and_a_file_is_one_however_added(
    run: Invoke, corpus: Path
) -> None:
    """`add a/README.md b/README.md` once said "2 added" with one id (the first file lost),
    and a file added alone was another item than the same file added with its folder."""
    a, b = corpus / "team-a" / "README.md", corpus / "team-b" / "README.md"
    both = as_json(run("add", str(a), str(b), "--json"))["added"]
    ids = {x["item"]["id"] for x in both}
    assert len(ids) == 2
    assert {x["item"]["source_key"] for x in both} == {
        "file:docs/team-a/README.md",
        "file:docs/team-b/README.md",
    }
    folder = as_json(run("add", str(corpus), "--json"))["added"]
    by_key = {x["item"]["source_key"]: x["item"]["id"] for x in folder}
    assert by_key["file:docs/team-a/README.md"] in ids  # the same item, not a second one
    alone = add_one(run, corpus / "handbook.md")
    assert alone["id"] == by_key["file:docs/handbook.md"]
    assert ok(run("read", by_key["file:docs/team-a/README.md"])).stdout_bytes == a.read_bytes()
    assert ok(run("read", by_key["file:docs/team-b/README.md"])).stdout_bytes == b.read_bytes()


def test_add_passes_kind_scope_label_and_source_key(run: Invoke, corpus: Path) -> None:
    item = add_one(
        run,
        corpus / "oncall.txt",
        "--kind",
        "runbook",
        "--scope",
        "team:ops",
        "--label",
        "On-call",
        "--source-key",
        "doc:oncall",
    )
    assert (item["kind"], item["scope"], item["label"]) == ("runbook", "team:ops", "On-call")
    assert item["source_key"] == "doc:oncall" and item["indexed"] is False
    refused = run("add", str(corpus), "--source-key", "doc:x")
    assert "exactly one file" in error_line(refused, 2)


def test_index_by_id_and_a_failure_does_not_stop_the_rest(run: Invoke, tmp_path: Path) -> None:
    (tmp_path / "good.md").write_bytes(HANDBOOK)
    (tmp_path / "broken.docx").write_bytes(broken_docx())
    good = add_one(run, tmp_path / "good.md")
    bad = add_one(run, tmp_path / "broken.docx")

    result = run("index", bad["id"], good["id"])
    line = error_line(result, 2)
    assert "1 of 2 files failed to index" in line and bad["id"] in line
    assert f"failed   {bad['id']}" in result.stdout
    assert f"indexed  {good['id']}" in result.stdout

    shown = as_json(run("show", bad["id"], "--json"))["item"]
    assert shown["indexed"] is False and shown["index_error"]
    listed = as_json(run("items", "--class", "file", "--json"))["items"]
    failed = {i["id"]: i["index_error"] is not None for i in listed}
    assert failed == {bad["id"]: True, good["id"]: False}
    # A failed file is not pending: it waits for new bytes, not for another run.
    assert pending_ids(run) == []


def test_index_refuses_ids_with_pending(run: Invoke) -> None:
    assert "not both" in error_line(run("index", "fil_x", "--pending"), 2)


# -- show, items --------------------------------------------------------------------------


def test_show_a_file_lists_its_sections(run: Invoke, corpus: Path) -> None:
    item = add_one(run, corpus / "handbook.md", "--index")
    text = ok(run("show", item["id"])).stdout
    assert item["id"] in text and "handbook.md" in text and "sections" in text
    data = as_json(run("show", item["id"], "--json"))
    sections = data["sections"]
    assert data["item"]["indexed"] is True and len(sections) == 3
    first = sections[0]["byte_range"]
    assert f"[{first['start']}, {first['end']})" in text  # half-open, as written everywhere
    assert "Billing" in text and "Refunds" in text


def test_items_filters_by_class_and_kind(run: Invoke, corpus: Path) -> None:
    add_one(run, corpus / "handbook.md", "--index")
    ok(run("note", "Deploys freeze on Fridays", "--kind", "policy"))
    # Files and notes by default: sections are what files are cut into (`show` lists them).
    classes = {i["storage_class"] for i in as_json(run("items", "--json"))["items"]}
    assert classes == {"file", "note"}
    every = {i["storage_class"] for i in as_json(run("items", "--all", "--json"))["items"]}
    assert every == {"file", "section", "note", "entity"}  # the handbook names Priya Raman
    notes = as_json(run("items", "--class", "note", "--json"))["items"]
    assert [n["kind"] for n in notes] == ["policy"]
    assert as_json(run("items", "--kind", "policy", "--json"))["items"] == notes
    table = ok(run("items", "--class", "file")).stdout
    assert "handbook.md" in table and "yes" in table
    page = as_json(run("items", "--limit", "1", "--json"))
    assert len(page["items"]) == 1 and page["next_cursor"]
    rest = as_json(run("items", "--cursor", page["next_cursor"], "--json"))["items"]
    assert page["items"][0]["id"] not in {i["id"] for i in rest}


# -- search -------------------------------------------------------------------------------


def test_search_shows_hits_with_citations(run: Invoke, corpus: Path) -> None:
    add_one(run, corpus / "handbook.md", "--index")
    text = ok(run("search", "who owns the billing service?")).stdout
    why, first = text.splitlines()[:2]
    # Why first, in words: the hit that answers and what it holds, not the gate's numbers.
    assert why.startswith('Answers: "') and "'billing'" in why and "cosine" not in text
    assert first.startswith("1. ") and "Priya" in text
    assert "matched words and meaning" in text and "score" not in text  # plain words
    assert "Billing" in text and "bytes " in text  # Citation.describe()

    result = as_json(run("search", "who", "owns", "billing", "-k", "1", "--json"))
    assert result["query"] == "who owns billing" and len(result["hits"]) == 1
    hit = result["hits"][0]
    assert "Priya" in hit["item"]["body"]
    cite = hit["citation"]
    start, end = cite["byte_range"]["start"], cite["byte_range"]["end"]
    assert end > start
    assert cite["text"].startswith("handbook.md · ")
    assert f"bytes [{start}, {end})" in cite["text"]  # half-open, and written so
    assert result["plan"] == DEFAULT_PLAN and result["speak"] is True


def test_the_default_plan_comes_from_orgbrain_plan(run: Invoke) -> None:
    ok(run("note", "The billing service is owned by Priya Raman."))
    assert as_json(run("search", "who owns billing", "--json"))["plan"] == DEFAULT_PLAN
    env = {"ORGBRAIN_PLAN": "hybrid"}
    assert as_json(run("search", "who owns billing", "--json", env=env))["plan"] == "hybrid"
    named = run("search", "who owns billing", "--plan", "bm25", "--json", env=env)
    assert as_json(named)["plan"] == "bm25"  # a named plan wins
    assert "unknown search plan" in error_line(run("search", "x", env={"ORGBRAIN_PLAN": "no"}), 2)


def test_search_says_why_it_is_silent(run: Invoke) -> None:
    ok(run("note", "The billing service is owned by Priya Raman."))
    text = ok(run("search", "yo")).stdout
    assert text.startswith("Nothing answers: the closest ") and not re.search(r"\d\.\d", text)
    said = as_json(run("search", "yo", "--json"))
    assert said["hits"] == [] and said["why"] == text.strip()
    assert "floor" in said["reason"]  # the numbers, for whoever wants them


def test_search_rejects_a_bad_plan_and_k(run: Invoke) -> None:
    assert "unknown search plan" in error_line(run("search", "x", "--plan", "nope"), 2)
    assert "k must be at least 1" in error_line(run("search", "x", "-k", "0"), 2)


# -- read ---------------------------------------------------------------------------------


def test_read_streams_the_exact_bytes(run: Invoke, corpus: Path, tmp_path: Path) -> None:
    item = add_one(run, corpus / "handbook.md", "--index")
    assert ok(run("read", item["id"])).stdout_bytes == HANDBOOK

    sections = as_json(run("show", item["id"], "--json"))["sections"]
    for n, section in enumerate(sections, start=1):
        rng = section["byte_range"]
        want = HANDBOOK[rng["start"] : rng["end"]]
        assert ok(run("read", item["id"], "--section", str(n))).stdout_bytes == want
        assert ok(run("read", section["id"])).stdout_bytes == want

    out = tmp_path / "out" / "section.md"
    out.parent.mkdir()
    written = ok(run("read", item["id"], "--section", "2", "-o", str(out)))
    rng = sections[1]["byte_range"]
    assert out.read_bytes() == HANDBOOK[rng["start"] : rng["end"]]
    assert f"wrote {rng['end'] - rng['start']} bytes" in written.stdout
    assert list(out.parent.iterdir()) == [out]

    data = as_json(run("read", item["id"], "--json"))
    assert data["text"].encode() == HANDBOOK and data["bytes"] == len(HANDBOOK)
    assert "no section 9" in error_line(run("read", item["id"], "--section", "9"), 3)


def test_read_is_binary_safe(run: Invoke, corpus: Path) -> None:
    docx = (corpus / "security.docx").read_bytes()
    item = add_one(run, corpus / "security.docx")
    assert ok(run("read", item["id"])).stdout_bytes == docx
    data = as_json(run("read", item["id"], "--json"))
    assert "base64" in data and data["bytes"] == len(docx)


# -- note ---------------------------------------------------------------------------------


def test_note_prints_its_id_and_is_answerable(run: Invoke) -> None:
    note_id = ok(run("note", "Deploys freeze on Fridays after 15:00 UTC", "--kind", "policy"))
    new_id = note_id.stdout.strip()
    assert new_id.startswith("not_") and "\n" not in new_id
    shown = as_json(run("show", new_id, "--json"))["item"]
    assert (shown["kind"], shown["storage_class"], shown["indexed"]) == ("policy", "note", True)
    hits = as_json(run("search", "when do deploys freeze?", "--json"))["hits"]
    assert hits and hits[0]["item"]["id"] == new_id

    piped = as_json(run("note", "-", "--label", "Standup", "--json", input="Standup is 9:30\n"))
    assert (piped["label"], piped["body"]) == ("Standup", "Standup is 9:30")
    assert "needs a body" in error_line(run("note", " "), 2)


# -- json, errors, docs -------------------------------------------------------------------


def test_every_command_answers_json(run: Invoke, corpus: Path, tmp_path: Path) -> None:
    assert set(cli.commands) >= {"init", "add", "index", "note", "items", "show", "search", "read"}
    as_json(run("init", "--json"))
    added = as_json(run("add", str(corpus), "--json"))
    assert len(added["added"]) == 5 and [s["path"] for s in added["skipped"]] == [
        str(corpus / "logo.png")
    ]
    file_id = added["added"][0]["item"]["id"]
    assert as_json(run("index", file_id, "--json"))["indexed"] == 1
    assert as_json(run("--json", "index"))["failed"] == 0  # --json on the group works too
    note = as_json(run("note", "The wiki moved to Notion", "--json"))
    assert note["storage_class"] == "note"
    assert as_json(run("--json", "items"))["items"]
    assert as_json(run("show", note["id"], "--json"))["item"]["id"] == note["id"]
    assert "hits" in as_json(run("search", "wiki", "--json"))
    assert as_json(run("read", file_id, "--json"))["bytes"] > 0
    out = tmp_path / "copy"
    assert as_json(run("read", file_id, "-o", str(out), "--json"))["output"] == str(out)
    with_index = as_json(run("add", str(corpus / "handbook.md"), "--index", "--json"))
    assert with_index["added"][0]["item"]["indexed"] is True


def leaf_commands(group: click.Group = cli, prefix: str = "") -> dict[str, click.Command]:
    """Every runnable command by its full name, e.g. ``"add"`` or ``"eval beir"``."""
    out: dict[str, click.Command] = {}
    for name, command in group.commands.items():
        full = f"{prefix}{name}"
        if isinstance(command, click.Group):
            out.update(leaf_commands(command, f"{full} "))
        else:
            out[full] = command
    return out


def test_every_command_has_a_json_flag() -> None:
    for name, command in leaf_commands().items():
        assert "--json" in {o for p in command.params for o in p.opts}, f"{name} lacks --json"


def test_unknown_id_exits_3_with_one_line(run: Invoke) -> None:
    ok(run("init"))
    for args in (("show", "fil_nope"), ("read", "fil_nope"), ("show", "fil_nope", "--json")):
        assert error_line(run(*args), 3) == "error: no item fil_nope"


def test_add_errors(run: Invoke, corpus: Path, tmp_path: Path) -> None:
    assert "not supported" in error_line(run("add", str(corpus / "logo.png")), 2)
    missing = error_line(run("add", str(tmp_path / "nope.md")), 3)
    assert "nope.md" in missing
    # A bad file named next to good ones: the good ones are added, the exit says it failed.
    mixed = run("add", str(corpus / "oncall.txt"), str(corpus / "logo.png"))
    error_line(mixed, 2)
    assert "added (not indexed)" in mixed.stdout
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "nothing added: no files found" in error_line(run("add", str(empty)), 2)
    assert "invalid scope" in error_line(run("add", str(corpus), "--scope", "everyone"), 2)


def test_unexpected_errors_are_one_line_unless_debugging(
    run: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(settings: Settings) -> Brain:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(app, "open_brain", broken)
    line = error_line(run("items"), 1)
    assert line.startswith("error: internal: RuntimeError: disk on fire")
    debug = run("items", env={"ORGBRAIN_DEBUG": "1"})
    assert isinstance(debug.exception, RuntimeError)


def test_exit_codes_follow_the_error_tree() -> None:
    from orgbrain import errors

    want = {
        errors.InvalidInput: 2,
        errors.Unsupported: 2,
        errors.TooLarge: 2,
        errors.CorruptFile: 2,
        errors.NotFound: 3,
        errors.Forbidden: 4,
        errors.Unauthenticated: 4,
        errors.Conflict: 5,
        errors.Unavailable: 6,
        errors.OrgBrainError: 1,
    }
    for cls, code in want.items():
        assert app.exit_code_for(cls("x")) == code
        assert type(app.error_for_code(cls.code, "x")) is cls


def test_every_command_is_documented() -> None:
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    text = "\n".join(p.read_text(encoding="utf-8") for p in docs if p.is_file())
    names = [*cli.commands, *leaf_commands()]
    missing = [name for name in names if f"orgbrain {name}" not in text]
    assert not missing, f"undocumented commands: {missing}"

    # Where docs/cli.md has a section for a command, it names every option of it.
    reference = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    sections = dict(re.findall(r"^## orgbrain (.+?)\n(.*?)(?=^## |\Z)", reference, re.M | re.S))
    assert set(sections) >= {"init", "add", "index", "note", "items", "show", "search", "read"}
    for name, body in sections.items():
        command = leaf_commands().get(name)
        assert command is not None, f"docs/cli.md documents an unknown command {name!r}"
        for param in command.params:
            for opt in param.opts:
                if opt.startswith("-"):
                    assert opt in body, f"docs/cli.md: orgbrain {name} lacks {opt}"


# -- a real process -----------------------------------------------------------------------


def _process(*args: str, brain: Path) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "ORGBRAIN_BRAIN": str(brain)}
    env.pop("ORGBRAIN_DEBUG", None)
    return subprocess.run(args, capture_output=True, env=env, timeout=300, check=False)


@pytest.mark.slow
def test_the_installed_entry_point_end_to_end(tmp_path: Path) -> None:
    exe = shutil.which("orgbrain")
    assert exe is not None, "the orgbrain entry point is not installed (pip install -e .)"
    brain = tmp_path / "brain"
    doc = tmp_path / "handbook.md"
    doc.write_bytes(HANDBOOK)

    assert _process(exe, "init", brain=brain).returncode == 0
    added = _process(exe, "add", str(doc), "--index", "--json", brain=brain)
    assert added.returncode == 0, added.stderr.decode()
    assert b"\x1b[" not in added.stdout + added.stderr  # piped: no colours, no bar
    file_id = json.loads(added.stdout)["added"][0]["item"]["id"]

    found = _process(exe, "search", "who owns billing?", "--json", brain=brain)
    assert found.returncode == 0, found.stderr.decode()
    hits = json.loads(found.stdout)["hits"]
    assert hits and hits[0]["citation"]["file_id"] == file_id

    read = _process(sys.executable, "-m", "orgbrain", "read", file_id, brain=brain)
    assert read.returncode == 0 and read.stdout == HANDBOOK

    missing = _process(sys.executable, "-m", "orgbrain", "show", "fil_nope", brain=brain)
    assert missing.returncode == 3
    assert missing.stderr.decode().strip() == "error: no item fil_nope"


def test_demo_adds_indexes_and_answers_with_a_citation(run: Invoke, tmp_path: Path) -> None:
    target = tmp_path / "demo"
    report = as_json(run("demo", "--brain", str(target), "--json"))
    assert all(not item["indexed"] for item in report["added"])
    assert report["before_index"]["hits"] == []  # added is not known
    assert all(r["error"] is None for r in report["indexed"])
    hits = report["answer"]["hits"]
    assert hits and any("Priya" in h["item"]["body"] for h in hits)
    assert hits[0]["citation"]["byte_range"] is not None
    assert report["small_talk"]["hits"] == []
    with Brain.open(target) as brain:  # derived as it was indexed, not left to a later command
        assert brain.jobs(state="queued", kind="derive").jobs == ()
        assert brain.counts().get("entity", 0) > 0
    text = ok(run("demo", "--brain", str(target))).stdout  # again: same bytes change nothing
    assert "1. add" in text and "decisions.md" in text


def test_a_mistyped_brain_path_is_an_error_not_a_new_brain(tmp_path: Path) -> None:
    where = tmp_path / "nonexistent" / "x"
    for args in (["items"], ["search", "who owns billing"], ["show", "fil_1"], ["index"]):
        result = CliRunner().invoke(cli, ["--brain", str(where), *args])
        assert result.exit_code == 3, result.output
        assert f"no brain at {where}" in result.stderr and "orgbrain init" in result.stderr
    assert not where.exists() and not where.parent.exists()


def test_forget_and_the_progress_bar_count_one_section_as_one(run: Invoke, corpus: Path) -> None:
    """They said "(and 1 sections)" and "1 sections"."""
    oncall = add_one(run, corpus / "oncall.txt", "--index")  # one short text: one section
    said = ok(run("forget", oncall["id"], "--reason", "stale")).stdout
    assert "(and 1 section)" in said, said
    # The bar draws only on a terminal: a real one (a pty) for a child that advances it.
    code = (
        "import time\nfrom orgbrain.cli.progress import work_progress\n"
        "with work_progress(100, 'indexing') as advance:\n"
        "    advance(50, 1); time.sleep(0.5)\n"
    )
    drawn = in_terminal([sys.executable, "-c", code])
    assert "1 section " in drawn and "1 sections" not in drawn, drawn


def in_terminal(argv: list[str]) -> str:
    """What ``argv`` writes to a pseudo-terminal (stdout and stderr both)."""
    import pty

    main, child = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": "120", "TERM": "xterm"}
    subprocess.run(argv, stdin=child, stdout=child, stderr=child, env=env, check=True, timeout=60)
    os.close(child)
    out = b""
    with contextlib.suppress(OSError):  # EIO: the child's end is closed and read dry
        while chunk := os.read(main, 65536):
            out += chunk
    os.close(main)
    return out.decode("utf-8", "replace")
