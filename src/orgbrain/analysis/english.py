"""English: the data the analysis reads for ``language="en"``."""

from __future__ import annotations

import re

__all__ = ["FILLERS", "STOPWORDS", "SUFFIXES"]

# English function words plus conversational filler ("yo", "thanks", "ok"): small talk
# must not match documents that happen to contain the same word. "use", like "do" and
# "have", frames a question rather than saying what it is about: "which database do we
# use?" asks about a database, and "Database: CockroachDB" answers it.
STOPWORDS = frozenset(
    """a about above after again against all am an and any are aren't as at be because been
    before being below between both but by can could did do does doing down during each few
    for from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just let's me more most my myself no nor not of off on once only or
    other ought our ours ourselves out over own same she should so some such than that the
    their theirs them themselves then there these they this those through to too under until
    up very was we were what when where which while who whom why will with would you your
    yours yourself yourselves s t don didn doesn isn wasn weren won wouldn shouldn couldn
    yo hi hey hello hiya thanks thank thx ty ok okay k cool lol yes yeah yep yup nope sure
    great nice bye cheers please pls hmm um uh oh ah wow use uses used using""".split()
)

FILLERS = re.compile(
    r"\b(?:these\s+days|nowadays|at\s+the\s+moment|right\s+now|at\s+present)\b", re.IGNORECASE
)
"""Ways of asking for what holds now, which name nothing a text must say ("what do we use
for exception monitoring these days?": not "days")."""

# Tried in order, the first that fits wins: a crude stripper, enough to match "painted"
# with "painting" (ranking uses FTS5's Porter stemmer).
SUFFIXES = (
    ("ations", ""),
    ("ation", ""),
    ("ings", ""),
    ("ing", ""),
    ("ies", "y"),
    ("ied", "y"),
    ("edly", ""),
    ("ed", ""),
    ("es", ""),
    ("ly", ""),
    ("s", ""),
)
