"""Templates and static assets: one Jinja environment over the package's templates, and
the package's static files under versioned URLs (``/ui/static/<hash>/<name>``), so a
browser may cache them for good and a new release is fetched at once. Nothing comes from a
network: every script, style and font is in the package."""

from __future__ import annotations

import hashlib
import math
import mimetypes
from collections.abc import Mapping
from datetime import UTC, datetime
from functools import cached_property
from importlib import resources
from typing import Any
from urllib.parse import urlencode

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape
from starlette.responses import HTMLResponse, Response

from ...views import match_reason
from .markup import light_markdown

__all__ = ["PAGE_HEADERS", "STATIC_PREFIX", "Assets", "Renderer"]

STATIC_PREFIX = "/ui/static"
PAGE_HEADERS: Mapping[str, str] = {
    # Scripts only from the package; no inline script anywhere (data goes in
    # <script type="application/json">, which is not run).
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; "
        "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    # Pages show what one key may see: never kept by a shared cache or the back button
    # of the next person at the machine.
    "Cache-Control": "no-store",
}


class Assets:
    """The package's static files, each under a URL carrying a hash of its bytes."""

    def __init__(self) -> None:
        root = resources.files("orgbrain.server.ui") / "static"
        self._files: dict[str, bytes] = {}
        stack = [(root, "")]
        while stack:
            folder, prefix = stack.pop()
            for entry in folder.iterdir():
                if entry.is_dir():
                    stack.append((entry, f"{prefix}{entry.name}/"))
                elif not entry.name.startswith(".") and not entry.name.endswith(".md"):
                    self._files[prefix + entry.name] = entry.read_bytes()
        self._hashes = {
            name: hashlib.sha256(data).hexdigest()[:12] for name, data in self._files.items()
        }

    def url(self, name: str) -> str:
        return f"{STATIC_PREFIX}/{self._hashes[name]}/{name}"

    def response(self, version: str, name: str) -> Response:
        data = self._files.get(name)
        if data is None:
            return Response("not found", status_code=404, media_type="text/plain")
        media = mimetypes.guess_type(name)[0] or "application/octet-stream"
        if name.endswith((".js", ".css")):
            media += "; charset=utf-8"
        current = version == self._hashes[name]
        cache = "public, max-age=31536000, immutable" if current else "no-cache"
        headers = {"Cache-Control": cache, "X-Content-Type-Options": "nosniff"}
        return Response(data, media_type=media, headers=headers)

    @property
    def names(self) -> list[str]:
        return sorted(self._files)


class Renderer:
    """Renders the UI's pages (HTML escaped by default)."""

    def __init__(self, assets: Assets | None = None) -> None:
        self.assets = assets or Assets()

    @cached_property
    def env(self) -> Environment:
        env = Environment(
            loader=PackageLoader("orgbrain.server.ui", "templates"),
            autoescape=select_autoescape(default=True, default_for_string=True),
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        env.globals["static"] = self.assets.url
        env.globals["query"] = _query
        env.filters["when"] = _when
        env.filters["md"] = light_markdown
        env.globals["match_reason"] = match_reason
        env.filters["size"] = _size
        env.filters["pct"] = lambda v: f"{100 * float(v):.0f}%"
        return env

    def html(self, name: str, context: Mapping[str, Any], *, status: int = 200) -> HTMLResponse:
        body = self.env.get_template(name).render(**context)
        return HTMLResponse(body, status_code=status, headers=dict(PAGE_HEADERS))


def _when(value: datetime | None) -> str:
    if value is None:
        return ""
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _size(n: int | None) -> str:
    if n is None:
        return ""
    if n < 1024:
        return f"{n} B"
    exp = min(int(math.log(n, 1024)), 3)
    return f"{n / 1024**exp:.1f} {('B', 'KB', 'MB', 'GB')[exp]}"


def _query(base: Mapping[str, Any], **changes: Any) -> str:
    """``base`` query parameters with ``changes`` applied (None drops one), as ``?a=b``."""
    merged = {k: v for k, v in {**base, **changes}.items() if v not in (None, "")}
    return "?" + urlencode(merged) if merged else "?"
