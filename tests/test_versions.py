"""A later version of one document states its differing values as changes
(derive/versions.py, read by derive/restated.py)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from orgbrain import Brain

FEB = datetime(2026, 2, 3, tzinfo=UTC)
JUN = datetime(2026, 6, 16, tzinfo=UTC)

SOP_V6 = (
    "WXM-SOP-HYG-014 Post-clean verification (ATP) v6\n"
    "- Swab 5 sites per line after the wet clean\n"
    "- A pass reads 150 RLU or less on the swab reader"
)
SOP_V7 = (
    "WXM-SOP-HYG-014 v7 issued (Technical)\n"
    "What's different: a pass reads 100 RLU or less, anything above needs QA. Pls take "
    "the v6 copies out of the line folders."
)
SIBLING = SOP_V7.replace("HYG-014", "HYG-022")
AUDIT = (
    "Subject: Derby audit - dates confirmed\n"
    "All, the certification body confirmed the Derby audit. Please make sure trace "
    "challenge packs are ready by 7 April. Jo"
)
AUDIT_RE = (
    "Subject: RE: Derby audit - dates confirmed\n"
    "The auditor pulled out so we have a different one. Trace packs due 5 May. Jo"
)
POLICY = (
    "IT Security Policy v2.4 - extract\n"
    "4.2 Passwords: minimum 10 characters, complexity required. The last 12 cannot be reused."
)
POLICY_NEXT = (
    "IT Security Policy v3.0 - extract\n"
    "4.2 Passwords: minimum 14 characters (a passphrase is recommended).\n"
    "4.3 MFA is required for all remote access."
)
OTHER_POLICY = POLICY_NEXT.replace("IT Security", "Contractor Access")
NOT_A_REPLY = AUDIT_RE.replace("RE: Derby", "Wrexham")
# each version's title carries its issue date beside its mark
POLICY_ISSUED = POLICY.replace("v2.4", "v2.4 (Mar 2025)")
POLICY_NEXT_ISSUED = POLICY_NEXT.replace("v3.0", "v3.0 (June 2026)")
OTHER_POLICY_ISSUED = OTHER_POLICY.replace("v3.0", "v3.0 (June 2026)")
# a title word that begins as a month does ("Marine", "Decision") is no issue date
MARINE_POLICY = POLICY_NEXT.replace("IT Security", "Marine IT Security")


def _notes(brain: Brain, *notes: tuple[str, datetime]) -> list[str]:
    brain.add_note("The design review happens on Thursdays.")
    return [brain.add_note(text, occurred_at=at, wait="derived").id for text, at in notes]


def _replaced(brain: Brain, old: str, new: str) -> list[tuple[str, str]]:
    """(older value, newer value) of each of ``old``'s statements ``new`` replaced."""
    stated = {s.id: s for s in brain.statements(item_id=new, current=None)}
    return [
        (s.object, stated[s.superseded_by].object)
        for s in brain.statements(item_id=old, current=None)
        if s.superseded_by in stated
    ]


@pytest.mark.parametrize(
    ("older", "newer", "pair"),
    [
        (SOP_V6, SOP_V7, ("150 RLU", "100 RLU")),  # the same code, no change word
        (AUDIT, AUDIT_RE, ("7 April", "5 May")),  # a reply to the same subject
        (POLICY, POLICY_NEXT, ("10 characters", "14 characters")),  # another version mark
        (POLICY_ISSUED, POLICY_NEXT_ISSUED, ("10 characters", "14 characters")),  # dated
    ],
)
def test_a_later_version_of_a_document_restates_its_value(
    brain: Brain, older: str, newer: str, pair: tuple[str, str]
) -> None:
    old, new = _notes(brain, (older, FEB), (newer, JUN))
    was, now = pair
    assert any(was in a and now in b for a, b in _replaced(brain, old, new))


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        (SOP_V6, SIBLING),  # another document's code: its own limit
        (AUDIT, NOT_A_REPLY),  # another subject, not a reply
        (POLICY, OTHER_POLICY),  # another title, though versioned
        (POLICY_ISSUED, OTHER_POLICY_ISSUED),  # another title, though each dated
        (POLICY, MARINE_POLICY),  # another title, one word longer
    ],
)
def test_another_document_restates_nothing(brain: Brain, older: str, newer: str) -> None:
    old, new = _notes(brain, (older, FEB), (newer, JUN))
    assert _replaced(brain, old, new) == []
    assert brain.get(old).superseded_by is None
