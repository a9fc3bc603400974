"""German: the data the analysis reads for ``language="de"``."""

from __future__ import annotations

import re

__all__ = [
    "ADJECTIVE_ENDINGS",
    "FILLERS",
    "FUNCTION_WORDS",
    "NOUN_MARKERS",
    "NOUN_SUFFIXES",
    "STOPWORDS",
    "SUFFIXES",
]

# Function words, question words, and the verbs that frame a question rather than say
# what it is about ("welche Datenbank nutzen wir?" asks about a database), as English's
# "use" does; plus conversational filler.
STOPWORDS = frozenset(
    """aber alle allem allen aller alles als also am an ander andere anderem anderen anderer
    anderes auch auf aus bei beim bin bis bist da damit dann das dass dasselbe dazu dein
    deine deinem deinen deiner dem den denn der derselbe des dessen dich die dies diese
    diesem diesen dieser dieses dir doch dort du durch ein eine einem einen einer eines er
    es etwas euch euer eure für gegen gewesen hab habe haben hat hatte hatten hier hin
    hinter ich ihm ihn ihnen ihr ihre ihrem ihren ihrer ihres im in indem ins ist jede
    jedem jeden jeder jedes jene jetzt kann kein keine keinem keinen keiner können könnte
    man manche mein meine meinem meinen meiner mich mir mit muss musste müssen nach nicht
    nichts noch nun nur ob oder ohne sehr sein seine seinem seinen seiner sich sie sind so
    solche soll sollen sollte sondern sonst über um und uns unser unsere unserem unseren
    unserer unter viel vom von vor war waren warst was weil welche welchem welchen welcher
    welches wem wen wenn wer werde werden wessen wie wieder will wir wird wo wobei woher
    wohin womit worauf wozu würde würden zu zum zur zwar zwischen wann warum wieso weshalb
    nutzen nutzt benutzen benutzt verwenden verwendet verwende gibt geben gilt
    hallo hi hey danke bitte ja nein okay ok tschüss genau gut super toll""".split()
)

FILLERS = re.compile(
    r"\b(?:zurzeit|derzeit|aktuell|momentan|heutzutage|gerade|im\s+moment|zur\s+zeit)\b",
    re.IGNORECASE,
)
"""Ways of asking for what holds now ("welches Tool nutzen wir zurzeit?")."""

# Tried in order, the first that fits wins; written without umlauts, as ``stem`` folds
# them first. Crude, like English's: enough to meet "Datenbanken" with "Datenbank".
SUFFIXES = (
    ("ungen", "ung"),
    ("heiten", "heit"),
    ("keiten", "keit"),
    ("innen", "in"),
    ("ern", ""),
    ("em", ""),
    ("en", ""),
    ("er", ""),
    ("es", ""),
    ("n", ""),
    ("s", ""),
)

# German capitalises every noun, so a capital says "noun", not "name"; these say which
# capitalised words are common nouns ("in der Montage", "kurze Info", "Werkleitung").
NOUN_MARKERS = frozenset(
    """der die das den dem des ein eine einer einem einen eines kein keine keinem keinen
    keiner keines im am zum zur vom beim ins ans aufs durchs fürs mein meine meinem meinen
    meiner meines dein deine deinem deinen deiner sein seine seinem seinen seiner seines
    ihr ihre ihrem ihren ihrer ihres unser unsere unserem unseren unserer euer eure eurem
    euren eurer dies diese diesem diesen dieser dieses jede jedem jeden jeder jedes jene
    jenem jenen jener welche welchem welchen welcher alle allen aller beide beiden viele
    vielen mehrere""".split()
)
"""Words after which a capitalised word is a common noun: articles, an article fused
with a preposition, possessives, demonstratives, quantifiers."""
ADJECTIVE_ENDINGS = ("e", "en", "er", "es", "em")
"""The endings of an inflected adjective: a lower-case word that ends so ("kurze Info",
"die alten Boards") marks the capitalised word after it as a noun."""
NOUN_SUFFIXES = (
    "ung", "ungen", "heit", "heiten", "keit", "keiten", "schaft", "schaften", "tion",
    "tionen", "tät", "täten", "nis", "nisse", "ismus", "ment", "ments",
    "zeit", "zeiten",
)  # fmt: skip
"""Endings only common nouns have ("Werkleitung", "Qualität", "Bereitschaft"), in a word
at least three letters longer than the ending."""
FUNCTION_WORDS = STOPWORDS | frozenset(
    """ab an auf bei bis bitte neu neue neuen neuer neues alte alten liebe lieber liebes
    viele vielen beide nächste nächsten nächster erste ersten zweite kurze kurz""".split()
)
"""Words that, capitalised at a line's or a label's start, name no one ("Ab sofort",
"Bitte ...", "Das Audit", "Liebe Grüße")."""
