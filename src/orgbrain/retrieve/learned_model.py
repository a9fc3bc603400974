"""The learned ranker's weights, as ``bench/learned_rank.py fit --write`` fitted them
on the dev sets on 2026-12-05 (docs/journal.md, "A learned ranker", and
"The refit"): the default plan's last ranking stage (``tuned-z``). Generated: do not
edit. Refit whenever the candidates change (a new stream, new keyword text, another
fusion): ``dump`` over the eval caches, then
``fit --depth 50 --keep score_share names asks run_count --write``.
"""

from .learned import LinearRanker

__all__ = ["LEARNED"]

LEARNED = LinearRanker(
    "learned",
    weights=(
        0.0,
        1.5041,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.3163,
        0.0,
        -0.6377,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.5539,
        0.0,
        0.0,
    ),
    mean=(
        0.09,
        0.4176,
        0.3025,
        0.2859,
        0.8787,
        0.4097,
        -0.2458,
        0.3546,
        0.258,
        0.7356,
        0.9095,
        0.0536,
        0.0002,
        0.0002,
        0.0,
        0.6486,
        0.2578,
        0.6288,
        0.6558,
        0.8788,
    ),
    scale=(
        0.1562,
        0.2028,
        0.2472,
        0.2549,
        0.3265,
        0.1401,
        0.1782,
        0.2564,
        0.2147,
        0.441,
        0.2868,
        0.2252,
        0.0139,
        0.0139,
        1.0,
        0.3741,
        0.3425,
        0.8246,
        0.1411,
        0.1258,
    ),
    depth=50,
)
