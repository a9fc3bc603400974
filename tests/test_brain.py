"""The embedded brain end to end, with the real model: add, index, search, cite, read."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from orgbrain import (
    PLANS,
    Brain,
    CorruptFile,
    InvalidInput,
    NoteInput,
    NotFound,
    TooLarge,
    Unsupported,
)
from orgbrain.model import utcnow
from orgbrain.ports import Embedder
from orgbrain.settings import Settings
from tests.filegen import make_docx, make_pdf, make_xlsx

HANDBOOK = b"""---
title: Team Handbook
---
Intro words before any heading.

# Billing

The billing service is owned by Priya Raman. It charges cards through Stripe.

## Refunds

Refunds over 500 EUR need approval from finance.

# Search

The search service indexes listings nightly; Mei Chen owns it.
"""


def read_all(brain: Brain, item_id: str, section: int | None = None) -> bytes:
    return b"".join(brain.read_file(item_id, section=section))


def test_add_is_not_index(brain: Brain) -> None:
    item = brain.add_file(HANDBOOK, name="handbook.md")
    assert not item.indexed and item.storage_class == "file"
    assert [i.id for i in brain.items(name="handbook").items] == [item.id]
    assert [i.id for i in brain.pending()] == [item.id]
    assert brain.search("who owns billing").hits == ()
    report = brain.index(item.id)
    assert report.ok and report.sections == 4
    assert brain.get(item.id).indexed
    assert brain.pending() == []


def test_search_answers_with_a_citation_that_streams_the_exact_bytes(brain: Brain) -> None:
    item = brain.add_file(HANDBOOK, name="handbook.md", index=True)
    result = brain.search("who owns the billing service?")
    assert result.hits and result.verdict in ("single", "many")
    top = result.hits[0]
    assert "Priya" in top.item.body
    cite = top.citation
    assert cite.file_id == item.id and cite.blob_key == item.blob_key
    assert cite.locator.heading_path == ("Billing",)
    assert cite.byte_range is not None
    assert HANDBOOK[cite.byte_range.start : cite.byte_range.end] == top.item.body.encode()
    assert read_all(brain, top.item.id) == top.item.body.encode()
    assert read_all(brain, item.id) == HANDBOOK
    sections = brain.sections(item.id)
    assert [s.locator.breadcrumb for s in sections] == [
        "",
        "Billing",
        "Billing > Refunds",
        "Search",
    ]
    assert read_all(brain, item.id, section=3).startswith(b"## Refunds")


def test_small_talk_gets_silence(brain: Brain) -> None:
    brain.add_file(HANDBOOK, name="handbook.md", index=True)
    brain.add_note("Deploys freeze on Fridays after 15:00.", kind="policy")
    for talk in ("yo", "thanks!", "ok"):
        result = brain.search(talk)
        assert result.hits == () and result.verdict == "none", talk


def test_same_bytes_change_nothing_new_bytes_update_in_place(brain: Brain) -> None:
    first = brain.add_file(HANDBOOK, name="handbook.md", index=True)
    ids = [s.id for s in brain.sections(first.id)]
    again = brain.add_file(HANDBOOK, name="handbook.md", index=True)
    assert again.id == first.id and again.indexed
    assert [s.id for s in brain.sections(first.id)] == ids
    brain.index(first.id)
    assert [s.id for s in brain.sections(first.id)] == ids

    changed = HANDBOOK.replace(b"Mei Chen", b"Ana Ruiz").split(b"# Search")[0]
    updated = brain.add_file(changed, name="handbook.md")
    # It was indexed, so its new bytes are indexed at once: it never stops answering.
    assert updated.id == first.id and updated.indexed
    assert brain.search("billing service owner").hits[0].item.parent_id == first.id
    brain.index(first.id)
    after = brain.sections(first.id)
    assert [s.id for s in after] == ids[:3]
    assert brain.counts()["section"] == 3
    assert read_all(brain, first.id) == changed


def test_different_source_keys_are_different_items(brain: Brain) -> None:
    a = brain.add_file(HANDBOOK, name="handbook.md", source_key="drive:1")
    b = brain.add_file(HANDBOOK, name="handbook.md", source_key="drive:2")
    assert a.id != b.id


def test_notes_are_answerable_at_once_and_idempotent(brain: Brain) -> None:
    n = brain.add_note("The on-call rotation changes every Monday at 09:00 UTC.", kind="gotcha")
    assert n.indexed and n.storage_class == "note" and n.kind == "gotcha"
    assert (
        brain.add_note("The on-call rotation changes every Monday at 09:00 UTC.", kind="gotcha").id
        == n.id
    )
    hits = brain.search("when does the on-call rotation change?").hits
    assert hits and hits[0].item.id == n.id and hits[0].citation.blob_key is None
    with pytest.raises(InvalidInput):
        brain.add_note("   ")
    with pytest.raises(InvalidInput):
        brain.add_note("x", kind="file")


def test_fresh_facts_rank_above_old_ones(brain: Brain) -> None:
    old = brain.add_note(
        "The VPN endpoint is vpn.example.com",
        label="VPN",
        occurred_at=utcnow() - timedelta(days=400),
    )
    new = brain.add_note(
        "The VPN endpoint is vpn2.example.com",
        label="VPN",
        occurred_at=utcnow() - timedelta(days=1),
    )
    assert brain.search("what is the VPN endpoint").hits[0].item.id == new.id
    unfloored = PLANS["hybrid"].with_limits(k_max=8, floors=False)
    hits = brain.search("what is the VPN endpoint", plan=unfloored).hits
    assert [h.item.id for h in hits[:2]] == [new.id, old.id]  # sinks, never disappears
    assert hits[0].score > hits[1].score


def test_pdf_pages_docx_headings_xlsx_sheets(brain: Brain) -> None:
    filler = " ".join(["Background filler sentence about nothing in particular."] * 14)
    pages = [
        f"Alpha page talks about onboarding laptops. {filler}",
        f"Beta page explains the expense policy for travel. {filler}",
    ]
    pdf = brain.add_file(make_pdf(pages), name="guide.pdf", index=True)
    hit = brain.search("expense policy for travel").hits[0]
    assert hit.citation.file_id == pdf.id
    loc = hit.citation.locator
    assert loc.page_start is not None and loc.page_end == 2
    assert hit.citation.text_key != pdf.blob_key  # extracted text is stored beside the raw file
    assert read_all(brain, hit.item.id).decode() == hit.item.body

    docx = brain.add_file(
        make_docx(
            [
                (1, "Security"),
                (0, "Rotate API keys every 90 days."),
                (2, "Laptops"),
                (0, "Disks are encrypted with FileVault."),
            ]
        ),
        name="policy.docx",
        index=True,
    )
    crumbs = [s.locator.breadcrumb for s in brain.sections(docx.id)]
    assert "Security > Laptops" in crumbs

    xlsx = brain.add_file(
        make_xlsx(
            {"Owners": [["service", "owner"], ["billing", "Priya"]], "Secret": [["salary", "100"]]},
            hidden={"Secret"},
        ),
        name="owners.xlsx",
        index=True,
    )
    sheets = [s.locator.sheet for s in brain.sections(xlsx.id)]
    assert sheets == ["Owners"]


@pytest.mark.parametrize(
    ("data", "name", "error"),
    [
        (b"\x89PNG\r\n\x1a\nxxxx", "image.png", Unsupported),
        (b"%PDF-1.4 not really", "notes.txt", Unsupported),
        (b"", "empty.md", CorruptFile),
        (b"ok \xff\xfe bad", "bad.md", Unsupported),
    ],
)
def test_rejected_adds_store_nothing(
    brain: Brain, tmp_path: Path, data: bytes, name: str, error: type[Exception]
) -> None:
    with pytest.raises(error):
        brain.add_file(data, name=name)
    assert brain.items().items == ()
    blobs = tmp_path / "brain" / "blobs"
    # blobs/.writers holds the live writers' lock files (the sweep's evidence), not data
    stored = [p for p in blobs.rglob("*") if p.is_file() and ".writers" not in p.parts]
    assert not blobs.exists() or not stored


def test_size_cap(tmp_path: Path, embedder: Embedder) -> None:
    with Brain.open(tmp_path / "b", embedder=embedder, settings=Settings(max_file_bytes=100)) as b:
        with pytest.raises(TooLarge):
            b.add_file(b"x" * 101, name="big.txt")
        big = tmp_path / "big.txt"
        big.write_bytes(b"y" * 500)
        with pytest.raises(TooLarge):
            b.add_file(big)
        assert b.items().items == ()


def test_corrupt_file_records_error_and_stays_unindexed(brain: Brain) -> None:
    from tests.filegen import truncated_pdf, zip_bomb_docx

    good = brain.add_file(b"A fine text file about lunch.", name="fine.txt")
    bad_items = []
    for data, name in ((truncated_pdf(), "broken.pdf"), (zip_bomb_docx(), "bomb.docx")):
        try:
            bad_items.append(brain.add_file(data, name=name))
        except CorruptFile:
            continue  # refusing at add time is just as good
    reports = brain.index_pending()
    by_id = {r.item_id: r for r in reports}
    assert by_id[good.id].ok
    for item in bad_items:
        assert not by_id[item.id].ok and by_id[item.id].error
        stored = brain.get(item.id)
        assert not stored.indexed and stored.index_error
        assert brain.sections(item.id) == []
    assert brain.index_pending() == []  # failed files are not retried forever


def test_unknown_ids_and_bad_reads(brain: Brain) -> None:
    with pytest.raises(NotFound):
        brain.get("fil_nope")
    n = brain.add_note("A note has no file.")
    with pytest.raises(InvalidInput):
        brain.read_file(n.id)
    f = brain.add_file(HANDBOOK, name="h.md", index=True)
    with pytest.raises(NotFound):
        brain.read_file(f.id, section=99)
    with pytest.raises(InvalidInput):
        brain.search("   ")


def test_a_question_about_the_wrong_person_gets_silence(brain: Brain) -> None:
    said = [
        (
            "Melanie",
            "I ran a charity race for mental health last Saturday. It made me "
            "realize that self-care is really important.",
        ),
        ("Caroline", "That charity race sounds great, Mel! You must be so proud of yourself."),
        ("Caroline", "Thanks, Mel! What did the race teach you about self-care?"),
        ("Caroline", "I went to an LGBTQ support group yesterday and it was powerful."),
    ]
    # A conversation's turns (kind "turn"): the gate reads them as speech.
    notes = [
        NoteInput(
            f"{who}: {text}", kind="turn", label=f"{who} (8 May 2023)", source_key=f"turn:{n}"
        )
        for n, (who, text) in enumerate(said)
    ]
    melanie = brain.add_notes(notes)[0]
    right = brain.search("What did Melanie realize after her charity race?")
    assert right.hits and right.hits[0].item.id == melanie.id
    # Caroline only answers Melanie and asks about it: nothing says what *she* realised.
    # The strict gate stays silent; the default's calibrated gate (false silence under 5%
    # on every dev set) trades this kind of silence away (docs/journal.md, issue 17).
    wrong = brain.search("What did Caroline realize after her charity race?", plan="tuned-z-strict")
    assert wrong.hits == () and wrong.verdict == "none"
    assert "gate" in wrong.reason or "relevance floor" in wrong.reason


def test_a_file_of_more_than_a_thousand_sections_lists_and_reads_them_all(tmp_path: Path) -> None:
    """Brain.sections once read one page of 1,000 and stopped: section 1,553 of a long file
    was 'not found' and `show` listed a thousand."""
    from tests.toy import HashEmbedder

    paragraphs = [f"Paragraph {n} says {n} things about topic {n}." for n in range(1, 2001)]
    text = ("\n\n".join(p + " " + "filler " * 150 for p in paragraphs)).encode()
    with Brain.open(tmp_path / "b", embedder=HashEmbedder()) as brain:
        item = brain.add_file(text, name="long.txt", index=True)
        sections = brain.sections(item.id)
        assert len(sections) > 1000
        assert [s.ordinal for s in sections] == sorted(s.ordinal or 0 for s in sections)
        last = len(sections)
        assert b"".join(brain.read_file(item.id, section=last)) == b"".join(
            brain.read_file(sections[-1].id)
        )


def test_k_is_honoured_up_to_the_documented_maximum(brain: Brain) -> None:
    """``k`` above the tool default gets what it asks (the plan used to cap it at 8
    silently); above ``K_MAX`` it is capped and the reason says so."""
    from orgbrain.retrieve import K_MAX

    notes = [
        NoteInput(body=f"Deploy checklist step {n}: the deploy runbook says step {n} comes next.")
        for n in range(1, 13)
    ]
    brain.add_notes(notes)
    flat = PLANS["hybrid"].with_limits(k_max=K_MAX, floors=False)
    assert len(brain.search("deploy checklist runbook step", k=12, plan=flat).hits) == 12
    assert len(brain.search("deploy checklist runbook step", k=10, plan=flat).hits) == 10
    assert "capped" not in brain.search("deploy checklist runbook step", k=10).reason
    capped = brain.search("deploy checklist runbook step", k=K_MAX + 1, plan=flat)
    assert len(capped.hits) == 12
    assert f"k {K_MAX + 1} capped at {K_MAX}" in capped.reason
