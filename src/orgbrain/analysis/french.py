"""French: the data the analysis reads for ``language="fr"``."""

from __future__ import annotations

import re

__all__ = ["FILLERS", "STOPWORDS", "SUFFIXES"]

# Function words (elided forms as the tokenizer leaves them: "l'équipe" is one word, so
# "qu", "l" and the like are here too), question words, the verbs that frame a question
# ("quelle base de données utilisons-nous ?"), and conversational filler.
STOPWORDS = frozenset(
    """a à au aux avec ce ces cet cette c ceci cela ça chez comme dans de des du d elle
    elles en entre est et été être eux il ils je j la le les leur leurs l lui ma mais me
    même mes m moi mon ne n nos notre nous on ont ou où par pas pour qu que quel quelle
    quelles quels qui sa sans se ses s si son sont sur ta te tes toi ton tu t un une vos
    votre vous y avons avez sommes êtes était étaient sera seront fait faut doit
    quand comment pourquoi combien quoi lequel laquelle lesquels lesquelles
    utilise utilisons utilisez utiliser utilisé utilisée sert servons
    bonjour salut merci oui non ok d'accord svp""".split()
)

FILLERS = re.compile(
    r"(?<!\w)(?:actuellement|aujourd['\u2019]hui|en\s+ce\s+moment|de\s+nos\s+jours|à\s+présent)(?!\w)",
    re.IGNORECASE,
)
"""Ways of asking for what holds now ("quel outil utilisons-nous en ce moment ?")."""

# Tried in order, the first that fits wins; unaccented, as ``stem`` folds accents first.
SUFFIXES = (
    ("ements", ""),
    ("ement", ""),
    ("ations", ""),
    ("ation", ""),
    ("euses", ""),
    ("euse", ""),
    ("eurs", ""),
    ("eur", ""),
    ("ees", ""),
    ("ee", ""),
    ("es", ""),
    ("er", ""),
    ("ez", ""),
    ("s", ""),
    ("x", ""),
)
