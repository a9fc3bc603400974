"""A thing handed on to a named holder: "From Monday Priya Lal picks up release sign-off",
"Tom Okafor is picking up UG extension requests", "Daniel Reyes will be your HR Business
Partner", "Kwame will lead it", "J&E Hall are doing spiral freezer PPMs".

Organisations write a new owner, approver, chair or contractor as a person or firm doing a
verb of taking something on, not only as "X takes over" or "report to X". A name followed
by one of those verbs is the new holder (``handed_to``); a sentence with one states a
change on its own (``hands_over``), unless it is a passing cover ("this week only"), a
plan, a question or a denial (``change_cue``'s own guards, and a negation)."""

from __future__ import annotations

import re

from ..extraction.cues import change_cue
from ..extraction.entities import looks_like_person
from ..extraction.quiet import NEGATION
from ..extraction.values import Value

__all__ = ["a_person", "handed_to", "hands_over", "leaver", "people_for", "signed"]

_TAKES_UP = re.compile(
    r"(?:\s+\([^)]{0,40}\))?,?\s+(?:(?:now|also)\s+)?(?:"
    r"(?:picks?|picked|is\s+picking|are\s+picking|will\s+pick|'s\s+picking)\s+up|"
    r"(?:will|'ll)\s+(?:now\s+)?(?:be\s+(?:your|our|the)|lead|head\s+up|chair|own|run|"
    r"sign\s+off|handle|look\s+after|take\s+on)|"
    r"(?:is|are)\s+(?:now\s+)?(?:leading|heading\s+up|chairing|doing|handling|running|"
    r"looking\s+after)|"
    r"(?:takes?|took|is\s+taking)\s+(?:on|over)|steps?\s+in\s+as|stepping\s+in\s+as|"
    r"(?:has\s+been|is|was)\s+appointed|"
    r"(?:joins|joined|has\s+joined)(?:\s+(?:us|the\s+team))?(?:\s+(?:in|on|from)\s+\w+)?\s+as)\b",
    re.IGNORECASE,
)
"""After a name: a verb of taking a thing on."""


def handed_to(text: str, name: Value) -> bool:
    """Whether ``name`` in ``text`` is followed by a verb of taking a thing on ("Priya
    Lal picks up release sign-off", "Kwame will lead it")."""
    return _TAKES_UP.match(text, name.end) is not None


def hands_over(text: str, names: tuple[Value, ...]) -> bool:
    """Whether ``text`` hands a thing on to one of ``names``: a change in itself, unless
    negated ("Dana is not picking up expenses") or held back as ``change_cue`` holds
    back a change (a plan, a passing cover, a question, a hedge)."""
    if NEGATION.search(text) or not any(handed_to(text, n) for n in names):
        return False
    return change_cue(text, heading=True)


_TITLES = frozenset("dr prof professor mr mrs ms mx sir dame".split())


def a_person(name: str) -> bool:
    """Whether a name as written is a person's: its first word, past a title ("Dr Helen
    Marsh"), is a first name."""
    words = [w for w in name.split() if w.casefold().rstrip(".") not in _TITLES]
    return bool(words) and looks_like_person(words[0])


def people_for(holders: list[Value], text: str, now: str) -> list[Value]:
    """Of an older unit's ``holders`` (written in ``text``), the ones a person ``now``
    can have replaced: a person is handed a person's thing ("may only be released by
    the Technical Manager, Helen Marsh" under "QA hold" and "D365"); one name inside
    another is one person ("Helen Marsh", "Helen"). Any other new name keeps them all."""
    if not a_person(now):
        return holders
    people = [h for h in holders if a_person(text[h.start : h.end])]
    return [
        h
        for h in people
        if not any(h is not o and set(h.key.split()) < set(o.key.split()) for o in people)
    ]


_FAREWELL = re.compile(
    r"\b(?:my\s+last\s+day|i(?:'m|\s+am|\s+will\s+be)\s+(?:leaving|retiring|moving\s+on|"
    r"off\s+to\s+(?:the|a|an|join)\b)|i(?:'ve|\s+have)\s+moved\s+(?:over|across|on)\b|"
    r"farewell|goodbye|good-bye|handover\s+note|"
    r"handing\s+over)\b",
    re.IGNORECASE,
)
"""What says the writer is leaving their post ("Friday is my last day", "I'm retiring",
"Handover note (PS): I'm off to the Hull project")."""
_AWAY = re.compile(
    r"\b(?:while\s+i(?:'m|\s+am)\s+(?:away|off|out)|in\s+my\s+absence|until\s+i(?:'m|\s+am)?"
    r"\s+back|until\s+i\s+return|(?:on|during\s+my)\s+(?:annual\s+)?leave|cover(?:ing)?\s+for\s+me)\b",
    re.IGNORECASE,
)
"""What makes a hand-over a cover while the writer is away ("Nadia looks after the depot
while I'm away"): the writer comes back to what they held."""
_HANDLE = re.compile(r"([a-z]+[._][a-z]+):\s")
"""A chat line's writer as a first and last name ("fiona.baird: ...")."""
_INITIALS = re.compile(r"\(([A-Z]{2,3})\)")
"""The writer's initials in a note's first line ("Handover note (PS)")."""
_UNITS = frozenset(
    "HR IT QA QC PR PM HSE SHE EHS ICT ITS OPS CEO CFO CTO COO CIO CMO VP GM MD UK US EU".split()
)
"""Teams and posts written in brackets like initials ("Team news (HR)"): not a writer."""
_SIGN_OFF = re.compile(
    r"(?:(?:kind|warm|best|many|with)\s+)?(?:regards|thanks|thank\s+you|cheers|best|"
    r"all\s+the\s+best|best\s+wishes|love)[ \t]*[,!.]?",
    re.IGNORECASE,
)
"""A line a message is signed off with, before the writer's name ("Warm regards,")."""
_LEADING_SIGN_OFF = re.compile(rf"(?:{_SIGN_OFF.pattern})(?!\w)", re.IGNORECASE)
_SIGNED = re.compile(r"([A-Z][a-z'\u2019-]+)(?:\s+[A-Z][\w'\u2019-]+)?(?:\s*[-,\u2013].*)?")
"""A signature line: a first name, perhaps a surname and what follows a dash ("Colm",
"Tom - SOU Station")."""


def leaver(body: str) -> str | None:
    """The first name, or the initials, of who signs ``body`` when it says they are
    leaving ("After 9 years looking after Cork, Friday is my last day. Aoife Brennan
    takes over the station ... Colm"): initials in brackets in its first line
    ("Handover note (PS)"), the handle of the chat line that says so ("fiona.baird: I've
    moved over to PGR admin"), the line after a sign-off ("Warm regards,"), or else a last
    line that is only a name. A leaver's farewell that names a successor hands on what
    the leaver held; a note that does not say its writer is going, or says they are away
    for a while (``_AWAY``), hands on nothing of theirs."""
    if not _FAREWELL.search(body) or _AWAY.search(body):
        return None
    lines = [x.strip() for x in body.strip().split("\n") if x.strip()]
    initials = _INITIALS.search(lines[0])
    if initials is not None and initials.group(1) not in _UNITS:
        return initials.group(1)
    for x in lines:  # a chat line's writer, by handle ("fiona.baird: I've moved over to")
        handle = _HANDLE.match(x)
        if handle is not None and _FAREWELL.search(x):
            return handle.group(1)
    signed = lines[-1] if len(lines[-1].split()) <= 3 else None
    for at, x in enumerate(lines[:-1]):
        if _SIGN_OFF.fullmatch(x):
            signed = lines[at + 1]
    if signed is not None:  # a sign-off on the name's line ("Cheers, Tom")
        off = _LEADING_SIGN_OFF.match(signed)
        signed = signed[off.end() :].strip() if off is not None else signed
    m = _SIGNED.fullmatch(signed) if signed else None
    return m.group(1) if m else None


def signed(name: str, signer: str) -> bool:
    """Whether ``name`` (case-folded, two words or more) is the ``signer``'s: its first
    word is the first name signed, its words' initials are the initials signed ("priya
    shah", "PS"), or it holds the handle's two names ("fiona baird", "fiona.baird")."""
    words = name.split()
    if len(words) < 2:
        return False
    parts = re.split(r"[._]", signer)
    if len(parts) == 2:  # a handle: the two names side by side ("email fiona baird")
        return any(words[i : i + 2] == parts for i in range(len(words) - 1))
    if signer.isupper():
        return "".join(w[0] for w in words).upper() == signer
    return words[0] == signer.casefold()
