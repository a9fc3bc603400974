"""Retrieval evaluations on public benchmarks (BEIR folders, LoCoMo conversations) and on
short organisation facts (a development set ships with the package).

Each eval indexes its data into a fresh temporary brain through the public facade, ranks
with one or more search plans over that one index, and returns an :class:`EvalReport`.
"""

from .beir import BeirData, BeirDoc, index_beir, limit_beir, load_beir, run_beir, score_beir
from .facts import Fact, FactQuestion, FactSet, load_facts, run_facts
from .locomo import run_locomo
from .locomo_data import (
    CATEGORIES,
    Conversation,
    Question,
    Turn,
    load_locomo,
    parse_evidence,
    parse_session_date,
)
from .metrics import mean, mrr_at_k, ndcg_at_k, percentile, recall_at_k
from .report import EvalReport, PlanScores, render_table, render_text, to_json

__all__ = [
    "CATEGORIES",
    "BeirData",
    "BeirDoc",
    "Conversation",
    "EvalReport",
    "Fact",
    "FactQuestion",
    "FactSet",
    "PlanScores",
    "Question",
    "Turn",
    "index_beir",
    "limit_beir",
    "load_beir",
    "load_facts",
    "load_locomo",
    "mean",
    "mrr_at_k",
    "ndcg_at_k",
    "parse_evidence",
    "parse_session_date",
    "percentile",
    "recall_at_k",
    "render_table",
    "render_text",
    "run_beir",
    "run_facts",
    "run_locomo",
    "score_beir",
    "to_json",
]
