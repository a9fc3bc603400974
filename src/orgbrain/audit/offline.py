"""The offline auditor: no LLM; the extraction tiers and the brain's own entities.

Derivation reads each section with the names the brain knew when that section's job
started; names learnt since (another section of the same file, a file derived beside
it) are missed there. The audit pass comes after the whole file is derived, so it reads
every section again with the entities the brain knows *now*: a known name found in the
new file, and not yet mentioned by that section, becomes a mention (one step each, the
first place it is written in the section). It never creates a name the brain did not
know, and never merges two: a name in a narrower scope than the entity it matched is a
mention of that scope's entity, as derivation would make it.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import Forbidden, InvalidInput, NotFound
from ..extraction import Extractor
from ..graph import normalise_type, normalise_value
from .tools import AuditSubject, AuditTools

__all__ = ["OfflineAuditor", "known_pairs"]


def known_pairs(known: Sequence[tuple[str, str]]) -> frozenset[tuple[str, str]]:
    """``known`` (type, name) pairs in canonical form; invalid names are left out."""
    out = set()
    for type_, value in known:
        try:
            out.add((normalise_type(type_), normalise_value(value)))
        except InvalidInput:
            continue
    return frozenset(out)


class OfflineAuditor:
    name = "offline"

    def __init__(self, extractor: Extractor, known: Sequence[tuple[str, str]]) -> None:
        self.extractor = extractor
        self.known = tuple(known)
        self.pairs = known_pairs(known)

    def audit(self, subject: AuditSubject, tools: AuditTools) -> None:
        if not self.pairs:
            return
        for section in subject.sections:
            have = set(subject.mentioned.get(section.id, frozenset()))
            found = self.extractor.extract(section.body, known=self.known)
            for f in found.entities:
                try:
                    pair = (normalise_type(f.type), normalise_value(f.value))
                except InvalidInput:
                    continue
                if pair not in self.pairs or pair in have:
                    continue
                have.add(pair)
                text = section.body[f.start : f.end]
                try:
                    tools.observe_mention(section.id, f.type, f.value, text, at=f.start)
                except (InvalidInput, NotFound, Forbidden):
                    continue  # logged as a step with its error; the next name may do
