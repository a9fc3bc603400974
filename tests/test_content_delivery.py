"""``GET /v1/items/{id}/content`` on a real loopback server: uploaded bytes are never
sniffed, and a type a browser would run in our origin (HTML) is a download, not a page."""

from __future__ import annotations

from pathlib import Path

from tests.test_server import serve, upload

PAGE = b"<!doctype html><html><body><script>fetch('/v1/items')</script>hi</body></html>"


def test_uploaded_html_is_an_attachment_and_nothing_is_sniffed(tmp_path: Path) -> None:
    with serve(tmp_path / "brain") as served, served.http(served.key()) as c:
        page = upload(c, "page.html", PAGE)
        notes = upload(c, "notes.md", b"# Notes\n\nPlain text.\n")
        assert (page.status_code, notes.status_code) == (201, 201), page.text

        html = c.get(f"/v1/items/{page.json()['id']}/content")
        assert html.status_code == 200 and html.content == PAGE
        assert html.headers["x-content-type-options"] == "nosniff"
        assert html.headers["content-disposition"].startswith("attachment;")
        assert 'filename="page.html"' in html.headers["content-disposition"]

        part = c.get(f"/v1/items/{page.json()['id']}/content", headers={"Range": "bytes=0-8"})
        assert part.status_code == 206 and part.content == PAGE[:9]
        assert part.headers["x-content-type-options"] == "nosniff"
        assert part.headers["content-disposition"].startswith("attachment;")

        md = c.get(f"/v1/items/{notes.json()['id']}/content")
        assert md.headers["x-content-type-options"] == "nosniff"
        assert md.headers["content-disposition"].startswith("inline;")
