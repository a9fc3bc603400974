"""The supersession judge: whether a newer unit of text (a sentence, a list line, a table
row) replaces an older one, as a probability with the signals that decided it.

Three parts, each apart from the store: ``units`` reads a note into units, each with its
values masked; ``signals`` reads a pair of units into named numbers that carry to wording
nobody wrote rules for (the same slot with its values masked, which value types differ,
the subject words shared and not, change and non-assertion cues, time order); ``judge``
combines them with weights fitted on the living sets, per embedding model
(``spaces/``, written by ``orgbrain eval judge --write``).
Candidates and the store writes live in ``derive/judged.py``.
"""

from .judge import JUDGE_VERSION, Verdict, Weights, judge, judging_with, load_weights
from .signals import SIGNALS, PairText, pair_texts, signals
from .units import JUnit, units_of

__all__ = [
    "JUDGE_VERSION",
    "SIGNALS",
    "JUnit",
    "PairText",
    "Verdict",
    "Weights",
    "judge",
    "judging_with",
    "load_weights",
    "pair_texts",
    "signals",
    "units_of",
]
