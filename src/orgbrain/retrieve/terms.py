"""Query terms for the keyword streams: words that carry meaning, nothing else."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

__all__ = [
    "STOPWORDS",
    "asked_names",
    "content_terms",
    "coverage",
    "holds_any",
    "is_code",
    "query_names",
    "query_terms",
    "stem",
    "text_stems",
    "topic_words",
    "words",
]

_WORD = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)?", re.UNICODE)

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


_PRESENT = re.compile(
    r"\b(?:these\s+days|nowadays|at\s+the\s+moment|right\s+now|at\s+present)\b", re.IGNORECASE
)
"""Ways of asking for what holds now, which name nothing a hit must say ("what do we use
for exception monitoring these days?": not "days")."""


def query_terms(query: str, *, max_terms: int = 32) -> list[str]:
    """Lower-cased distinct words of ``query`` minus stopwords and ``_PRESENT``'s
    phrases, in order of appearance."""
    seen: dict[str, None] = {}
    for match in _WORD.finditer(_PRESENT.sub(" ", query).lower()):
        word = match.group(0).replace("\u2019", "'")
        if word in STOPWORDS or (len(word) < 2 and not word.isdigit()):
            continue
        seen.setdefault(word, None)
        if len(seen) >= max_terms:
            break
    return list(seen)


# Capitalised, but dates rather than names: a question's "in May" is a time constraint.
_CALENDAR = frozenset(
    """january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday""".split()
)
_SENTENCE_START = re.compile(r"(?:^|[.!?:;\"\u201c(]\s*)$")


def is_code(word: str) -> bool:
    """Whether ``word`` is written like an acronym or a code rather than a name: two or
    more capitals ("UK", "PrP", "KRAS") or a digit ("G94P", "BMP4", "3T3")."""
    return any(c.isdigit() for c in word) or sum(c.isupper() for c in word) >= 2


def query_names(query: str, *, max_names: int = 8) -> list[str]:
    """Lower-cased proper names in ``query``: capitalised words not opening a sentence,
    not stopwords, calendar words or codes (``is_code``), possessives dropped
    ("Caroline's" -> "caroline").

    A question about a named thing is only answered by text that names it. Codes stay
    ordinary terms: text spells them too many ways ("4-PBA" / "4-phenylbutyrate",
    "UK" / "United Kingdom", "NIH 3T3" / "3T3 fibroblasts") for their absence to mean
    the text is about something else.
    """
    seen: dict[str, None] = {}
    for match in _WORD.finditer(query):
        word = match.group(0)
        if not word[0].isupper() or _SENTENCE_START.search(query[: match.start()]):
            continue
        if is_code(re.sub(r"['\u2019]s$", "", word)):
            continue
        name = re.sub(r"['\u2019]s$", "", word.lower())
        if name in STOPWORDS or name in _CALENDAR or len(name) < 2:
            continue
        seen.setdefault(name, None)
        if len(seen) >= max_names:
            break
    return list(seen)


_ASKING = re.compile(
    r"(?:[,;]|\s[-\u2013\u2014])\s+(?=(?:what|which|who|whom|whose|where|when|why|how|am|is|are|was|were|do|does|"
    r"did|can|could|should|would|will|may|must|shall|have|has)\b[^,;]*\?\s*$)",
    re.IGNORECASE,
)
"""Where the asking clause begins in a question that first sets its scene: a comma (a
semicolon, or a dash between spaces: "We've had an incident on the York job - which
safety advisor do I phone?"), then a question word or auxiliary that runs, with no other
comma, to the closing question mark ("I'm swapping my on-call shift with Tom next week,
where do I set that up?")."""


def asking_start(query: str) -> int:
    """Where ``query``'s asking clause begins (``_ASKING``): 0 for a question that sets no
    scene of its own."""
    starts = [m.end() for m in _ASKING.finditer(query)]
    return starts[-1] if starts else 0


def asked_names(query: str, names: list[str] | None = None) -> list[str]:
    """The proper names of ``query`` (``names``, default ``query_names(query)``) that a
    hit must name: those of its asking clause. A question that sets its scene in a clause
    of its own before asking ("flying Berlin to San Francisco next month, am I allowed to
    book business?", "our Figma subscription renews next month, who do I send the quote
    to?") asks the clause after the comma; the names before it say whose case it is, and
    the note that answers (the travel policy, who owns vendor contracts) need not name
    them. A question without such a clause needs all of its names."""
    names = query_names(query) if names is None else names
    start = asking_start(query) if names else 0
    if not start:
        return names
    asked = set(query_names(query[start:]))
    return [n for n in names if n in asked]


def content_terms(terms: list[str], names: list[str]) -> list[str]:
    """``terms`` less the names (possessive or not): what the question asks about them."""
    named = set(names)
    return [t for t in terms if re.sub(r"['\u2019]s$", "", t) not in named]


_SUFFIXES = (
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


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A crude suffix stripper, enough to match "painted" with "painting" when judging
    whether a hit covers a query's terms (ranking uses FTS5's Porter stemmer). A final
    "e" goes too, as Porter's does: "escalates" loses "es", so "escalate" must lose its
    "e" to meet it (and "database" its plural, "release" "released"). Cached: the gate
    stems every word of the hits it reads, and words repeat (a search's hits were ~25k
    uncached calls, 8% of a LoCoMo search; docs/journal.md, issue 17 cost)."""
    w = re.sub(r"['\u2019]s$", "", word.lower())
    for suffix, replacement in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)] + replacement
            break
    return w[:-1] if w.endswith("e") and len(w) > 3 else w


def text_stems(text: str) -> frozenset[str]:
    """The stems of every word of ``text``. Cached by text: the gate and the learned
    ranker read the same items' text over and over (a store's hits repeat across
    searches; 8k texts of a few kB at most)."""
    return _read(text)[0]


def topic_words(text: str) -> frozenset[str]:
    """The stems of the words of ``text`` that say what it is about: three letters or
    more and no stopword ("the", "we", "use"; dropped before stemming, so that "notes",
    whose stem is "not", stays). Two texts share a topic when they share several
    (``retrieve.search``'s ``SAME_TOPIC``)."""
    return _read(text)[1]


@lru_cache(maxsize=1 << 13)
def _read(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """``text_stems`` and ``topic_words`` in one pass over the words: a search reads
    both of its first candidates (freshness the topics, the gate and the ranker the
    stems)."""
    every: set[str] = set()
    topic: set[str] = set()
    for word in words(text):
        s = stem(word)
        every.add(s)
        if len(word) > 2 and word.lower().replace("\u2019", "'") not in STOPWORDS:
            topic.add(s)
    return frozenset(every), frozenset(topic)


def words(text: str) -> list[str]:
    """Every word of ``text``, as written."""
    return _WORD.findall(text)  # _WORD has no groups: whole words


@lru_cache(maxsize=1 << 13)
def _joined(stems: frozenset[str]) -> str:
    """``stems`` as one string, each after a newline: a prefix test in one C-level search."""
    return "\n" + "\n".join(stems)


def holds_any(terms: Sequence[str], stems: frozenset[str]) -> bool:
    """Whether ``coverage(terms, stems)`` is above 0, without counting the rest."""
    joined = None
    for term in terms:
        t = stem(term)
        if t in stems:
            return True
        if len(t) >= 3:
            joined = _joined(stems) if joined is None else joined
            if "\n" + t in joined:
                return True
    return False


def coverage(terms: list[str], stems: frozenset[str]) -> float:
    """Share of ``terms`` whose stem is in ``stems``, or (three letters or more) is a
    prefix of one of them (a nickname, a longer form); 1.0 for no terms."""
    if not terms:
        return 1.0
    # One loop, no helper a term: a search's learned stage makes ~270 of these tests.
    held = 0
    joined = None
    for term in terms:
        t = stem(term)
        if t in stems:
            held += 1
        elif len(t) >= 3:
            joined = _joined(stems) if joined is None else joined
            held += "\n" + t in joined
    return held / len(terms)
