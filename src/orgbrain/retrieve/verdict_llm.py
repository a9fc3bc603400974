"""The search verdict's top tier: a chat model asked about the offline verdict's close calls.

The gate (or the answerability judge) decides first. When a chat model is configured
(``ctx.chat``; ``Settings.verdict_llm`` not ``off``) and its decision was a close call
(``close_call``), the question and the first ``ASK`` hits the verdict read, each clipped
and dated, go to the model in one request: does any passage answer the question? Its
"no" silences a weak speech; its "yes" naming a passage makes a near miss speak, with
that passage as the grounds. A garbage reply, an HTTP error or a timeout
(``ASK_TIMEOUT_S``) leaves the offline verdict as it was, noted at the end of its
reason and logged: a search never fails because of the model.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

from .. import deadline
from ..context import BrainContext
from ..errors import Unavailable
from ..model import ItemSketch
from ..ports import Chat
from . import answer_verdict
from .answer_verdict import passage_text
from .answerable import shipped_answer_weights
from .plan import Gate
from .space_gate import space_bars
from .verdict import HitEvidence, Membership, bars_for

__all__ = ["ASK", "ASK_TIMEOUT_S", "BAND", "JUDGE_BAND", "Reply", "ask", "close_call", "decide"]

log = logging.getLogger(__name__)

BAND = 0.10
"""How far, in MiniLM's cosine (moved into the brain's space by its fitted scale,
``space_gate``), the cosine that decided may lie from the gate's speak bar
(``Gate.min_cosine``, 0.35 as shipped) on either side for the call to be close: 0.25 to
0.45 as shipped. Where the bar was chosen (docs/journal.md, issue 17) the two kinds of
mistake it trades sit there: questions with no answer held that speak on a neighbour
("how long is the probation period?" on "Parental leave: 20 weeks") at best cosines
0.35-0.40, and organisation paraphrases it misses at 0.23-0.39; each 0.01 of the bar in
that range moved silence without an answer by 1-3 points. Above 0.45 and below 0.25 the
curve was flat: the gate is as sure there as it gets, and a model would be asked for
little it could change."""
JUDGE_BAND = 0.15
"""For the answerability judge, how far its probability may lie from its threshold
(0.40 as shipped) for the call to be close: 0.25 to 0.55. Not measured on the judge's
scores: chosen as wide as ``BAND`` is on the gate's scale (0.10 of the 0.25 between its
speak bar and its speak-alone bar, ``Gate.plain_cosine``), about 0.4 of the way from the
threshold to either end the judge is sure at."""
ASK = 3
"""The most passages put to the model: the verdict's first hits, the one it decided on
among them."""
ASK_TIMEOUT_S = 10.0
"""The request's bound: a search waits on it, and the answer is one short object. Inside
a served request it is at most half the time the request has left (``deadline``): the
search still reads and cites its hits after."""
_MAX_PASSAGE = 700

_SYSTEM = (
    "You judge whether an organisation's memory holds the answer to a question. You are "
    "given the question and up to three numbered passages from the memory, each with its "
    'date. Answer with one JSON object: {"answers": true or false, "passage": the number '
    'of the passage that answers, or null, "why": "one short sentence"}. answers is true '
    "only when a passage states what the question asks; a passage on the same topic that "
    "does not say it, or says it of another person or thing, does not answer."
)


@dataclass(frozen=True, slots=True)
class Reply:
    """Whether a passage answers, which (its index among those asked, None for none), and
    the model's why."""

    answers: bool
    passage: int | None
    why: str


def decide(
    ctx: BrainContext,
    query: str,
    shown: Sequence[ItemSketch],
    evidence: Sequence[HitEvidence],
    gate: Gate,
) -> Membership:
    """The offline verdict (``answer_verdict.decide``), and on a close call the model's."""
    offline = answer_verdict.decide(ctx, query, shown, evidence, gate)
    chat = ctx.chat
    if chat is None or ctx.settings.verdict_llm == "off":
        return offline
    if not shown or not close_call(ctx.embedder.name, evidence, gate, offline):
        return offline
    first = [] if offline.hit is None else [offline.hit]
    asked = sorted((first + [i for i in range(len(shown)) if i != offline.hit])[:ASK])
    try:
        reply = ask(chat, query, [shown[i] for i in asked])
    except Exception as exc:  # reads fail open: the model never fails a search
        error = f"{type(exc).__name__}: {exc}"[:300]
        log.warning("verdict LLM tier skipped, the offline verdict stands: %s", error)
        return offline._replace(reason=f"{offline.reason}; verdict llm skipped: {error}")
    said = f"{reply.why!r} (close call; {offline.reason})"
    if reply.passage is not None:
        hit = asked[reply.passage]
        why = f"llm: hit {hit + 1} answers: {said}"
        return Membership(True, why, hit, "llm_answers", offline.p, reply.why)
    return Membership(False, f"llm: no hit answers: {said}", None, "llm_silent", None, reply.why)


def close_call(
    model: str, evidence: Sequence[HitEvidence], gate: Gate, offline: Membership
) -> bool:
    """Whether ``offline`` was decided near its bar: the judge's probability within
    ``JUDGE_BAND`` of its threshold; or the gate's cosine within ``BAND`` of its speak bar,
    that of the hit that spoke by its rules, or when none did the closest hit's. The
    graph's support and an empty search are no close calls."""
    if offline.p is not None:
        return abs(offline.p - shipped_answer_weights().threshold) <= JUDGE_BAND
    if offline.rule in ("graph", "no_hits"):
        return False
    top = list(evidence[: gate.depth])
    if offline.hit is not None:
        e: HitEvidence | None = top[offline.hit] if offline.hit < len(top) else None
    else:
        e = max((x for x in top if x.cosine is not None), key=_cosine, default=None)
    if e is None or e.cosine is None:
        return False
    return abs(e.cosine - bars_for(e, gate).min_cosine) <= BAND * _scale(model, e)


def ask(chat: Chat, query: str, passages: Sequence[ItemSketch]) -> Reply:
    """The model's reading of whether one of ``passages`` answers ``query``."""
    shown = "\n\n".join(
        f"Passage {n} ({item.when.date().isoformat()}): {passage_text(item).strip()[:_MAX_PASSAGE]}"
        for n, item in enumerate(passages, start=1)
    )
    question = f"Question: {query.strip()}\n\n{shown}\n\nDoes any passage answer the question?"
    messages = [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": question}]
    left = deadline.remaining()
    bound = ASK_TIMEOUT_S if left is None else min(ASK_TIMEOUT_S, left / 2)
    if bound <= 0:
        raise Unavailable("the request's deadline leaves no time to ask")
    return _reply(chat.complete(messages, json=True, timeout=bound), len(passages))


def _reply(reply: str, count: int) -> Reply:
    body = reply.strip()
    # some models fence their JSON even when asked for an object
    fenced = re.search(r"```(?:json)?\s*(.*?)```", body, re.DOTALL)
    payload = json.loads(fenced.group(1) if fenced else body)
    if not isinstance(payload, dict) or not isinstance(payload.get("answers"), bool):
        raise ValueError("the reply is not a JSON object with a true or false 'answers'")
    why = str(payload.get("why", "")).strip()[:300]
    if not payload["answers"]:
        return Reply(False, None, why)
    n = payload.get("passage")
    # a "yes" must say which passage, or there is nothing to cite
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= count:
        raise ValueError(f"the reply says a passage answers but names none of 1-{count}")
    return Reply(True, n - 1, why)


def _cosine(e: HitEvidence) -> float:
    return -1.0 if e.cosine is None else e.cosine


def _scale(model: str, e: HitEvidence) -> float:
    """How many of the brain's cosine units one of MiniLM's is, for ``e``'s language."""
    bars = space_bars(model)
    if bars is None:
        return 1.0
    line = bars.across if e.lang == "other" and bars.across is not None else bars.same
    return line.scale
