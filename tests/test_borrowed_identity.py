"""Identity no one can borrow, over HTTP on a real loopback server: a source key belongs to
one storage class and one scope, a run id to the one who ran it, and what someone else
holds answers exactly as what nobody holds (status and problem, byte for byte)."""

from __future__ import annotations

import re
from pathlib import Path

import httpx

from orgbrain import Brain, Item
from tests.test_server import assert_problem, serve

_ID = re.compile(r"\b(?:not|prp|job)_[0-9A-Za-z]+|\d{4}-\d\d-\d\dT[0-9:.+Z-]+")


def _entity(b: Brain, scope: str) -> Item:
    src = b.add_note(f"Priya Raman owns billing ({scope}).", scope=scope)
    return b.observe_mention(src.id, "person", "Priya Raman", "Priya Raman").entity


def _masked(r: httpx.Response, *names: str) -> tuple[int, str]:
    """The answer with ids, times and the given names (a key, a run id) blanked."""
    text = r.text
    for name in names:
        text = text.replace(name, "<name>")
    return r.status_code, _ID.sub("<id>", text)


def test_a_note_cannot_borrow_an_entitys_key_and_held_keys_read_as_free(tmp_path: Path) -> None:
    with serve(tmp_path / "brain") as served:
        owner = served.brain.for_workspace("acme")
        org, team = _entity(owner, "org"), _entity(owner, "team:hr")
        note = owner.add_note("HR plan.", scope="team:hr", source_key="doc:hr-plan")
        with served.http(served.key(user="dave")) as dave:
            # issue 12.4: this was 201 with the entity's id, and the entity became a note
            r = dave.post("/v1/notes", json={"body": "x", "source_key": org.source_key})
            assert_problem(r, 400, "invalid_input")
            assert owner.get(org.id).storage_class == "entity"
            assert owner.get(org.id).body == org.body

            free_entity = "entity:person:" + "0" * 24
            for held, free, scope in (
                (team.source_key, free_entity, None),  # refused alike
                (note.source_key, "doc:nobody-has-this", None),  # written alike
                (note.source_key, "doc:nobody-has-this", "team:hr"),  # forbidden alike
            ):
                a = dave.post("/v1/notes", json={"body": "y", "source_key": held, "scope": scope})
                b = dave.post("/v1/notes", json={"body": "y", "source_key": free, "scope": scope})
                assert _masked(a, held) == _masked(b, free), (a.text, b.text)
            assert owner.get(team.id).storage_class == "entity"
            assert owner.get(note.id).body == "HR plan."


PRODUCTS = {"outcome": "succeeded", "summary": "I fixed two flaky tests.", "artefacts": []}


def test_a_run_id_someone_else_used_answers_as_a_free_one(tmp_path: Path) -> None:
    """Issue 12.7c: another user's run id was a 409, a free one a 202."""
    with serve(tmp_path / "brain") as served:
        with (
            served.http(served.key(user="dave")) as dave,
            served.http(served.key(user="erin")) as erin,
        ):
            mine = dave.post("/v1/runs/run-7/writeback?wait=true", json=PRODUCTS)
            assert mine.status_code == 200, mine.text
            held = erin.post("/v1/runs/run-7/writeback?wait=true", json=PRODUCTS)
            free = erin.post("/v1/runs/run-8/writeback?wait=true", json=PRODUCTS)
            assert _masked(held, "run-7") == _masked(free, "run-8")
            assert held.json()["job_id"] != mine.json()["job_id"]
            # and reading it back: erin's own pass, never dave's
            assert erin.get("/v1/runs/run-7/writeback").json()["job_id"] == held.json()["job_id"]
            assert dave.get("/v1/runs/run-7/writeback").json()["job_id"] == mine.json()["job_id"]
            gone = erin.get("/v1/runs/run-9/writeback")
            assert_problem(gone, 404, "not_found")
