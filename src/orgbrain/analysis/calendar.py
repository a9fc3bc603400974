"""The calendar's words in every language analysis knows: months, weekdays, and the words
that join two days into a span or a set ("Mo-Fr", "lundi au vendredi", "de lunes a
viernes").

Data, read by the value and name readers (``extraction/values.py``, ``shorthand.py``,
``named.py``, ``sentences.py``): a date written in any of these languages reads as one
``date`` whose key is the month's number and the day, a weekday as one ``weekday`` whose
key is the English three letters ("mon"), so that "16. Juni" and "June 16" are one date
and "Montag" and "Monday" one day. A language is a line in each table, not a branch.
"""

from __future__ import annotations

__all__ = [
    "DAY_JOINS",
    "DAY_RANGES",
    "MONTHS",
    "SHORT_WEEKDAYS",
    "WEEKDAYS",
    "month_number",
]


def _months(*names: str) -> dict[str, int]:
    """Twelve space-separated groups of a month's spellings, January first."""
    return {word: n for n, group in enumerate(names, start=1) for word in group.split()}


def _days(*names: str) -> dict[str, str]:
    """Seven space-separated groups of a weekday's spellings, Monday first."""
    keys = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
    return {word: keys[n] for n, group in enumerate(names) for word in group.split()}


MONTHS_BY_LANGUAGE = {
    "en": _months(
        "january jan", "february feb", "march mar", "april apr", "may", "june jun",
        "july jul", "august aug", "september sep sept", "october oct", "november nov",
        "december dec",
    ),
    "de": _months(
        "januar jänner jan", "februar feb", "märz mär mrz", "april apr", "mai",
        "juni jun", "juli jul", "august aug", "september sep sept", "oktober okt",
        "november nov", "dezember dez",
    ),
    "fr": _months(
        "janvier janv", "février fevrier févr fév", "mars", "avril avr", "mai", "juin",
        "juillet juil", "août aout", "septembre sept", "octobre oct", "novembre nov",
        "décembre decembre déc",
    ),
    "es": _months(
        "enero ene", "febrero feb", "marzo mar", "abril abr", "mayo may", "junio jun",
        "julio jul", "agosto", "septiembre setiembre sep sept", "octubre oct",
        "noviembre nov", "diciembre dic",
    ),
}  # fmt: skip
"""Spanish "ago" (agosto) is left out: "2 days ago" is no date."""

WEEKDAYS_BY_LANGUAGE = {
    "en": _days("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"),
    "de": _days(
        "montag montags", "dienstag dienstags", "mittwoch mittwochs",
        "donnerstag donnerstags", "freitag freitags", "samstag samstags sonnabend",
        "sonntag sonntags",
    ),
    "fr": _days("lundi lundis", "mardi mardis", "mercredi", "jeudi", "vendredi", "samedi",
                "dimanche dimanches"),
    "es": _days("lunes", "martes", "miércoles miercoles", "jueves", "viernes",
                "sábado sabado sábados sabados", "domingo domingos"),
}  # fmt: skip
"""Weekdays written out, and the adverbs of a weekly day ("montags": every Monday)."""

SHORT_WEEKDAYS_BY_LANGUAGE = {
    "de": _days("Mo", "Di", "Mi", "Do", "Fr", "Sa", "So"),
    "fr": _days("lun", "mar", "mer", "jeu", "ven", "sam", "dim"),
    "es": _days("lun", "mar", "mié mie", "jue", "vie", "sáb sab", "dom"),
}
"""Weekdays written short, read only as a span of days ("Mo-Fr", "lun.-ven."): alone,
"Do", "So", "mar" are words (English's short days are ``shorthand.py``'s). As written:
German's only with a capital ("what to do - so" is no span), the others either way."""

DAY_RANGES = frozenset({"bis", "au", "à", "a"})
"""Words between two days that make them a span ("montags bis freitags", "de lunes a
viernes"), besides English's "to" and a dash."""
DAY_JOINS = frozenset({"und", "et", "y"})
"""Words between two days that make them a set ("Dienstag und Freitag")."""


def _union(tables: dict[str, dict[str, int]]) -> dict[str, int]:
    return {word: n for table in tables.values() for word, n in table.items()}


MONTHS = _union(MONTHS_BY_LANGUAGE)
"""Every language's month words, lower-case, each to its number (1 to 12)."""
WEEKDAYS = {w: d for table in WEEKDAYS_BY_LANGUAGE.values() for w, d in table.items()}
"""Every language's weekdays written out, lower-case, each to its key ("mon")."""
SHORT_WEEKDAYS = {
    written: d
    for table in SHORT_WEEKDAYS_BY_LANGUAGE.values()
    for w, d in table.items()
    for written in {w, w.capitalize()}
}
"""Every language's short weekdays but English's, as they may be written, each to its key."""


def month_number(word: str) -> int | None:
    """The number of the month ``word`` names in any language ("Juni", "avril", "Sept."),
    or None."""
    w = word.lower().rstrip(".")
    return MONTHS.get(w) or MONTHS.get(w[:3])
