"""LongMemEval questions as data: each question with its own chat history (sessions of
turns, each session dated), parsed defensively.

The published layout (Wu et al., ICLR 2025): ``question_id`` (ending in ``_abs`` for an
abstention question, whose answer is not in the history), ``question_type``,
``question``, ``question_date``, ``answer``, ``answer_session_ids``,
``haystack_session_ids``, ``haystack_dates``, ``haystack_sessions`` (lists of turns with
``role``, ``content``, and ``has_answer`` on evidence turns).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from ..errors import InvalidInput, NotFound

__all__ = [
    "QUESTION_TYPES",
    "LmeQuestion",
    "LmeTurn",
    "Session",
    "load_longmemeval",
    "parse_lme_date",
]

QUESTION_TYPES = (
    "single-session-user",
    "single-session-assistant",
    "single-session-preference",
    "multi-session",
    "knowledge-update",
    "temporal-reasoning",
)

_DATE = re.compile(r"(\d{4})/(\d{1,2})/(\d{1,2})(?:\s*\(\w+\))?(?:\s+(\d{1,2}):(\d{2}))?")


def parse_lme_date(text: str) -> datetime | None:
    """``2023/05/20 (Sat) 02:21`` as a UTC date-time; None when it is not one."""
    m = _DATE.search(text or "")
    if m is None:
        return None
    y, mo, d, h, mi = m.groups()
    try:
        return datetime(int(y), int(mo), int(d), int(h or 0), int(mi or 0), tzinfo=UTC)
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class LmeTurn:
    role: str
    content: str
    has_answer: bool


@dataclass(frozen=True, slots=True)
class Session:
    session_id: str
    date_text: str
    occurred_at: datetime | None
    turns: tuple[LmeTurn, ...]


@dataclass(frozen=True, slots=True)
class LmeQuestion:
    question_id: str
    question_type: str
    question: str
    date_text: str
    answer: str
    answer_sessions: tuple[str, ...]
    sessions: tuple[Session, ...]
    repeated: int = 0
    """Sessions whose id came again in the history (same id, another date): only the
    first is kept, since a session id names one session for scoring."""

    @property
    def asked_at(self) -> datetime | None:
        """When the question is asked (its ``question_date``), None when undated."""
        return parse_lme_date(self.date_text)

    @property
    def abstention(self) -> bool:
        """The answer is not in the history: the brain should stay silent."""
        return self.question_id.endswith("_abs")


def _turns(raw: object) -> tuple[LmeTurn, ...]:
    if not isinstance(raw, list):
        return ()
    out: list[LmeTurn] = []
    for t in raw:
        if not isinstance(t, dict):
            continue
        content = t.get("content")
        if not isinstance(content, str) or not content.strip():
            continue
        out.append(LmeTurn(str(t.get("role", "user")), content, bool(t.get("has_answer"))))
    return tuple(out)


def _question(raw: object, n: int) -> LmeQuestion:
    if not isinstance(raw, dict):
        raise InvalidInput(f"question {n} is not an object")
    missing = [
        key
        for key in ("question_id", "question", "haystack_session_ids", "haystack_sessions")
        if key not in raw
    ]
    if missing:
        raise InvalidInput(f"question {n} lacks {', '.join(missing)}")
    ids = raw["haystack_session_ids"]
    sessions_raw = raw["haystack_sessions"]
    dates = raw.get("haystack_dates") or [""] * len(ids)
    if not (isinstance(ids, list) and isinstance(sessions_raw, list)) or not (
        len(ids) == len(sessions_raw) == len(dates)
    ):
        raise InvalidInput(f"question {n}: session ids, dates and sessions differ in length")
    kept: dict[str, Session] = {}
    for sid, date, turns in zip(ids, dates, sessions_raw, strict=True):
        if str(sid) not in kept:
            kept[str(sid)] = Session(str(sid), str(date), parse_lme_date(str(date)), _turns(turns))
    return LmeQuestion(
        question_id=str(raw["question_id"]),
        question_type=str(raw.get("question_type", "")),
        question=str(raw["question"]),
        date_text=str(raw.get("question_date", "")),
        answer=str(raw.get("answer", "")),
        answer_sessions=tuple(str(s) for s in raw.get("answer_session_ids") or ()),
        sessions=tuple(kept.values()),
        repeated=len(ids) - len(kept),
    )


def load_longmemeval(path: Path) -> list[LmeQuestion]:
    """Every question of a LongMemEval JSON file (a list of questions)."""
    if not path.is_file():
        raise NotFound(f"no LongMemEval file at {path}")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"{path} is not LongMemEval JSON: {exc}") from None
    if not isinstance(raw, list) or not raw:
        raise InvalidInput(f"{path} holds no list of questions")
    return [_question(q, n) for n, q in enumerate(raw, start=1)]
