"""The rerank seam: the HTTP adapter against a real protocol server on 127.0.0.1 (both
shapes, and every way it can fail open), and a configured reranker reordering a real
brain's search."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from orgbrain import Brain
from orgbrain.adapters.rerank_http import HTTPReranker
from orgbrain.errors import Unavailable
from orgbrain.ports import Embedder
from orgbrain.retrieve.rerank import BrainOrder, judge
from orgbrain.settings import Settings
from tests.json_server import JSONHandler, serving


def _overlap(query: str, text: str) -> float:
    """The server's rule: how many of the query's words the passage holds."""
    words = set(re.findall(r"\w+", query.lower()))
    return float(len(words & set(re.findall(r"\w+", text.lower()))))


@dataclass
class Rules:
    """How the server answers: ``mode`` is ok, slow, error or garbage."""

    mode: str = "ok"
    seen: list[dict[str, object]] | None = None


@pytest.fixture
def server() -> Iterator[tuple[str, Rules]]:
    rules = Rules(seen=[])

    class Handler(JSONHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            assert rules.seen is not None
            rules.seen.append(body)
            if rules.mode == "slow":
                time.sleep(1.0)
            if rules.mode == "error":
                return self._send(503, {"error": "model is loading"})
            if rules.mode == "garbage":
                return self._send(200, {"results": [{"index": 99, "relevance_score": "x"}]})
            query = body["query"]
            if "texts" in body:  # TEI
                scores = [_overlap(query, t) for t in body["texts"]]
                return self._send(200, [{"index": i, "score": s} for i, s in enumerate(scores)])
            scores = [_overlap(query, d) for d in body["documents"]]
            best = sorted(range(len(scores)), key=lambda i: -scores[i])[: body["top_n"]]
            results = [{"index": i, "relevance_score": scores[i]} for i in best]
            return self._send(200, {"model": body.get("model"), "results": results})

    # The slow answer's client has gone when it is written: no traceback for that.
    with serving(Handler, poll_s=0.05, quiet=True) as url:
        yield url, rules


DOCS = ["the cafeteria menu", "billing owner is Priya", "who owns billing: Priya Raman"]


@pytest.mark.parametrize("protocol", ["cohere", "tei"])
def test_both_shapes_score_each_passage(server: tuple[str, Rules], protocol: str) -> None:
    url, rules = server
    reranker = HTTPReranker(url, "bge-reranker", protocol=protocol)
    scores = reranker.rerank("who owns billing", DOCS)
    assert scores == [0.0, 1.0, 3.0]
    assert rules.seen is not None
    sent = rules.seen[-1]
    if protocol == "tei":
        assert sent == {"query": "who owns billing", "texts": DOCS}
    else:
        assert sent == {
            "model": "bge-reranker",
            "query": "who owns billing",
            "documents": DOCS,
            "top_n": 3,
        }
    assert judge(reranker, "who owns billing", DOCS).order == [2, 1, 0]


@pytest.mark.parametrize("mode", ["slow", "error", "garbage"])
def test_a_failing_reranker_keeps_the_brains_order(
    server: tuple[str, Rules], mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    url, rules = server
    rules.mode = mode
    reranker = HTTPReranker(url, protocol="cohere", timeout=0.3)
    with pytest.raises(Unavailable):
        reranker.rerank("who owns billing", DOCS)
    judged = judge(reranker, "who owns billing", DOCS)
    assert judged.order is None and judged.note.startswith("skipped: Unavailable")
    assert "skipped" in caplog.text


def test_the_brains_own_order_is_the_default_judge() -> None:
    judged = judge(BrainOrder(), "anything", DOCS)
    assert judged.order is None and judged.note == ""


NOTES = [
    "Refunds over 500 EUR are approved by the finance lead, Priya Raman.",
    "Priya Raman leads finance and signs off large refunds.",
    "Office notes: the kitchen is cleaned on Fridays, parking is booked in the app, and who "
    "approves refunds is written in the finance handbook, which the lead keeps.",
]


def test_a_configured_reranker_reorders_a_real_search(
    tmp_path: Path, embedder: Embedder, server: tuple[str, Rules]
) -> None:
    url, rules = server
    asked = "who approves refunds in finance"
    plain = Brain.open(tmp_path / "plain", embedder=embedder)
    judged = Brain.open(
        tmp_path / "judged",
        embedder=embedder,
        settings=Settings(rerank_url=url, rerank_protocol="tei"),
    )
    try:
        for b in (plain, judged):
            for text in NOTES:
                b.add_note(text)
        before = [h.item.body for h in plain.search(asked, plan="hybrid").hits]
        after = judged.search(asked, plan="hybrid")
        bodies = [h.item.body for h in after.hits]
        # The server's order (most shared words first; ties in the brain's order) is not
        # the brain's: the office note says every word of the question, among others.
        assert bodies == sorted(before, key=lambda t: -_overlap(asked, t)) != before
        assert bodies[0] == NOTES[2]
        assert all(h.rerank == "tei:" + url + "/rerank" for h in after.hits)
        # The server fails: the brain's order stands, and each hit says so.
        rules.mode = "error"
        failed = judged.search(asked, plan="hybrid")
        assert [h.item.body for h in failed.hits] == before
        assert all(h.rerank.startswith("skipped") for h in failed.hits)
        assert "reranker skipped" in failed.reason
    finally:
        plain.close()
        judged.close()
