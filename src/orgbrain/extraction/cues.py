"""Whether a sentence states a change: change words ("now", "raised", "drops to",
"takes over", "from Monday"), a title of revision over a document's lines, and what
states none (a plan, a temporary exception, a question or a hedge)."""

from __future__ import annotations

import re

from .quiet import states_nothing

__all__ = ["CUE", "change_cue", "planned", "temporary", "titled_change"]

_MONTH_WORD = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*"
CUE = re.compile(
    r"\b(?:now|no\s+longer|any\s?more|rais(?:e|ed|es|ing)|lower(?:ed|ing|s)?|"
    r"increas(?:e|ed|es|ing)|decreas(?:e|ed|es|ing)|reduc(?:e|ed|es|ing)|cut\s+(?:to|from|by)|bump(?:ed|ing)?|"
    r"going\s+(?:up|down)|goes\s+(?:up|down)|mov(?:e|ed|es|ing)|push(?:ed|ing)|"
    r"pull(?:ed|ing)|postpon(?:e|ed|ing)|delay(?:ed)?|brought\s+forward|earlier|later|"
    r"renam(?:e|ed)|chang(?:e|ed|es|ing)|updat(?:e|ed)|revis(?:e|ed|es|ing)|re-?baselined|"
    r"instead|rather\s+than|switch(?:ed|ing)?|replac(?:e|ed|es|ing)|supersed(?:e|ed|es|ing)|migrat(?:e|ed|es|ing)|dropp(?:ed|ing)|"
    r"down\s+(?:to|from)|up\s+from|effective|as\s+of|starting|from\s+(?:now|then)\s+on|"
    r"from\s[^.;:]{1,40}?\sto|going\s+forward|from\s+here\s+on|henceforth|correct(?:ed|ion)|wrongly|revert(?:ed|ing|s)?|"
    r"back\s+to|was|were|previously|formerly|used\s+to|new|"
    # a size or a length set anew ("drops to 30 days", "goes to 60 days", "trimming the
    # onsite to three")
    r"(?:drop(?:s|ped|ping)?|fall(?:s|en|ing)?|fell|ris(?:e|es|en|ing)|rose|grow(?:s|n|ing)?|"
    r"go(?:es)?|went|going)"
    r"\s+(?:to|from|by)\s+(?=[$€£]?\d)|"
    r"slip(?:s|ped|ping)?\s+(?:to|by|into)|"
    # a verb and its particle around the thing set anew ("brought the same-day cut off
    # forward to 13:00", "put all people-manager cards up to $5k"): up to four words of
    # the thing between, not a preposition's ("you can put in up to 3 claims")
    r"br(?:ing|ings|inging|ought)\s+(?:[\w'-]+\s+){1,4}?forward|"
    r"put(?:s|ting)?\s+(?!(?:in|on|aside|through|for|down|forward)\b)(?:[\w'-]+\s+){1,4}?"
    r"(?:up|down)\s+to|"
    # not a purpose ("to shorten runs in the south")
    r"(?<!to\s)(?:trimm?(?:s|ed|ing)?|extend(?:s|ed|ing)?|shorten(?:s|ed|ing)?|lengthen(?:s|ed|ing)?|"
    r"tighten(?:s|ed|ing)?|loosen(?:s|ed|ing)?|relax(?:es|ed|ing)?|halv(?:e|ed|es|ing)|"
    r"doubl(?:ed|es|ing)|tripl(?:ed|es|ing))|capp?(?:s|ed)?\s+at|(?:up|down)grad(?:e|ed|es|ing)|"
    # a thing taken up, handed on or put away ("takes over the renewals", "is retired")
    r"tak(?:e|es|ing)\s+over|took\s+over|hand(?:s|ed|ing)?\s+over|handover|"
    r"transferr?(?:s|ed|ing)?|reassign(?:s|ed|ing)?|adopt(?:s|ed|ing)?|"
    r"roll(?:s|ed|ing)?\s+out|go(?:es)?\s+live|went\s+live|fold(?:s|ed|ing)?\s+into|"
    r"merg(?:ed|es|ing)|merge\s+into|consolidat(?:e|ed|es|ing)|retir(?:e|ed|es|ing)|deprecat(?:e|ed|es|ing)|"
    r"sunset(?:s|ted|ting)?|discontinu(?:e|ed|es|ing)|phas(?:e|ed|es|ing)\s+out|lift(?:s|ed|ing)|"
    # a note that says it is an edit of a page or a message ("wiki edit (Outpatients):",
    # "EDIT:", "Edited:") at the head of its line; not the word in a sentence ("edit
    # access", "please edit the sheet:") nor another thing's edit ("Video edit:")
    r"(?:^|(?<=\n))[^\w\n]*(?:(?:wiki|page|doc|document|post|message|note|handbook)\s+)?"
    r"edit(?:ed)?(?=\s*(?:\([^)\n]*\))?\s*:)|"
    # when it takes effect ("from Monday", "from 1 Oct", "from the August board pack on")
    r"with\s+effect\s+from|with\s+immediate\s+effect|beginning\s+(?:with|on|in|next)|"
    # a sentence that opens on when it takes effect ("From the April period end, CVRs ...")
    r"(?:^|(?<=\n))\W*from\s+(?:the\s+)?(?:\w+\s+){0,2}?"
    + _MONTH_WORD
    + r"(?:\s+\w+){0,3}?(?=\s*,)|"
    r"from\s+(?:(?:next|this)\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day|"
    r"from\s+(?:next|this|the\s+next)\s+(?:week|month|quarter|year|sprint|cycle|release)|"
    r"from\s+(?:today|tomorrow)|"
    r"from\s+the\s+\d{1,2}(?:st|nd|rd|th)\b|"
    r"from\s+(?:the\s+)?\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH_WORD + r"|"
    r"from\s+" + _MONTH_WORD + r"\.?\s+\d{1,2}\b|"
    r"from\s+(?:the\s+)?(?:\w+\s+){0,3}?(?:"
    + _MONTH_WORD
    + r"|week|sprint|cycle|run|release|quarter|year|period|pack|edition|version)\s+on"
    r"(?=\s*[,.;:]|\s*$))\b",
    re.IGNORECASE,
)
"""Words that state a value as a change: a change word, a verb that sets a size or a
length anew, one that hands a thing on or puts it away, or when the change takes
effect."""
_TEMPORARY = re.compile(
    r"\b(?:this\s+(?:week|sprint|month|time)\s+only|only\s+(?:this|for\s+this)\s+"
    r"(?:week|sprint|month|time)|temporar(?:y|ily)|for\s+(?:one|this)\s+(?:week|day|release)|"
    r"exception|except|pilot|trial|until\s+further|"
    # a shift from the norm leaves the norm standing ("run one day later than normal");
    # so do one week's changed days ("bin collections in the week of 6 April run ...")
    r"than\s+(?:normal|usual)|"
    # one dated day's change ("Sat 11 Apr ONLY", "14 May only", "today only"): not a
    # standing day ("Fridays only", "Friday only" may be a rule), so a date or today; nor
    # the day a change starts ("from 3 June only staff park in bay 4")
    r"(?<!from\s)(?<!starting\s)(?<!of\s)(?<!after\s)(?<!effective\s)(?:(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)[a-z]*\.?,?\s+)?"
    r"(?:\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MONTH_WORD + r"|" + _MONTH_WORD + r"\.?\s+\d{1,2}"
    r"(?:st|nd|rd|th)?|\d{1,2}/\d{1,2}(?:/\d{2,4})?|today|tonight|tomorrow)\.?,?\s+only|"
    r"(?<!from\s)(?<!starting\s)(?<!beginning\s)(?:in|during|for)\s+the\s+week\s+(?:of|commencing|beginning))\b",
    re.IGNORECASE,
)


_PLANNED = re.compile(
    r"\b(?:(?:we|they|i|you|team|he|she)(?:\s+are|'re|\s+am|'m|\s+is|'s)?\s+plan(?:s|ning)?\s+to|"
    r"intend(?:s|ing)?\s+to|aim(?:s|ing)?\s+to|would\s+like\s+to|"
    r"(?:are|is|am)\s+(?:considering|exploring|thinking\s+(?:about|of)))\b",
    re.IGNORECASE,
)


def temporary(text: str) -> bool:
    """Whether ``text`` states an exception for a while ("this week only", "for the
    pilot", "one day later than normal", "Sat 11 Apr ONLY"); "until further notice" is
    not one when a state is said with it."""
    return any(m.group(0).lower() != "until further" for m in _TEMPORARY.finditer(text))


def planned(text: str) -> bool:
    """Whether ``text`` only plans or weighs a change ("from 1 January we plan to move
    the pension to Swiss Life"): nothing has changed yet."""
    return bool(_PLANNED.search(text))


def change_cue(text: str, *, heading: bool = False) -> bool:
    """Whether ``text`` states a change: a change word, or a ``heading`` above it that
    states one ("Updated spending approvals (effective 1 September)" over a table's
    rows), and no question, hedge, plan, proposal or temporary exception ("this week
    only")."""
    return (
        (heading or bool(CUE.search(text)))
        and not states_nothing(text)
        and not _TEMPORARY.search(text)
        and not planned(text)
    )


_TITLED_CHANGE = re.compile(
    r"\b(?:updated|revised|revision|amended|effective|supersed(?:es|ed|ing)|changes\s+to|"
    r"re-?issue[ds]?|edited)\b",
    re.IGNORECASE,
)


def titled_change(title: str) -> bool:
    """Whether a document's first line states a change for every line below it
    ("Updated spending approvals (effective 1 September)", "Support SLAs v3 (effective 1
    Oct)", "Assessment Regulations 2026-27 (re-issued July 2026)"): a word of revision,
    not any change word ("Merge request guidelines",
    "Handover notes", "Launch notes: new Team plan" are titles of things)."""
    return bool(_TITLED_CHANGE.search(title)) and not states_nothing(title)
