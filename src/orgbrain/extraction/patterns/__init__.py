"""The pattern tier: deterministic rules over sentences, no model.

One module per kind of thing the rules recognise: ``owners`` (who owns or answers for
what), ``changes`` (moves, replacements, retirements), ``facts`` (attributes,
definitions, uses, ``X is Y``), ``people`` (preferences, reporting lines, teams),
``events`` (joiners, leavers, dated releases and incidents, plans), ``labels``
(``Label: value`` lines and table rows), ``rules`` (decisions and the order the rules are
tried in), over ``sentence`` (the unit being read) and ``extractor`` (a whole text).

Conventions the rules keep (the dev set is labelled the same way):

- ownership is about the owned thing: "Priya owns billing", "Billing owner: Priya",
  "Priya leads the billing team" -> (billing, ``owner``, Priya);
- a ``Label: value`` line is a statement about Label; a bare relational label ("Owner:",
  "Status:") is about the section's heading (its code when it names one);
- a move is a ``migration_target`` ("X moved from A to B" is X's, not A's); "instead of
  Y", "from Y to X", "replaces Y", "no longer Y" set ``replaces``, and so does the one
  thing a text retires ("Jenkins is retired.") for its other ``uses``/``is``/
  ``migration_target`` claims; "deploys with" is ``uses``;
- a sentence under "we decided", "Decision:" or "Agreed:" is a decision; one no rule
  reads is about its clause's leading noun phrase ("the payments service ..."), else the
  first thing it names; ", owned by P" after a clause names its subject's owner;
- "X is 350 EUR" (a quantity) and "The email provider is Mailgun" (a name in a slot a
  product fills) are (X, ``is``, value);
- a chat speaker or opener ("@maya: heads-up, ...", "fyi") is not the subject;
- an event's object is its date as written ("We shipped v2 on 2026-11-02" ->
  (v2, ``released``, 2026-11-02)), or whom it joined or left;
- questions, hedges ("might", "maybe", "should we"), plain negations and ``Proposal:``/
  ``Idea:`` lines state nothing.
"""

from .extractor import PatternExtractor, merge_entities

__all__ = ["PatternExtractor", "merge_entities"]
