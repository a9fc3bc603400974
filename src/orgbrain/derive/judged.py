"""The judge's step: for each unit of a derived item, the older (or newer) units of its
scope that speak of the same thing, each pair judged (``orgbrain.judge``), and what the
judge says replaces recorded.

Candidates come from the brain's own search: the item's nearest notes and sections by
vector and by its words (``neighbours``), read unit by unit. Each pair is oriented by
time (the older by at least ``CONFLICT_WINDOW``); its two units and their masked forms
are embedded (a process-wide cache keeps a unit's vectors, since an older note is read
again by every newer neighbour). What the rules read between the two items (a value or
a name restated, a typed statement with another object: ``rule_readings``) joins each
pair's signals, weighed as the fit found it worth. Per older unit, the newer unit the
judge is surest of; per pair of items, at most ``PER_PAIR`` of them. With a chat model
configured, the pairs the judge is unsure of go to it (``judge_llm``): those it says
replace are kept as the ``llm`` tier's decision.

What the judge reads but does not decide is kept for the reader: two items whose surest
pair reaches ``SAME_SLOT_FLOOR`` without superseding (below the threshold, or a pair the
rules decide: with the rules alone, an English one) get a ``SAME_SLOT`` edge, newer to
older, with the judge's probability and the two units. A search that gives both ranks
the newer first and marks the older "an older answer" (``retrieve/older.py``).

Applying is one place: each pair kept becomes two ``value`` statements of one ``topic``
subject (the words the units share), the newer ending the older (``record_claim``), and
the older item is superseded once none of its statements is current; the ``SUPERSEDES``
edge and the step's record carry the judge's version, probability and deciding signals.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from weakref import WeakKeyDictionary

import numpy as np

from ..context import BrainContext
from ..extraction import Claim, PatternExtractor
from ..ids import new_id
from ..judge import JUnit, Verdict, judge, load_weights, pair_texts, units_of
from ..judge.judge import ENGLISH
from ..model import SAME_SLOT, Edge, Item
from ..ports import Embedder
from . import judge_llm
from .judge_llm import Answer, ask
from .neighbours import neighbours
from .restating.record import value_claim
from .rule_readings import read_rules
from .statements import CONFLICT_WINDOW, record_claim

__all__ = ["PER_PAIR", "SAME_SLOT_FLOOR", "judge_item"]

PER_PAIR = 3
"""The most unit pairs recorded between two items."""
SAME_SLOT_FLOOR = 0.7
"""The judge's probability from which two items are read as answering one slot (the
reader's "an older answer"). Out of fold over the 46 living sets, the surest pair of a
replaced note's bag reaches 0.7 in 0.76 of changes, a control's in 0.17 (at 0.5: 0.88 and
0.33; at 0.8: 0.67 and 0.12). End to end (``orgbrain eval living``, the 46 sets), the
question's hits know the replaced note or mark it an older answer in 0.735 of changes
(known alone: 0.576), and mark an older answer in 0.102 of the controls' questions
(0.190 with a floor of 0.5) (docs/journal.md, session 19)."""
MIN_COS = 0.3
"""Pairs less alike than this as written are not judged (they share no slot)."""
_CACHE_SIZE = 20_000
_PATTERNS = PatternExtractor()
"""The patterns alone read the typed statements the judge weighs (``rule_readings``):
the signal the weights were fitted on, whatever tiers the brain's extractor runs."""


@dataclass(frozen=True, slots=True)
class Judged:
    old: Item
    new: Item
    old_unit: JUnit
    new_unit: JUnit
    verdict: Verdict
    tier: str = "judge"
    """Which tier decided: the offline ``judge`` or the chat model (``llm``)."""
    answer: Answer | None = None


def _advises(ctx: BrainContext, old: JUnit, new: JUnit) -> bool:
    """Whether the judge only advises on this pair (what it finds is a ``SAME_SLOT``
    edge, never a supersession): with the rules alone (``rules``), a pair with an
    English unit is theirs to decide. The rules read English only, so a pair in other
    languages is the judge's there too."""
    return ctx.settings.supersession == "rules" and ENGLISH in (old.lang, new.lang)


def judge_item(ctx: BrainContext, item: Item) -> dict[str, object]:
    """Judge ``item``'s units against its neighbours' and record what replaces."""
    if item.storage_class not in ("note", "section") or item.tombstoned_at is not None:
        return {"pairs": 0}
    mine = units_of(item.body)
    if not mine:
        return {"pairs": 0}
    weights = load_weights(ctx.embedder.name)
    if weights is None or weights.embedder not in ("", ctx.embedder.name):
        # A cosine signal or a projection is of one model's space: MiniLM's weights read
        # with e5's vectors superseded 7 of 10 controls of the English dev set.
        return {"pairs": 0, "skipped": f"no judge was fitted on {ctx.embedder.name} vectors"}
    others = [
        (o, units_of(o.body))
        for o in neighbours(ctx, item, [u.text for u in mine])
        if abs(o.when - item.when) >= CONFLICT_WINDOW
    ]
    if not others:  # nothing to read it against: no unit is embedded
        return {"pairs": 0}
    vec = _vectors(ctx.embedder, [item.body] + [o.body for o, _ in others], mine, others)
    sure: list[list[Judged]] = []
    unsure: list[Judged] = []
    slots: list[Judged] = []
    floor = judge_llm.UNSURE_FLOOR if ctx.chat is not None else float("inf")
    for other, theirs in others:
        old, new = (other, item) if other.when < item.when else (item, other)
        olds, news = (theirs, mine) if old is other else (mine, theirs)
        note_cos = vec.cos(old.body, new.body)
        gap = (new.when - old.when).total_seconds() / 86400
        best: dict[int, Judged] = {}
        maybe: dict[int, Judged] = {}
        slot: Judged | None = None
        read = read_rules(old, new, _PATTERNS)
        for pair in pair_texts(olds, news, vec.rows, note_cos, gap, min_cos=MIN_COS, rules=read.of):
            v = judge(pair, weights)
            a = pair.old
            if slot is None or v.probability > slot.verdict.probability:
                slot = Judged(old, new, a, pair.new, v)
            if _advises(ctx, a, pair.new):
                continue
            into = best if v.relation == "replaces" else maybe if v.probability >= floor else None
            if into is not None and (
                a.start not in into or v.probability > into[a.start].verdict.probability
            ):
                into[a.start] = Judged(old, new, a, pair.new, v)
        sure.append(sorted(best.values(), key=lambda j: -j.verdict.probability)[:PER_PAIR])
        unsure += [j for start, j in maybe.items() if start not in best]
        if slot is not None and not best and slot.verdict.probability >= SAME_SLOT_FLOOR:
            slots.append(slot)
    asked = _ask(ctx, unsure)
    kept = [j for js in sure for j in js] + [j for j in asked if j.tier == "llm"]
    recorded = [r for j in _per_pair(kept) if (r := _apply(ctx, j, item)) is not None]
    decided = {(j.old.id, j.new.id) for j in kept}
    same = [
        _same_slot(ctx, j, item)
        for j in slots
        if (j.old.id, j.new.id) not in decided and j.old.scope == j.new.scope
    ]
    out: dict[str, object] = {"pairs": len(recorded)}
    if recorded:
        out["judged"] = recorded
    if same:
        out["same_slot"] = same
    if asked:
        out["asked"] = [_asked(j, item) for j in asked]
    return out


def _ask(ctx: BrainContext, unsure: list[Judged]) -> list[Judged]:
    """The unsure pairs put to the chat model (at most ``ASK``, the most probable first),
    each with the model's answer; those it says replace decided by the ``llm`` tier."""
    if ctx.chat is None:
        return []
    out = []
    for j in sorted(unsure, key=lambda j: -j.verdict.probability)[: judge_llm.ASK]:
        answer = ask(ctx.chat, j.old, j.old_unit.text, j.new, j.new_unit.text)
        if answer.relation == "replaces":
            v = j.verdict
            j = replace(j, verdict=replace(v, relation="replaces"), tier="llm")
        out.append(replace(j, answer=answer))
    return out


def _per_pair(kept: list[Judged]) -> list[Judged]:
    """At most ``PER_PAIR`` per pair of items, the surest first, in the order met."""
    groups: dict[tuple[str, str], list[Judged]] = {}
    for j in kept:
        groups.setdefault((j.old.id, j.new.id), []).append(j)
    return [
        j
        for js in groups.values()
        for j in sorted(js, key=lambda j: (j.tier != "judge", -j.verdict.probability))[:PER_PAIR]
    ]


def _asked(j: Judged, item: Item) -> dict[str, object]:
    assert j.answer is not None
    return {
        "old": j.old.id,
        **_own_words(j, item),
        "probability": j.verdict.probability,
        **(
            {"error": j.answer.error}
            if j.answer.error
            else {"relation": j.answer.relation, "why": j.answer.why}
        ),
    }


def _own_words(j: Judged, item: Item) -> dict[str, str]:
    """The words of ``item``'s own unit of the pair, as its step's record quotes them:
    never the other item's, which would outlive that item's erasure in this record."""
    if item.id == j.old.id:
        return {"was": j.old_unit.text.strip()[:120]}
    return {"now": j.new_unit.text.strip()[:120]}


def _apply(ctx: BrainContext, j: Judged, item: Item) -> dict[str, object] | None:
    label = _label(j.old_unit, j.new_unit)
    why = {
        "reason": "judged",
        "judge": j.verdict.version,
        "probability": j.verdict.probability,
        "signals": dict(j.verdict.deciding),
        "tier": j.tier,
    }
    if j.answer is not None and j.tier == "llm":
        why["llm"] = {"relation": j.answer.relation, "why": j.answer.why}
    # the newer side first, then the older, which arrives late and is born superseded by
    # it: the same, whichever item was derived first
    new = record_claim(ctx, j.new, _claim(j.new_unit, label), why=why)
    old = record_claim(ctx, j.old, _claim(j.old_unit, label), why=why)
    if not old.born_superseded_by and not new.superseded:
        return None  # the same words again, or the older already ended otherwise
    marked = old.items_superseded + new.items_superseded
    return {
        "old": j.old.id,
        "new": j.new.id,
        **_own_words(j, item),
        "item_superseded": j.old.id in marked,
        **why,
    }


def _same_slot(ctx: BrainContext, j: Judged, item: Item) -> dict[str, object]:
    """Keep for the reader what the judge read but did not decide: a ``SAME_SLOT`` edge,
    newer to older, with its probability and the two units (the same edge again is one;
    only within one scope, as supersession: a reader of one must not learn of the other).
    The step's record quotes only its own item (``_own_words``): the edge, which goes
    when either end is erased and shows only while both are visible, holds both units."""
    said = {
        "old": j.old.id,
        "new": j.new.id,
        "judge": j.verdict.version,
        "probability": j.verdict.probability,
        "signals": dict(j.verdict.deciding),
    }
    words = {"was": j.old_unit.text.strip()[:120], "now": j.new_unit.text.strip()[:120]}
    props: dict[str, object] = {"reason": "judged", **said, **words, "dedupe": "same_slot"}
    origin = ctx.origin("derive")
    ctx.edges.put_edge(
        Edge(new_id("edg"), ctx.workspace, SAME_SLOT, j.new.id, j.old.id, origin, props)
    )
    return {**said, **_own_words(j, item)}


def _label(a: JUnit, b: JUnit) -> str:
    """The words the two units share, in the older's order: the slot's name."""
    words = [w for w in a.masked.split() if w.casefold() in b.masked.casefold()]
    return " ".join(words[:8]) or a.masked.strip()[:60]


def _claim(u: JUnit, label: str) -> Claim:
    return value_claim(label, u.text.strip()[:200], u.start, u.end, "classifier")


class _Vectors:
    def __init__(self, rows: dict[str, np.ndarray]) -> None:
        self.rows = rows

    def cos(self, a: str, b: str) -> float:
        return float(self.rows[a] @ self.rows[b])


_caches: WeakKeyDictionary[Embedder, OrderedDict[str, np.ndarray]] = WeakKeyDictionary()
"""Unit vectors per embedder, newest last: an older note's units are read again by every
newer neighbour. Kept per embedder object, so a brain opened with another model (or
re-embedded) never reads another space's vectors."""


def _vectors(
    embedder: Embedder,
    bodies: Sequence[str],
    mine: Sequence[JUnit],
    others: Sequence[tuple[Item, Sequence[JUnit]]],
) -> _Vectors:
    texts = set(bodies)
    for u in [*mine, *(u for _, us in others for u in us)]:
        texts |= {u.text, u.masked}
    cache = _caches.setdefault(embedder, OrderedDict())
    todo = sorted(t for t in texts if t not in cache)
    if todo:
        for t, v in zip(todo, embedder.embed(todo), strict=True):
            cache[t] = np.asarray(v, dtype=np.float32)
    rows = {}
    for t in texts:
        cache.move_to_end(t)
        rows[t] = cache[t]
    while len(cache) > _CACHE_SIZE:
        cache.popitem(last=False)
    return _Vectors(rows)
