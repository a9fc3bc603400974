"""The gate between a writer's drafts and the brain, exactly as the seed has it:

| the draft                                  | goes                 |
|--------------------------------------------|----------------------|
| empty or nonsense                          | skipped (the reason) |
| user scope, no user attached               | skipped, never org   |
| a scope the run's owner cannot write       | skipped              |
| org, from a team's run                     | narrowed to the team |
| user scope (a personal fact)               | the user's inbox     |
| sensitive (secret, credential, personal)   | the inbox            |
| confidence below ``min_confidence``        | the inbox            |
| confident organisation knowledge           | written straight in  |

The thresholds are typed data (``GatePolicy``), like the search plan.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..analysis import letter_words
from ..errors import InvalidInput
from ..model import ProposalState, RunProducts
from ..scopes import Visibility, parse_scope
from .sensitive import detect
from .writer import PERSONAL, Draft

__all__ = ["DEFAULT_GATE", "GatePolicy", "Verdict", "judge"]


@dataclass(frozen=True, slots=True)
class GatePolicy:
    min_confidence: float = 0.75
    """Below this a draft waits for review (the seed's 0.75)."""
    min_words: int = 3
    """Fewer words of letters than this is nonsense."""
    min_letter_ratio: float = 0.5
    """Fewer letters than this share of its non-space characters is nonsense."""
    max_chars: int = 2000
    """A proposal is a fact, not a document: longer is skipped."""


DEFAULT_GATE = GatePolicy()


@dataclass(frozen=True, slots=True)
class Verdict:
    state: ProposalState
    """``written``, ``pending`` (the inbox) or ``skipped``."""
    scope: str
    """Where it is stored (and lands if written or approved)."""
    reason: str
    sensitivity: tuple[str, ...] = ()


def judge(
    draft: Draft,
    products: RunProducts,
    writable: Visibility,
    policy: GatePolicy = DEFAULT_GATE,
) -> Verdict:
    """What the gate does with ``draft``; ``writable`` is where the run's owner may write."""
    body = draft.body.strip()
    nonsense = _nonsense(body, policy)
    if nonsense:
        return Verdict("skipped", draft.scope, nonsense)
    if draft.scope == PERSONAL:
        if not products.user_id:
            return Verdict(
                "skipped", PERSONAL, "a personal fact with no user attached: never widened to org"
            )
        scope = f"user:{products.user_id}"
    else:
        try:
            scope = parse_scope(draft.scope)
        except InvalidInput as exc:
            return Verdict("skipped", draft.scope, exc.message)
        if scope == "org":
            scope = products.scope  # a team's run files team knowledge, never wider
    if not writable.allows(scope):
        return Verdict("skipped", scope, f"{scope} is not a scope the run's owner writes")
    found = detect(f"{draft.label}\n{body}")
    if scope.startswith("user:"):
        return Verdict("pending", scope, "a personal fact: its user reviews it", found.reasons)
    if found.sensitive:
        why = "; ".join(found.reasons)
        return Verdict("pending", scope, f"sensitive ({why}): a reviewer decides", found.reasons)
    if draft.confidence < policy.min_confidence:
        return Verdict(
            "pending",
            scope,
            f"confidence {draft.confidence:.2f} < {policy.min_confidence:.2f}: a reviewer decides",
        )
    return Verdict("written", scope, f"confident {scope} knowledge ({draft.confidence:.2f})")


def _nonsense(body: str, policy: GatePolicy) -> str:
    if not body:
        return "empty"
    if len(body) > policy.max_chars:
        return f"longer than {policy.max_chars} characters: a proposal is one fact"
    words = letter_words(body)
    if len(words) < policy.min_words:
        return f"nonsense: fewer than {policy.min_words} words"
    if len({w.casefold() for w in words}) == 1:
        return "nonsense: one word repeated"
    visible = [c for c in body if not c.isspace()]
    letters = sum(c.isalpha() for c in visible)
    if letters < policy.min_letter_ratio * len(visible):
        return "nonsense: mostly not letters"
    return ""
