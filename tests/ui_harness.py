"""Helpers for the web UI's tests: a signed-in httpx client, the system's Chromium driven
by Playwright, and screenshots (into a temporary folder, or ``ORGBRAIN_UI_SCREENSHOTS``,
e.g. ``docs/ui``, when docs/ui.md's pictures are to be taken again)."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

__all__ = [
    "CHROMIUM",
    "chromium_path",
    "csrf_of",
    "launch_chromium",
    "screenshot",
    "sign_in",
    "ui_client",
    "unlabelled_controls",
]

CHROMIUM_HINT = (
    "the browser tests drive Debian's Chromium: apt-get install -y chromium "
    "(or set ORGBRAIN_CHROMIUM to a Chromium binary); .ci/run installs it"
)
CHROMIUM = ("chromium", "chromium-browser", "google-chrome")


def chromium_path() -> str:
    """The Chromium binary the tests drive; a failure (never a skip) when there is none."""
    given = os.environ.get("ORGBRAIN_CHROMIUM")
    if given:
        if not Path(given).exists():
            pytest.fail(f"ORGBRAIN_CHROMIUM={given} does not exist; {CHROMIUM_HINT}")
        return given
    for name in CHROMIUM:
        found = shutil.which(name)
        if found:
            return found
    pytest.fail(CHROMIUM_HINT)


@contextmanager
def launch_chromium() -> Iterator[Any]:
    """A headless Chromium (Playwright's own browser download is never used)."""
    from playwright.sync_api import sync_playwright

    path = chromium_path()
    with sync_playwright() as p:
        # No sandbox: CI runs as root in a container, where Chromium's sandbox cannot start.
        browser = p.chromium.launch(executable_path=path, chromium_sandbox=False)
        try:
            yield browser
        finally:
            browser.close()


def csrf_of(html: str) -> str:
    found = re.search(r'name="csrf(?:-token)?" (?:value|content)="([^"]+)"', html)
    assert found, "no CSRF token on the page"
    return found.group(1)


def sign_in(c: httpx.Client, token: str, next_page: str = "/ui/items") -> httpx.Response:
    form = c.get("/ui/login")
    assert form.status_code == 200
    return c.post("/ui/login", data={"key": token, "csrf": csrf_of(form.text), "next": next_page})


def ui_client(url: str, token: str | None = None) -> httpx.Client:
    """An httpx client that keeps cookies, signed in when given a key."""
    c = httpx.Client(base_url=url, timeout=30, follow_redirects=False)
    if token is not None:
        r = sign_in(c, token)
        assert r.status_code == 303, r.text
    return c


def screenshot(page: Any, name: str, tmp: Path) -> Path:
    """The whole page as ``<name>.png``; for the docs, cut to 256 colours (a third of the
    bytes, and the pages are flat colour anyway)."""
    wanted = os.environ.get("ORGBRAIN_UI_SCREENSHOTS")
    folder = Path(wanted or tmp)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    if wanted:
        from PIL import Image

        with Image.open(path) as shot:
            small = shot.convert("RGB").quantize(256)
        small.save(path, optimize=True)
    assert path.stat().st_size > 0
    return path


UNLABELLED_JS = """
() => Array.from(document.querySelectorAll('input, select, textarea'))
  .filter(el => el.type !== 'hidden' && el.type !== 'submit')
  .filter(el => !(el.labels && el.labels.length) && !el.getAttribute('aria-label'))
  .map(el => el.outerHTML)
"""


def unlabelled_controls(page: Any) -> list[str]:
    """Form controls a screen reader could not name."""
    found: list[str] = page.evaluate(UNLABELLED_JS)
    return found
