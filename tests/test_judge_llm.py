"""The supersession judge's LLM tier (``derive/judge_llm.py``): a real brain with the real
model, a chat model served over the OpenAI protocol on 127.0.0.1, asked only about the
pairs the offline judge is unsure of, and never able to fail a derivation."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

import pytest

from orgbrain import Brain
from orgbrain.cli.memory import _link
from orgbrain.derive import judge_llm
from orgbrain.ports import Embedder
from orgbrain.settings import Settings
from tests.json_server import ChatFake, serving
from tests.restating import NOV, SEP, derived

# one of the newcomer pairs: a real replacement the judge scores under its threshold
OLDER = "Our staging database is backed up every 6 hours."
NEWER = "From November the staging DB backups run hourly instead."
# one it knows (tests/test_judge.py): above the threshold
KNOWN = (
    "We track sprint work in Trello.",
    "Trello has been dropped; sprint boards now live in Linear.",
)
CONTROL = (
    "Production deploys need approval from two engineers.",
    "Staging deploys need approval from one engineer.",
)
QUESTION = "Does the newer replace"


class _Judge(ChatFake):
    """The judge's questions answered with the relation ``mode`` names, or the failures
    of ``ChatFake``."""

    question = QUESTION
    late: ClassVar[dict[str, object]] = {"relation": "replaces", "why": "too late"}

    def answer(self, text: str) -> dict[str, object]:
        return {"relation": self.mode, "why": "hourly backups replace the six-hourly schedule"}


@pytest.fixture
def server() -> Iterator[tuple[str, type[_Judge]]]:
    handler = type("Handler", (_Judge,), {"mode": "replaces", "asked": []})
    with serving(handler) as url:
        yield url, handler


def _brain(embedder: Embedder, url: str | None) -> Brain:
    chat = {"chat_url": url, "chat_model": "test-model"} if url else {}
    return Brain.in_memory(embedder=embedder, settings=Settings(supersession="judge", **chat))


def _judged(brain: Brain, older: str, newer: str) -> tuple[str, str, dict[str, object]]:
    old, new = derived(brain, (older, SEP), (newer, NOV))
    story = brain.story(new)
    assert story.derivation == "done", story.error
    (step,) = [s for s in story.steps if s.get("step") == "judged"]
    return old, new, step


def _about(asked: list[str], unit: str) -> list[str]:
    return [q for q in asked if unit in q]


def test_a_pair_in_the_band_the_model_says_replaces_is_superseded_by_the_llm_tier(
    embedder: Embedder, server: tuple[str, type[_Judge]]
) -> None:
    url, handler = server
    with _brain(embedder, url) as b:
        old, new, step = _judged(b, OLDER, NEWER)
        (link,) = b.story(old).superseded_by
    (question,) = _about(handler.asked, OLDER)
    assert NEWER in question and "2026-09-03" in question and "2026-11-16" in question
    assert link.new.id == new and link.reason == "judged" and link.why["tier"] == "llm"
    p = link.why["probability"]
    assert judge_llm.UNSURE_FLOOR <= p < 0.894
    assert link.why["llm"] == {
        "relation": "replaces",
        "why": "hourly backups replace the six-hourly schedule",
    }
    (pair,) = step["judged"]  # type: ignore[misc]
    assert pair["tier"] == "llm" and pair["probability"] == p
    assert "LLM: 'hourly backups replace the six-hourly schedule'" in _link(link)


@pytest.mark.parametrize("mode", ["adds", "conflicts", "unrelated", "garbage", "error", "slow"])
def test_any_other_answer_or_a_failure_leaves_the_judge_s_decision(
    embedder: Embedder,
    server: tuple[str, type[_Judge]],
    monkeypatch: pytest.MonkeyPatch,
    mode: str,
) -> None:
    url, handler = server
    handler.mode = mode
    monkeypatch.setattr(judge_llm, "ASK_TIMEOUT_S", 0.3)
    with _brain(embedder, url) as b:
        old, _, step = _judged(b, OLDER, NEWER)
        assert not b.story(old).superseded_by
    assert len(_about(handler.asked, OLDER)) == 1
    (asked,) = [a for a in step["asked"] if a["old"] == old]  # type: ignore[attr-defined]
    if mode in ("adds", "conflicts", "unrelated"):
        assert asked["relation"] == mode and "error" not in asked
    else:
        assert asked["error"] and "relation" not in asked


def test_a_pair_above_the_threshold_is_decided_without_the_model(
    embedder: Embedder, server: tuple[str, type[_Judge]]
) -> None:
    url, handler = server
    with _brain(embedder, url) as b:
        old, new, _ = _judged(b, *KNOWN)
        (link,) = b.story(old).superseded_by
    assert link.new.id == new and link.why["tier"] == "judge" and "llm" not in link.why
    assert not _about(handler.asked, KNOWN[0])


def test_a_pair_under_the_floor_is_not_asked_even_of_a_model_that_always_replaces(
    embedder: Embedder, server: tuple[str, type[_Judge]]
) -> None:
    # the newcomer's control: the judge gives it 0.45, under the band
    older, newer = CONTROL
    url, handler = server
    with _brain(embedder, url) as b:
        old, _, _ = _judged(b, older, newer)
        assert not b.story(old).superseded_by
    assert not _about(handler.asked, older)


def test_without_a_chat_model_nothing_is_asked_and_nothing_changes(
    embedder: Embedder, server: tuple[str, type[_Judge]]
) -> None:
    _, handler = server
    with _brain(embedder, None) as b:
        old, _, step = _judged(b, OLDER, NEWER)
        known_old, known_new, _ = _judged(b, *KNOWN)
        assert not b.story(old).superseded_by and "asked" not in step
        (link,) = b.story(known_old).superseded_by
        assert link.new.id == known_new and link.why["tier"] == "judge"
    assert handler.asked == []


def test_at_most_ask_pairs_are_put_to_the_model_per_derived_item(
    embedder: Embedder, server: tuple[str, type[_Judge]], monkeypatch: pytest.MonkeyPatch
) -> None:
    url, handler = server
    handler.mode = "adds"
    monkeypatch.setattr(judge_llm, "UNSURE_FLOOR", 0.0)  # every judged pair is unsure
    with _brain(embedder, url) as b:
        _, _, step = _judged(
            b,
            (OLDER + " " + KNOWN[0] + " Deploys need one approval. Retention is 14 days."),
            (NEWER + " Trello is still used. Deploys need two approvals. Retention is 30 days."),
        )
    asked = step["asked"]
    assert isinstance(asked, list) and 0 < len(asked) <= judge_llm.ASK
    probabilities = [a["probability"] for a in asked]
    assert probabilities == sorted(probabilities, reverse=True)
