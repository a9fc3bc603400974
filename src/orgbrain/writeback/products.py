"""A run's work products, as write-back takes them: checked whole before anything is
queued (bad input is refused with the reason and stores nothing)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..errors import InvalidInput, TooLarge
from ..model import RUN_OUTCOMES, RunOutcome, RunProducts
from ..scopes import parse_scope

__all__ = ["MAX_PRODUCT_CHARS", "parse_products", "products_dict"]

MAX_PRODUCT_CHARS = 8000
"""The most characters of work products one pass reads (the seed's cap): a run hands
over its products, not its transcript."""

_FIELDS = frozenset({"run_id", "outcome", "summary", "decisions", "artefacts", "user_id", "scope"})
OUTCOME_MEANS: dict[RunOutcome, str] = {
    "succeeded": "a task's run that did what it was asked",
    "blocked": "a task's run that stopped at something it could not get past",
    "completed": "an automation (a scheduled or triggered job) that ran to its end",
}
"""What each run outcome is for (the seed: an issue run ends succeeded or blocked, an
automation completed), said when one is refused."""
_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:@/-]{0,199}$")


def parse_products(run_id: str, data: Mapping[str, object]) -> RunProducts:
    """``RunProducts`` from a JSON-like mapping: ``outcome`` (succeeded, blocked or
    completed), ``summary``, ``decisions`` and ``artefacts`` (lists of strings),
    optionally ``user_id`` and ``scope``. Raises ``InvalidInput`` (``TooLarge`` past
    ``MAX_PRODUCT_CHARS``)."""
    if not isinstance(run_id, str) or not _RUN_ID.match(run_id):
        raise InvalidInput("a run id is 1-200 letters, digits and _.:@/- (starting alphanumeric)")
    if not isinstance(data, Mapping):
        raise InvalidInput("work products are a JSON object")
    unknown = sorted(set(data) - _FIELDS)
    if unknown:
        raise InvalidInput(f"unknown field {unknown[0]!r} in work products")
    if "run_id" in data and data["run_id"] != run_id:
        raise InvalidInput(f"run_id {data['run_id']!r} is not the run {run_id!r}")
    outcome = _outcome(data.get("outcome"))
    summary = data.get("summary", "")
    if not isinstance(summary, str):
        raise InvalidInput("summary is a string")
    decisions = _strings(data.get("decisions", []), "decisions")
    artefacts = _strings(data.get("artefacts", []), "artefacts")
    user_id = data.get("user_id")
    if user_id is not None and (not isinstance(user_id, str) or not user_id.strip()):
        raise InvalidInput("user_id is a non-empty string")
    scope = data.get("scope", "org")
    if not isinstance(scope, str) or parse_scope(scope).startswith("user:"):
        raise InvalidInput("scope is org or team:<id>; personal facts go to user_id's scope")
    products = RunProducts(
        run_id=run_id,
        outcome=outcome,
        summary=summary.strip(),
        decisions=decisions,
        artefacts=artefacts,
        user_id=user_id.strip() if isinstance(user_id, str) else None,
        scope=parse_scope(scope),
    )
    size = len(products.text)
    if size > MAX_PRODUCT_CHARS:
        raise TooLarge(
            f"work products are at most {MAX_PRODUCT_CHARS} characters (summary, decisions "
            f"and artefacts together); got {size}: hand over a summary, not the transcript"
        )
    if not products.text.strip():
        raise InvalidInput("work products need a summary, a decision or an artefact")
    return products


def products_dict(p: RunProducts) -> dict[str, object]:
    """The mapping ``parse_products`` reads back (a job's payload)."""
    return {
        "outcome": p.outcome,
        "summary": p.summary,
        "decisions": list(p.decisions),
        "artefacts": list(p.artefacts),
        "user_id": p.user_id,
        "scope": p.scope,
    }


def _outcome(value: object) -> RunOutcome:
    for o in RUN_OUTCOMES:
        if value == o:
            return o
    *first, last = (f"{o!r} for {OUTCOME_MEANS[o]}" for o in RUN_OUTCOMES)
    given = "none was given" if value is None else f"not {value!r}"
    raise InvalidInput(f"outcome says how the run ended: {', '.join(first)}, or {last} ({given})")


def _strings(value: object, name: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, list | tuple):
        raise InvalidInput(f"{name} is a list of strings")
    out = []
    for v in value:
        if not isinstance(v, str):
            raise InvalidInput(f"{name} is a list of strings")
        if v.strip():
            out.append(v.strip())
    return tuple(out)
