"""Spanish: the data the analysis reads for ``language="es"``."""

from __future__ import annotations

import re

__all__ = ["FILLERS", "STOPWORDS", "SUFFIXES"]

# Function words, question words (with and without their accents: people type both), the
# verbs that frame a question ("¿qué base de datos usamos?"), and conversational filler.
STOPWORDS = frozenset(
    """a al algo algún alguna algunas alguno algunos ante antes como cómo con contra cual
    cuál cuales cuáles cuando cuándo cuanto cuánto cuanta cuánta de del desde donde dónde
    dos el él ella ellas ellos en entre era eran es esa esas ese eso esos esta está estaba
    están estar este esto estos fue fueron ha han hay hasta la las le les lo los más me mi
    mis mucho muy nada ni no nos nosotros o os otra otras otro otros para pero poco por
    porque qué que quien quién quienes quiénes se sea ser si sí sin sobre son su sus también
    te tiene tienen todo todos tu tú tus un una unas uno unos y ya yo vosotros usted
    ustedes hemos tenemos somos debe deben puede pueden
    usa usan usamos usar usado utiliza utilizan utilizamos utilizar
    hola gracias vale sí ok adiós""".split()
)

FILLERS = re.compile(
    r"(?<!\w)(?:actualmente|ahora\s+mismo|en\s+este\s+momento|hoy\s+en\s+día|por\s+ahora)(?!\w)",
    re.IGNORECASE,
)
"""Ways of asking for what holds now ("¿qué herramienta usamos actualmente?")."""

# Tried in order, the first that fits wins; unaccented, as ``stem`` folds accents first.
SUFFIXES = (
    ("aciones", ""),
    ("acion", ""),
    ("amientos", ""),
    ("amiento", ""),
    ("mente", ""),
    ("ados", ""),
    ("adas", ""),
    ("idos", ""),
    ("idas", ""),
    ("ado", ""),
    ("ada", ""),
    ("ido", ""),
    ("ida", ""),
    ("es", ""),
    ("os", ""),
    ("as", ""),
    ("s", ""),
    ("o", ""),
    ("a", ""),
)
