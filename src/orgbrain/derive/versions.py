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
"""

from __future__ import annotations

import re

from ..model import Item

__all__ = ["one_document", "versioned"]

_CODE = re.compile(r"(?<![\w-])(?=[A-Z0-9-]*\d)[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+(?![\w-])")
"""A document code: capitals and digits joined by hyphens, with a digit ("WXM-HP-03")."""
_VERSION = re.compile(r"\b(?:v|ver\.?\s?|version\s|rev\.?\s?|revision\s)\d+(?:\.\d+)*\b", re.I)
"""A version mark ("v2.4", "version 3", "rev 2")."""
_SUBJECT = re.compile(r"[ \t]*subject:[ \t]*(.+)", re.IGNORECASE)
_REPLY = re.compile(r"^(?:(?:re|fw|fwd|aw)\s*:\s*)+", re.IGNORECASE)


def _first_line(item: Item) -> str:
    return item.body.strip().split("\n", 1)[0]


def _codes(item: Item) -> frozenset[str]:
    return frozenset(_CODE.findall(_first_line(item)))


def _unversioned(item: Item) -> str | None:
    """The first line's words less its version mark, when it has one."""
    line = _first_line(item)
    if not _VERSION.search(line):
        return None
    words = re.findall(r"[^\W_]+", _VERSION.sub(" ", line).casefold())
    return " ".join(words) if len(words) >= 2 else None


def _subject(item: Item) -> tuple[str, bool] | None:
    """The message's subject less its reply marks, and whether it had one."""
    m = _SUBJECT.match(_first_line(item))
    if m is None:
        return None
    said = m.group(1).strip()
    bare = _REPLY.sub("", said)
    return " ".join(bare.casefold().split()), bare != said


def versioned(item: Item) -> bool:
    """Whether ``item`` may be a later version of a document: its first line holds a
    code, or it is a reply."""
    subject = _subject(item)
    return (
        bool(_codes(item)) or (subject is not None and subject[1]) or _unversioned(item) is not None
    )


def one_document(old: Item, new: Item) -> bool:
    """Whether ``new`` is a later version of ``old``'s document: a code of its first line
    is one of the older's, its first line is the older's but for the version mark, or it
    replies to the older's subject."""
    if _codes(old) & _codes(new):
        return True
    title = _unversioned(new)
    if title is not None and title == _unversioned(old):
        return True
    was, now = _subject(old), _subject(new)
    return was is not None and now is not None and now[1] and now[0] == was[0]
