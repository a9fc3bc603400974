"""The judge's top tier: a chat model asked about the pairs the offline judge is unsure of.

A pair whose probability falls in ``UNSURE`` (under the judge's threshold, over the
floor) is put to the configured chat model as one question: does the newer unit
replace what the older said, add to it, conflict with it, or is it unrelated? Only
``replaces`` makes the pair supersede. Anything else, a garbage reply, a timeout or a
server error included, leaves the offline judgement standing and is logged: derivation
never fails because of the model. At most ``ASK`` pairs are asked per derived item, the
most probable first, each bounded by ``ASK_TIMEOUT_S``.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass

from ..errors import OrgBrainError
from ..model import Item
from ..ports import Chat

__all__ = ["ASK", "ASK_TIMEOUT_S", "RELATIONS", "UNSURE_FLOOR", "Answer", "ask"]

log = logging.getLogger(__name__)

UNSURE_FLOOR = 0.80
"""The lowest judge probability put to the model; the top of the band is the judge's
threshold (0.894 as shipped). Chosen from the judge's out-of-fold bag scores on the 35
living sets (each organisation scored by weights fitted without it; 788 replaced, 631
controls, session 16) as the lowest floor at which the controls in the band stay within
the fit's own false-supersession allowance (``judge_fit.MAX_FALSE``, 0.04): even a model
that answered "replaces" to every question could add at most that much. At 0.80 the band
holds 23 controls (0.036) and 90 of the 788 replaced (0.114; a quarter of the 0.46 the
judge misses); at 0.5 it would hold 116 controls (0.184) for 241 replaced (0.306), so a
model wrong on one control in five would double false supersession."""
ASK = 3
"""The most pairs asked about per derived item, the most probable first."""
ASK_TIMEOUT_S = 15.0
"""Each question's bound: a short answer about two sentences."""
RELATIONS = ("replaces", "adds", "conflicts", "unrelated")
_MAX_UNIT = 600

_SYSTEM = (
    "You judge whether one note in an organisation's memory replaces another. You are "
    "given an older statement and a newer one, each with its date. Answer with one JSON "
    'object: {"relation": "replaces|adds|conflicts|unrelated", "why": "one short '
    'sentence"}. replaces: the newer makes what the older said no longer true or no '
    "longer current. adds: the newer adds to the older and both stay true. conflicts: "
    "they disagree but were said at the same time by different sources, so neither "
    "clearly replaces the other. unrelated: they speak of different things."
)


@dataclass(frozen=True, slots=True)
class Answer:
    """The model's ``relation`` and its ``why``; ``error`` (relation "") when there was
    no usable answer and the offline judgement stands."""

    relation: str
    why: str
    error: str = ""


def ask(chat: Chat, old: Item, old_text: str, new: Item, new_text: str) -> Answer:
    """The model's reading of whether ``new_text`` (of ``new``) replaces ``old_text``."""
    question = (
        f"Older ({old.when.date().isoformat()}): {old_text.strip()[:_MAX_UNIT]}\n"
        f"Newer ({new.when.date().isoformat()}): {new_text.strip()[:_MAX_UNIT]}\n"
        "Does the newer replace what the older said, add to it, conflict with it "
        "(same time, different sources), or is it unrelated?"
    )
    messages = [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": question}]
    try:
        reply = chat.complete(messages, json=True, timeout=ASK_TIMEOUT_S)
        return _answer(reply)
    except (OrgBrainError, ValueError) as exc:
        error = f"{type(exc).__name__}: {exc}"[:300]
        log.warning("supersession LLM tier skipped, the judge's decision stands: %s", error)
        return Answer("", "", error)


def _answer(reply: str) -> Answer:
    body = reply.strip()
    # some models fence their JSON even when asked for an object
    fenced = re.search(r"```(?:json)?\s*(.*?)```", body, re.DOTALL)
    payload = json.loads(fenced.group(1) if fenced else body)
    if not isinstance(payload, dict):
        raise ValueError("the reply is not a JSON object")
    relation = str(payload.get("relation", "")).strip().lower()
    if relation not in RELATIONS:
        raise ValueError(f"the reply names no known relation: {relation[:40]!r}")
    return Answer(relation, str(payload.get("why", "")).strip()[:300])
