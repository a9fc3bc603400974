"""A later version of one document: what it states differently, it states as a change.

Organisations re-issue a document under its identity rather than saying what changed:
"WXM-SOP-HYG-014 v7 issued" after "WXM-SOP-HYG-014 Post-clean verification (ATP) v6",
"HACCP plan WXM-HP-03 rev F" after "HACCP plan WXM-HP-03 Chicken Tikka Masala", an email
"RE: Derby BRCGS audit - dates confirmed" after "Derby BRCGS audit - dates confirmed".
Each line of the later one that gives the same thing another value replaces the older
line; no change word is needed (``derive/restated.py`` still asks the rest: the same
kind of value, the shared words, one thing).

What makes two notes one document: the same document code in both first lines (letters
and digits joined by hyphens, with a digit: "TP-SUP-01", "QA-F-031"), or a reply whose
subject, less its "RE:"/"FW:" marks, is the older message's subject. A title alone is
not one ("Weekly status", "S&OP weekly - notes": two weeks), nor a code said only in the
body (a ticket that cites a form).

A standing document kept up in place (an inventory, a checklist, a register: "Pricing
Model Inventory", "SIU induction checklist") is re-issued under the same title with no
mark at all; the later one is its version when the titles are the same, the title names
no time (no digit, no period or kind of dated message: "weekly", "minutes", "status"),
and the later repeats at least half the older's other lines, two or more, word for
word: two weeks' notes under one title share their headings, not their lines.
"""

from __future__ import annotations

import re

from ..analysis import plain_words
from ..model import Item

__all__ = ["one_document", "versioned"]

_CODE = re.compile(r"(?<![\w-])(?=[A-Z0-9-]*\d)[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+(?![\w-])")
"""A document code: capitals and digits joined by hyphens, with a digit ("WXM-HP-03")."""
_VERSION = re.compile(
    r"\b(?:(?:v|ver\.?\s?|version\s|rev\.?\s?|revision\s|issue\s)\d+(?:\.\d+)*"
    r"|(?:rev\.?\s?|revision\s)[a-z])\b",
    re.I,
)
"""A version mark ("v2.4", "version 3", "rev 2", "rev B", "Issue 2")."""
_ISSUED = re.compile(
    r"\b(?:\d{1,2}\s+)?(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|"
    r"july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b\.?"
    r"(?:\s+\d{4})?\b|\b(?:19|20)\d\d\b",
    re.IGNORECASE,
)
"""An issue date beside a version mark ("Contact Sheet v4 (Mar 2026)", "v3 (Jan 2026)"):
one document's two issues, not two documents; a month's name or its short form, so that
"Marine" or "Decision" stays a word of the title."""
_SUBJECT = re.compile(r"[ \t]*subject:[ \t]*(.+)", re.IGNORECASE)
_REPLY = re.compile(r"^(?:(?:re|fw|fwd|aw)\s*:\s*)+", re.IGNORECASE)


def _first_line(item: Item) -> str:
    return item.body.strip().split("\n", 1)[0]


def _codes(item: Item) -> frozenset[str]:
    return frozenset(_CODE.findall(_first_line(item)))


def _unversioned(item: Item) -> str | None:
    """The first line's words less its version mark and its issue date, when it has a
    version mark."""
    line = _first_line(item)
    if not _VERSION.search(line):
        return None
    words = plain_words(_ISSUED.sub(" ", _VERSION.sub(" ", line)).casefold())
    return " ".join(words) if len(words) >= 2 else None


def _subject(item: Item) -> tuple[str, bool] | None:
    """The message's subject less its reply marks, and whether it had one."""
    m = _SUBJECT.match(_first_line(item))
    if m is None:
        return None
    said = m.group(1).strip()
    bare = _REPLY.sub("", said)
    return " ".join(bare.casefold().split()), bare != said


_DATED = re.compile(
    r"\d|\b(?:daily|weekly|fortnightly|monthly|quarterly|annual|yearly|minutes|status|"
    r"update|updates|notes|report|digest|agenda|standup|stand-up|recap|summary|bulletin|"
    r"newsletter|w/c|week|month|quarter|year|today)\b",
    re.IGNORECASE,
)
"""What makes a title one of a series of dated messages, not a standing document."""
REPEATED = 0.5
"""The least share of an older standing document's lines below its title that its later
version repeats word for word."""


def _standing(item: Item) -> str | None:
    """The title of a standing document: a first line naming no time, over two or more
    lines; case-folded."""
    lines = [x for x in item.body.strip().split("\n") if x.strip()]
    if len(lines) < 3 or _DATED.search(lines[0]) or lines[0].lstrip().startswith("#"):
        return None
    return " ".join(lines[0].casefold().split())


def _lines(item: Item) -> list[str]:
    return [" ".join(x.split()) for x in item.body.strip().split("\n")[1:] if x.strip()]


def _kept_up(old: Item, new: Item) -> bool:
    """Whether ``new`` is ``old``'s standing document re-issued: the same title, naming
    no time, and half or more of the older's other lines (two or more) said again."""
    title = _standing(old)
    if title is None or title != _standing(new):
        return False
    was, now = _lines(old), set(_lines(new))
    kept = sum(x in now for x in was)
    return kept >= 2 and kept >= REPEATED * len(was) and kept < len(was)


def versioned(item: Item) -> bool:
    """Whether ``item`` may be a later version of a document: its first line holds a
    code, or it is a reply, or it is a standing document's (``_standing``)."""
    subject = _subject(item)
    return (
        bool(_codes(item))
        or (subject is not None and subject[1])
        or _unversioned(item) is not None
        or _standing(item) is not None
    )


def one_document(old: Item, new: Item) -> bool:
    """Whether ``new`` is a later version of ``old``'s document: a code of its first line
    is one of the older's, its first line is the older's but for the version mark, it
    replies to the older's subject, or it re-issues a standing document (``_kept_up``)."""
    if _codes(old) & _codes(new):
        return True
    title = _unversioned(new)
    if title is not None and title == _unversioned(old):
        return True
    was, now = _subject(old), _subject(new)
    if was is not None and now is not None and now[1] and now[0] == was[0]:
        return True
    return _kept_up(old, new)
