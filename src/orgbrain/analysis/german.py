"""German: the data the analysis reads for ``language="de"``."""

from __future__ import annotations

import re

__all__ = ["FILLERS", "STOPWORDS", "SUFFIXES"]

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
