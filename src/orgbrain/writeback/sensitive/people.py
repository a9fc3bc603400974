"""Personal data that needs the words around it: a home address (an office's is not
personal), a date of birth, and health, pay, performance, immigration or private-life
facts about a person (named, or a pronoun, or "the new hire"). Policy that names no
one ("parental leave is 20 weeks", "salary bands are reviewed in April") is not."""

from __future__ import annotations

import re
from functools import lru_cache

from .rule import Rule, sentence_at

__all__ = ["PEOPLE_RULES", "person_near"]

PERSONAL = "personal"

_PRONOUN = re.compile(
    r"\b(?:I|I'm|I\u2019m|I've)\b"
    r"|(?i:\b(?:he|she|him|her|his|hers|he's|she's|he\u2019s|she\u2019s|my|me"
    r"|employee|colleague|teammate|co-?worker|candidate|new\s+hire|intern|contractor"
    r"|partner|wife|husband|son|daughter|mother|father|mum|mom|dad)\b)"
)
_NAME = re.compile(
    r"(?<![\w'\u2019-])[A-Z][a-zà-öø-ÿ]+(?:-[A-Z]?[a-zà-öø-ÿ]+|['\u2019][A-Z][a-zà-öø-ÿ]+)?(?![\w-])"
)
_AFTER_LEADING_NAME = re.compile(
    r"(?:'s|\u2019s)\b|\s+(?:is|was|has|had|got|gets|earns|will|won't|can't|isn't|needs|asked"
    r"|failed|mentioned|said|told|started|starts|takes|took|went|called|and|[A-Z][a-z]+\s+"
    r"(?:is|was|has))\b|\s*[(,]"
)
_NOT_NAMES = frozenset(
    """monday tuesday wednesday thursday friday saturday sunday january february march
    april may june july august september october november december jan feb mar apr jun
    jul aug sep sept oct nov dec the this that these those there here we our us you your
    they their it its a an and but or if when while after before during since until please
    note heads update fyi reminder team people ops engineering finance legal security
    platform support company office annual medical health salary salaries parental
    maternity paternity sick leave all everyone nobody new old hr benefits payroll bonus
    performance visa slack jira workday google zoom teams github gitlab friday""".split()
)


def _names(sentence: str) -> list[tuple[int, int]]:
    found = []
    for m in _NAME.finditer(sentence):
        if m.group().casefold() in _NOT_NAMES:
            continue
        leading = not sentence[: m.start()].strip(" \t\"'(-—:•*")
        if leading and not _AFTER_LEADING_NAME.match(sentence, m.end()):
            continue  # a capital that only starts the sentence
        found.append(m.span())
    return found


def person_near(text: str, start: int, end: int, window: int = 60) -> bool:
    """Whether a person (a name, a pronoun, "the candidate") is mentioned within
    ``window`` characters of ``text[start:end]``, in its sentence."""
    sentence = sentence_at(text, start, end)
    offset = text.find(sentence, max(0, start - len(sentence)))
    lo, hi = start - offset - window, end - offset + window
    return any(s < hi and e > lo for s, e in _people(sentence))


@lru_cache(maxsize=64)
def _people(sentence: str) -> tuple[tuple[int, int], ...]:
    # Cached: a text with many cues asks about the same sentence once per cue.
    return (*(m.span() for m in _PRONOUN.finditer(sentence)), *_names(sentence))


def _about_a_person(m: re.Match[str]) -> bool:
    return person_near(m.string, *m.span())


def _fact(name: str, reason: str, cues: str) -> Rule:
    return Rule(name, PERSONAL, reason, re.compile(cues), _about_a_person)


_HOME = re.compile(
    r"(?i)\b(?:lives?|living|home|house|flat|apartment|apt|residence|resides|moved\s+to"
    r"|moved\s+house|personal\s+address)\b|(?:'s|\u2019s)\s+(?:\w+\s+)?address"
)
_WORKPLACE = re.compile(
    r"(?i)\b(?:office|offices|hq|headquarters|warehouse|campus|store|branch|site|data\s*"
    r"cent(?:er|re)|factory|venue|hotel|restaurant|conference|co-?working|company|our)\b"
)


def _home_address(m: re.Match[str]) -> bool:
    sentence = sentence_at(m.string, *m.span())
    return bool(_HOME.search(sentence)) and not _WORKPLACE.search(sentence)


_STREET = (
    r"Street|St|Avenue|Ave|Road|Rd|Lane|Ln|Drive|Dr|Boulevard|Blvd|Court|Ct|Place|Pl|Way"
    r"|Terrace|Close|Crescent|Square|Sq|Parkway|Pkwy|Highway|Hwy|Gardens|Grove|Row|Walk|Mews"
)
_STREET_FIRST = (
    r"Calle|Carrer|Rua|Avenida|Avda|Via|Viale|Piazza|Rue|Chemin|Straße|Strasse"
    r"|[A-ZÄÖÜ]\w+(?:straße|strasse|str\.|weg|gasse|platz|allee|laan|straat|gracht|vej"
    r"|gatan|gade|veien)"
)
_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_DATE = (
    rf"(?:\d{{1,2}}[/.-]\d{{1,2}}[/.-]\d{{2,4}}|\d{{4}}-\d{{2}}-\d{{2}}"
    rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\.?(?:,?\s+\d{{4}})?"
    rf"|{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?|(?:19|20)\d{{2}})"
)

PEOPLE_RULES: tuple[Rule, ...] = (
    Rule(
        "home-address",
        PERSONAL,
        "a home address",
        re.compile(
            rf"(?P<v>\b\d{{1,5}}[A-Za-z]?(?:-\d+)?\s+(?:[A-Z][\w'\u2019.-]*\s+){{1,4}}(?:{_STREET})\b"
            rf"|\b(?:{_STREET_FIRST})\s+(?:[\w'\u2019.-]+\s+){{0,4}}?\d{{1,4}}[a-zA-Z]?\b)"
        ),
        _home_address,
    ),
    Rule(
        "date-of-birth",
        PERSONAL,
        "a date of birth",
        re.compile(
            r"(?i)\b(?:date\s+of\s+birth|d\.?o\.?b\.?|born(?:\s+on|\s+in)?|birth\s?day)\b"
            rf"(?:\s+(?:is|was))?[\s:,-]{{0,3}}(?P<v>(?-i:{_DATE}))"
        ),
    ),
    _fact(
        "health",
        "a person's health",
        r"(?i)\b(?:(?:medical|sick(?:ness)?|stress|disability|maternity|paternity|parental"
        r"|bereavement|compassionate)\s+leave|off\s+sick|(?:is|was|been|feeling|called\s+in"
        r"|calling\s+in|went\s+home)\s+sick|sick\s+note|(?:is|was|been|fell|seriously)\s+ill"
        r"|illness|diagnos(?:ed|is)"
        r"|surgery|operation\s+on\s+(?:his|her)|hospital(?:i[sz]ed)?|chemo(?:therapy)?"
        r"|cancer|tumou?r|diabet(?:es|ic)|pregnan(?:t|cy)|miscarriage|therap(?:ist|y)"
        r"|counsell?(?:ing|or)|psychiatr\w*|mental\s+health|depress(?:ion|ed)|anxiety"
        r"|panic\s+attacks?|burn-?out|adhd|autis(?:m|tic)|disability|medication"
        r"|insulin|allerg(?:y|ic|ies)|injur(?:y|ed)|(?<!by\s)(?<!by\san\s)accident|rehab|hiv"
        r"|migraines?"
        r"|heart\s+attack|stroke|physio(?:therapy)?|(?:doctor|gp|medical|hospital)(?:'s)?"
        r"\s+appointments?|medical\s+condition|health\s+(?:issues?|problems?|condition))\b",
    ),
    _fact(
        "pay",
        "a person's pay",
        r"(?i)\b(?:salary|base\s+pay|pay\s+(?:rise|raise|cut)|(?:a|his|her|their)\s+raise"
        r"|(?:'s|\u2019s|his|her|their|my|annual|yearly|signing|sign-on|year-end|\d+\s?%)\s+bonus"
        r"|bonus\s+(?:of|is|was|this\s+year)|compensation|comp\s+package"
        r"|equity\s+(?:grant|package)|stock\s+options"
        r"|severance|earns|is\s+paid|gets\s+paid)\b",
    ),
    _fact(
        "performance",
        "a person's performance or discipline",
        r"(?i)\b(?:performance\s+improvement\s+plan|(?-i:PIP)|performance\s+(?:issues?"
        r"|problems?|concerns?|warning)|(?:bad|poor|low|negative)\s+performance(?:\s+review)?"
        r"|underperform\w*|(?:written|final|verbal|formal)\s+warning|disciplinary|grievance"
        r"|harass(?:ment|ed|ing)|misconduct|(?:was|were|been|got|get|being)\s+(?:fired"
        r"|dismissed|sacked|laid\s+off|let\s+go|made\s+redundant)|background\s+check"
        r"|criminal\s+record)\b",
    ),
    _fact(
        "immigration",
        "a person's immigration status",
        r"\bvisa\b|(?i:\b(?:work\s+permit|green\s+card|immigration|residence\s+permit"
        r"|right\s+to\s+work)\b)",
    ),
    _fact(
        "private-life",
        "a person's private life",
        r"(?i)\b(?:divorc\w+|separat(?:ed|ion)\s+from|custody|funeral|passed\s+away"
        r"|religio(?:n|us)|sexual\s+orientation|gay|lesbian|bisexual|transgender"
        r"|coming\s+out|(?:trade\s+)?union\s+member\w*|political\s+(?:views|party))\b",
    ),
)
