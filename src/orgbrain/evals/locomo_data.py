"""LoCoMo conversations as data: turns, questions, their evidence, parsed defensively.

What cannot be used is counted by reason in ``Conversation.skipped``, never silently
dropped.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from ..errors import InvalidInput, NotFound

__all__ = [
    "ANSWERABLE",
    "CATEGORIES",
    "Conversation",
    "Question",
    "Turn",
    "load_locomo",
    "parse_evidence",
    "parse_session_date",
]

CATEGORIES: dict[int, str] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
ANSWERABLE = (1, 2, 3, 4)

_DIA_ID = re.compile(r"D(\d+):(\d+)")
_SESSION = re.compile(r"session_(\d+)")
_DATE_FORMATS = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M %p on %d %B %Y")


@dataclass(frozen=True, slots=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    caption: str | None
    session: int
    date_text: str
    occurred_at: datetime | None


@dataclass(frozen=True, slots=True)
class Question:
    number: int
    question: str
    category: int
    evidence: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Conversation:
    sample_id: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]
    # What the loader could not use, by reason (reported, never silently dropped).
    skipped: dict[str, int] = field(default_factory=dict)


def parse_session_date(text: str) -> datetime | None:
    """``"1:56 pm on 8 May, 2023"`` as a UTC datetime; None when it does not parse."""
    cleaned = " ".join(text.split())
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(cleaned, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def _dia_id(text: str) -> str | None:
    m = _DIA_ID.fullmatch(text.strip())
    return f"D{int(m.group(1))}:{int(m.group(2))}" if m else None


def parse_evidence(raw: object) -> tuple[tuple[str, ...], int]:
    """Evidence dia_ids, normalised (``D1:3``), and the number of entries that were not ids.

    Some entries pack several ids (``"D8:6; D9:17"``); those are split. Entries such as
    ``"D"`` or ``"D:11:26"`` are skipped and counted.
    """
    entries = [raw] if isinstance(raw, str) else raw if isinstance(raw, list) else []
    ids: dict[str, None] = {}
    skipped = 0
    for entry in entries:
        text = entry.strip() if isinstance(entry, str) else repr(entry)
        for token in [t for t in re.split(r"[;,\s]+", text) if t] or [text]:
            dia_id = _dia_id(token)
            if dia_id is None:
                skipped += 1
            else:
                ids.setdefault(dia_id, None)
    return tuple(ids), skipped


def _turns(conv: dict[str, object], skipped: Counter[str]) -> list[Turn]:
    sessions = sorted(
        (int(m.group(1)), key)
        for key in conv
        if (m := _SESSION.fullmatch(key)) and isinstance(conv[key], list)
    )
    turns: list[Turn] = []
    for number, key in sessions:
        date_text = str(conv.get(f"{key}_date_time") or "")
        when = parse_session_date(date_text)
        for raw in conv[key]:  # type: ignore[attr-defined]
            dia_id = _dia_id(str(raw.get("dia_id", ""))) if isinstance(raw, dict) else None
            if dia_id is None:
                skipped["turns_malformed"] += 1
                continue
            if when is None:
                skipped["turns_without_date"] += 1
            caption = raw.get("blip_caption")
            turns.append(
                Turn(
                    dia_id=dia_id,
                    speaker=str(raw.get("speaker") or "?"),
                    text=str(raw.get("text") or ""),
                    caption=str(caption) if caption else None,
                    session=number,
                    date_text=date_text,
                    occurred_at=when,
                )
            )
    return turns


def _category(raw: object) -> int | None:
    try:
        category = int(str(raw))
    except ValueError:
        return None
    return category if category in CATEGORIES else None


def _questions(qa: object, known: set[str], skipped: Counter[str]) -> list[Question]:
    out: list[Question] = []
    for number, raw in enumerate(qa if isinstance(qa, list) else [], start=1):
        category = _category(raw.get("category")) if isinstance(raw, dict) else None
        if category is None or not str(raw.get("question") or "").strip():
            skipped["questions_malformed"] += 1
            continue
        ids, bad = parse_evidence(raw.get("evidence"))
        unknown = sum(1 for i in ids if i not in known)
        if bad:
            skipped["evidence_entries_skipped"] += bad
        if unknown:
            skipped["evidence_not_in_conversation"] += unknown
        evidence = tuple(i for i in ids if i in known)
        out.append(Question(number, str(raw["question"]).strip(), category, evidence))
    return out


def load_locomo(path: Path) -> list[Conversation]:
    """Read a LoCoMo file (a list of conversations in the published layout)."""
    if not path.is_file():
        raise NotFound(f"no such file: {path}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, list):
        raise InvalidInput(f"{path}: expected a list of conversations")
    out: list[Conversation] = []
    for n, sample in enumerate(data, start=1):
        if not isinstance(sample, dict) or not isinstance(sample.get("conversation"), dict):
            raise InvalidInput(f"{path}: entry {n} has no conversation")
        skipped: Counter[str] = Counter()
        turns = _turns(sample["conversation"], skipped)
        questions = _questions(sample.get("qa"), {t.dia_id for t in turns}, skipped)
        sample_id = str(sample.get("sample_id") or f"sample-{n}")
        out.append(Conversation(sample_id, tuple(turns), tuple(questions), dict(skipped)))
    return out
