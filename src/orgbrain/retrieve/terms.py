"""Query terms for the keyword streams: words that carry meaning, nothing else."""

from __future__ import annotations

import re

__all__ = ["STOPWORDS", "query_terms"]

_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)?", re.UNICODE)

# English function words plus conversational filler ("yo", "thanks", "ok"): small talk
# must not match documents that happen to contain the same word.
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
    great nice bye cheers please pls hmm um uh oh ah wow""".split()
)


def query_terms(query: str, *, max_terms: int = 32) -> list[str]:
    """Lower-cased distinct words of ``query`` minus stopwords, in order of appearance."""
    seen: dict[str, None] = {}
    for match in _WORD.finditer(query.lower()):
        word = match.group(0).replace("\u2019", "'")
        if word in STOPWORDS or (len(word) < 2 and not word.isdigit()):
            continue
        seen.setdefault(word, None)
        if len(seen) >= max_terms:
            break
    return list(seen)
