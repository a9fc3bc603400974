"""A team's first week on real documents: ~15 reference documents from /usr/share/doc
(dpkg specs, systemd, git, util-linux, base-passwd, pip) plus an owners note, through the
CLI into a fresh brain with the real model and the default extractor. Reference docs are
full of "Label: value" lines and clause openers; neither is a conflict or an entity."""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from orgbrain.cli import cli
from orgbrain.extraction.names import FUNCTION_WORDS

pytestmark = pytest.mark.slow

DOC = Path("/usr/share/doc")
CANDIDATES = (
    "dpkg/spec/triggers.txt",
    "dpkg/spec/rootless-builds.txt",
    "dpkg/spec/protected-field.txt",
    "dpkg/spec/frontend-api.txt",
    "base-passwd/README",
    "systemd/DISTRO_PORTING.md",
    "systemd/TRANSLATORS.md",
    "systemd/UIDS-GIDS.md.gz",
    "git/README.md",
    "git/README.source",
    "util-linux/blkid.txt",
    "util-linux/howto-usage-function.txt.gz",
    "util-linux/howto-contribute.txt.gz",
    "util-linux/release-schedule.txt",
    "python3-pip/html/topics/authentication.md",
    "python3-pip/html/topics/https-certificates.md",
    "python3-pip/html/topics/repeatable-installs.md",
    "procps/bugs.md",
    "openssh-client/README",
    "yq/cli-doc.txt",
    "libglib2.0-0/README.md",
)
WANTED = 15
OWNERS = (
    "Owners: the payments API is owned by Ana Lopez; the search service is owned by the "
    "Platform team. Bo Chen runs the weekly release."
)


def _copy_docs(into: Path) -> list[Path]:
    into.mkdir()
    copied: list[Path] = []
    for rel in CANDIDATES:
        src = DOC / rel
        if not src.is_file() or len(copied) == WANTED:
            continue
        name = rel.removesuffix(".gz").replace("/", "_")
        dst = into / (name if name.endswith((".md", ".txt")) else f"{name}.txt")
        data = gzip.decompress(src.read_bytes()) if rel.endswith(".gz") else src.read_bytes()
        dst.write_bytes(data)
        copied.append(dst)
    return copied


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    root = tmp_path_factory.mktemp("firstweek")
    docs = _copy_docs(root / "docs")
    # Without the documents this suite proves nothing: it must fail, not pass empty.
    assert len(docs) >= WANTED, f"only {len(docs)} of the reference documents exist here"
    runner = CliRunner()

    def invoke(*args: str) -> str:
        result = runner.invoke(cli, ["--brain", str(root / "brain"), *args])
        assert result.exit_code == 0, (result.output, result.exception)
        return result.output

    invoke("init")
    invoke("add", "--index", str(root / "docs"))
    invoke("note", "--occurred-at", "2026-11-02", OWNERS)
    yield invoke


def test_reference_docs_and_an_owners_note_list_at_most_three_conflicts(run: Any) -> None:
    files = json.loads(run("--json", "items", "--limit", "1000"))["items"]
    assert sum(1 for i in files if i["indexed"]) >= WANTED + 1
    assert len(json.loads(run("--json", "conflicts"))["conflicts"]) <= 3


def test_no_function_word_or_lone_letter_is_an_entity(run: Any) -> None:
    entities = json.loads(run("--json", "items", "--class", "entity", "--limit", "1000"))
    labels = [i["label"] for i in entities["items"]]
    assert len(labels) >= 20  # the documents name things: OpenSSH, FreeBSD, Ana Lopez
    assert "Ana Lopez" in labels
    bad = [
        label
        for label in labels
        if label.casefold() in FUNCTION_WORDS or len(re.sub(r"\W", "", label)) < 2
    ]
    assert bad == []


def test_two_contradicting_notes_are_one_conflict_pair(run: Any) -> None:
    before = json.loads(run("--json", "conflicts"))["conflicts"]
    run("note", "--occurred-at", "2026-11-03", "The payments on-call is Ana.")
    run("note", "--occurred-at", "2026-11-03", "The payments on-call is Bo.")
    after = json.loads(run("--json", "conflicts"))["conflicts"]
    [new] = [p for p in after if p not in before]
    assert {new["a"]["object"], new["b"]["object"]} == {"Ana", "Bo"}


def test_limit_one_prints_one_pair(run: Any) -> None:
    run("note", "--occurred-at", "2026-11-04", "The billing on-call is Chen.")
    run("note", "--occurred-at", "2026-11-04", "The billing on-call is Dee.")
    assert len(json.loads(run("--json", "conflicts"))["conflicts"]) >= 2
    printed = run("conflicts", "--limit", "1")
    assert len(re.findall(r"(?m)^\d+\. ", printed)) == 1
