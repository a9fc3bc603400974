"""A thing's state, read from text: on track, at risk, on hold, beta, live, out of
service ... (``statuses_in``). A state is only ever the latest, so a later sentence giving
another kind of state to the same thing replaces it without a change word
(``derive/restated.py``)."""

from __future__ import annotations

import re

from .context import table_header
from .values import Value

__all__ = ["STATUS", "a_state", "cell_statuses", "statuses_in"]

STATUS = "status"
"""The kind of a ``Value`` that is a thing's state."""
_STATUSES: dict[str, str] = {
    "on track": r"on track|green|🟢",
    "at risk": r"at risk|amber|yellow|🟡",
    "off track": r"off track|red|blocked|🔴",
    "on hold": r"on hold|paused|parked",
    "cancelled": r"cancell?ed|canceled|shelved|abandoned",
    "in progress": r"in progress|underway|in development",
    "beta": r"(?:internal |private |public |closed |open )?beta|alpha|early access",
    "live": r"live|generally available|ga|available to all(?: \w+)?|rolled out to all(?: \w+)?"
    r"|shipped|launched|released|done|complete|completed",
    "out of service": r"out of service|out of action|offline",
    "in service": r"back in service|in service|back online",
    "suspended": r"suspended",
    "closed": r"closed",
    "open": r"open|reopened|re-opened",
}
"""A thing's state, by kind: every way of writing one kind is one key."""
_STATUS_KIND = [(re.compile(words, re.IGNORECASE), kind) for kind, words in _STATUSES.items()]
_LABELLED_STATUS = re.compile(
    r"\b(?:status|state|health|rag)\s*:\s*(?:[^\w\n]{0,3}\s*)(?P<s>"
    + "|".join(f"(?:{words})" for words in _STATUSES.values())
    + r")(?![\w-])",
    re.IGNORECASE,
)
_SAID_STATUS = re.compile(
    r"(?<![\w-])(?P<s>on hold|paused|on track|at risk|off track|cancell?ed|canceled|shelved|"
    r"(?:internal |private |public |closed )?beta|generally available|available to all(?: \w+)?|"
    r"in progress|out of service|back in service|back online|suspended|🟢|🟡|🔴|"
    # a scheme's or a queue's state, not its hours ("closed on Sundays", "open 9-5")
    r"(?:closed|open|reopened|re-opened)(?!\s+(?:on|at|between|until|till|over|"
    r"during|every|each|daily|weekends?|tonight|tomorrow)\b|\s*\d))(?![\w-])"
    r"|\b(?:is|are|went|goes|go|now|gone)\s+(?P<live>live)\b(?!\s+(?:in|at|with|near|on)\b)",
    re.IGNORECASE,
)
_HELD_BY = re.compile(
    r"(?:\b(?:is|are|was|were|goes|go|went|gone|now|been|be|remains|stays|put|placed|"
    r"moved|officially|still)\s+(?:\w+\s+){0,3}|:\s*|[🟢🟡🔴]\s*)$",
    re.IGNORECASE,
)
"""What a state said in words follows: a verb that gives it to a thing ("Atlas is on
hold", "put Atlas on hold", "Dark mode now available"), a label's colon ("KR3 Atlas:
PAUSED"), or a coloured dot; not a noun it describes ("customers at risk of churn",
"the beta testers channel", "Atlas offsite cancelled")."""


def statuses_in(text: str) -> list[Value]:
    """The states ``text`` gives a thing, as ``status`` values keyed by their kind ("on
    hold" and "paused" are one): after a label ("Status: In progress", "state: Beta",
    "RAG: amber"), or in words that say nothing else ("Atlas is on hold", "dark mode is
    live for all customers", "🟢 on track"). A colour, "done" or "shipped" counts only
    after a label."""
    found: dict[int, Value] = {}
    for m in _LABELLED_STATUS.finditer(text):
        found[m.start("s")] = _status(m, "s")
    for m in _SAID_STATUS.finditer(text):
        group = "s" if m.group("s") else "live"
        if group == "s" and m.group("s")[0].isalpha():
            if not _HELD_BY.search(text[max(0, m.start() - 40) : m.start()]):
                continue
        if not any(v.start <= m.start(group) < v.end for v in found.values()):
            found[m.start(group)] = _status(m, group)
    kinds: dict[str, Value] = {}
    for at in sorted(found):  # "🟢 on track" states one
        kinds.setdefault(found[at].key, found[at])
    return list(kinds.values())


_STATE_COLUMN = frozenset({"status", "state", "rag", "rag status", "health"})
"""A table column whose cells are a thing's state."""
_CELL_STATUS = re.compile(
    r"[ \t]*(?P<s>" + "|".join(f"(?:{words})" for words in _STATUSES.values()) + r")(?![\w-])",
    re.IGNORECASE,
)


def cell_statuses(body: str, start: int, end: int) -> list[Value]:
    """The states in the cells of a table's row, between ``start`` and ``end`` of
    ``body``, that lie in a column headed as a state ("| Project | RAG | Status |" over
    "| Atlas | Amber | ON HOLD pending budget |": at risk, on hold), as ``status`` values
    with offsets from ``start``: a column's header labels each of its cells, as "Status:"
    labels a line. A cell counts where it opens with the state."""
    line_start = body.rfind("\n", 0, start) + 1
    header = table_header(body, line_start)
    if not header:
        return []
    columns = [c.strip().lower() for c in header.strip().strip("|").split("|")]
    line_end = body.find("\n", line_start)
    row = body[line_start : line_end if line_end >= 0 else len(body)]
    found: list[Value] = []
    at = line_start + row.index("|") + 1
    for name in columns:
        bar = body.find("|", at, line_start + len(row))
        cell_end = bar if bar >= 0 else line_start + len(row)
        m = _CELL_STATUS.match(body, at, cell_end)
        if name in _STATE_COLUMN and m is not None and start <= m.start("s") < end:
            found.append(_status(m, "s", start))
        if bar < 0:
            break
        at = bar + 1
    return found


def _status(m: re.Match[str], group: str, at: int = 0) -> Value:
    written = " ".join(m.group(group).split())
    kind = next(k for rx, k in _STATUS_KIND if rx.fullmatch(written))
    return Value(STATUS, "", kind, m.start(group) - at, m.end(group) - at)


def a_state(text: str) -> bool:
    """Whether ``text`` is a state as ``statuses_in`` reads one ("Beta", "on hold")."""
    written = " ".join(text.split())
    return any(rx.fullmatch(written) for rx, _ in _STATUS_KIND)
