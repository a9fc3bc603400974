"""The web UI in a real headless Chromium (Debian's, driven by Playwright): a newcomer signs
in, drops files and watches them index, searches, opens a citation, reads an entity's
dossier and the graph, approves a proposal; another user's pages never show a private
item; the pages work on a phone-sized screen and with no network. Screenshots of each
page are taken on the way (docs/ui.md shows them)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from orgbrain import Brain, Principal
from orgbrain.ports import Embedder
from tests.filegen import truncated_pdf
from tests.test_server import Served, serve
from tests.ui_harness import launch_chromium, screenshot, unlabelled_controls

HANDBOOK = b"""# Billing

The billing service is owned by Priya Raman. It charges cards through Stripe.

## Refunds

Refunds over 500 EUR need approval from finance.

# Search

The search service indexes listings nightly; Mei Chen owns it.
"""
GLOSSARY = b"""# Glossary

## The migration

"The migration" means moving billing from Postgres to CockroachDB, cut over on 14 June.
"""
PRIVATE = "Alice's performance review with Mei is on Friday the 13th."
PERSONAL = "Alice prefers async standups."
ALICE = Principal("acme", "alice")
VIEWPORT = {"width": 1280, "height": 900}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Iterator[Served]:
    with serve(tmp_path_factory.mktemp("ui") / "brain", embedder=embedder) as s:
        yield s


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launch_chromium() as b:
        yield b


@pytest.fixture
def shots(tmp_path: Path) -> Any:
    return lambda page, name: screenshot(page, name, tmp_path)


def signed_in(browser: Any, served: Served, token: str, **context: Any) -> Any:
    """A fresh browser context, signed in through the form (keyboard only)."""
    ctx = browser.new_context(**context)
    page = ctx.new_page()
    page.goto(served.url + "/ui/items")
    assert "/ui/login" in page.url
    page.get_by_label("API key").fill(token)
    page.keyboard.press("Enter")
    page.wait_for_url("**/ui/items")
    return page


def wait_for(check: Any, timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got or time.monotonic() > deadline:
            return got
        time.sleep(0.1)


DROP_JS = """
([name, text]) => {
  const dt = new DataTransfer();
  dt.items.add(new File([text], name, {type: "text/markdown"}));
  const zone = document.getElementById("dropzone");
  const how = {dataTransfer: dt, bubbles: true, cancelable: true};
  zone.dispatchEvent(new DragEvent("dragover", how));
  zone.dispatchEvent(new DragEvent("drop", how));
}
"""


def test_a_newcomer_signs_in_uploads_indexes_searches_and_opens_a_citation(
    browser: Any, served: Served, shots: Any
) -> None:
    token = served.key(perms="read,write,review")
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    page.goto(served.url + "/")
    page.wait_for_url("**/ui/login?next=*")
    assert unlabelled_controls(page) == []
    page.get_by_label("API key").fill(token)
    shots(page, "signin")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/ui/search")

    # Drop a file (index now unticked: it stays added), and choose two more with the picker.
    page.goto(served.url + "/ui/items")
    page.get_by_label("index now").uncheck()
    page.evaluate(DROP_JS, ["handbook.md", HANDBOOK.decode()])
    page.get_by_text("added as fil_").wait_for()
    assert page.locator("#uploads progress").first.evaluate("p => p.value") == 100
    page.wait_for_url("**/ui/items?order=newest")
    row = page.locator("tr", has_text="handbook.md")
    assert row.locator('[data-role="state"]').inner_text() == "added"
    assert "not answerable yet" in row.inner_text()
    page.get_by_label("index now").uncheck()
    page.get_by_label("Drop files here, or choose:").set_input_files(
        [
            {"name": "glossary.md", "mimeType": "text/markdown", "buffer": GLOSSARY},
            {"name": "broken.pdf", "mimeType": "application/pdf", "buffer": truncated_pdf()},
        ]
    )
    page.get_by_role("button", name="Upload").click()
    page.get_by_text("added as", exact=False).nth(1).wait_for()
    page.wait_for_url("**/ui/items?order=newest")
    assert unlabelled_controls(page) == []

    # Index all pending, and watch the grid follow the jobs until each settles.
    page.get_by_role("button", name="Index all pending (3)").click()
    page.wait_for_url("**/ui/items")
    page.locator('#live[data-live="1"]').wait_for(state="attached")
    page.wait_for_function(
        "() => document.querySelectorAll('tr[data-state=queued], tr[data-state=indexing]')"
        ".length === 0 && document.querySelectorAll('tr[data-state]').length === 3",
        timeout=90_000,
    )
    # Once every row settled, the page reloads itself: the actions follow the new states.
    page.wait_for_function("() => !document.querySelector('#live[data-live]')")
    assert page.locator("tr[data-state=indexed]").count() == 2
    failed = page.locator("tr", has_text="broken.pdf")
    assert failed.locator('[data-role="state"]').inner_text() == "failed"
    assert "corrupt_file" in failed.locator('[data-role="error"]').inner_text()
    assert failed.get_by_role("button", name="retry").is_visible()
    shots(page, "items")

    # Search: the verdict, the hit's citation and its passage in place.
    page.goto(served.url + "/ui/search")
    page.get_by_label("Ask the brain").fill("Who owns the billing service?")
    page.keyboard.press("Enter")
    page.wait_for_url("**/ui/search?q=*")
    verdict = page.locator("section.verdict")
    assert verdict.get_attribute("data-verdict") in ("single", "many")
    first = page.locator("li.hit").first
    cited = first.locator('mark[data-role="cited"]')
    assert "Priya Raman" in cited.inner_text()
    assert "handbook.md" in first.locator('[data-role="citation"]').inner_text()
    assert first.locator("h3").inner_text() == "Billing"  # named once, not thrice
    raw = first.locator('[data-role="raw"]').get_attribute("href")
    shots(page, "search")
    got = page.request.get(served.url + str(raw))
    assert got.status == 200 and got.body() == HANDBOOK

    # Open the citation: the section's page, the cited bytes highlighted in the file.
    first.locator('[data-role="citation"]').click()
    page.wait_for_url("**/ui/items/sec_*#cited")
    mark = page.locator('mark[data-role="cited"]')
    assert "owned by Priya Raman" in mark.inner_text() and mark.is_visible()
    assert "Refunds" in page.locator(".passage-text .context").last.inner_text()
    assert page.get_by_role("heading", name="Write story").is_visible()
    shots(page, "item-section")

    # Small talk: the brain says it has nothing to say, and why.
    page.goto(served.url + "/ui/search")
    page.get_by_label("Ask the brain").fill("yo")
    page.keyboard.press("Enter")
    page.wait_for_url("**/ui/search?q=yo*")
    assert page.locator("section.verdict").get_attribute("data-verdict") == "none"
    assert page.get_by_text("The brain has nothing to say.").is_visible()
    assert page.locator(".why").inner_text().startswith("Why:")
    shots(page, "search-nothing")

    # The file's page: fields, sections, story, history.
    page.goto(served.url + "/ui/items?order=oldest")
    page.get_by_role("link", name="handbook.md").click()
    page.wait_for_url("**/ui/items/fil_*")
    assert page.locator("ol.sections li").count() == 3
    assert page.get_by_text("version 1 (current)").is_visible()
    shots(page, "item-file")


def test_an_entity_dossier_and_the_graph_around_it(
    browser: Any, served: Served, shots: Any
) -> None:
    alice = served.brain.for_principal(ALICE)
    alice.add_note(
        "The billing service owner is Sam Lee.",
        occurred_at=datetime(2023, 2, 1, tzinfo=UTC),
        wait="derived",
    )
    file = alice.add_file(HANDBOOK, name="owners.md", index=True, wait="derived")
    alice.add_note("The billing service is owned by Dana Whitfield now.", wait="derived")
    [priya] = wait_for(lambda: alice.entity_ids("Priya Raman"))
    page = signed_in(browser, served, served.key())
    page.goto(served.url + f"/ui/entities/{priya}")
    assert page.get_by_role("heading", name="Priya Raman").is_visible()
    assert page.locator("ul.mention-passages mark").first.inner_text() == "Priya Raman"
    billing = wait_for(lambda: alice.entity_ids("billing service"))
    page.goto(served.url + f"/ui/entities/{billing[0]}")
    now = page.locator("section", has=page.get_by_role("heading", name="What the brain holds now"))
    assert "Priya Raman" in now.inner_text() and "Sam Lee" not in now.inner_text()
    past = page.locator("section", has=page.get_by_role("heading", name="Superseded and ended"))
    assert "Sam Lee" in past.inner_text() and "2023-02-01" in past.inner_text()
    conflicts = page.locator("section", has=page.get_by_role("heading", name="Conflicts"))
    assert "Dana Whitfield" in conflicts.inner_text()
    owners = page.locator("section", has=page.get_by_role("heading", name="Owners and contacts"))
    assert "Priya Raman" in owners.inner_text()
    shots(page, "entity")
    assert unlabelled_controls(page) == []

    page.goto(served.url + f"/ui/graph/{file.id}?hops=2")
    page.locator("#graph[data-ready]").wait_for(state="attached")
    drawn = int(page.locator("#graph").get_attribute("data-ready") or 0)
    assert drawn == page.locator("ul.node-list li").count() and drawn > 3
    page.evaluate("() => window.orgbrainGraph.nodes()[1].emit('tap')")
    assert page.locator("#graph-info h2").inner_text()
    assert page.locator("#graph-info a", has_text="Open").get_attribute("href")
    shots(page, "graph")


def test_a_reviewer_approves_an_edited_proposal_and_rejects_another(
    browser: Any, served: Served, shots: Any
) -> None:
    alice = served.brain.for_principal(ALICE)
    for run, text in (("run-a", PERSONAL), ("run-b", "Alice prefers tea over coffee.")):
        ack = alice.write_back(
            {"run_id": run, "outcome": "succeeded", "summary": text, "user_id": "alice"},
            wait=True,
        )
        assert [p.state for p in ack.proposals] == ["pending"]
    page = signed_in(browser, served, served.key(perms="read,write,review"))
    page.goto(served.url + "/ui/inbox")
    cards = page.locator("li.proposal")
    assert cards.count() == 2
    first = cards.filter(has_text=PERSONAL)
    assert "a personal fact" in first.locator(".why").inner_text()
    assert "Evidence" in first.inner_text()
    shots(page, "inbox")
    assert unlabelled_controls(page) == []
    first.get_by_label("Text to remember").fill("Alice prefers async standups on Mondays.")
    first.get_by_role("button", name="Approve").click()
    page.wait_for_url("**/ui/inbox?done=approved*")
    assert page.locator("li.proposal").count() == 1
    decided = page.locator("section", has=page.get_by_role("heading", name="Recently decided"))
    assert "approved" in decided.inner_text()
    [approved] = alice.proposals(state="approved")
    note_id = approved.item_id
    assert note_id and alice.get(note_id).body == "Alice prefers async standups on Mondays."
    other = page.locator("li.proposal")
    other.get_by_role("button", name="Reject").click()  # no reason: the browser asks for one
    assert page.url.endswith("/ui/inbox?done=approved+" + page.url.rsplit("+", 1)[1])
    other.get_by_label("Reason to reject").fill("not something the org needs to know")
    other.get_by_role("button", name="Reject").click()
    page.wait_for_url("**/ui/inbox?done=rejected*")
    assert page.get_by_text("Nothing waits for you.").is_visible()


def test_the_health_page_plots_the_loop(browser: Any, served: Served, shots: Any) -> None:
    alice = served.brain.for_principal(ALICE)
    alice.write_back(
        {
            "run_id": "run-h",
            "outcome": "succeeded",
            "summary": "Alice prefers morning meetings.",
            "user_id": "alice",
        },
        wait=True,
    )
    page = signed_in(
        browser, served, served.key(user="root", perms="read,admin"), viewport=VIEWPORT
    )
    page.get_by_role("link", name="Health").click()
    page.wait_for_url("**/ui/health")
    assert page.get_by_role("heading", name="Health of the loop").is_visible()
    assert "the whole workspace acme" in page.locator("[data-lens]").inner_text()
    for name in (
        "Searches that spoke or stayed silent, per surface",
        "Proposals by outcome",
        "Pending proposals by how long they have waited",
        "How long each recent job took, from asked for to done",
    ):
        plot = page.get_by_role("img", name=name)
        assert plot.is_visible(), name
        assert plot.bounding_box()["height"] > 20, name
    assert int(page.locator('[data-stat="searches"]').inner_text()) >= 1
    assert int(page.locator('[data-stat="inbox_pending"]').inner_text()) >= 1
    index = page.locator('tr[data-kind="index"]')
    assert int(index.locator('[data-stat="done"]').inner_text()) >= 2  # the handbook, glossary
    assert int(index.locator('[data-stat="failed"]').inner_text()) >= 1  # the broken PDF
    assert page.locator("#plot-lag circle").count() >= 2
    assert unlabelled_controls(page) == []
    shots(page, "health")
    page.get_by_label("Window").select_option("all")
    page.get_by_role("button", name="Show").click()
    page.wait_for_url("**/ui/health?since=all")
    assert "since" not in page.locator("[data-lens]").inner_text()


def test_another_users_pages_never_show_a_private_item(browser: Any, served: Served) -> None:
    alice = served.brain.for_principal(ALICE)
    secret = alice.add_note(PRIVATE, scope="user:alice", label="Alice's review")
    file = alice.add_file(
        b"# Private plan\n\nAlice plans to move to the Lisbon office in May.\n",
        name="alice-plan.md",
        scope="user:alice",
        index=True,
    )
    bob = signed_in(browser, served, served.key(user="bob"))
    shown: list[tuple[str, str]] = []
    for path in (
        "/ui/items",
        "/ui/items?class=note",
        "/ui/items?class=file&order=oldest",
        "/ui/search?q=Alice+performance+review+Friday",
        "/ui/search?q=Lisbon+office",
        "/ui/entities",
        "/ui/inbox",
        f"/ui/items/{secret.id}",
        f"/ui/items/{file.id}",
        f"/ui/graph/{file.id}",
    ):
        bob.goto(served.url + path)
        shown.append((path, bob.content()))
    for path, html in shown:
        # A 404 names the id that was asked for, as for an id that never existed.
        asked = html.replace(f"no item {secret.id}", "").replace(f"no item {file.id}", "")
        for leak in (secret.id, file.id, "13th", "Lisbon office in May", "alice-plan.md"):
            assert leak not in asked.replace("Lisbon+office", ""), (path, leak)
    assert all("404: not found" in html for _, html in shown[-3:])
    # and alice sees hers
    mine = signed_in(browser, served, served.key(user="alice"))
    mine.goto(served.url + f"/ui/items/{secret.id}")
    assert PRIVATE in mine.content()


def test_pages_work_on_a_narrow_screen_without_any_network(
    browser: Any, served: Served, shots: Any
) -> None:
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    outside: list[str] = []

    def only_here(route: Any) -> None:
        if route.request.url.startswith(served.url):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    ctx.route("**/*", only_here)
    page = ctx.new_page()
    page.goto(served.url + "/ui/login")
    page.get_by_label("API key").fill(served.key())
    page.keyboard.press("Enter")
    page.wait_for_url("**/ui/search")
    item = served.brain.for_principal(ALICE).add_note("The on-call rotation changes on Mondays.")
    for path in (
        "/ui/search?q=when+does+the+on-call+rotation+change",
        "/ui/items",
        f"/ui/items/{item.id}",
        f"/ui/graph/{item.id}",
        "/ui/entities",
        "/ui/inbox",
        "/ui/health",
    ):
        page.goto(served.url + path)
        page.wait_for_load_state("networkidle")
        wide = page.evaluate("() => document.documentElement.scrollWidth")
        assert wide <= 390 + 1, (path, wide)
        assert unlabelled_controls(page) == [], path
    page.goto(served.url + "/ui/search?q=when+does+the+on-call+rotation+change")
    shots(page, "search-narrow")
    assert outside == []
    # Keyboard: the first Tab lands on the skip link, which moves focus to the content.
    page.goto(served.url + "/ui/items")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.className") == "skip"
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.id") == "main"


def test_the_pages_work_without_javascript(browser: Any, served: Served) -> None:
    ctx = browser.new_context(java_script_enabled=False)
    page = ctx.new_page()
    page.goto(served.url + "/ui/login")
    page.get_by_label("API key").fill(served.key(user="carol", perms="read,write"))
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/ui/search")
    page.goto(served.url + "/ui/items")
    page.get_by_label("Drop files here, or choose:").set_input_files(
        {"name": "carol.md", "mimeType": "text/markdown", "buffer": b"# Carol\n\nCarol pays.\n"}
    )
    page.get_by_role("button", name="Upload").click()
    page.wait_for_url("**/ui/items?done=added*")
    assert page.locator("tr", has_text="carol.md").count() == 1
    page.get_by_role("button", name="Sign out").click()
    page.wait_for_url("**/ui/login")
    page.goto(served.url + "/ui/items")
    assert "/ui/login" in page.url


def test_a_brain_opened_later_sees_what_the_pages_wrote(served: Served) -> None:
    # What the pages did went through the facade into the brain's own file.
    brain = Brain.open(served.folder)
    try:
        names = {i.name for i in brain.for_workspace("acme").items(storage_class="file").items}
        assert {"handbook.md", "glossary.md", "broken.pdf"} <= names
    finally:
        brain.close()
