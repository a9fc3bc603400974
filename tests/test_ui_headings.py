"""A section's heading reads as text in the UI: its label keeps the document's inline
Markdown (systemd's "Special `systemd` UID ranges"), which the page shows as code."""

from __future__ import annotations

import re
from pathlib import Path

from orgbrain import Principal
from orgbrain.ports import Embedder
from tests.test_server import serve
from tests.ui_harness import ui_client

UIDS = (
    b"# UIDs on systemd Systems\n\n## Special `systemd` UID ranges\n\n"
    b"systemd reserves 60001 to 60513 for homed.\n"
)


def test_a_heading_s_code_shows_as_code_not_backticks(tmp_path: Path, embedder: Embedder) -> None:
    with serve(tmp_path / "brain", embedder=embedder) as served:
        alice = served.brain.for_principal(Principal("acme", "alice"))
        written = alice.add_file(UIDS, name="uids.md", index=True)
        c = ui_client(served.url, served.key())
        page = c.get("/ui/search", params={"q": "Which UIDs does systemd reserve for homed?"})
        assert page.status_code == 200, page.text
        headings = re.findall(r"<h3>(.*?)</h3>", page.text, re.DOTALL)
        heading = next(h for h in headings if "UID ranges" in h)
        assert "<code>systemd</code> UID ranges" in heading
        assert "`" not in heading
        section = next(s for s in alice.sections(written.id) if "Special" in s.label)
        assert "<code>systemd</code>" in c.get(f"/ui/items/{section.id}").text.split("</h1>")[0]
