"""The offline writer: no LLM, built on the extraction tiers.

It reads the work products sentence by sentence and keeps what the four questions keep:

- *a fact, decision, rule, owner, definition or gotcha?* a sentence with a typed
  statement (the extractor's), or one that states a rule or a gotcha in so many words;
- *about the organisation, not just this task?* first-person task chatter ("I ran the
  tests", "we fixed two flaky tests") is left out unless it is a decision;
- *useful in a month, to a new teammate?* events (what happened on a day) are task
  history: proposed only from the run's decisions, and below the gate's confidence;
- *new to the brain?* it checks before proposing: a statement the brain already holds
  (same subject, predicate and object, current) is not proposed, and a search whose top
  hit already says the sentence is not either. A current statement with another object
  is what the proposal would supersede.

Confidence is the extractor's, raised for what the run listed as a decision.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..context import BrainContext
from ..extraction import Claim, Extractor
from ..extraction.sentences import split_units
from ..graph import normalise_value
from ..model import RunProducts
from .writer import PERSONAL, Draft, WriterTools

__all__ = ["OfflineWriter"]

DECISION_FLOOR = 0.8
"""A decision the run states in so many words ("we decided", or listed as a decision)
is confident organisation knowledge, whatever shape the extractor found in it."""
EVENT_PENALTY = 0.2
CUE_CONFIDENCE = 0.7
"""A rule or gotcha found by its wording alone (no typed statement): the inbox decides."""

_CHATTER = re.compile(
    r"^\s*(i|i'm|i've|i'll|we|we've|we'll|let me|then|next|now)\b.{0,40}?\b"
    r"(ran|run|tried|try|fixed|fix|added|updated|looked|checked|opened|wrote|started|"
    r"finished|will|am|was|re-ran|reran|investigated|debugged)\b",
    re.IGNORECASE,
)
_DECIDED = re.compile(r"\b(decided|decision|agreed|chose|settled on|going with)\b", re.I)
_RULE = re.compile(
    r"\b(always|never|must|must not|mustn't|do not|don't|required|requires|only ever|"
    r"policy)\b",
    re.IGNORECASE,
)
_GOTCHA = re.compile(
    r"\b(gotcha|beware|watch out|careful|caveat|pitfall|trap|silently|breaks if|fails if|"
    r"note that|heads[ -]up|turns out|it turns out|surprisingly|unexpectedly)\b",
    re.IGNORECASE,
)
_OWNERS = frozenset({"owner", "backup_owner", "contact"})
_MY_PREFERENCE = re.compile(
    r"^\s*(?:i|i'd|i'm)\b[^.;]{0,20}?\b(?:prefer|prefers|preferred|rather|would like|"
    r"like to be|want to be|hate being|do not like|don't like)\b|\bmy preference\b",
    re.IGNORECASE,
)
"""A run's user stating their own preference in the first person ("I prefer to be paged
on Slack"): the extractor finds no named subject in it, yet it is the user's to keep."""


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.casefold()))


class OfflineWriter:
    name = "offline"

    def __init__(
        self, ctx: BrainContext, extractor: Extractor, known: Sequence[tuple[str, str]] = ()
    ) -> None:
        self.ctx = ctx
        self.extractor = extractor
        self.known = known

    def write(self, products: RunProducts, tools: WriterTools) -> None:
        candidates: list[Draft] = []
        decided = set(products.decisions)
        for line in (products.summary, *products.decisions, *products.artefacts):
            for unit in split_units(line):
                sentence = line[unit.start : unit.end].strip()
                draft = self._draft(sentence, from_decisions=line in decided, tools=tools)
                if draft is not None:
                    candidates.append(draft)
        for draft in sorted(candidates, key=lambda d: -d.confidence):
            tools.propose(draft)

    def _draft(self, sentence: str, *, from_decisions: bool, tools: WriterTools) -> Draft | None:
        if len(sentence) < 12:
            return None
        decision = from_decisions or bool(_DECIDED.search(sentence))
        if _MY_PREFERENCE.search(sentence):
            if self._said(sentence, tools, personal=True):
                return None
            # Personal, so the gate sends it to its user's inbox whatever the confidence.
            return Draft("preference", sentence, CUE_CONFIDENCE, PERSONAL, evidence=(sentence,))
        if _CHATTER.search(sentence) and not decision:
            return None  # what this run did, not what the organisation knows
        claims = self._claims(sentence)
        if claims:
            claim = max(claims, key=lambda c: c.confidence)
            known, supersedes = self._known(claims)
            if known:
                return None
            kind = _kind(claim, sentence, decision)
            confidence = max(claim.confidence, DECISION_FLOOR) if decision else claim.confidence
            if claim.type == "event":
                if not from_decisions:
                    return None
                confidence -= EVENT_PENALTY
            scope = PERSONAL if claim.type == "preference" else "org"
        elif from_decisions:
            kind, confidence, supersedes, scope = "decision", DECISION_FLOOR, (), "org"
        elif _RULE.search(sentence) or _GOTCHA.search(sentence):
            kind = "gotcha" if _GOTCHA.search(sentence) else "rule"
            confidence, supersedes, scope = CUE_CONFIDENCE, (), "org"
        else:
            return None
        if self._said(sentence, tools):
            return None
        return Draft(
            kind=kind,
            body=sentence,
            confidence=round(min(confidence, 0.99), 2),
            scope=scope,
            evidence=(sentence,),
            supersedes=supersedes,
        )

    def _claims(self, sentence: str) -> list[Claim]:
        """The sentence's claims, and those of each part between colons ("Handover done:
        Mina owns the app" states what its second part says)."""
        claims = list(self.extractor.extract(sentence, known=self.known).claims)
        parts = [p.strip() for p in sentence.split(": ")]
        if len(parts) > 1:
            for part in parts:
                if len(part) >= 12:
                    claims += self.extractor.extract(part, known=self.known).claims
        return claims

    def _known(self, claims: Sequence[Claim]) -> tuple[bool, tuple[str, ...]]:
        """Whether the brain already holds the claims (all of them, current); else the
        notes holding a current statement they would replace."""
        ctx = self.ctx
        replaced: list[str] = []
        held = 0
        for claim in claims:
            subjects = ctx.statements.entities_named(
                ctx.workspace, [normalise_value(claim.subject.value)], ctx.visibility
            )
            if not subjects:
                continue
            current = ctx.statements.statements(
                ctx.workspace,
                ctx.visibility,
                subject_ids=[s.id for s in subjects],
                predicate=claim.predicate,
                current=True,
            )
            if any(_norm(s.object) == _norm(claim.object) for s in current):
                held += 1
            else:
                replaced += [s.item_id for s in current]
        notes = ctx.get_many(list(dict.fromkeys(replaced)))
        supersedes = tuple(
            i for i in dict.fromkeys(replaced) if i in notes and notes[i].storage_class == "note"
        )
        return held == len(claims), supersedes

    @staticmethod
    def _said(sentence: str, tools: WriterTools, *, personal: bool = False) -> bool:
        """Whether the brain's best hit for the sentence already says it word for word;
        a ``personal`` one (a first-person preference) only in the user's own scope: the
        same words in an org note are someone else's "I"."""
        result = tools.search(sentence)
        want = _norm(sentence)
        return any(
            want in _norm(h.item.body)
            for h in result.hits[:3]
            if not personal or h.item.scope.startswith("user:")
        )


def _kind(claim: Claim, sentence: str, decision: bool) -> str:
    if claim.type == "preference":
        return "preference"  # personal even when listed among the run's decisions
    if decision or claim.type == "decision":
        return "decision"
    if claim.predicate in _OWNERS:
        return "owner"
    if claim.predicate == "means":
        return "definition"
    if _GOTCHA.search(sentence):
        return "gotcha"
    if _RULE.search(sentence):
        return "rule"
    return "fact"
