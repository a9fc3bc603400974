"""The web UI over plain HTTP (no browser): sign-in and its cookie, CSRF on every form,
sessions that end (across server processes), what a key may see, raw files that never
run, static assets that are packaged and versioned, error pages and the health page —
each on the embedded brain and on one in PostgreSQL with its files in S3."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from orgbrain import InvalidInput, Principal
from orgbrain.keys import KeyStore, revoke_key
from orgbrain.server import BackgroundServer, create_app
from orgbrain.server.ui import Sessions, UiConfig
from orgbrain.server.ui.pages.auth import safe_next
from orgbrain.server.ui.pages.entities import snippet
from orgbrain.settings import Settings
from tests.backends import Backend
from tests.test_server import HANDBOOK, Served, serve, wait_state
from tests.ui_harness import csrf_of, sign_in, ui_client

SECRET_NOTE = "Alice's salary review is on Friday the 13th."


@pytest.fixture
def served(tmp_path: Path, backend: Backend) -> Iterator[Served]:
    """Every test here runs on the embedded brain and on PostgreSQL + S3 (keys in the
    database too)."""
    with serve(tmp_path / "brain", max_file_bytes=1 << 16, backend=backend) as s:
        yield s


def _another_key_store(served: Served) -> KeyStore:
    """Another connection to the served brain's key store, as another process has."""
    return served.backend.key_store(served.folder)


def _form_csrf(c: httpx.Client, path: str = "/ui/items") -> str:
    r = c.get(path)
    assert r.status_code == 200, r.text
    return csrf_of(r.text)


# -- sign in, cookies, sign out ------------------------------------------------------------


def test_signing_in_gives_a_strict_httponly_cookie_and_never_the_key(served: Served) -> None:
    token = served.key(perms="read,write")
    c = ui_client(served.url)
    assert c.get("/").headers["location"] == "/ui/search"
    r = c.get("/ui/items?state=indexed")
    assert r.status_code == 303
    assert r.headers["location"] == "/ui/login?next=%2Fui%2Fitems%3Fstate%3Dindexed"
    r = sign_in(c, token, "/ui/items?state=indexed")
    assert r.status_code == 303 and r.headers["location"] == "/ui/items?state=indexed"
    cookie = r.headers["set-cookie"]
    assert cookie.startswith("ob_session=")
    for flag in ("HttpOnly", "SameSite=strict", "Path=/ui", "Max-Age=43200"):
        assert flag.lower() in cookie.lower(), cookie
    assert "secure" not in cookie.lower()  # plain http on loopback; Secure over https
    secret = token.split("_")[2]
    assert secret not in cookie and token.split("_")[1] not in r.text
    page = c.get("/ui/items")
    assert page.status_code == 200 and "alice" in page.text
    for header in ("content-security-policy", "x-frame-options", "cache-control"):
        assert header in page.headers
    assert page.headers["cache-control"] == "no-store"
    assert re.fullmatch(r"app;dur=[0-9.]+", page.headers["server-timing"])


def test_a_wrong_key_or_a_stale_form_signs_nobody_in(served: Served) -> None:
    c = ui_client(served.url)
    r = sign_in(c, "ob_0123456789abcdef_" + "0" * 64)
    assert r.status_code == 401 and "invalid API key" in r.text
    assert "0" * 64 not in r.text  # what was typed is never echoed
    assert "ob_session" not in r.headers.get("set-cookie", "")
    # A sign-in form posted without its own cookie (another site's form) is refused.
    bare = httpx.Client(base_url=served.url)
    r = bare.post("/ui/login", data={"key": served.key(), "csrf": "x" * 40})
    assert r.status_code == 403 and "ob_session" not in r.headers.get("set-cookie", "")
    # A key without read cannot sign in.
    r = sign_in(ui_client(served.url), served.key(perms="write"))
    assert r.status_code == 401 and "read permission" in r.text


def test_next_never_leaves_the_ui() -> None:
    assert safe_next("/ui/items?x=1") == "/ui/items?x=1"
    for bad in ("https://evil.example/", "//evil.example/ui/", "/v1/items", "/ui\\..", None, ""):
        assert safe_next(bad) == "/ui/search"


def test_signing_out_ends_the_session_even_for_a_kept_cookie(served: Served) -> None:
    c = ui_client(served.url, served.key())
    kept = c.cookies.get("ob_session")
    csrf = _form_csrf(c)
    r = c.post("/ui/logout", data={"csrf": csrf})
    assert r.status_code == 303 and r.headers["location"] == "/ui/login"
    replay = httpx.Client(base_url=served.url, cookies={"ob_session": str(kept)})
    assert replay.get("/ui/items").status_code == 303


@contextmanager
def _ui_server(served: Served, secret: bytes | None) -> Iterator[str]:
    """Another server over the same brain and key store (its own key-store connection),
    signing sessions with ``secret``."""
    keys = _another_key_store(served)
    try:
        with BackgroundServer(create_app(served.brain, keys, ui=UiConfig(secret=secret))) as s:
            yield s.url
    finally:
        keys.close()


def test_servers_with_one_secret_share_sessions_and_every_one_honours_a_sign_out(
    served: Served,
) -> None:
    secret = b"a shared secret of at least 32 bytes!"
    token = served.key()
    with _ui_server(served, secret) as a, _ui_server(served, secret) as b:
        with _ui_server(served, None) as stranger:
            signed = ui_client(a, token)
            cookie = str(signed.cookies.get("ob_session"))

            def reads(url: str) -> int:
                with httpx.Client(base_url=url, cookies={"ob_session": cookie}) as c:
                    return c.get("/ui/items").status_code

            # Another process (or this one restarted) with the same secret knows it.
            assert reads(a) == 200 and reads(b) == 200
            assert reads(stranger) == 303  # another secret: a forged cookie to it
            with httpx.Client(base_url=b, cookies={"ob_session": cookie}) as on_b:
                r = on_b.post("/ui/logout", data={"csrf": _form_csrf(on_b)})
                assert r.status_code == 303
            # Signed out on b: a refuses the same cookie, and so does a server started now.
            assert reads(a) == 303 and reads(b) == 303
            with _ui_server(served, secret) as later:
                assert reads(later) == 303
            # A new session of the same key is unaffected.
            assert ui_client(a, token).get("/ui/items").status_code == 200


def test_a_session_secret_too_short_is_refused() -> None:
    with pytest.raises(InvalidInput, match="ORGBRAIN_UI_SECRET"):
        Settings.from_env({"ORGBRAIN_UI_SECRET": "short"})
    with pytest.raises(InvalidInput, match="32 bytes"):
        UiConfig(secret=b"short")
    long = "x" * 40
    assert UiConfig.from_settings(Settings.from_env({"ORGBRAIN_UI_SECRET": long})).secret == (
        long.encode()
    )
    assert UiConfig.from_settings(Settings.from_env({"ORGBRAIN_UI_SECRET": ""})).secret is None
    assert long not in repr(Settings.from_env({"ORGBRAIN_UI_SECRET": long}))


def test_a_revoked_key_ends_its_sessions_at_once(served: Served) -> None:
    token = served.key()
    c = ui_client(served.url, token)
    assert c.get("/ui/items").status_code == 200
    revoke_key(served.keys, token.split("_")[1])
    r = c.get("/ui/items")
    assert r.status_code == 303 and r.headers["location"].startswith("/ui/login")


def test_a_forged_or_expired_cookie_is_refused() -> None:
    sessions = Sessions(UiConfig(secret=b"k" * 32, session_s=60))
    session, cookie = sessions.issue("abc", now=1000.0)
    assert sessions.read(cookie, now=1030.0) == session
    assert sessions.read(cookie, now=1061.0) is None  # expired
    payload, mac = cookie.split(".")
    assert sessions.read(payload + "." + mac[:-2] + "AA", now=1030.0) is None
    other = Sessions(UiConfig(secret=b"j" * 32))
    assert other.read(cookie, now=1030.0) is None  # another server's secret
    assert sessions.read("x.y.z") is None and sessions.read(None) is None
    assert sessions.check_csrf(session, sessions.csrf(session))
    assert not sessions.check_csrf(session, "") and not sessions.check_csrf(session, "0" * 40)


# -- CSRF on every form --------------------------------------------------------------------


def test_every_form_needs_its_csrf_token_and_nothing_changes_without_it(served: Served) -> None:
    token = served.key(perms="read,write,review")
    c = ui_client(served.url, token)
    alice = served.brain.for_principal(Principal("acme", "alice"))
    file = alice.add_file(HANDBOOK, name="handbook.md")
    ack = alice.write_back(
        {
            "run_id": "r1",
            "outcome": "succeeded",
            "summary": "Alice prefers async standups.",
            "user_id": "alice",
        },
        wait=True,
    )
    [proposal] = ack.proposals
    posts = {
        "/ui/files": {"files": {"file": ("a.md", b"# A\n\nhello there world\n")}},
        f"/ui/items/{file.id}/index": {"data": {}},
        "/ui/index-pending": {"data": {}},
        f"/ui/inbox/{proposal.id}/approve": {"data": {"body": "x y z"}},
        f"/ui/inbox/{proposal.id}/reject": {"data": {"reason": "no"}},
        "/ui/logout": {"data": {}},
    }
    for path, kw in posts.items():
        for bad in ({}, {"csrf": "f" * 40}):
            data = {**kw.get("data", {}), **bad}
            r = c.post(path, data=data, files=kw.get("files"))
            assert r.status_code == 403, (path, r.status_code, r.text[:200])
            assert "security token" in r.text
    assert [i.id for i in alice.items(limit=100).items if i.storage_class == "file"] == [file.id]
    assert alice.index_state(file.id) == "added"
    assert alice.proposal(proposal.id).state == "pending"
    assert c.get("/ui/items").status_code == 200  # still signed in
    # Another site's page posting with the right token is refused by its Origin.
    csrf = _form_csrf(c)
    r = c.post(
        f"/ui/items/{file.id}/index",
        data={"csrf": csrf},
        headers={"Origin": "https://evil.example"},
    )
    assert r.status_code == 403 and alice.index_state(file.id) == "added"
    r = c.post(f"/ui/items/{file.id}/index", data={"csrf": csrf}, headers={"Origin": served.url})
    assert r.status_code == 303 and alice.index_state(file.id) in ("queued", "indexing", "indexed")


# -- what a page shows ---------------------------------------------------------------------


def test_a_page_shows_only_what_the_key_may_see(served: Served) -> None:
    alice = served.brain.for_principal(Principal("acme", "alice"))
    secret = alice.add_note(SECRET_NOTE, scope="user:alice")
    shared = alice.add_note("The billing service is owned by Priya Raman.")
    bob = ui_client(served.url, served.key(user="bob"))
    mine = ui_client(served.url, served.key(user="alice"))
    for path in ("/ui/items", "/ui/items?class=note", "/ui/search?q=salary+review+Friday"):
        text = bob.get(path).text
        assert secret.id not in text and "13th" not in text
    assert secret.id in mine.get("/ui/items").text
    assert shared.id in bob.get("/ui/items").text
    missing = bob.get("/ui/items/not_an_id")
    for path in (
        f"/ui/items/{secret.id}",
        f"/ui/items/{secret.id}/raw",
        f"/ui/graph/{secret.id}",
        f"/ui/entities/{secret.id}",
    ):
        r = bob.get(path)
        assert r.status_code == 404 and SECRET_NOTE not in r.text
        assert r.text == missing.text.replace("not_an_id", secret.id)
    r = bob.get(f"/ui/graph/{secret.id}.json")
    assert r.status_code == 404 and r.headers["content-type"] == "application/problem+json"
    states = bob.get("/ui/states.json", params={"ids": f"{secret.id},{shared.id}"}).json()
    assert list(states["items"]) == [shared.id]
    # another workspace's key sees nothing of this one
    other = ui_client(served.url, served.key(workspace="globex", user="alice"))
    assert shared.id not in other.get("/ui/items").text
    assert other.get(f"/ui/items/{shared.id}").status_code == 404


def test_the_grid_says_added_indexed_and_failed_with_its_error(served: Served) -> None:
    token = served.key(perms="read,write")
    c = ui_client(served.url, token)
    csrf = _form_csrf(c)
    r = c.post("/ui/files", data={"csrf": csrf}, files={"file": ("handbook.md", HANDBOOK)})
    assert r.status_code == 303 and r.headers["location"].startswith("/ui/items?done=added")
    good = r.headers["location"].rsplit("+", 1)[1]
    broken = b"%PDF-1.7\n1 0 obj\n<< /Type /Catalog"
    r = c.post(
        "/ui/files",
        data={"csrf": csrf, "index": "1"},
        files={"file": ("broken.pdf", broken)},
        headers={"Accept": "application/json"},
    )
    assert r.status_code == 201
    bad = r.json()["item"]["id"]
    api = served.http(token)
    assert wait_state(api, bad, {"failed"})["state"] == "failed"
    page = c.get("/ui/items").text
    assert re.search(r'data-state="added"', page) and re.search(r'data-state="failed"', page)
    assert "not answerable yet" in page and "corrupt_file" in page
    assert "Index all pending (1)" in page
    r = c.post("/ui/index-pending", data={"csrf": csrf})
    assert r.status_code == 303
    assert wait_state(api, good, {"indexed"})["state"] == "indexed"
    page = c.get("/ui/items?state=indexed").text
    assert good in page and bad not in page
    # filters, order and pages
    newest = c.get("/ui/items?order=newest&limit=10").text
    assert newest.index(bad) < newest.index(good)
    oldest = c.get("/ui/items?order=oldest").text
    assert oldest.index(good) < oldest.index(bad)
    first = c.get("/ui/items?order=oldest&limit=10&class=file").text
    assert 'rel="next"' not in first
    assert c.get("/ui/items?cursor=abc").status_code == 400
    assert c.get("/ui/items?limit=5000").status_code == 422


def test_an_upload_over_the_cap_is_refused_and_stores_nothing(served: Served) -> None:
    c = ui_client(served.url, served.key(perms="read,write"))
    csrf = _form_csrf(c)
    r = c.post(
        "/ui/files",
        data={"csrf": csrf},
        files={"file": ("big.txt", b"word " * 20_000)},
        headers={"Accept": "application/json"},
    )
    assert r.status_code == 413 and r.json()["code"] == "too_large"
    assert served.brain.for_workspace("acme").items(limit=10).items == ()
    reader = ui_client(served.url, served.key(user="rita", perms="read"))
    r = reader.post(
        "/ui/files", data={"csrf": _form_csrf(reader)}, files={"file": ("a.md", b"# a b c\n")}
    )
    assert r.status_code == 403 and "write permission" in r.text


def test_raw_html_is_shown_as_text_never_run_here(served: Served) -> None:
    alice = served.brain.for_principal(Principal("acme", "alice"))
    page = b"<html><body><script>alert(1)</script><p>Billing runs on Fridays.</p></body></html>"
    item = alice.add_file(page, name="page.html")
    c = ui_client(served.url, served.key())
    r = c.get(f"/ui/items/{item.id}/raw")
    assert r.status_code == 200 and r.content == page
    assert r.headers["content-type"] == "text/plain; charset=utf-8"
    assert r.headers["x-content-type-options"] == "nosniff"
    # and a note's label with markup is escaped on every page
    note = alice.add_note("<img src=x onerror=alert(1)> is a test", label="<b>bold</b>")
    body = c.get(f"/ui/items/{note.id}").text
    assert "<b>bold</b>" not in body and "&lt;b&gt;bold&lt;/b&gt;" in body
    assert "<img src=x" not in body


def test_static_assets_are_packaged_and_versioned(served: Served) -> None:
    c = ui_client(served.url, served.key())
    page = c.get(f"/ui/graph/{served.brain.for_workspace('acme').add_note('a b c d').id}").text
    urls = re.findall(r'(?:src|href)="(/ui/static/[^"]+)"', page)
    names = {u.rsplit("/", 1)[-1] for u in urls}
    assert names == {"app.css", "app.js", "cytoscape.min.js", "favicon.svg"}
    for url in urls:
        r = c.get(url)
        assert r.status_code == 200 and r.headers["cache-control"].endswith("immutable")
    assert "http://" not in page.replace(served.url, "") and "https://" not in page
    stale = c.get(urls[0].replace(urls[0].split("/")[3], "000000000000"))
    assert stale.status_code == 200 and stale.headers["cache-control"] == "no-cache"
    assert c.get("/ui/static/x/nope.js").status_code == 404


def test_errors_are_pages_and_json_where_a_script_asks(served: Served) -> None:
    c = ui_client(served.url, served.key())
    r = c.get("/ui/no/such/page")
    assert r.status_code == 404 and r.headers["content-type"].startswith("text/html")
    assert "<h1>404: not found</h1>" in r.text
    r = c.get("/ui/graph/x?hops=3")
    assert r.status_code == 422 and "hops" in r.text
    r = c.get("/ui/states.json")
    assert r.status_code == 200 and r.json()["items"] == {}
    anon = httpx.Client(base_url=served.url)
    r = anon.get("/ui/states.json")
    assert r.status_code == 401 and r.json()["code"] == "unauthenticated"


def test_a_mention_snippet_stands_in_its_place() -> None:
    body = "Intro. " + "x" * 300 + " Priya Raman owns billing. " + "y" * 300
    at = body.index("Priya")
    s = snippet(body, "Priya Raman", at, at + len("Priya Raman"))
    assert s.text == "Priya Raman" and s.before.startswith("…") and s.after.endswith("…")
    assert snippet(body, "Priya Raman", None, None).text == "Priya Raman"
    assert snippet(body, "nowhere", 5, 2) == type(s)("", "nowhere", "")


def test_the_search_page_shows_the_verdict_and_why(served: Served) -> None:
    alice = served.brain.for_principal(Principal("acme", "alice"))
    alice.add_file(HANDBOOK, name="handbook.md", index=True)
    c = ui_client(served.url, served.key())
    t0 = time.monotonic()
    r = c.get("/ui/search", params={"q": "yo"})
    assert r.status_code == 200 and 'data-verdict="none"' in r.text
    assert "The brain has nothing to say." in r.text
    # Why in words; the gate's numbers only in the line's title, for whoever hovers.
    why = re.search(r'<p class="why" title="([^"]*)">(.*?)</p>', r.text, re.S)
    assert why is not None and "floor" in why.group(1)
    assert "Why:</span> Nothing answers: the closest " in why.group(2)
    assert not re.search(r"\d\.\d|cosine|gate:", why.group(2))
    r = c.get("/ui/search", params={"q": "who owns billing?"})
    assert "Why:</span> Answers: &#34;" in r.text or "Why:</span> Answers: &quot;" in r.text
    assert time.monotonic() - t0 < 10


def test_the_search_page_says_which_statement_a_newer_note_replaced(served: Served) -> None:
    from datetime import UTC, datetime

    from tests.test_living import DEPLOYS, ONE_CHANGED, TWO_THINGS

    alice = served.brain.for_principal(Principal("acme", "alice"))
    alice.add_note(TWO_THINGS, occurred_at=datetime(2026, 2, 3, tzinfo=UTC), wait="derived")
    alice.add_note(ONE_CHANGED, occurred_at=datetime(2026, 12, 1, tzinfo=UTC), wait="derived")
    r = ui_client(served.url, served.key()).get("/ui/search", params={"q": DEPLOYS})
    assert r.status_code == 200, r.text
    assert "in part superseded: payments service uses: Jenkins -&gt; " in r.text
    assert "replaces payments service uses: Jenkins -&gt; " in r.text


def test_serve_prints_the_address_and_a_first_key_to_sign_in_with(tmp_path: Path) -> None:
    """A newcomer: `orgbrain serve` on a brain with no key prints the UI's address and a
    key; signing in with it works, and a second start makes no second key."""
    import json
    import os
    import signal
    import socket
    import subprocess
    import sys

    from click.testing import CliRunner

    from orgbrain.cli import cli

    folder = tmp_path / "brain"
    assert CliRunner().invoke(cli, ["--brain", str(folder), "init"]).exit_code == 0

    def start() -> tuple[subprocess.Popen[str], dict[str, str]]:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        cmd = [
            sys.executable,
            "-c",
            "from orgbrain.cli.serve import serve; serve(prog_name='orgbrain serve')",
            *("--brain", str(folder), "--port", str(port), "--json"),
        ]
        env = {**os.environ, "ORGBRAIN_UI_SECRET": "a secret every start of the server shares"}
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        )
        assert proc.stdout is not None
        line = json.loads(proc.stdout.readline())
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(line["url"] + "/healthz", timeout=1).status_code == 200:
                    return proc, line
            except httpx.TransportError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)

    proc, line = start()
    try:
        assert line["ui"] == line["url"] + "/ui"
        key = line["first_key"]
        c = ui_client(line["url"], key)
        page = c.get("/ui/items")
        assert page.status_code == 200 and "owner · default" in page.text
        assert 'action="/ui/files"' in page.text  # it may write
        kept = str(c.cookies.get("ob_session"))
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
    proc, line = start()
    try:
        assert "first_key" not in line
        # ORGBRAIN_UI_SECRET: the restart signed no one out.
        with httpx.Client(base_url=line["url"], cookies={"ob_session": kept}) as again:
            assert again.get("/ui/items").status_code == 200
    finally:
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    assert key.split("_")[2] not in err


# -- the health of the loop ----------------------------------------------------------------


def _stat(html: str, name: str) -> str:
    found = re.search(rf'data-stat="{name}">([^<]*)<', html)
    assert found, name
    return found.group(1)


def test_the_health_page_plots_the_loop_as_the_key_may_count_it(served: Served) -> None:
    alice_key = served.key(user="alice", perms="read,write")
    admin_key = served.key(user="root", perms="read,admin")
    api = served.http(alice_key)
    r = api.post("/v1/files", files={"file": ("handbook.md", HANDBOOK)})
    fid = r.json()["id"]
    assert api.post(f"/v1/files/{fid}/index").status_code == 202
    assert wait_state(api, fid, {"indexed"})["state"] == "indexed"
    for q in ("who owns billing", "zebra crossing"):
        assert api.post("/v1/search", json={"query": q}).status_code == 200
    served.http(served.key(user="bob")).post("/v1/search", json={"query": "billing"})
    alice = served.brain.for_principal(Principal("acme", "alice"))
    alice.write_back(
        {"run_id": "r1", "outcome": "succeeded", "summary": SECRET_NOTE, "user_id": "alice"},
        wait=True,
    )
    signed = ui_client(served.url, alice_key)
    assert signed.get("/ui/search", params={"q": "refunds"}).status_code == 200
    mine = signed.get("/ui/health")
    assert mine.status_code == 200, mine.text
    page = mine.text
    assert 'data-lens="reader"' in page and 'aria-current="page"' in page
    assert _stat(page, "searches") == "3"  # hers, not bob's
    assert '<tr data-surface="http"><th scope="row">http</th><td>2</td>' in page
    assert '<tr data-surface="ui"><th scope="row">ui</th><td>1</td>' in page
    assert int(_stat(page, "inbox_pending")) == len(alice.proposals())
    lag = re.search(r'<tr data-kind="index">(.*?)</tr>', page, re.S)
    assert lag and 'data-stat="done">1<' in lag.group(1)
    # Four plots, drawn here: inline SVG with a title and a description, no script.
    assert page.count('role="img"') == 4 and page.count("<title id=") == 4
    assert "<script>" not in page and "plot-kind-index" in page
    assert SECRET_NOTE not in page  # counts only, never a body
    everyone = ui_client(served.url, admin_key).get("/ui/health?since=all").text
    assert 'data-lens="workspace"' in everyone and _stat(everyone, "searches") == "4"
    other = ui_client(served.url, served.key(workspace="globex")).get("/ui/health").text
    assert _stat(other, "searches") == "0" and 'data-kind="index"' not in other
    assert "Nothing to plot yet." in other
    assert ui_client(served.url, alice_key).get("/ui/health?since=1y").status_code == 422
