"""The web UI as a team reads it in its first week, in the real Chromium: hits that name
their place once and read as text, a grid whose times follow its order, a refused upload
that stays on the page, a graph whose nodes and labels do not pile up, and an icon."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from orgbrain.ports import Embedder
from tests.test_server import Served, serve
from tests.test_ui_browser import ALICE, HANDBOOK, signed_in
from tests.ui_harness import launch_chromium


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, embedder: Embedder) -> Iterator[Served]:
    with serve(tmp_path_factory.mktemp("ui-reading") / "brain", embedder=embedder) as s:
        yield s


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with launch_chromium() as b:
        yield b


PAGER = (
    b"# Pager\n\nThe **pager** rotation <img src=x onerror=\"document.title='owned'\"> "
    b"changes *weekly*; see [the runbook](javascript:alert(1)) and `pagerctl`.\n\n"
    b"- Mei Chen holds it first\n"
)


def test_a_hit_names_its_place_once_and_reads_as_text(browser: Any, served: Served) -> None:
    alice = served.brain.for_principal(ALICE)
    alice.add_file(HANDBOOK, name="handbook.md", index=True)
    alice.add_file(PAGER, name="pager.md", index=True)
    page = signed_in(browser, served, served.key())

    page.goto(served.url + "/ui/search?q=Who+owns+the+billing+service%3F")
    first = page.locator("li.hit").first
    assert first.locator("h3").inner_text() == "Billing"
    assert first.locator('[data-role="citation"]').inner_text() == "handbook.md"
    assert first.inner_text().count("Billing") == 2  # its heading and its passage's
    assert "score" not in first.inner_text()
    assert first.locator('[data-role="relevance"]').inner_text().startswith("best match · ")
    assert "several sources" not in page.locator("section.verdict").inner_text()
    # The passage reads as text: the heading bold, no `#`.
    passage = first.locator(".passage-text")
    assert passage.locator("strong.md-h").first.inner_text() == "Billing"
    assert "# " not in passage.inner_text()

    # A top-level heading after the title is not put under it.
    page.goto(served.url + "/ui/search?q=search+service+listings+nightly")
    labels = page.locator("li.hit h3").all_inner_texts()
    assert "Search" in labels and "Billing > Search" not in labels

    # A document's own HTML and links are shown as text, never run or followed.
    page.goto(served.url + "/ui/search?q=pager+rotation+weekly")
    hit = page.locator("li.hit", has_text="pager.md").first
    text = hit.locator(".passage-text")
    assert text.locator("img, a, script").count() == 0
    assert "<img src=x" in text.inner_text() and "the runbook" in text.inner_text()
    assert text.locator("strong:not(.md-h)").inner_text() == "pager"
    assert text.locator("em").inner_text() == "weekly"
    assert text.locator("code").inner_text() == "pagerctl"
    assert "• Mei Chen holds it first" in text.inner_text()
    assert page.title() != "owned"


def test_the_grid_shows_when_each_row_was_added(browser: Any, served: Served) -> None:
    alice = served.brain.for_principal(ALICE)
    alice.add_note("The cafeteria opened on the third floor.")
    alice.add_note("The old cafeteria closed.", occurred_at=datetime(2023, 2, 1, tzinfo=UTC))
    page = signed_in(browser, served, served.key())
    page.goto(served.url + "/ui/items?order=newest")
    added = page.locator('td[data-role="added"]')
    values = [added.nth(i).get_attribute("data-value") or "" for i in range(added.count())]
    assert len(values) >= 2 and values == sorted(values, reverse=True)
    row = page.locator("tr", has_text="The old cafeteria closed.")
    assert row.locator('[data-role="occurred"]').inner_text() == "happened 2023-02-01"
    assert "2023" not in row.locator('td[data-role="added"]').get_attribute("data-value")  # type: ignore[operator]


def test_a_refused_file_stays_on_the_page_after_the_others_upload(
    browser: Any, served: Served
) -> None:
    page = signed_in(browser, served, served.key(perms="read,write"))
    page.get_by_label("index now").uncheck()
    page.get_by_label("Drop files here, or choose:").set_input_files(
        [
            {"name": "fine.md", "mimeType": "text/markdown", "buffer": b"# Fine\n\nAll good.\n"},
            {"name": "bad.md", "mimeType": "text/markdown", "buffer": b"\x00\x01\x02bad"},
        ]
    )
    page.get_by_role("button", name="Upload").click()
    page.get_by_role("link", name="Show them in the grid").wait_for()
    time.sleep(1.5)  # the page used to move on after 0.6 s, taking the reason with it
    assert page.url.endswith("/ui/items")
    refused = page.locator("#uploads li", has_text="bad.md").locator(".error")
    assert "binary" in refused.inner_text()


OVERLAPS_JS = """
() => {
  const cy = window.orgbrainGraph;
  const boxes = cy.nodes().map(n => n.boundingBox({includeLabels: true}));
  let overlaps = 0;
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    if (a.x1 < b.x2 && b.x1 < a.x2 && a.y1 < b.y2 && b.y1 < a.y2) overlaps++;
  }
  return [overlaps, cy.nodes().filter(n => !n.style("label")).length];
}
"""


def test_the_graph_of_a_file_draws_every_node_apart_with_its_label(
    browser: Any, served: Served
) -> None:
    alice = served.brain.for_principal(ALICE)
    file = alice.add_file(HANDBOOK, name="graph.md", index=True, wait="derived")
    page = signed_in(browser, served, served.key())
    page.goto(served.url + f"/ui/graph/{file.id}?hops=2")
    page.locator("#graph[data-ready]").wait_for(state="attached")
    assert int(page.locator("#graph").get_attribute("data-ready") or 0) > 6
    assert page.evaluate(OVERLAPS_JS) == [0, 0]
    assert page.locator("ul.node-list li", has_text="in graph.md").count() >= 3


def test_every_page_has_an_icon(browser: Any, served: Served) -> None:
    page = signed_in(browser, served, served.key())
    icon = page.locator('link[rel="icon"]').get_attribute("href")
    assert icon and page.request.get(served.url + icon).status == 200
    got = page.request.get(served.url + "/favicon.ico")
    assert got.status == 200 and got.headers["content-type"].startswith("image/svg+xml")
