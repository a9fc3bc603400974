"""The LLM tier: ask a chat model for statements as JSON, keep only what the text shows.

A statement survives when its type is valid and its quoted evidence is found verbatim in
the text (which gives exact offsets), with its subject inside that evidence. Predicates are
canonicalised like the patterns' own. A failed call or a garbage reply never raises: the
lower tiers' result comes back unchanged and the reason is logged and kept in
``last_error``.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Sequence
from typing import Any

from ..errors import OrgBrainError
from ..ports import Chat
from .patterns import merge_entities
from .predicates import attribute_predicate, snake
from .sentences import split_units
from .types import STATEMENT_TYPES, Claim, Extraction, Found

__all__ = ["LLMTier"]

log = logging.getLogger(__name__)

MAX_TEXT_CHARS = 12_000
_VERBS = {
    "owns": "owner",
    "owned_by": "owner",
    "is_owned_by": "owner",
    "responsible_for": "owner",
    "is_responsible_for": "owner",
    "leads": "owner",
    "led_by": "owner",
    "maintains": "owner",
    "maintained_by": "owner",
    "likes": "prefers",
    "loves": "prefers",
    "wants": "prefers",
    "prefer": "prefers",
    "hates": "dislikes",
    "migrates_to": "migration_target",
    "moves_to": "migration_target",
    "moving_to": "migration_target",
    "migrating_to": "migration_target",
    "stands_for": "means",
    "defined_as": "means",
    "deadline": "date",
    "due_date": "date",
    "uses_system": "uses",
    "runs_on": "uses",
    "hosted_on": "uses",
}
_SYSTEM = (
    "You extract statements from an organisation's notes. Reply with one JSON object: "
    '{"statements": [{"type": "fact|preference|event|decision", "subject": str, '
    '"predicate": str, "object": str, "evidence": str, "replaces": str|null}]}. '
    "subject: what the statement is about (for ownership the owned thing; for a preference "
    "the person); predicate: snake_case, canonical (owner, migration_target, date, schedule, "
    "means, uses, prefers, dislikes, is, status, released, incident, joined, left, decided); "
    "object: the value as written; evidence: the sentence, copied exactly from the text; "
    "replaces: what the statement explicitly displaces, else null. Questions, hedges and "
    "greetings state nothing. Use only what the text says."
)


class LLMTier:
    """Adds the statements a chat model finds that the lower tiers did not."""

    def __init__(self, chat: Chat, *, timeout: float | None = 60.0) -> None:
        self.chat = chat
        self.timeout = timeout
        self.last_error: str | None = None

    def refine(
        self, text: str, found: Extraction, *, known: Sequence[tuple[str, str]] = ()
    ) -> Extraction:
        self.last_error = None
        if not text.strip():
            return found
        messages = [
            {"role": "system", "content": _SYSTEM},
            {"role": "user", "content": text[:MAX_TEXT_CHARS]},
        ]
        try:
            reply = self.chat.complete(messages, json=True, timeout=self.timeout)
            raw = _statements(reply)
        except (OrgBrainError, ValueError) as exc:
            self.last_error = f"{type(exc).__name__}: {exc}"
            log.warning("LLM tier skipped, lower tiers kept: %s", self.last_error)
            return found
        added = self._claims(text, raw, found)
        if not added:
            return found
        claims = (*found.claims, *added)
        return Extraction(merge_entities(found.entities, claims), claims)

    def _claims(self, text: str, raw: list[Any], found: Extraction) -> list[Claim]:
        seen = {_key(c.subject.value, c.predicate, c.object) for c in found.claims}
        units = split_units(text)
        added: list[Claim] = []
        for item in raw:
            claim = _claim(text, item, units, found.entities)
            if claim is None:
                continue
            key = _key(claim.subject.value, claim.predicate, claim.object)
            if key not in seen:
                seen.add(key)
                added.append(claim)
        return added


def _statements(reply: str) -> list[Any]:
    body = reply.strip()
    fenced = re.search(r"```(?:json)?\s*(.*?)```", body, re.DOTALL)
    if fenced:
        body = fenced.group(1)
    payload = json.loads(body)
    if isinstance(payload, dict):
        payload = payload.get("statements")
    if not isinstance(payload, list):
        raise ValueError("the reply holds no list of statements")
    return payload


def _claim(text: str, item: Any, units: Sequence[Any], entities: Sequence[Found]) -> Claim | None:
    if not isinstance(item, dict):
        return None
    fields = {k: item.get(k) for k in ("type", "subject", "predicate", "object", "evidence")}
    if not all(isinstance(v, str) and v.strip() for v in fields.values()):
        return None
    type_ = str(fields["type"]).strip().lower()
    if type_ not in STATEMENT_TYPES:
        return None
    evidence = str(fields["evidence"]).strip()
    at = text.find(evidence)
    if at < 0:
        return None
    end = at + len(evidence)
    subject_text = str(fields["subject"]).strip()
    offset = text.lower().find(subject_text.lower(), at, end)
    if offset < 0:
        return None
    subject = _entity(entities, offset, offset + len(subject_text)) or Found(
        "topic", text[offset : offset + len(subject_text)], offset, offset + len(subject_text)
    )
    predicate = snake(str(fields["predicate"]))
    predicate = attribute_predicate(predicate.replace("_", " ")) or _VERBS.get(predicate, predicate)
    obj = str(fields["object"]).strip()
    where = text.lower().find(obj.lower(), at, end)
    object_entity = _entity(entities, where, where + len(obj)) if where >= 0 else None
    replaces = item.get("replaces")
    start, stop = at, end
    for unit in units:
        if unit.start <= at < unit.end:
            start, stop = unit.start, max(unit.end, end)
            break
    return Claim(
        type=type_,
        subject=subject,
        predicate=predicate,
        object=obj,
        object_entity=object_entity,
        start=start,
        end=stop,
        valid_from=None,
        replaces=replaces.strip() if isinstance(replaces, str) and replaces.strip() else None,
        tier="llm",
        confidence=0.6,
    )


def _entity(entities: Sequence[Found], start: int, end: int) -> Found | None:
    return next((e for e in entities if e.start == start and e.end == end), None)


def _key(subject: str, predicate: str, obj: str) -> tuple[str, str, str]:
    return (subject.casefold().strip(), predicate, obj.casefold().strip())
