"""The web UI allows exactly what the HTTP API allows, for every kind of key: every form
that changes something (each POST route under /ui) is driven with keys of every mix of
permissions, person or agent, in a team or not, against proposals at org, a team, the
key's own user and another user; the same action over HTTP with the same key must succeed
exactly when the form does. One real server on loopback, real keys, real sessions."""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from orgbrain.brain import Brain
from orgbrain.model import Proposal, utcnow
from tests.test_server import HANDBOOK, Served, serve
from tests.ui_harness import csrf_of, sign_in, ui_client

PERMISSIONS = ("read", "write", "review", "admin")
# A web session is reading: only keys that may read sign in (see the last test).
READING = [
    ",".join(("read", *extra))
    for n in range(4)
    for extra in itertools.combinations(PERMISSIONS[1:], n)
]
FORMS = ("login", "logout", "upload", "index", "index_pending", "approve", "reject")
SCOPES = ("org", "team:core", "user:dave", "user:erin")
OK = (200, 201, 202, 303)


def _proposal(brain: Brain, scope: str) -> str:
    """A fresh pending proposal at ``scope`` (as a write-back pass stores one)."""
    pid = f"prp_{uuid.uuid4().hex[:20]}"
    brain._ctx.store.put_proposal(
        Proposal(
            id=pid,
            workspace="acme",
            run_id="run-perm",
            actor="agent:dave",
            kind="decision",
            label="",
            body=f"We decided on plan {pid}.",
            scope=scope,
            confidence=0.5,
            sensitivity=(),
            evidence=(),
            supersedes=(),
            state="pending",
            reason="a reviewer decides",
            created_at=utcnow(),
        )
    )
    return pid


def _target(served: Served, form: str, scope: str) -> str:
    """A fresh thing for ``form`` to act on: an org file to index, or a proposal."""
    owner = served.brain.for_workspace("acme")
    if form in ("index", "index_pending"):
        return owner.add_file(HANDBOOK, name=f"{uuid.uuid4().hex}.md").id
    if form in ("approve", "reject"):
        return _proposal(served.brain, scope)
    return ""


def _over_http(served: Served, token: str, form: str, target: str) -> int:
    with served.http(token) as c:
        calls: dict[str, Callable[[], httpx.Response]] = {
            "login": lambda: c.get("/v1/items"),
            "logout": lambda: c.get("/v1/items"),
            "upload": lambda: c.post(
                "/v1/files", files={"file": (f"{uuid.uuid4().hex}.md", b"# A\n\nhello\n")}
            ),
            "index": lambda: c.post(f"/v1/files/{target}/index"),
            "index_pending": lambda: c.post(f"/v1/files/{target}/index"),
            "approve": lambda: c.post(f"/v1/proposals/{target}/approve"),
            "reject": lambda: c.post(f"/v1/proposals/{target}/reject", json={"reason": "no"}),
        }
        return calls[form]().status_code


def _in_the_ui(served: Served, token: str, form: str, target: str) -> int:
    with ui_client(served.url) as c:
        signed = sign_in(c, token)
        if form == "login" or signed.status_code != 303:
            return signed.status_code
        csrf = csrf_of(c.get("/ui/items").text)
        posts: dict[str, Callable[[], httpx.Response]] = {
            "logout": lambda: c.post("/ui/logout", data={"csrf": csrf}),
            "upload": lambda: c.post(
                "/ui/files",
                data={"csrf": csrf},
                files={"file": (f"{uuid.uuid4().hex}.md", b"# A\n\nhello\n")},
            ),
            "index": lambda: c.post(f"/ui/items/{target}/index", data={"csrf": csrf}),
            "index_pending": lambda: c.post("/ui/index-pending", data={"csrf": csrf}),
            "approve": lambda: c.post(f"/ui/inbox/{target}/approve", data={"csrf": csrf}),
            "reject": lambda: c.post(
                f"/ui/inbox/{target}/reject", data={"csrf": csrf, "reason": "no"}
            ),
        }
        r = posts[form]()
        if r.status_code == 303:
            assert not r.headers["location"].startswith("/ui/login?"), r.headers["location"]
        return r.status_code


@pytest.mark.slow  # ~15-20 s: a few hundred real requests
def test_every_ui_form_allows_exactly_what_http_allows(tmp_path: Path) -> None:
    with serve(tmp_path / "brain") as served:

        @settings(
            max_examples=150,
            deadline=None,
            suppress_health_check=[HealthCheck.too_slow],
            database=None,
        )
        @given(
            perms=st.sampled_from(READING),
            agent=st.booleans(),
            teams=st.sampled_from([(), ("core",)]),
            form=st.sampled_from(FORMS),
            scope=st.sampled_from(SCOPES),
        )
        # Issue 12.3: dave's read-only key approved his own personal proposal in the UI.
        @example(perms="read", agent=False, teams=(), form="approve", scope="user:dave")
        @example(perms="read", agent=False, teams=(), form="reject", scope="user:dave")
        def same_answer(
            perms: str, agent: bool, teams: tuple[str, ...], form: str, scope: str
        ) -> None:
            token = served.key(user="dave", perms=perms, teams=teams, agent=agent)
            over_http = _over_http(served, token, form, _target(served, form, scope))
            in_the_ui = _in_the_ui(served, token, form, _target(served, form, scope))
            assert (over_http in OK) == (in_the_ui in OK), (over_http, in_the_ui)

        same_answer()


@pytest.mark.parametrize("form", ["approve", "reject"])
def test_a_read_only_key_decides_nothing_in_the_ui_as_over_http(tmp_path: Path, form: str) -> None:
    """Issue 12.3, in the quick loop: dave's read-only key approved (or rejected) his own
    personal proposal at /ui (303, a note written) where HTTP answers 403."""
    with serve(tmp_path / "brain") as served:
        token = served.key(user="dave", perms="read")
        pid = _proposal(served.brain, "user:dave")
        assert _over_http(served, token, form, pid) == 403
        assert _in_the_ui(served, token, form, pid) == 403
        dave = served.brain.for_workspace("acme")
        assert dave.proposal(pid).state == "pending"
        assert [i for i in dave.items(limit=100).items if pid in i.body] == []


def test_a_key_that_cannot_read_cannot_sign_in(tmp_path: Path) -> None:
    """Every page reads, so a session needs ``read``; such a key keeps its HTTP uses."""
    with serve(tmp_path / "brain") as served:
        for perms in ("write", "review", "admin", "write,review,admin"):
            token = served.key(user="dave", perms=perms)
            with ui_client(served.url) as c:
                assert sign_in(c, token).status_code == 401
