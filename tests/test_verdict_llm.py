"""The search verdict's LLM tier (``retrieve/verdict_llm.py``): a real brain with the real
model, a chat model served over the OpenAI protocol on 127.0.0.1, asked only about the
gate's close calls, and never able to fail a search."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import ClassVar

import pytest

from orgbrain import Brain
from orgbrain.brain import NoteInput
from orgbrain.deadline import within
from orgbrain.errors import InvalidInput
from orgbrain.model import SearchResult
from orgbrain.ports import Embedder
from orgbrain.retrieve import verdict_llm
from orgbrain.retrieve.plan import get_plan
from orgbrain.retrieve.space_gate import in_space
from orgbrain.retrieve.verdict import HitEvidence, Membership
from orgbrain.settings import Settings
from orgbrain.views import SearchResultView
from tests.json_server import ChatFake, serving

NOTES = (
    "Parental leave: 20 weeks, fully paid.",
    "Marcus Lee owns the payments service.",
    "Priya owns billing.",
    "Deploy freeze: Fridays after noon.",
    "The office plants are watered by Sam on Mondays.",
    "New joiners get a laptop and a buddy in their first week.",
    "Expenses over 500 EUR need a manager's approval.",
)
# The gate speaks on a neighbour (best cosine 0.41, 0.06 over its bar): nothing owns the office.
WEAK_SPEECH = "who owns the office?"
# The gate is silent (best cosine 0.35, just under its bar) though the expenses note answers.
NEAR_MISS = "What is our travel expense policy?"
ANSWER = "Expenses over 500 EUR"
# Out of the band: the gate speaks at cosine 0.82; the score floors leave nothing to ask of.
SURE = "how many weeks of parental leave are there?"
FAR = "what is the wifi password?"
QUESTION = "Does any passage answer the question?"
WHY = "the passages speak of other things"


class _Model(ChatFake):
    """The verdict's questions answered as ``mode`` says: ``no``, ``yes`` (naming the
    passage that holds ``ANSWER``), ``unnamed`` (a "yes" that names no passage cites
    nothing), or the failures of ``ChatFake``."""

    question = QUESTION
    late: ClassVar[dict[str, object]] = {"answers": False, "passage": None, "why": "too late"}

    def answer(self, text: str) -> dict[str, object]:
        if self.mode == "unnamed":
            return {"answers": True, "passage": None, "why": "one does"}
        if self.mode == "yes":
            n = next(int(m) for m, said in _passages(text) if ANSWER in said)
            return {"answers": True, "passage": n, "why": "it says which expenses need approval"}
        return {"answers": False, "passage": None, "why": WHY}


def _passages(question: str) -> list[tuple[str, str]]:
    return re.findall(r"Passage (\d) \(\d{4}-\d\d-\d\d\): (.*)", question)


@pytest.fixture
def server() -> Iterator[tuple[str, type[_Model]]]:
    handler = type("Handler", (_Model,), {"mode": "no", "asked": []})
    with serving(handler, quiet=True) as url:
        yield url, handler


def _searched(embedder: Embedder, url: str | None, *queries: str, **kw: str) -> list[SearchResult]:
    """What a brain holding ``NOTES`` answers each of ``queries``; each search's logged
    event checked to name the tier its result does."""
    chat = {"chat_url": url, "chat_model": "test-model"} if url else {}
    settings = Settings(**chat, **kw)  # type: ignore[arg-type]
    with Brain.in_memory(embedder=embedder, settings=settings) as b:
        b.add_notes([NoteInput(body=n) for n in NOTES])
        results = [b.search(q) for q in queries]
        logged = list(reversed(b.events("search", limit=100)))
    assert [e["tier"] for e in logged] == [r.tier for r in results]
    return results


@pytest.fixture(scope="module")
def offline(embedder: Embedder) -> dict[str, SearchResult]:
    """What the gate alone says of each question (no chat model)."""
    queries = (WEAK_SPEECH, NEAR_MISS, SURE, FAR)
    return dict(zip(queries, _searched(embedder, None, *queries), strict=True))


def test_with_no_chat_model_the_gate_decides_its_close_calls_alone(
    offline: dict[str, SearchResult],
) -> None:
    weak, near = offline[WEAK_SPEECH], offline[NEAR_MISS]
    assert weak.speak and weak.tier == "gate" and "gate: hit 1 matches" in weak.reason
    assert not near.speak and near.tier == "gate" and "relevance floor" in near.reason
    assert offline[SURE].tier == "gate" and offline[FAR].tier == ""  # the floors decided


def test_the_model_s_no_silences_a_close_call_speech(
    embedder: Embedder, server: tuple[str, type[_Model]], offline: dict[str, SearchResult]
) -> None:
    url, handler = server
    (result,) = _searched(embedder, url, WEAK_SPEECH)
    assert result.verdict == "none" and not result.hits and result.tier == "llm"
    assert result.reason.startswith(f"llm: no hit answers: {WHY!r} (close call; ")
    assert offline[WEAK_SPEECH].reason.split("; ", 1)[1] in result.reason  # the gate's, kept
    assert result.why.startswith("Close but not an answer: the chat model read the closest")
    assert result.why.endswith(f"says: {WHY}")
    (question,) = handler.asked
    assert question.startswith(f"Question: {WEAK_SPEECH}")
    shown = _passages(question)
    assert [n for n, _ in shown] == ["1", "2", "3"]  # at most three, each dated
    view = SearchResultView.of(result)
    assert view.tier == "llm" and view.to_model().tier == "llm"


def test_the_model_s_yes_makes_a_near_miss_speak_with_the_passage_it_names(
    embedder: Embedder, server: tuple[str, type[_Model]]
) -> None:
    url, handler = server
    handler.mode = "yes"
    (result,) = _searched(embedder, url, NEAR_MISS)
    assert result.speak and result.tier == "llm"
    assert any(h.item.body.startswith(ANSWER) for h in result.hits)
    said = "'it says which expenses need approval'"
    assert re.match(rf"kept \d; llm: hit \d answers: {said}", result.reason)
    assert result.why.startswith(f'Answers: "{ANSWER}')
    assert result.why.endswith("the chat model says: it says which expenses need approval")
    assert len(handler.asked) == 1


def test_outside_the_band_the_model_is_not_asked(
    embedder: Embedder, server: tuple[str, type[_Model]], offline: dict[str, SearchResult]
) -> None:
    url, handler = server
    sure, far = _searched(embedder, url, SURE, FAR)
    assert handler.asked == []
    for got, want in ((sure, offline[SURE]), (far, offline[FAR])):
        assert (got.verdict, got.reason, got.why, got.tier) == (
            want.verdict,
            want.reason,
            want.why,
            want.tier,
        )


@pytest.mark.parametrize("mode", ["garbage", "error", "slow", "unnamed"])
def test_a_failed_or_unusable_answer_leaves_the_offline_verdict(
    embedder: Embedder,
    server: tuple[str, type[_Model]],
    offline: dict[str, SearchResult],
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
) -> None:
    url, handler = server
    handler.mode = mode
    monkeypatch.setattr(verdict_llm, "ASK_TIMEOUT_S", 0.3)
    got = _searched(embedder, url, WEAK_SPEECH, NEAR_MISS)
    assert len(handler.asked) == 2
    for result, query in zip(got, (WEAK_SPEECH, NEAR_MISS), strict=True):
        want = offline[query]
        assert (result.verdict, result.why, result.tier) == (want.verdict, want.why, "gate")
        assert [h.item.body for h in result.hits] == [h.item.body for h in want.hits]
        assert result.reason.startswith(f"{want.reason}; verdict llm skipped: ")


def test_a_request_s_deadline_bounds_the_question(
    embedder: Embedder, server: tuple[str, type[_Model]], offline: dict[str, SearchResult]
) -> None:
    url, handler = server
    handler.mode = "slow"  # answers in 2 s, inside the tier's own 10 s
    with Brain.in_memory(embedder=embedder, settings=Settings(chat_url=url, chat_model="m")) as b:
        b.add_notes([NoteInput(body=n) for n in NOTES])
        t0 = time.monotonic()
        with within(0.8):  # a served request with 0.8 s left: the model gets half of it
            result = b.search(WEAK_SPEECH)
        took = time.monotonic() - t0
    assert took < 1.5 and len(handler.asked) == 1
    assert result.verdict == offline[WEAK_SPEECH].verdict and result.tier == "gate"
    assert "verdict llm skipped: Unavailable" in result.reason


def test_the_setting_turns_the_tier_off_and_keeps_the_model_for_the_rest(
    embedder: Embedder, server: tuple[str, type[_Model]], offline: dict[str, SearchResult]
) -> None:
    url, handler = server
    got = _searched(embedder, url, WEAK_SPEECH, NEAR_MISS, verdict_llm="off")
    assert handler.asked == []
    assert [(r.verdict, r.reason, r.tier) for r in got] == [
        (offline[q].verdict, offline[q].reason, "gate") for q in (WEAK_SPEECH, NEAR_MISS)
    ]
    assert Settings.from_env({"ORGBRAIN_VERDICT_LLM": "off"}).verdict_llm == "off"
    assert Settings.from_env({}).verdict_llm == "on"
    with pytest.raises(InvalidInput, match="ORGBRAIN_VERDICT_LLM must be on or off"):
        Settings.from_env({"ORGBRAIN_VERDICT_LLM": "maybe"})


def test_a_close_call_is_read_in_the_brain_s_own_cosines_and_the_judge_s_probability() -> None:
    gate = get_plan("tuned-z").gate
    assert gate is not None and gate.min_cosine == 0.35
    silent = Membership(False, "relevance floor", None, "unmatched")
    near = [HitEvidence(names=True, coverage=0.2, cosine=0.30)]
    assert verdict_llm.close_call("all-MiniLM-L6-v2", near, gate, silent)
    far = [HitEvidence(names=True, coverage=0.2, cosine=0.20)]
    assert not verdict_llm.close_call("all-MiniLM-L6-v2", far, gate, silent)
    # e5's cosines crowd together: its bar is 0.67 + 0.4 * 0.35 = 0.81, its band 0.04
    e5 = "multilingual-e5-small-q4"
    e5_gate = in_space(get_plan("tuned-z"), e5).gate
    assert e5_gate is not None and e5_gate.min_cosine == 0.81
    assert verdict_llm.close_call(e5, [HitEvidence(True, 0.2, cosine=0.78)], e5_gate, silent)
    assert not verdict_llm.close_call(e5, [HitEvidence(True, 0.2, cosine=0.75)], e5_gate, silent)
    # the graph's support is no close call, whatever the cosine
    graph = Membership(True, "graph: hit 1 states it", 0, "graph")
    assert not verdict_llm.close_call("all-MiniLM-L6-v2", near, gate, graph)
    # the judge's: its probability against its threshold (0.40)
    unsure = Membership(False, "judge: no hit answers", None, "unanswered", p=0.5)
    sure = Membership(True, "judge: hit 1 answers", 0, "answers", p=0.9)
    assert verdict_llm.close_call("all-MiniLM-L6-v2", far, gate, unsure)
    assert not verdict_llm.close_call("all-MiniLM-L6-v2", far, gate, sure)


def test_the_judge_s_close_calls_go_to_the_model_too(
    embedder: Embedder, server: tuple[str, type[_Model]]
) -> None:
    # the answerability judge speaks at p 0.46 (threshold 0.40) on a question nothing
    # answers, and is sure (p 0.93) of one the payments note answers
    unsure, sure = "how long is the probation period for new joiners?", "who owns payments?"
    url, handler = server
    weak, known = _searched(embedder, url, unsure, sure, verdict="judge")
    assert weak.verdict == "none" and weak.tier == "llm"
    assert re.search(r"\(close call; judge: hit \d answers \(p 0\.4\d", weak.reason)
    assert known.speak and known.tier == "judge"
    (question,) = handler.asked
    assert question.startswith(f"Question: {unsure}")
