"""Text analysis: tokenise, lower, stem and drop stopwords, per language.

Below everything that reads text (``extraction``, ``derive``, ``retrieve``, ``graph``),
so that deriving statements never reaches into search for its words. Each language is
data (``languages.py``): English (the default), German, French and Spanish; which one a
text is in is read from the text itself (``detect.py``).
"""

from __future__ import annotations

from .compounds import compound_parts, text_compound_parts
from .detect import detect_language, sure_language
from .keys import key_terms
from .languages import DEFAULT_LANGUAGE, LANGUAGES, Language, get_language
from .stem import stem, text_stems, topic_words
from .stopwords import STOPWORDS, stopwords
from .words import (
    LETTER_WORD,
    WORD,
    label_words,
    letter_words,
    plain_words,
    words,
)

__all__ = [
    "DEFAULT_LANGUAGE",
    "LANGUAGES",
    "LETTER_WORD",
    "STOPWORDS",
    "WORD",
    "Language",
    "compound_parts",
    "detect_language",
    "get_language",
    "key_terms",
    "label_words",
    "letter_words",
    "plain_words",
    "stem",
    "stopwords",
    "sure_language",
    "text_compound_parts",
    "text_stems",
    "topic_words",
    "words",
]
