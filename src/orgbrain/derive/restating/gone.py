"""A name said to be gone: the forms ``extraction.named.gone_name`` reads ("no longer",
"rather than", "renamed from"), and those of holders, places, suppliers and tools
("Helen has moved across to Safety", "briefings move out of B12", "our LanguageLine
account closes", "Zephyr stays read-only", "Assignee: Tomás Ruiz → Lena Fischer"). A unit
that says one is gone states a change (``units.changes``), and the name it let go is
what a newer name replaces (``names.renamed``)."""

from __future__ import annotations

import re

from ...extraction.named import gone_name as _gone_name
from ...extraction.named import where_gone as _where_gone
from ...extraction.quiet import NEGATION
from ...extraction.values import Value

__all__ = ["NOT_RENEWED", "denied", "field_arrow", "gone_name", "where_gone"]

_MOVED_OUT = re.compile(
    r"\b(?:mov(?:e|es|ed|ing)|relocat(?:e|es|ed|ing)|transferr?(?:s|ed|ing)?)\s+"
    r"(?:\w+\s+)?out\s+of\s+(?:the\s+|our\s+)?$",
    re.IGNORECASE,
)
"""Before a name: a move out of it ("briefings move out of B12 to the new Crew Centre",
"the team is moving out of Hangar 2"): the place it leaves. A bare "out of" is not one
("out of Hours", "run out of Stock")."""
_MOVED_ACROSS = re.compile(
    r"(?:,\s+who|(?:\s+\w+)?)\s+(?:has\s+|have\s+|had\s+|is\s+)?(?:"
    r"mov(?:es|ed|ing)\s+(?:across|away|over|on(?!\s+to\s+(?:the\s+)?(?:next\s+)?(?:phase|"
    r"stage|step|part|round|sprint|wave|milestone)\b))|left\s+(?:us|the\s+\w+)|"
    r"(?:steps?|stepped|stepping)\s+(?:down|away|back)|retired)\b"
    r"(?:(?!\s+(?:and|but|so|while|whilst)\b)[^,;.\n])*",
    re.IGNORECASE,
)
"""After a holder: gone to another post ("Helen has moved across to Safety", "Tom has
left the company", "Gareth Lyons steps back to focus on client work", "huge thanks to
Dr Helen Marsh, who has stepped down after four years chairing the Committee"); what
follows, up to the next clause ("... to Safety and Priya takes over"), says where, or what
they held, not who took over; a holder moving on to a project's next phase stays."""
_HANDED_BACK = re.compile(
    r"(?:\s+\w+)?\s+(?:(?:is|are|was|were|will|be|been|being|has|have|gets?)\s+)*"
    r"(?:handed|given|going|goes|go)\s+back\s+to\b",
    re.IGNORECASE,
)
"""After a place: given up to its owner ("B12 is being handed back to the airport",
"Temple Quay keys go back to the landlord"): the place is left."""

_LAPSED = re.compile(
    r"(?:\s+\w+)?\s+(?:account|contract|licen[cs]es?|subscription|agreement)s?\s+"
    r"(?:(?:has|have|will|is|was)\s+)?(?:closes|closed|close|closing|ends|ended|end|ending|"
    r"finish(?:es|ed)?|expires?|expired|lapses?|lapsed|terminates|terminated|"
    r"(?:ran|runs?)\s+out)\b",
    re.IGNORECASE,
)
"""After a supplier or a tool: its contract, licence or account ends ("Our LanguageLine
account closes on 31 March", "BigHand licences finish at the end of this month",
"mcgill contract finished end of april"): it is let go. A place that closes for the day
("Pharmacy closing early") names no contract."""
_WITHDRAWN = re.compile(
    r"(?:\s+\w+)?\s+(?:(?:has|have|is|are|was|were|will|be|been|being|gets?|goes|go|"
    r"stays?|becomes?)\s+)+(?:withdrawn|discontinued|phased\s+out|read-only|cancell?ed)\b",
    re.IGNORECASE,
)
"""After a tool or a form: withdrawn from use ("The Excel sheet has been withdrawn",
"the Allstar cards get cancelled on 30 September",
"Zephyr stays read-only for 90 days for lookups", "ilab goes read-only as an archive"):
kept to look at, no longer used."""


_ARROW = re.compile(r"[ \t]*(?:→|->)[ \t]*")
"""Between two names: the one before it replaced by the one after ("Assignee: Tomás Ruiz
→ Lena Fischer"), on a field's line only: a path or a route ("Settings → Security",
"LHR → MAN") changes nothing."""


_NAMED = r"[^\W\d_][\w'.&-]*(?:[ \t]+[A-Z][\w'.&-]*){0,3}"
_FIELD_ARROW = re.compile(
    rf"([^\w\n]*[^\W\d][\w /&-]{{0,30}}:)[ \t]*({_NAMED})[ \t]*(?:→|->)[ \t]*({_NAMED})[ \t.]*"
)
"""A field's line that is one name changed to another ("Assignee: Tomás Ruiz → Lena
Fischer")."""
_PATHS = re.compile(r"\b(?:route|path|flow|journey|direction|menu|steps?)\b", re.IGNORECASE)
"""A field whose arrow is a way, not a change ("Route: LHR → MAN")."""


def field_arrow(text: str, start: int, end: int) -> bool:
    """Whether the name at ``start``-``end`` is a field's value changed by an arrow, on
    either side of it, its line holding nothing else ("Assignee: Tomás Ruiz → Lena
    Fischer")."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line = text[line_start : line_end if line_end >= 0 else len(text)]
    m = _FIELD_ARROW.fullmatch(line)
    if m is None or _PATHS.search(m.group(1)):
        return False
    return start - line_start in (m.start(2), m.start(3))


_NOT_RENEW = (
    r"\b(?:didn't|did\s+not|won't|will\s+not|aren't|are\s+not|not)\s+(?:be\s+)?"
    r"(?:renew(?:ed|ing)?|extend(?:ed|ing)?)"
)
NOT_RENEWED = re.compile(_NOT_RENEW + r"\s+(?:the\s+|our\s+)?$", re.IGNORECASE)
"""Before a supplier or tool: its contract not renewed ("we didn't renew ON24", "not
renewing TachoMaster"): a denial that lets it go, not one that keeps it."""


def denied(text: str) -> bool:
    """Whether ``text`` denies something other than renewing a thing it lets go."""
    return NEGATION.search(_unrenewed(text)) is not None


def _unrenewed(text: str) -> str:
    """``text`` with each "didn't renew" before a name blanked."""
    return re.sub(_NOT_RENEW + r"\b", " ", text, flags=re.IGNORECASE)


def gone_name(text: str, name: Value) -> bool:
    """``extraction.named.gone_name``, and a place moved out of ("briefings move out of
    B12") or handed back ("Temple Quay keys go back to the landlord"), a supplier or tool
    whose contract lapses or that is withdrawn ("BigHand licences finish", "Zephyr stays
    read-only"), or a holder moved across or gone ("Helen has moved across to Safety")."""
    before = text[max(0, name.start - 40) : name.start]
    return (
        _gone_name(text, name)
        or _MOVED_OUT.search(before) is not None
        or _MOVED_ACROSS.match(text, name.end) is not None
        or _HANDED_BACK.match(text, name.end) is not None
        or NOT_RENEWED.search(before) is not None
        or (_ARROW.match(text, name.end) is not None and field_arrow(text, name.start, name.end))
        or _LAPSED.match(text, name.end) is not None
        or _WITHDRAWN.match(text, name.end) is not None
    )


def where_gone(text: str, name: Value) -> tuple[int, int]:
    """``extraction.named.where_gone``, and where a holder moved across to ("Helen has
    moved across to Safety": Safety is no new holder)."""
    m = _MOVED_ACROSS.match(text, name.end)
    return (m.start(), m.end()) if m else _where_gone(text, name)
