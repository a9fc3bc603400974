"""What a unit of text inherits from around it: the things its note, its section, its line
and its chat channel say it is about, when the unit itself does not.

"IT desk: 2nd floor, by the kitchen." under "Leeds office guide" is about the Leeds
office's IT desk; "AE self-approve in SFDC is capped at 10%" after "priya.n: NA reps —"
about NA reps; a line posted in "#launch-atlas" about Atlas's launch. A unit inherits:

- its item's title (its first line, when lines follow and the unit lies below it), less
  the kind of document it names ("Leeds office guide": the Leeds office); a title that is
  a chat channel ("#launch-atlas") gives the channel's words;
- the nearest heading above it in its item (a Markdown heading, or a line that is only a
  label: "Leeds office:");
- the labels its line opens with ("NA reps —", "Pricing Committee —"), a chat line's
  channel ("[#emea-sales] ...") but not its speaker ("priya.n:", "greg (RVP):").

Two contexts are of two things of one kind (``apart_in_kind``) when a phrase of each
shares a word with the other (the kind: "office", "launch") and each has a name the other
side never says ("Leeds", "Lisbon"; "Atlas", "Beacon"); a name is a word written with a
capital in its item, not a change word ("Revised") nor a time's ("January"). Or when
they name two members of one family of qualifiers (``extraction/qualifiers.py``: NA and
EMEA). The newer side naming the older's name too ("Leeds and Lisbon offices: ...")
makes them one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..analysis import LETTER_WORD, STOPWORDS, stem
from .cues import CUE
from .named import CALENDAR
from .qualifiers import apart, qualifiers
from .subjects import Phrase, labels, titled
from .values import marked_old, values_in

__all__ = [
    "LABEL",
    "Context",
    "apart_in_kind",
    "context",
    "context_of",
    "table_header",
    "words_of",
]


@dataclass(frozen=True, slots=True)
class Context:
    """What a unit inherits: the ``phrases`` its context names, the ``text`` they are read
    from (for qualifiers and for the words the other side must not say) and the stems of
    the words its item writes with a capital (``names``)."""

    phrases: tuple[Phrase, ...]
    text: str
    names: frozenset[str]


_CHANNEL = re.compile(r"[ \t]*\[?#([\w][\w.-]*)\]?[ \t]*$")
"""A line that is only a chat channel ("#launch-atlas", "[#emea-sales]")."""
_CHAT_LINE = re.compile(r"[ \t]*\[#([\w][\w.-]*)\][ \t]*")
"""A chat line's channel before its message ("[#finance] rosa.m: ...")."""
_HEADING = re.compile(r"[ \t]*(?:#{1,6}[ \t]+(.+?)|\*\*([^*\n]+?)\*\*:?|([^:\n]{1,60}):)[ \t]*$")
"""A line that heads what follows: "## Leeds office", "**Leeds office**", "Leeds office:"."""
_CAPITAL = re.compile(r"\b[A-Z][\w'\u2019-]*")
_CALENDAR = frozenset(
    stem(w) for w in CALENDAR | {*"spring summer autumn fall winter weekly".split()}
)
"""Words written with a capital that name a time, not a thing: "Procedure v4.2 (January
2026)" and "v4.3 (April 2026)" are one procedure's two versions; "Eastfield Weekly
Bulletin" is about Eastfield, as "Eastfield Depot Inductions" is."""


def context(text: str, start: int) -> Context:
    """What the unit of ``text`` starting at ``start`` inherits from around it."""
    phrases: list[Phrase] = []
    read: list[str] = []
    first = text.find("\n")
    chat = False
    if 0 < first < start and text[first:].strip():
        title = text[:first]
        channel = _CHANNEL.match(title)
        chat = channel is not None
        if channel is not None:
            phrases += _channel(channel.group(1))
        else:
            phrases += labels(title) or _opening(title)
        read.append(title)
        heading = _heading(text, first + 1, start)
        if heading:
            phrases += _opening(heading)
            read.append(heading)
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    line = text[line_start : line_end if line_end >= 0 else len(text)]
    posted = _CHAT_LINE.match(line)
    if posted is not None:
        phrases += _channel(posted.group(1))
        chat = True
        line = line[posted.end() :]
    if line_start < start or not phrases:
        found = labels(line)
        phrases += found[1:] if chat and found else found  # a chat line's speaker first
    read.append(text[line_start:start])
    read.append(table_header(text, line_start))
    names = (
        frozenset(
            stem(m.group(0).lower())
            for m in _CAPITAL.finditer(text)
            if not CUE.fullmatch(m.group(0)) and m.group(0).lower() not in STOPWORDS
        )
        - _CALENDAR
    )
    return Context(tuple(phrases), "\n".join(read), names)


_ROW = re.compile(r"[ \t]*\|")


def table_header(text: str, line_start: int) -> str:
    """The header row of the table whose row starts at ``line_start``, or "": a row's
    cells are said under it ("| B (handler) | £10,000 |" under "| Grade | Property settle
    limit |" says what the property limit is)."""
    if _ROW.match(text, line_start) is None:
        return ""
    header = ""
    for row in reversed(text[:line_start].split("\n")[:-1]):
        if not row.lstrip().startswith("|"):
            break
        if row.strip("|-: \t"):
            header = row  # not a rule line ("|---|---|"): the top row is the header
    return header


def context_of(text: str, said: str) -> Context:
    """What ``said``, a sentence of ``text``, inherits; where it is not found as written,
    what a line just below the title inherits."""
    at = text.find(said) if said else -1
    return context(text, at if at >= 0 else text.find("\n") + 1)


def words_of(text: str) -> frozenset[str]:
    """The stems of ``text``'s words."""
    return frozenset(stem(w) for w in LETTER_WORD.findall(text.lower()))


def apart_in_kind(a: Context, b: Context, a_said: str, b_said: str, *, states: bool) -> bool:
    """Whether two units (``a_said``, ``b_said``) with their contexts are two things of
    one kind: a phrase of each context shares a word with the other, and each has a name
    that the other unit and its context never say; or the units with their contexts name
    two members of one family of qualifiers (of two ``states``, not whom each is rolled
    out to: ``extraction/qualifiers.py``)."""
    a_text, b_text = f"{a.text}\n{a_said}", f"{b.text}\n{b_said}"
    if apart(qualifiers(a_text), qualifiers(b_text), states=states):
        return True
    if _labelled_again(a_said, b_said) or _labelled_again(b_said, a_said):
        return False
    a_says, b_says = words_of(a_text), words_of(b_text)
    for x in a.phrases:
        for y in b.phrases:
            mine, theirs = set(x.words), set(y.words)
            if mine & theirs and (mine - theirs) & a.names - b_says:
                if (theirs - mine) & b.names - a_says:
                    return True
    return False


LABEL = re.compile(r"\W*([^\W\d][^:\n?]{0,40}):\s")
"""The label a line opens with ("ATR cargo door:")."""


def _labelled_again(old: str, new: str) -> bool:
    """Whether ``new`` opens with ``old``'s label and names a value of ``old`` as the one
    before ("ATR cargo door: max 45 kt", then "ATR cargo door: do not open ... above 40 kt
    (was 45 kt)"): it says itself what it is about and which value it replaces, whatever
    the two notes are titled ("GH SOP 5.3 Ramp", "GH Safety Alert"). The same label
    alone is not enough ("IT desk: 2nd floor" in two offices' guides)."""
    a, b = LABEL.match(old), LABEL.match(new)
    if a is None or b is None or a.group(1).casefold() != b.group(1).casefold():
        return False
    keys = {v.key for v in values_in(old)}
    return any(v.key in keys and marked_old(new, v) for v in values_in(new))


def _channel(name: str) -> list[Phrase]:
    """A channel's words as one phrase, less the kind of message it carries
    ("#sales-announcements": sales)."""
    found = titled(name.replace("-", " ").replace("_", " ").replace(".", " "))
    return [] if found is None else [found]


def _opening(line: str) -> list[Phrase]:
    found = titled(line)
    return [] if found is None else [found]


def _heading(text: str, after: int, start: int) -> str:
    """The nearest heading line between ``after`` and the unit at ``start``, or ""."""
    at = text.rfind("\n", after, start)
    while at >= after:
        back = text.rfind("\n", after - 1, at)
        line = text[back + 1 : at]
        m = _HEADING.fullmatch(line)
        if m is not None:
            return next(g for g in m.groups() if g)
        at = back
    return ""
