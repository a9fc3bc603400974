"""schemathesis against the served OpenAPI: generated requests (valid and invalid) to every
operation, with a real key, on a brain holding real items. No 5xx, and every response
matches the spec: its status is documented, its content type too, its body validates.

Bounded for CI: ``MAX_EXAMPLES`` per operation (about a minute on two cores), on each
backend: the embedded brain, and PostgreSQL + S3 (tests/backends.py).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.backends import BACKENDS, backend_for
from tests.test_server import HANDBOOK, Served, serve, wait_state

pytestmark = pytest.mark.slow

MAX_EXAMPLES = 50
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection,
]
CALLS = {"n": 0, "5xx": 0}
STATUSES: Counter[int] = Counter()
PROPOSALS: list[str] = []


@pytest.fixture(scope="module", params=BACKENDS)
def api(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Served, str, list[str]]]:
    """A server per backend (the embedded brain, and PostgreSQL + S3), seeded."""
    folder: Path = tmp_path_factory.mktemp("fuzz") / "brain"
    PROPOSALS.clear()
    CALLS.update(n=0, **{"5xx": 0})
    STATUSES.clear()
    # A write with wait=derived waits at most half a second here (then 202); a following
    # event stream stays open for its timeout (up to an hour): here, 0.3 s.
    with (
        backend_for(request.param, request) as backend,
        serve(
            folder,
            max_file_bytes=64 * 1024,
            derive_wait_s=0.5,
            stream_max_s=0.3,
            backend=backend,
        ) as s,
    ):
        token = s.key(perms="read,write,admin", teams=["eng"])
        with s.http(token) as c:
            note = c.post("/v1/notes", json={"body": "Deploys freeze on Fridays"}).json()["id"]
            r = c.post("/v1/files", files={"file": ("handbook.md", HANDBOOK)})
            fid = r.json()["id"]
            c.post(f"/v1/files/{fid}/index")
            assert wait_state(c, fid, {"indexed", "failed"})["state"] == "indexed"
            sections = [x["id"] for x in c.get(f"/v1/items/{fid}/sections").json()["sections"]]
            # A run written back: its pass done, a proposal waiting in this key's inbox.
            run = {
                "outcome": "succeeded",
                "summary": "Alice prefers async standups.",
                "user_id": "alice",
            }
            ack = c.post("/v1/runs/run-1/writeback?wait=true", json=run).json()
            assert ack["state"] == "done" and ack["counts"] == {"pending": 1}, ack
            PROPOSALS.extend(p["id"] for p in ack["proposals"])
        yield s, token, [note, fid, *sections]
    _report(request, request.param)


def _report(request: pytest.FixtureRequest, name: str) -> None:
    plugins = request.config.pluginmanager
    reporter, capture = plugins.get_plugin("terminalreporter"), plugins.get_plugin("capturemanager")
    statuses = dict(sorted(STATUSES.items()))
    line = f"schemathesis on {name}: {CALLS['n']} calls, statuses {statuses}"
    if reporter is None or capture is None:  # pragma: no cover - plugins turned off
        print(line)
        return
    with capture.global_and_fixture_disabled():
        reporter.write_line("")
        reporter.write_line(line)


@pytest.fixture(scope="module")
def api_schema(api: tuple[Served, str, list[str]]) -> Any:
    served, token, ids = api
    loaded = schemathesis.openapi.from_url(f"{served.url}/openapi.json")
    # The key as configured auth: schemathesis then knows the header is supplied, and its
    # negative cases (a missing or broken header) are judged with that in mind.
    loaded.config.update(headers={"Authorization": f"Bearer {token}"})

    @loaded.hook
    def before_generate_path_parameters(_context: Any, strategy: Any) -> Any:
        # Half the time, aim at an item that exists, so 200s get validated too.
        def real(params: dict[str, Any]) -> Any:
            if isinstance(params, dict) and "item_id" in params:
                return st.sampled_from(ids).map(lambda i: {**params, "item_id": i})
            if isinstance(params, dict) and "proposal_id" in params and PROPOSALS:
                return st.sampled_from(PROPOSALS).map(lambda i: {**params, "proposal_id": i})
            if isinstance(params, dict) and "run_id" in params:
                return st.just({**params, "run_id": "run-1"})
            return st.just(params)

        return st.one_of(strategy, strategy.flatmap(real))

    return loaded


schema = schemathesis.pytest.from_fixture("api_schema")


@pytest.fixture(autouse=True)
def _node_id_for_schemathesis(request: pytest.FixtureRequest) -> None:
    # schemathesis (4.32.5 and before) reads and rewrites the private ``node._nodeid``, which
    # pytest 9.2 replaced with a structured ``_id``: without this, every case fails with
    # "'Function' object has no attribute '_nodeid'". The copy only labels its subtests.
    if not hasattr(request.node, "_nodeid"):
        request.node._nodeid = request.node.nodeid


@schema.parametrize()
# Hypothesis warns when the global ``random`` state moves while it draws a case; here the
# served brain runs on other threads (its worker, uvicorn's loop), whose use of ``random``
# can land inside a draw. One CI run in many failed on it (a POST /v1/files case that
# passed on replay): another thread's state, not a strategy's.
@pytest.mark.filterwarnings("ignore:Do not use the `random` module inside strategies")
@settings(
    max_examples=MAX_EXAMPLES,
    # CI replays a fixed exploration so a landing never hangs on luck; set
    # ORGBRAIN_FUZZ_RANDOM=1 to explore afresh (one such run found a flaky POST /v1/files case).
    derandomize=os.environ.get("ORGBRAIN_FUZZ_RANDOM") != "1",
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_the_api_matches_its_openapi(case: Any, api: tuple[Served, str, list[str]]) -> None:
    response = case.call(timeout=30)
    CALLS["n"] += 1
    CALLS["5xx"] += response.status_code >= 500
    STATUSES[response.status_code] += 1
    case.validate_response(response, checks=_checks_for(case))


def _checks_for(case: Any) -> list[Any]:
    """Every check, except negative-data rejection on multipart bodies: a form field is text
    on the wire, so a "negative" case that makes ``kind`` an array or a number arrives as the
    string "0.0" or "{}", which the server rightly accepts. (One CI run in many drew such a
    case on POST /v1/files and failed on a 201.) Multipart cases still get every other check."""
    if case.media_type == "multipart/form-data":
        return [c for c in CHECKS if c is not negative_data_rejection]
    return CHECKS


def test_the_fuzzer_really_called(api: tuple[Served, str, list[str]]) -> None:
    assert CALLS["n"] >= 100, CALLS
    assert CALLS["5xx"] == 0
    assert {200, 401, 404, 422} <= set(STATUSES), STATUSES
