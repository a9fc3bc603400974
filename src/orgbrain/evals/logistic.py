"""A weighted, L2-regularised logistic regression by Newton's method: the solver both
fitted judges use (the supersession judge, ``judge_fit``; the answerability judge,
``answer_fit``). Exact for a few dozen signals, no dependency beyond numpy."""

from __future__ import annotations

import numpy as np

__all__ = ["logistic", "sigmoid"]


def sigmoid(z: np.ndarray) -> np.ndarray:
    out: np.ndarray = 1 / (1 + np.exp(-np.clip(z, -30, 30)))
    return out


def logistic(
    x: np.ndarray,
    y: np.ndarray,
    sw: np.ndarray,
    *,
    l2: float,
    steps: int,
    tol: float,
) -> tuple[float, np.ndarray]:
    """The bias and weights fitted to ``x`` (a row per example), ``y`` (0 or 1) and the
    examples' weights ``sw``; the bias is not regularised. At most ``steps`` Newton
    steps, fewer once a step moves no weight more than ``tol``."""
    xb = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(xb.shape[1])
    reg = np.full(xb.shape[1], l2)
    reg[0] = 0.0
    for _ in range(steps):
        p = sigmoid(xb @ w)
        g = xb.T @ (sw * (p - y)) + reg * w
        h = (xb * (sw * p * (1 - p))[:, None]).T @ xb + np.diag(reg) + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(h, g)
        w -= step
        if np.abs(step).max() < tol:
            break
    return float(w[0]), w[1:]
