"""What states nothing, whatever its words: a question, a hedge, a negation.

Every reader of sentences (the patterns, the classifier's filter, the links between
records) asks the same questions of a sentence before reading it.
"""

from __future__ import annotations

import re

__all__ = ["HEDGE", "NEGATION", "states_nothing"]

QUESTION_START = re.compile(
    r"(?:who|what|when|where|why|how|which|should|shall|do|does|did|is|are|can|could|"
    r"would|will|have|has|any|anyone)\b",
    re.IGNORECASE,
)
HEDGE = re.compile(
    r"\b(?:might|maybe|perhaps|possibly|probably|should we|could we|shall we|what if|"
    r"considering|consider|considered|evaluating|evaluated|propose|proposed|proposal|not sure|"
    r"unclear|TBD|tbc|wondering|thinking about|thought about|"
    r"hypothetically|if we|whether|discussed|discussing|talked about|no decision)\b",
    re.IGNORECASE,
)
NEGATION = re.compile(r"(?<!,\s)\b(?:not|never|no one|nobody)\b|n't\b", re.IGNORECASE)


def states_nothing(sentence: str) -> bool:
    """A question, a hedge or nothing at all: no statement, whatever the words."""
    sentence = sentence.strip()
    return (
        not sentence
        or sentence.endswith("?")
        or bool(QUESTION_START.match(sentence))
        or bool(HEDGE.search(sentence))
    )
