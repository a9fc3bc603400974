"""Fitting the supersession judge on the living sets, and measuring it on organisations
it never saw.

Each living case gives bags of unit pairs: for every two of its notes dated at least a
day apart, older and newer, every pair of their units (``judge.units_of``). The bag of
the case's replaced and current notes holds at least one pair that replaces; every
other bag (a control's, a distractor's) holds none. The judge says a note is replaced
when any pair of its bag reaches the threshold: a logistic regression over ``SIGNALS``
with each positive bag represented by the pairs of the lines its case says changed
(``Case.lines``, written by people who read the notes), and where a case says none, by
its best pair (multiple-instance: the most similar, masked, to start; then the judge's
own best, twice); every pair of a negative bag a negative. Told which lines changed, the
judge knew 0.490 of the changes at 4% false supersession out of fold against 0.399
when it picked its own, and 0.512 at 5% against 0.494 (docs/journal.md, session 19).

``leave_one_out`` fits on every organisation (set) but one and measures on that one,
at the bag level the living test counts: knows replaced (the replaced note's bag
reaches the threshold) and false supersession (a control's bag does).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from importlib import resources
from pathlib import Path

import numpy as np

from ..derive.rule_readings import read_rules
from ..errors import InvalidInput
from ..extraction import PatternExtractor
from ..judge import SIGNALS, pair_texts, signals, units_of
from ..judge.judge import (
    JUDGE_VERSION,
    PROJECTED,
    RULES,
    SCALE,
    SPACES,
    Projection,
    Weights,
    unread,
)
from ..model import Item, Origin
from ..ports import Embedder
from .living import Case, load_cases
from .logistic import logistic, sigmoid

__all__ = ["Bag", "bags_of", "fit", "leave_one_out", "weights_json"]

MIN_GAP_DAYS = 1.0
L2 = 1.0
MAX_FALSE = 0.035
"""The share of training controls the chosen threshold may falsely supersede: out of fold
over the 46 living sets, 0.035 gives 0.050 of the controls superseded (0.04 gave 0.059
once the judge was told the changed lines; 0.047 before, picking its own)."""


@dataclass(slots=True)
class Bag:
    """The unit pairs of two notes of one case, older and newer; ``label`` 1 when the
    newer replaces the older."""

    org: str
    case: str
    label: int
    control: bool
    x: np.ndarray  # one row per pair, one column per signal
    texts: list[tuple[str, str]] = field(default_factory=list)
    old_vecs: np.ndarray | None = None  # one row per pair: the older unit's vector
    new_vecs: np.ndarray | None = None
    foreign: np.ndarray | None = None
    """One flag per pair: neither unit is English (``Weights.foreign`` judge it)."""
    changed: np.ndarray | None = None
    """One flag per pair of a replaced note's bag: its units are the lines the case says
    changed (``Case.lines``)."""


class _Vectors:
    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.cache: dict[str, np.ndarray] = {}

    def need(self, texts: Sequence[str]) -> None:
        todo = sorted({t for t in texts if t not in self.cache})
        for i in range(0, len(todo), 64):
            chunk = todo[i : i + 64]
            vecs = np.asarray(self.embedder.embed(chunk), dtype=np.float32)
            for t, v in zip(chunk, vecs, strict=True):
                self.cache[t] = v / (np.linalg.norm(v) or 1.0)

    def cos(self, a: str, b: str) -> float:
        return float(self.cache[a] @ self.cache[b])


def bags_of(org: str, cases: Sequence[Case], embedder: Embedder | _Vectors) -> list[Bag]:
    vec = embedder if isinstance(embedder, _Vectors) else _Vectors(embedder)
    units = {c.id: [units_of(text) for _, text in c.notes] for c in cases}
    vec.need(
        [t for c in cases for _, t in c.notes]
        + [x for us in units.values() for u in us for v in u for x in (v.text, v.masked)]
    )
    out: list[Bag] = []
    for c in cases:
        notes = [as_note(f"{c.id}:{n}", at, text) for n, (at, text) in enumerate(c.notes)]
        for i, (at_i, body_i) in enumerate(c.notes):
            for j, (at_j, body_j) in enumerate(c.notes):
                gap = (at_j - at_i).total_seconds() / 86400
                if gap < MIN_GAP_DAYS:
                    continue  # j is not newer than i by a day
                read = read_rules(notes[i], notes[j], _PATTERNS)
                pairs = pair_texts(
                    units[c.id][i],
                    units[c.id][j],
                    vec.cache,
                    vec.cos(body_i, body_j),
                    gap,
                    rules=read.of,
                )
                if not pairs:
                    continue
                label = int(not c.control and i == c.replaced and j == c.current)
                x = np.array([[s[k] for k in SIGNALS] for s in map(signals, pairs)])
                texts = [(p.old.text, p.new.text) for p in pairs]
                olds = np.array([vec.cache[p.old.text] for p in pairs])
                news = np.array([vec.cache[p.new.text] for p in pairs])
                foreign = np.array([unread(p) for p in pairs])
                changed = np.array([_changed(t, c.lines) for t in texts]) if label else None
                bag = Bag(org, c.id, label, c.control, x, texts, olds, news, foreign, changed)
                out.append(bag)
    return out


def _changed(pair: tuple[str, str], lines: Sequence[tuple[str, str]]) -> bool:
    """Whether the two units of ``pair`` are one of the changed ``lines`` (a unit and its
    line hold one another, or share most of the shorter one's words)."""
    old, new = (_words(t) for t in pair)
    return any(_holds(old, _words(was)) and _holds(new, _words(now)) for was, now in lines)


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.casefold()))


def _holds(unit: str, line: str) -> bool:
    if not unit or not line:
        return False
    if unit in line or line in unit:
        return True
    a, b = set(unit.split()), set(line.split())
    return len(a & b) >= 0.6 * min(len(a), len(b))


_PATTERNS = PatternExtractor()


def as_note(item_id: str, at: datetime, text: str) -> Item:
    """A living case's note as the item the rules read (nothing is stored)."""
    return Item(
        id=item_id,
        workspace="fit",
        kind="note",
        storage_class="note",
        label=text.strip().split("\n", 1)[0],
        body=text,
        source_key=item_id,
        indexed=True,
        scope="org",
        origin=Origin("fit", "eval", at),
        occurred_at=at,
    )


def project(bags: Sequence[Bag], k: int = PROJECTED) -> Projection:
    """The principal directions of the newer units' vectors and of the pairs' differences
    (no labels: fitted on every pair of ``bags``)."""
    news = np.vstack([b.new_vecs for b in bags if b.new_vecs is not None])
    olds = np.vstack([b.old_vecs for b in bags if b.old_vecs is not None])
    mean = news.mean(axis=0)
    _, _, vt_new = np.linalg.svd(news - mean, full_matrices=False)
    _, _, vt_diff = np.linalg.svd(news - olds, full_matrices=False)
    return Projection(mean, vt_new[:k].T.copy(), vt_diff[:k].T.copy())


def _names(projection: Projection | None) -> list[str]:
    if projection is None:
        return list(SIGNALS)
    k = projection.new.shape[1]
    return [*SIGNALS, *(f"new_{i}" for i in range(k)), *(f"diff_{i}" for i in range(k))]


def _features(b: Bag, projection: Projection | None) -> np.ndarray:
    if projection is None or b.new_vecs is None or b.old_vecs is None:
        return b.x
    a = (b.new_vecs - projection.mean) @ projection.new * SCALE
    d = (b.new_vecs - b.old_vecs) @ projection.diff * SCALE
    out: np.ndarray = np.hstack([b.x, a, d])
    return out


def _pair_margins(b: Bag, weights: Weights) -> np.ndarray:
    """Each pair's probability less the threshold of the weights that judge it (the
    foreign ones for a pair with no English unit): a bag reaches when its best is >= 0."""
    x = _features(b, weights.projection)
    out = _margins(x, weights)
    if weights.foreign is not None and b.foreign is not None and b.foreign.any():
        out = np.where(b.foreign, _margins(x, weights.foreign), out)
    return out


def _margins(x: np.ndarray, w: Weights) -> np.ndarray:
    v = np.array([w.weights[k] for k in _names(w.projection)])
    m: np.ndarray = sigmoid(x @ v + w.bias) - w.threshold
    return m


def fit(bags: Sequence[Bag], *, rounds: int = 3, projected: bool = True) -> Weights:
    """Weights fitted on ``bags``, and beside them the ``foreign`` ones, fitted on the same
    pairs with the rules' signals blank (``Weights.foreign``)."""
    projection = project(bags) if projected and bags[0].new_vecs is not None else None
    xs = [_features(b, projection) for b in bags]
    full = _fit(bags, xs, projection, rounds)
    blank = [SIGNALS.index(r) for r in RULES]
    unruled = [x.copy() for x in xs]
    for x in unruled:
        x[:, blank] = 0.0
    return replace(full, foreign=_fit(bags, unruled, projection, rounds))


def _fit(
    bags: Sequence[Bag], xs: list[np.ndarray], projection: Projection | None, rounds: int
) -> Weights:
    # a pair whose two units say the same words replaces nothing, whatever bag it is in:
    # an unchanged row of a re-issued table is a negative, not the bag's positive
    same = SIGNALS.index("identical")
    told: list[np.ndarray] = []  # the changed lines' pairs of each bag that says them
    pos: list[np.ndarray] = []  # the other replaced bags: their best pair is picked
    for b, x in zip(bags, xs, strict=True):
        fresh = x[:, same] < 0.5
        said = fresh & b.changed if b.label and b.changed is not None else None
        if said is not None and said.any():
            told.append(x[said])
        elif b.label and fresh.any():
            pos.append(x[fresh])
    neg = [x for b, x in zip(bags, xs, strict=True) if not b.label]
    neg += [x[x[:, same] >= 0.5] for b, x in zip(bags, xs, strict=True) if b.label]
    neg = [x for x in neg if len(x)]
    masked = SIGNALS.index("masked_cos")
    pick = [int(x[:, masked].argmax()) for x in pos]
    bias, w = 0.0, np.zeros(xs[0].shape[1])
    bags_pos = len(told) + len(pos)
    for _ in range(rounds):
        xn = np.vstack(neg)
        xp = np.vstack([*told, *(x[k] for x, k in zip(pos, pick, strict=True))])
        # each bag weighs one in all: a told bag's pairs share it, as a negative bag's do
        wp = np.concatenate([np.full(len(x), 1 / len(x)) for x in told] + [np.ones(len(pos))])
        wn = np.concatenate([np.full(len(x), 1 / len(x)) for x in neg])
        x = np.vstack([xp, xn])
        y = np.concatenate([np.ones(len(xp)), np.zeros(len(xn))])
        sw = np.concatenate([wp, wn * bags_pos / max(1, len(neg)) * 2])
        bias, w = logistic(x, y, sw, l2=L2, steps=30, tol=1e-6)
        pick = [int((x @ w).argmax()) for x in pos]
    scores = np.array([float(sigmoid(x @ w + bias).max()) for x in xs])
    threshold = _threshold(bags, scores)
    names = _names(projection)
    return Weights(bias, dict(zip(names, map(float, w), strict=True)), threshold, projection)


def _threshold(bags: Sequence[Bag], scores: np.ndarray) -> float:
    """The lowest threshold at which at most ``MAX_FALSE`` of the controls' cases have
    a bag reaching it."""
    by_case: dict[str, float] = {}
    for b, s in zip(bags, scores, strict=True):
        if b.control:
            by_case[b.case] = max(s, by_case.get(b.case, 0.0))
    ranked = sorted(by_case.values(), reverse=True)
    if not ranked:
        return 0.5
    allowed = int(MAX_FALSE * len(ranked))
    return float(min(0.99, max(0.3, ranked[allowed] + 1e-4)))


def measure(bags: Sequence[Bag], weights: Weights) -> dict[str, float]:
    reach = [bool(_pair_margins(b, weights).max() >= 0) for b in bags]
    known = [r for b, r in zip(bags, reach, strict=True) if b.label]
    false: dict[str, bool] = {}
    wrong: dict[str, bool] = {}
    for b, r in zip(bags, reach, strict=True):
        if b.control:
            false[b.case] = false.get(b.case, False) or r
        elif not b.label:
            wrong[b.case] = wrong.get(b.case, False) or r
    return {
        "changes": len(known),
        "knows_replaced": sum(known) / max(1, len(known)),
        "controls": len(false),
        "false_supersession": sum(false.values()) / max(1, len(false)),
        "wrong_link": sum(wrong.values()) / max(1, len(wrong)),
    }


def leave_one_out(bags: Sequence[Bag]) -> dict[str, dict[str, float]]:
    orgs = sorted({b.org for b in bags})
    out: dict[str, dict[str, float]] = {}
    for org in orgs:
        w = fit([b for b in bags if b.org != org])
        out[org] = measure([b for b in bags if b.org == org], w) | {"threshold": w.threshold}
    return out


def weights_json(w: Weights, sets: Sequence[str]) -> str:
    return json.dumps(
        {
            "version": JUDGE_VERSION,
            "embedder": w.embedder,
            "fitted_on": list(sets),
            **_numbers(w),
            **({"foreign": _numbers(w.foreign)} if w.foreign is not None else {}),
        },
        indent=2,
    )


def _numbers(w: Weights) -> dict[str, object]:
    return {
        "bias": round(w.bias, 6),
        "threshold": round(w.threshold, 6),
        "weights": {k: round(v, 6) for k, v in w.weights.items()},
    }


def write_shipped(w: Weights, sets: Sequence[str]) -> Path:
    """Write ``w`` where orgbrain ships the weights of its model's space: the weights as
    JSON, the projections beside."""
    target = shipped_weights_path(w.embedder)
    target.write_text(weights_json(w, sets) + "\n", "utf-8")
    if w.projection is not None:
        np.savez_compressed(
            target.with_suffix(".npz"),
            mean=w.projection.mean.astype(np.float32),
            new=w.projection.new.astype(np.float32),
            diff=w.projection.diff.astype(np.float32),
        )
    return target


def shipped_weights_path(space: str) -> Path:
    """Where the weights of ``space`` live in the source tree (``orgbrain eval judge
    --write``)."""
    if not space or "/" in space or space.startswith("."):
        raise InvalidInput(f"weights are shipped per model; {space!r} names none")
    return Path(str(resources.files("orgbrain.judge"))) / SPACES / f"{space}.json"


def living_sets(folder: Path | None = None) -> list[Path]:
    """Every living set, each an organisation: the English ones (``living_*.jsonl``),
    then those in other languages (``de_living.jsonl``, ``fr2_living.jsonl``...)."""
    root = Path(str(resources.files("orgbrain.evals.data"))) if folder is None else folder
    return sorted(root.glob("living_*.jsonl")) + sorted(root.glob("*_living.jsonl"))


def organisation(path: Path) -> str:
    """A living set's organisation: "heldout12" of ``living_heldout12.jsonl``, "de2" of
    ``de2_living.jsonl``."""
    return path.stem.removeprefix("living_").removesuffix("_living")


def load_all(paths: Sequence[Path], embedder: Embedder) -> list[Bag]:
    vec = _Vectors(embedder)
    bags: list[Bag] = []
    for p in paths:
        bags += bags_of(organisation(p), load_cases(p), vec)
    return bags
