"""``Brain.passage``: a cited range in its place, for the UI's search and item pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from orgbrain import Brain, InvalidInput
from orgbrain.views import PassageView
from tests.toy import HashEmbedder

DOC = (
    "# Intro\n\nThis handbook is for everyone at Acme.\n\n"
    "# Billing\n\nThe billing service is owned by Priya Raman. Ünïcödé café ✓.\n\n"
    "# Search\n\nThe search service indexes listings nightly.\n"
).encode()


@pytest.fixture
def brain(tmp_path: Path) -> Brain:
    b = Brain.open(tmp_path / "brain", embedder=HashEmbedder())
    yield b  # type: ignore[misc]
    b.close()


def test_a_section_stands_between_the_text_around_it(brain: Brain) -> None:
    file = brain.add_file(DOC, name="handbook.md", index=True)
    intro, billing, search = brain.sections(file.id)
    p = brain.passage(billing.id)
    assert billing.byte_range is not None
    assert p.text.encode() == DOC[billing.byte_range.start : billing.byte_range.end]
    assert "owned by Priya Raman" in p.text
    assert p.before.endswith("Acme.\n\n") and "# Intro" in p.before and p.at_start
    assert "# Search" in p.after and p.at_end
    assert (p.before + p.text + p.after).encode() == DOC
    assert p.locator.heading_path == ("Billing",)
    assert PassageView.of(p).to_model() == p
    # A narrow window cuts at line breaks (never a split character), and says it cut.
    narrow = brain.passage(billing.id, around=12)
    assert not narrow.at_start and not narrow.at_end
    assert narrow.text == p.text and len(narrow.before.encode()) <= 12
    assert not narrow.before or narrow.before.endswith("\n")
    assert "Priya" not in narrow.after
    assert brain.passage(intro.id, around=0).before == "" and brain.passage(search.id).at_end


def test_a_cut_inside_a_character_drops_the_broken_half(brain: Brain) -> None:
    file = brain.add_file(DOC, name="handbook.md", index=True)
    search = brain.sections(file.id)[2]
    assert search.byte_range is not None
    # The window's start falls inside "✓" (three bytes) or "é": no replacement character.
    for around in range(1, 40):
        p = brain.passage(search.id, around=around)
        assert "\ufffd" not in p.before + p.text + p.after


def test_a_note_a_file_and_bad_input(brain: Brain) -> None:
    note = brain.add_note("Deploys freeze on Fridays.")
    p = brain.passage(note.id)
    assert (p.before, p.text, p.after) == ("", "Deploys freeze on Fridays.", "")
    file = brain.add_file(DOC, name="handbook.md", index=True)
    head = brain.passage(file.id, around=20)
    assert DOC.decode().startswith(head.text) and not head.at_end
    with pytest.raises(InvalidInput):
        brain.passage(note.id, around=-1)
