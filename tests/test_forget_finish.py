"""Forgotten means gone, whatever stops a forget partway (issue 12): a process killed
between the tombstone and the purge leaves work that forgetting the item again, or the
sweep, finishes; a derivation that read the item before it was forgotten writes nothing
after; and a forgotten entity takes the statements about it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import asdict, replace
from pathlib import Path

import pytest

from orgbrain import Brain, NotFound
from orgbrain.derive import derive_key
from orgbrain.jobs.derive import DeriveJobs
from orgbrain.jobs.worker import Worker
from orgbrain.ports import Vector
from orgbrain.scopes import Visibility
from tests.backends import Backend
from tests.test_forget_copies import OTHER, SECRET, entities, files_holding
from tests.toy import HashEmbedder

ROOT = Path(__file__).resolve().parents[1]
EVERYTHING = Visibility.everything()

# Opens the brain, makes the store step ``crash_at`` end the process on the spot (no
# cleanup, no commit: what a kill or a power cut does there), and forgets or erases.
KILLED = """
import json, os, sys
from pathlib import Path
from tests.backends import Backend
from tests.toy import HashEmbedder
backend, folder, verb, item_id, crash_at = sys.argv[1:]
brain = Backend(**json.loads(backend)).open(Path(folder), embedder=HashEmbedder())
setattr(brain._ctx.store, crash_at, lambda *a, **k: os._exit(9))
getattr(brain, verb)(item_id, reason="personal data")
"""


@pytest.fixture
def brain(backend: Backend, tmp_path: Path) -> Iterator[Brain]:
    b = backend.open(tmp_path / "b", embedder=HashEmbedder())
    yield b
    b.close()


def left_of(brain: Brain, item_ids: Sequence[str]) -> list[str]:
    """What the store still holds that derivation copied from ``item_ids``: statements
    with their evidence, and edges, forgotten items' included."""
    store, ws = brain._ctx.store, brain.workspace
    said = [s.id for i in item_ids for s in store.statements(ws, EVERYTHING, item_id=i, live=False)]
    edges = [e.id for i in item_ids for e in store.edges_of(ws, i, EVERYTHING, types=["MENTIONS"])]
    return said + edges


@pytest.mark.parametrize(
    ("verb", "crash_at", "recovery"),
    [
        ("erase", "purge_derived", "again"),
        ("erase", "erase_versions", "sweep"),
        ("forget", "purge_derived", "sweep"),
    ],
)
def test_a_forget_killed_partway_is_finished_by_forgetting_again_or_the_sweep(
    backend: Backend, tmp_path: Path, verb: str, crash_at: str, recovery: str
) -> None:
    folder = tmp_path / "b"
    with backend.open(folder, embedder=HashEmbedder()) as brain:
        brain.add_note(OTHER, wait="derived")
        doc = b"# Payroll\n\nXavier Erasmoqq owns the Quagga payroll service.\n"
        file = brain.add_file(doc, name="payroll.md", index=True, wait="derived")
        ids = [file.id, *(s.id for s in brain.sections(file.id))]
        assert "Xavier Erasmoqq" in entities(brain) and left_of(brain, ids)

    killed = subprocess.run(
        [sys.executable, "-c", KILLED, json.dumps(asdict(backend)), str(folder), verb, file.id,
         crash_at],
        cwd=ROOT, env={**os.environ, **backend.env(), "PYTHONPATH": f"{ROOT / 'src'}:{ROOT}"},
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert killed.returncode == 9, killed.stderr

    with backend.open(folder, embedder=HashEmbedder()) as brain:
        # Hidden at once, but its copies are still there: the kill came first.
        assert brain.items(storage_class="file").items == ()
        assert "Xavier Erasmoqq" in entities(brain) and left_of(brain, ids)
        if recovery == "again":
            done = getattr(brain, verb)(file.id, reason="finish it")
            assert done.items == len(ids)
        else:
            assert brain.sweep().forgets_finished == 1
            assert brain.sweep().forgets_finished == 0  # its forget event says it is done
        assert "Xavier Erasmoqq" not in entities(brain)
        assert "Quagga payroll service" in entities(brain)  # the other note names it
        assert left_of(brain, ids) == []
        (logged,) = brain.events("forget")
        assert logged["item_id"] == file.id and logged["erased"] == (verb == "erase")
        if verb == "erase":
            assert not [k for k in backend.blob_keys(folder) if file.id in k]
            if not backend.on_postgres:
                assert files_holding(folder, b"Erasmoqq") == []


class ForgetsMidway(HashEmbedder):
    """An embedder that forgets ``item_id`` when asked for the vector of a new entity
    named "Xavier": as a person does while a derivation job that has read the item (and
    checked it is there) is about to write what it found."""

    def __init__(self, brain: Brain, item_id: str, *, erase: bool) -> None:
        super().__init__()
        self.brain, self.item_id, self.erase = brain, item_id, erase

    def embed(self, texts: Sequence[str]) -> Vector:
        if any("Xavier" in t for t in texts):
            forget = self.brain.erase if self.erase else self.brain.forget
            forget(self.item_id, reason="personal data")
        return super().embed(texts)


@pytest.mark.parametrize("erase", [False, True], ids=["forget", "erase"])
def test_a_derivation_under_way_writes_nothing_for_an_item_forgotten_meanwhile(
    brain: Brain, backend: Backend, tmp_path: Path, erase: bool
) -> None:
    brain.add_note(OTHER, wait="derived")
    secret = brain.add_note(SECRET)  # its derivation job is queued
    midway = ForgetsMidway(brain, secret.id, erase=erase)
    ctx = replace(brain._ctx, principal=None, embedder=midway)
    worker = Worker(ctx, [DeriveJobs()], name="test-worker")

    assert worker.drain().claimed == 1

    assert left_of(brain, [secret.id]) == []
    assert "Xavier Erasmoqq" not in entities(brain)  # made for its mention, then dropped
    assert "Quagga payroll service" in entities(brain)
    kept = brain.statements(about="Quagga payroll service", current=None)
    assert kept and all("Erasmoqq" not in s.text for s in kept)
    assert ctx.jobs is not None
    (job,) = ctx.jobs.find(brain.workspace, [derive_key(secret)]).values()
    assert job.state == "done" and job.last_error is None  # nothing left to retry
    if erase and not backend.on_postgres:
        assert files_holding(tmp_path / "b", b"Erasmoqq") == []


def test_a_queued_derivation_of_a_forgotten_item_does_nothing(brain: Brain) -> None:
    secret = brain.add_note(SECRET)  # its derivation job is queued
    brain.erase(secret.id, reason="personal data")
    brain.run_jobs()
    assert left_of(brain, [secret.id]) == []
    assert "Xavier Erasmoqq" not in entities(brain)
    jobs = brain._ctx.jobs
    assert jobs is not None
    (job,) = jobs.find(brain.workspace, [derive_key(secret)]).values()
    assert job.state == "done" and job.last_error is None  # nothing to do, not a failure


def test_erasing_an_entity_takes_its_name_and_the_statements_about_it(brain: Brain) -> None:
    other = brain.add_note(OTHER, wait="derived")
    secret = brain.add_note(SECRET, wait="derived")
    (xavier,) = brain.entity_ids("Xavier Erasmoqq")
    assert brain.statements(about="Xavier Erasmoqq")

    brain.erase(xavier, reason="personal data")

    assert "Xavier Erasmoqq" not in entities(brain)
    store, ws = brain._ctx.store, brain.workspace
    assert store.statements(ws, EVERYTHING, subject_ids=[xavier], live=False) == []
    assert store.statements(ws, EVERYTHING, object_ids=[xavier], live=False) == []
    assert all("Erasmoqq" not in s.text for s in store.statements(ws, EVERYTHING, live=False))
    # The notes that name him are other items: they stay, and so do their other statements.
    assert {brain.get(other.id).body, brain.get(secret.id).body} == {OTHER, SECRET}
    assert [s.item_id for s in brain.statements(about="Quagga payroll service")] == [other.id]


def test_a_forgotten_item_can_still_be_erased(brain: Brain) -> None:
    secret = brain.add_note(SECRET, wait="derived")
    brain.forget(secret.id, reason="not ours to keep")
    done = brain.erase(secret.id, reason="personal data after all")
    assert done.erased
    row = brain._ctx.store.get_item(brain.workspace, secret.id, EVERYTHING)
    assert row is not None and row.label == "(erased)" and "Erasmoqq" not in row.body
    with pytest.raises(NotFound):  # erased once is erased
        brain.erase(secret.id, reason="again")
