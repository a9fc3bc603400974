"""The audit pass: after a file is indexed and derived, a second pass with a budget of
tool calls adds mentions and links around it and never merges anything. Offline (the
extraction tiers and the brain's known entities) and with an LLM (a local server that
speaks the chat protocol); within its budget; resumed after a kill, nothing twice; and
every step on the file's write story (``orgbrain inspect``)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import ClassVar

import pytest
from click.testing import CliRunner

from orgbrain import Brain
from orgbrain.audit import (
    AUDIT_ACTOR,
    AuditBudget,
    BudgetSpent,
    OfflineAuditor,
    audit_key,
    auditor_for,
    request_audit,
    run_audit,
)
from orgbrain.cli import app, cli
from orgbrain.derive.statements import evidence_range
from orgbrain.errors import InvalidInput
from orgbrain.extraction import default_extractor
from orgbrain.jobs import AuditJobs, DeriveJobs, IndexJobs, RetryPolicy
from orgbrain.model import Edge, Item
from orgbrain.settings import Settings
from tests.json_server import serving
from tests.toy import HashEmbedder

ROOT = Path(__file__).resolve().parent.parent

# Derivation reads both sections with the names known when its batch started: "Kestrel"
# and "Heron" become projects only as the Owners section is derived, so the Intro's
# mentions of them are what the audit pass, coming after, finds.
PLAN = b"""# Plan

## Intro

We will ask Kestrel and Heron about the rollout, and Orion.

## Owners

Project Kestrel is owned by Dana Smith. Project Heron is owned by Ana Lopez.
"""
ORION = "Project Orion is owned by Mei Chen."


def _open(folder: Path, **settings: object) -> Brain:
    return Brain.open(folder, embedder=HashEmbedder(), settings=Settings(**settings))


def _indexed_and_derived(brain: Brain, body: bytes = PLAN) -> tuple[Item, Item]:
    """The plan indexed and derived (not audited yet), and its Intro section."""
    brain.add_note(ORION, wait="derived")
    plan = brain.add_file(body, name="plan.md")
    brain.request_index(plan.id)
    brain.worker(handlers=[IndexJobs(), DeriveJobs()]).drain()
    intro = next(s for s in brain.sections(plan.id) if "Intro" in s.label)
    return brain.get(plan.id), intro


def _mentions(brain: Brain, item_id: str) -> list[tuple[Edge, Item]]:
    edges = [e for e in brain.edges(item_id) if e.type == "MENTIONS" and e.src == item_id]
    found = brain.get_many([e.dst for e in edges])
    return [(e, found[e.dst]) for e in edges]


def _names(brain: Brain, item_id: str) -> list[str]:
    return sorted(entity.label for _, entity in _mentions(brain, item_id))


def _snapshot(brain: Brain) -> list[Item]:
    return sorted(brain.items(limit=500).items, key=lambda i: i.id)


def _steps(brain: Brain, file_id: str) -> list[dict[str, object]]:
    return [dict(s) for s in brain.story(file_id).audit_steps]


# -- the offline auditor ----------------------------------------------------------------------


def test_the_offline_audit_mentions_names_the_brain_knows_after_derivation(
    tmp_path: Path,
) -> None:
    with _open(tmp_path / "brain") as brain:
        plan, intro = _indexed_and_derived(brain)
        assert _names(brain, intro.id) == ["Orion"]  # known before: derivation found it
        audit = brain.jobs(kind="audit").jobs
        assert [(j.key, j.state, j.subject) for j in audit] == [
            (audit_key(plan), "queued", plan.id)
        ]  # asked for by derivation, once, when the file's sections were derived
        before = _snapshot(brain)

        assert brain.run_jobs().done == 1
        assert _names(brain, intro.id) == ["Heron", "Kestrel", "Orion"]
        for edge, entity in _mentions(brain, intro.id):
            if entity.label in ("Heron", "Kestrel"):
                assert entity.kind == "project"
                assert (edge.origin.actor, edge.origin.run_id) == (AUDIT_ACTOR, audit_key(plan))
                rng = (edge.props["start"], edge.props["end"])
                raw = b"".join(brain.read_file(plan.id))
                assert raw[rng[0] : rng[1]].decode() == entity.label  # the cited bytes
        # Nothing merged, nothing new: the same items, unchanged; only edges were added.
        assert _snapshot(brain) == before

        story = brain.story(plan.id)
        assert (story.audit, story.audit_error) == ("done", None)
        steps = [s for s in story.audit_steps if s["kind"] == "audit"]
        assert [(s["n"], s["step"]) for s in steps] == [
            (1, "observe_mention"),
            (2, "observe_mention"),
        ]
        [end] = [s for s in story.audit_steps if s["kind"] == "audited"]
        assert (end["stopped"], end["steps"], end["mentions"], end["budget"]) == (
            "done",
            2,
            2,
            30,
        )
        # Derived, then audited: every derivation event came before the pass's first step.
        derive = brain.events_after(0, kinds=["derive", "derived"])
        assert max(int(str(e["id"])) for e in derive) < min(
            int(str(s["id"])) for s in story.audit_steps
        )


def test_a_pass_run_again_writes_and_logs_nothing_twice(tmp_path: Path) -> None:
    with _open(tmp_path / "brain") as brain:
        plan, intro = _indexed_and_derived(brain)
        brain.run_jobs()
        edges, steps = brain.counts()["edges"], _steps(brain, plan.id)
        ctx = brain._ctx
        again = run_audit(ctx, plan, OfflineAuditor(default_extractor(), [("project", "Kestrel")]))
        assert (again.steps, again.mentions, again.stopped) == (2, 2, "done")
        assert brain.counts()["edges"] == edges and _steps(brain, plan.id) == steps
        assert len(_mentions(brain, intro.id)) == 3


def test_the_audit_is_asked_for_once_the_last_section_is_derived(tmp_path: Path) -> None:
    with _open(tmp_path / "brain") as brain:
        brain.add_note(ORION, wait="derived")
        plan = brain.add_file(PLAN, name="plan.md")
        brain.request_index(plan.id)
        brain.worker(handlers=[IndexJobs()]).drain()
        one_at_a_time = brain.worker(handlers=[DeriveJobs(batch=1)])
        sections = brain.sections(plan.id)
        assert len(sections) > 1
        for _ in sections[1:]:
            assert one_at_a_time.run_once().done == 1  # a section derived, others waiting
            assert brain.jobs(kind="audit").jobs == ()
        assert one_at_a_time.run_once().done == 1  # the last one
        [job] = brain.jobs(kind="audit").jobs
        assert (job.state, job.subject) == ("queued", plan.id)


def test_an_audit_asked_for_early_waits_for_derivation(tmp_path: Path) -> None:
    with _open(tmp_path / "brain") as brain:
        plan = brain.add_file(PLAN, name="plan.md")
        brain.request_index(plan.id)
        brain.worker(handlers=[IndexJobs()]).drain()
        job = request_audit(brain._ctx, brain.get(plan.id))
        assert job is not None
        auditing = brain.worker(handlers=[AuditJobs()], retry=RetryPolicy(0.05, 0.05))
        assert auditing.drain().retried == 1
        waiting = f"waiting for the derivation of {len(brain.sections(plan.id))} section(s)"
        assert waiting in (brain.job(job.id).last_error or "")
        assert _steps(brain, plan.id) == []  # nothing audited before derivation
        brain.worker(handlers=[DeriveJobs()]).drain()
        time.sleep(0.1)
        assert auditing.drain().done == 1 and brain.job(job.id).state == "done"


def test_a_mention_written_before_a_crash_but_not_logged_is_logged_on_resume(
    tmp_path: Path,
) -> None:
    with _open(tmp_path / "brain") as brain:
        plan, intro = _indexed_and_derived(brain)
        at = intro.body.index("Kestrel")
        span = evidence_range(intro, at, at + len("Kestrel"))
        assert span is not None
        # What an attempt cut short between the write and its log line leaves behind.
        brain.acting_as(AUDIT_ACTOR).observe_mention(
            intro.id,
            "project",
            "Kestrel",
            "Kestrel",
            start=span.start,
            end=span.end,
            run_id=audit_key(plan),
        )
        edges = brain.counts()["edges"]
        brain.run_jobs()
        assert brain.counts()["edges"] == edges + 1  # Heron's; Kestrel's was there
        steps = [s for s in _steps(brain, plan.id) if s["kind"] == "audit"]
        assert [(s["args"]["value"], s["created"]) for s in steps] == [
            ("Kestrel", True),
            ("Heron", True),
        ]
        [end] = [s for s in _steps(brain, plan.id) if s["kind"] == "audited"]
        assert end["mentions"] == 2


def test_a_tiny_budget_stops_the_pass_and_says_so(tmp_path: Path) -> None:
    with _open(tmp_path / "brain", audit_steps=1) as brain:
        plan, intro = _indexed_and_derived(brain)
        brain.run_jobs()
        assert _names(brain, intro.id) == ["Kestrel", "Orion"]  # one step: the first name
        story = brain.story(plan.id)
        assert story.audit == "done"
        [step] = [s for s in story.audit_steps if s["kind"] == "audit"]
        [end] = [s for s in story.audit_steps if s["kind"] == "audited"]
        assert (step["n"], end["stopped"], end["steps"], end["budget"]) == (1, "budget", 1, 1)
        assert "budget of 1 steps is spent" in str(end["error"])


def test_the_budget_refuses_the_step_past_it() -> None:
    budget = AuditBudget(2)
    assert [budget.spend("search"), budget.spend("read")] == [1, 2]
    with pytest.raises(BudgetSpent, match="observe_mention refused"):
        budget.spend("observe_mention")
    assert (budget.used, budget.left) == (2, 0)
    assert AuditBudget().steps == 30  # the seed's


def test_no_steps_no_audit_and_the_auditor_setting_is_checked(tmp_path: Path) -> None:
    with _open(tmp_path / "brain", audit_steps=0) as brain:
        plan, _ = _indexed_and_derived(brain)
        assert brain.jobs(kind="audit").jobs == () and brain.story(plan.id).audit == "none"
    with _open(tmp_path / "other", auditor="sometimes") as brain:
        with pytest.raises(InvalidInput, match="ORGBRAIN_AUDITOR is auto, offline or llm"):
            auditor_for(brain._ctx)
    with _open(tmp_path / "third", auditor="llm") as brain:
        with pytest.raises(InvalidInput, match="needs ORGBRAIN_CHAT_URL"):
            auditor_for(brain._ctx)
    assert Settings.from_env({"ORGBRAIN_AUDIT_STEPS": "7", "ORGBRAIN_AUDITOR": "offline"}) == (
        Settings(audit_steps=7, auditor="offline")
    )


def test_a_file_with_new_bytes_is_audited_again_and_the_old_pass_ends_quietly(
    tmp_path: Path,
) -> None:
    with _open(tmp_path / "brain") as brain:
        plan, _ = _indexed_and_derived(brain)
        old_key = audit_key(plan)
        newer = brain.add_file(PLAN + b"\nHeron ships in May.\n", name="plan.md")
        brain.request_index(newer.id)
        brain.run_jobs()
        jobs = {j.key: j for j in brain.jobs(kind="audit").jobs}
        current = brain.get(plan.id)
        assert set(jobs) == {old_key, audit_key(current)}
        assert all(j.state == "done" for j in jobs.values())
        ended = brain.story(plan.id).audit_steps
        assert [s["pass"] for s in ended if s["kind"] == "audited"] == [audit_key(current)]


def test_inspect_shows_the_audit_steps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "brain"
    with _open(folder) as brain:
        plan, _ = _indexed_and_derived(brain)
        brain.run_jobs()

    def open_brain(settings: Settings) -> Brain:
        return Brain.open(settings.brain, settings=settings, embedder=HashEmbedder())

    monkeypatch.setattr(app, "open_brain", open_brain)
    runner = CliRunner()
    shown = runner.invoke(cli, ["--brain", str(folder), "inspect", plan.id])
    assert shown.exit_code == 0, shown.output
    assert "audit         done" in shown.stdout
    assert "1. observe_mention" in shown.stdout and "value Kestrel" in shown.stdout
    assert "2. observe_mention" in shown.stdout and "value Heron" in shown.stdout
    assert "audited" in shown.stdout and "stopped done" in shown.stdout
    data = json.loads(
        runner.invoke(cli, ["--brain", str(folder), "inspect", plan.id, "--json"]).stdout
    )
    assert data["audit"] == "done" and data["audit_error"] is None
    assert [s["step"] for s in data["audit_steps"]] == [
        "observe_mention",
        "observe_mention",
        "audited",
    ]
    assert data["audit_steps"][0]["produced"]["args"]["value"] == "Kestrel"


def test_the_cli_audits_what_it_added_in_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An embedded CLI has no background worker: `add --index` does the audit itself,
    # so `inspect` shows it done rather than queued for a worker that never comes.
    folder = tmp_path / "brain"
    doc = tmp_path / "plan.md"
    doc.write_text("# Plan\n\nProject Kestrel ships in May; Mina owns Project Kestrel.\n")

    def open_brain(settings: Settings) -> Brain:
        return Brain.open(settings.brain, settings=settings, embedder=HashEmbedder())

    monkeypatch.setattr(app, "open_brain", open_brain)
    runner = CliRunner()
    assert runner.invoke(cli, ["--brain", str(folder), "init"]).exit_code == 0
    added = runner.invoke(cli, ["--brain", str(folder), "add", str(doc), "--index", "--json"])
    assert added.exit_code == 0, added.output
    file_id = json.loads(added.stdout)["added"][0]["item"]["id"]
    shown = runner.invoke(cli, ["--brain", str(folder), "inspect", file_id, "--json"])
    assert json.loads(shown.stdout)["audit"] == "done"
    with _open(folder) as brain:
        assert not brain.jobs(state="queued").jobs


# -- the LLM auditor against a local server that speaks the protocol --------------------------


class _Model(BaseHTTPRequestHandler):
    """A scripted auditor: its system prompt gets the script, one call per turn; anything
    else (derivation's extractor) gets no statements. While ``hang_at`` names a turn, that
    turn's request hangs until ``release`` is set (a worker killed mid-pass)."""

    script: ClassVar[list[object]] = []
    seen: ClassVar[list[list[dict[str, str]]]] = []
    hang_at: ClassVar[int | None] = None
    fail_at: ClassVar[int | None] = None
    hung: ClassVar[threading.Event]
    release: ClassVar[threading.Event]

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        messages = body["messages"]
        if "You audit the graph" in messages[0]["content"]:
            type(self).seen.append(messages)
            turn = sum(1 for m in messages if m["role"] == "assistant")
            if turn == self.hang_at:
                self.hung.set()
                self.release.wait(30)
                return
            if turn == self.fail_at:
                type(self).fail_at = None
                self.send_error(503, "down for a moment")
                return
            step = self.script[turn] if turn < len(self.script) else {"tool": "done"}
            content = step if isinstance(step, str) else json.dumps(step)
        else:
            content = json.dumps({"statements": []})
        data = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]})
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data.encode())))
            self.end_headers()
            self.wfile.write(data.encode())
        except OSError:
            pass  # the worker that asked was killed

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def model() -> Iterator[tuple[str, type[_Model]]]:
    handler = type(
        "Handler",
        (_Model,),
        {
            "script": [],
            "seen": [],
            "hang_at": None,
            "fail_at": None,
            "hung": threading.Event(),
            "release": threading.Event(),
        },
    )
    with serving(handler) as url:
        try:
            yield url, handler
        finally:
            handler.release.set()  # a hung turn answers before the server stops


def _script(plan: Item, intro: Item, note: Item, owners: Item) -> list[object]:
    return [
        {"tool": "think", "plan": "read the intro, name what it is about, link the note"},
        {"tool": "search", "query": "who owns Orion"},
        {"tool": "read", "item_id": intro.id},
        {"tool": "neighborhood", "item_id": plan.id, "hops": 1},
        {
            "tool": "observe_mention",
            "item_id": intro.id,
            "type": "topic",
            "value": "the rollout",
            "text": "the rollout",
        },
        {
            "tool": "observe_mention",
            "item_id": intro.id,
            "type": "topic",
            "value": "x",
            "text": "absent",
        },
        {"tool": "link", "src": intro.id, "dst": note.id, "type": "same as", "note": "one system"},
        {"tool": "link", "src": owners.id, "dst": note.id, "type": "SUPERSEDES"},
        {
            "tool": "observe_mention",
            "item_id": note.id,
            "type": "system",
            "value": "Orion",
            "text": "Orion",
        },
        {"tool": "done"},
    ]


def test_the_llm_auditor_looks_around_then_mentions_and_links_never_merging(
    tmp_path: Path, model: tuple[str, type[_Model]]
) -> None:
    url, handler = model
    with _open(tmp_path / "brain", chat_url=url, chat_model="auditor-test") as brain:
        plan, intro = _indexed_and_derived(brain)
        owners = next(s for s in brain.sections(plan.id) if s.id != intro.id)
        note = next(i for i in brain.items(limit=50).items if i.body == ORION)
        handler.script = _script(plan, intro, note, owners)
        before = _snapshot(brain)
        assert brain.run_jobs().done == 1

        mentions = {entity.label: edge for edge, entity in _mentions(brain, intro.id)}
        assert mentions["the rollout"].origin.actor == AUDIT_ACTOR
        [same] = [e for e in brain.edges(intro.id) if e.type == "SAME_AS"]
        assert (same.src, same.dst, same.props["note"]) == (intro.id, note.id, "one system")
        assert not [e for e in brain.edges(owners.id) if e.type == "SUPERSEDES"]
        assert not [
            e
            for e in brain.edges(note.id)
            if e.type == "MENTIONS" and e.origin.actor == AUDIT_ACTOR
        ]
        # Never merged: every item as it was (a new topic entity aside), none superseded.
        after = {i.id: i for i in _snapshot(brain)}
        assert all(after[i.id] == i for i in before)
        assert [i.label for i in after.values() if i.id not in {b.id for b in before}] == [
            "the rollout"
        ]

        story = brain.story(plan.id)
        steps = [s for s in story.audit_steps if s["kind"] == "audit"]
        assert [(s["n"], s["step"]) for s in steps] == [
            (0, "think"),
            (1, "search"),
            (2, "read"),
            (3, "neighborhood"),
            (4, "observe_mention"),
            (5, "observe_mention"),
            (6, "link"),
            (7, "link"),
            (8, "observe_mention"),
        ]
        errors = {s["n"]: str(s.get("error")) for s in steps if s.get("error")}
        assert set(errors) == {5, 7, 8}
        assert "is not written in that item" in errors[5]
        assert "derivation's to record" in errors[7]
        assert "not the audited file or one of its sections" in errors[8]
        [end] = [s for s in story.audit_steps if s["kind"] == "audited"]
        assert (end["auditor"], end["stopped"], end["mentions"], end["links"]) == (
            "llm",
            "done",
            1,
            1,
        )
        # The model was told each tool's answer and the steps left.
        answers = [json.loads(m["content"]) for m in handler.seen[-1][2:] if m["role"] == "user"]
        assert answers[1]["hits"] and "We will ask Kestrel" in answers[2]["text"]
        assert "error" in answers[5] and answers[-1]["steps_left"] == 30 - 8


def test_a_bad_model_reply_ends_the_pass_with_what_it_did(
    tmp_path: Path, model: tuple[str, type[_Model]]
) -> None:
    url, handler = model
    with _open(tmp_path / "brain", chat_url=url, chat_model="auditor-test") as brain:
        plan, intro = _indexed_and_derived(brain)
        handler.script = [
            {
                "tool": "observe_mention",
                "item_id": intro.id,
                "type": "project",
                "value": "Kestrel",
                "text": "Kestrel",
            },
            "sure! it is about the rollout",
        ]
        brain.run_jobs()
        story = brain.story(plan.id)
        [end] = [s for s in story.audit_steps if s["kind"] == "audited"]
        assert (story.audit, end["stopped"], end["mentions"]) == ("done", "error", 1)
        assert "not a tool call" in str(end["error"])


# -- killed mid-pass: resumed, nothing twice -----------------------------------------------------

AUDIT_WORKER = textwrap.dedent(
    f"""
    import sys
    sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / "src")!r}]
    from orgbrain import Brain
    from orgbrain.jobs import AuditJobs
    from orgbrain.settings import Settings
    from tests.toy import HashEmbedder

    settings = Settings(chat_url=sys.argv[2], chat_model="auditor-test")
    brain = Brain.open(sys.argv[1], embedder=HashEmbedder(), settings=settings)
    brain.worker(handlers=[AuditJobs()], lease_s=1.0).drain()
    print("done", flush=True)
    """
)


def test_a_worker_killed_mid_pass_leaves_it_to_resume_with_nothing_twice(
    tmp_path: Path, model: tuple[str, type[_Model]]
) -> None:
    url, handler = model
    folder = tmp_path / "brain"
    with _open(folder, chat_url=url, chat_model="auditor-test") as brain:
        plan, intro = _indexed_and_derived(brain)
        note = next(i for i in brain.items(limit=50).items if i.body == ORION)
        handler.script = [
            {"tool": "think", "plan": "mention, link, read, mention"},
            {
                "tool": "observe_mention",
                "item_id": intro.id,
                "type": "project",
                "value": "Kestrel",
                "text": "Kestrel",
            },
            {"tool": "link", "src": intro.id, "dst": note.id, "type": "RELATES_TO"},
            {"tool": "read", "item_id": plan.id},
            {
                "tool": "observe_mention",
                "item_id": intro.id,
                "type": "project",
                "value": "Heron",
                "text": "Heron",
            },
            {"tool": "done"},
        ]
        handler.hang_at = 3  # the read: two steps written and logged, then the kill
        worker = subprocess.Popen(
            [sys.executable, "-c", AUDIT_WORKER, str(folder), url],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert handler.hung.wait(60), worker.communicate(timeout=5)
            worker.kill()
            worker.wait(10)
        finally:
            worker.kill()
        logged = [s for s in _steps(brain, plan.id) if s["kind"] == "audit"]
        assert [s["step"] for s in logged] == ["think", "observe_mention", "link"]
        [job] = brain.jobs(kind="audit").jobs
        assert (job.state, job.attempts) == ("running", 1)

        handler.hang_at = None
        deadline = time.monotonic() + 20
        while brain.job(job.id).state != "done" and time.monotonic() < deadline:
            time.sleep(0.2)  # until the dead worker's lease runs out
            brain.worker(handlers=[AuditJobs()]).drain()
        assert (brain.job(job.id).state, brain.job(job.id).attempts) == ("done", 2)

        story = brain.story(plan.id)
        steps = [s for s in story.audit_steps if s["kind"] == "audit"]
        assert [(s["n"], s["step"]) for s in steps] == [
            (0, "think"),
            (1, "observe_mention"),
            (2, "link"),
            (3, "read"),
            (4, "observe_mention"),
        ]  # the first two replayed, not logged or charged again
        [end] = [s for s in story.audit_steps if s["kind"] == "audited"]
        assert (end["steps"], end["mentions"], end["links"]) == (4, 2, 1)
        names = [entity.label for _, entity in _mentions(brain, intro.id)]
        assert sorted(names) == ["Heron", "Kestrel", "Orion"]  # one edge each
        assert len([e for e in brain.edges(intro.id) if e.type == "RELATES_TO"]) == 1


def test_a_chat_server_down_mid_pass_retries_and_resumes(
    tmp_path: Path, model: tuple[str, type[_Model]]
) -> None:
    url, handler = model
    with _open(tmp_path / "brain", chat_url=url, chat_model="auditor-test") as brain:
        plan, intro = _indexed_and_derived(brain)
        handler.script = [
            {
                "tool": "observe_mention",
                "item_id": intro.id,
                "type": "project",
                "value": "Kestrel",
                "text": "Kestrel",
            },
            {
                "tool": "observe_mention",
                "item_id": intro.id,
                "type": "project",
                "value": "Heron",
                "text": "Heron",
            },
        ]
        handler.fail_at = 1  # the second turn: one step written and logged, then a 503
        worker = brain.worker(handlers=[AuditJobs()], retry=RetryPolicy(0.1, 0.1))
        report = worker.drain()
        assert (report.retried, report.done) == (1, 0)
        [job] = brain.jobs(kind="audit").jobs
        assert "HTTP 503" in (job.last_error or "") and brain.story(plan.id).audit == "queued"
        time.sleep(0.15)
        assert worker.drain().done == 1
        steps = [s for s in _steps(brain, plan.id) if s["kind"] == "audit"]
        assert [(s["n"], s["args"]["value"]) for s in steps] == [(1, "Kestrel"), (2, "Heron")]
        assert sorted(entity.label for _, entity in _mentions(brain, intro.id)) == [
            "Heron",
            "Kestrel",
            "Orion",
        ]


def test_the_audit_exports_are_real() -> None:
    import orgbrain.audit as audit
    from orgbrain.audit import llm, offline, passes, queue, tools

    for module in (audit, llm, offline, passes, queue, tools):
        assert len(set(module.__all__)) == len(module.__all__), module.__name__
        assert all(hasattr(module, name) for name in module.__all__), module.__name__
    assert set(tools.TOOLS) == {"search", "observe_mention", "link", "neighborhood", "read"}
