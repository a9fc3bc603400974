"""The pattern tier: deterministic rules over sentences, no model.

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

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from .dates import DateMention, find_dates
from .documents import document_links, title_code
from .entities import find_entities
from .names import names_something
from .predicates import (
    ADDITIVE,
    ATTRIBUTE_ALTERNATION,
    CHANGE,
    DEPRECATED,
    GONE_WORDS,
    RELATIONAL,
    REPLACEABLE,
    RETIRED_VERBS,
    alternation,
    attribute_predicate,
    snake,
)
from .quiet import HEDGE as _HEDGE
from .quiet import NEGATION as _NEGATION
from .quiet import states_nothing
from .sentences import Unit, split_units
from .types import Claim, Extraction, Found, StatementType

__all__ = ["PatternExtractor", "merge_entities"]

_W = r"[^\s,;:()]+"
_NP = rf"(?:{_W}(?:\s+{_W}){{0,5}}?)"
_DET = re.compile(r"(?:(?:the|our|a|an|this|all|its|their|your|my)\s+)+", re.IGNORECASE)
_PRONOUN = frozenset(
    "it this that they he she we i you there which who what everyone nobody someone one "
    "these those here".split()
)
_NO_LONGER = re.compile(
    r"\bno\s+longer\s+(?:uses?|runs?\s+on|on|in|using|use|owns?|leads?|need|needs|supports?)?"
    r"\s*(?P<old>[^,;.()]+)",
    re.IGNORECASE,
)
_INSTEAD = re.compile(
    r"\b(?:instead\s+of|rather\s+than)\s+(?P<old>[^,;.()]+)|,\s+not\s+(?:in\s+|on\s+)?(?P<not>[^,;.()]+)",
    re.IGNORECASE,
)
_CUT = re.compile(
    r"\s*(?:[,;]|\s\(|\s[-\u2013\u2014]\s|\.(?:\s|$)|!|\s(?:because|since|so that|so|until|unless|"
    r"instead of|rather than|starting|effective|as of|which|who|after|before|while|"
    r"when|but|except|for now|from now on|going forward|once)\b)",
    re.IGNORECASE,
)
# "Postgres 16", "Python 3.12", "GitHub Actions": a name and what qualifies it.
_VERSION = re.compile(
    r"(?:\s+(?:v?\d+(?:\.\d+)*\b|[A-Z][a-z]+\b"
    r"(?!\s+(?!(?:now|today|instead|too|again|from|going|starting|effective|since)\b)[a-z])))*"
)
_LIGHT_CUT = re.compile(
    r"\s*(?:[,;]|\s\(|\s[-\u2013\u2014]\s|\.(?:\s|$)|!|"
    r"\s(?:because|since|so that|as it|as they|but)\b)",
    re.IGNORECASE,
)
_TRAILING_WHEN = re.compile(
    r"\s+(?:on|in|by|from|at|as of|since|starting|effective)\s+(?:the\s+)?"
    r"(?:week\s+of\s+)?\S.*$",
    re.IGNORECASE,
)
# "Jenkins is retired": what a thing named beside it in the same text replaced.
_RETIRED = re.compile(
    rf"(?:^|(?<=[.;:!]\s)|(?<=\n))\s*(?:[-*\u2022]\s+)?(?:the\s+|our\s+)?(?P<x>{_NP})\s+"
    r"(?:is|was|has\s+been|are|were|have\s+been|gets|got)\s+(?:now\s+|officially\s+|finally\s+)?"
    rf"(?:{alternation((*GONE_WORDS, DEPRECATED))})\b",
    re.IGNORECASE,
)
# A chat speaker and opener before the sentence proper: "@maya: fyi the ...",
# "heads-up, we ...".
_OPENER = re.compile(
    r"@[\w.-]+:\s+(?:(?:fyi|psa|heads[- ]up|btw|ok(?:ay)?\s+so)\b[,:!]?\s+)?"
    r"|(?:fyi|psa|heads[- ]up|btw|ok(?:ay)?\s+so)\b[,:!]?\s+"
    # (with a comma, "Going forward, ..." is a decision: _DECIDED)
    r"|(?:from\s+now\s+on|going\s+forward|moving\s+forward|from\s+here\s+on)\s+(?=\w)",
    re.IGNORECASE,
)
# A chat speaker's handle as a line's label ("sana.b: hedgerow notices are with ..."):
# lower case, a dot or an underscore inside, no space; who speaks, not what is described.
_SPEAKER = re.compile(r"[a-z][a-z0-9-]*[._][a-z0-9._-]*[a-z0-9]")
# "From December, Mei takes over ...": a date before the sentence proper.
_DATED_OPENER = re.compile(
    r"(?:from|starting|as\s+of|beginning)\s+(?:(?:next|this|the\s+(?:start|end)\s+of)\s+)?"
    r"(?:\d|q[1-4]\b|today|tomorrow|mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|"
    r"sep|oct|nov|dec|week|month|quarter|year|sprint)[^,]{0,25},\s+(?=\w)"
    # without the comma only a phrase that cannot run on: "From next week the crit is ..."
    r"|(?:from|starting|as\s+of|beginning)\s+(?:(?:next|this)\s+(?:week|month|quarter|year|"
    r"sprint)|today|tomorrow|(?:mon|tues|wednes|thurs|fri|satur|sun)day)\s+(?=[a-z])",
    re.IGNORECASE,
)
_GROUP_WORD = re.compile(r"\s+(?:team|squad|guild|tribe|pod|crew)$", re.IGNORECASE)
_PROJECT_WORD = re.compile(
    r"(?:[Pp]roject\s+)?(?P<name>.+?)(?:\s+(?:project|initiative|programme|program))?"
)
_ENTITY_SLOTS = frozenset(
    {"person", "team", "system", "company", "project", "code", "handle", "email"}
)
_PEOPLE = frozenset({"person", "team", "handle", "email"})
_SKIP_LABELS = frozenset(
    "note notes todo q question questions action actions action item action items next steps "
    "agenda attendees participants present summary context background fyi re subject tl;dr "
    "tldr update updates problem example examples see link links source ps warning tip why "
    "how what when where who reminder reminders heads up caveat caveats open question "
    "open questions idea ideas proposal risk risks blocker blockers comment comments "
    "supersedes replaces obsoletes related from to cc bcc sent".split(" ")
)  # "from", "to", "cc", "sent": a message's headers ("From: procurement@") name no fact
_SKIP_LABELS = _SKIP_LABELS | {
    "superseded by",
    "replaced by",
    "related to",
    "see also",
    "action item",
    "action items",
    "next steps",
    "heads up",
    "open question",
    "open questions",
}
_UNDECIDED_LABELS = frozenset(
    "idea ideas question questions q open question open questions suggestion suggestions "
    "option options alternative alternatives draft rfc".split(" ")
) | {"open question", "open questions"}
_DECISION_LABELS = frozenset(
    {
        "decision",
        "decided",
        "agreed",
        "resolution",
        "resolved",
        "outcome",
        "we decided",
        "final decision",
        "consensus",
        "decisions",
    }
)


@dataclass(frozen=True, slots=True)
class _Draft:
    type: StatementType
    subject: Found
    predicate: str
    object: str
    object_entity: Found | None
    confidence: float
    replaces: str | None = None


class _Sentence:
    """One unit being read: the whole text, the entities in it, the section's subject."""

    def __init__(self, text: str, unit: Unit, entities: Sequence[Found], context: Found | None):
        self.text = text
        self.start = unit.start
        self.end = unit.end
        self.entities = [e for e in entities if unit.start <= e.start and e.end <= unit.end]
        self.context = context
        self.dates = find_dates(text, unit.start, unit.end)
        self.extra: list[Found] = []
        # What "it" refers to: the subject of the clause before, in this sentence.
        self.antecedent: Found | None = None

    def entity_at(self, start: int, end: int) -> Found | None:
        for e in self.entities + self.extra:
            if e.start == start and e.end == end:
                return e
        return None

    def entity_starting(self, start: int, end: int) -> Found | None:
        for e in self.entities + self.extra:
            if e.start == start and e.end <= end:
                return e
        return None

    def subject(self, start: int, end: int, *, strip_team: bool = False) -> Found | None:
        start, end = _strip_span(self.text, start, end)
        tail = _GROUP_WORD.search(self.text, start, end)
        if strip_team and tail is not None:
            found = self.entity_at(start, end)
            end = tail.start()
            if found is not None and found.type != "team":
                return found
        project = _PROJECT_WORD.fullmatch(self.text, start, end)
        if project is not None:
            inner = self.entity_at(project.start("name"), project.end("name"))
            if inner is not None:
                return inner
        if start >= end:
            return None
        found = self.entity_at(start, end)
        if found is not None:
            return found
        value = self.text[start:end]
        if value.lower() in ("it", "they") and self.antecedent is not None:
            return self.antecedent
        if value.lower() in _PRONOUN or len(value.split()) > 6 or not names_something(value):
            return None
        return Found("topic", value, start, end)

    def object(
        self,
        start: int,
        end: int,
        *,
        entity_slot: bool = False,
        people: bool = False,
        light: bool = False,
    ) -> tuple[str, Found | None] | None:
        """The object phrase from ``start``: cut at a clause boundary; in an entity slot,
        the entity it starts with (a name in a people slot becomes a person)."""
        start, end = _strip_span(self.text, start, end, determiners=entity_slot)
        if start >= end:
            return None
        if entity_slot:
            found = self.entity_starting(start, end)
            if found is not None and (not people or found.type in _PEOPLE | {"project"}):
                version = _VERSION.match(self.text, found.end, end)
                if version and version.end() > found.end and not people:
                    return self.text[found.start : version.end()], found
                return found.value, found
            if people:
                m = re.compile(r"[A-Z][\w'\u2019-]*(?:\s+[A-Z][\w'\u2019-]*){0,2}").match(
                    self.text, start, end
                )
                if m and names_something(m.group(0), phrase=False):
                    person = Found("person", m.group(0), m.start(), m.end())
                    self.extra.append(person)
                    return person.value, person
        cut = (_LIGHT_CUT if light else _CUT).search(self.text, start, end)
        stop = cut.start() if cut else end
        stop = _strip_span(self.text, start, stop)[1]
        phrase = self.text[start:stop]
        if not phrase or phrase.lower() in _PRONOUN:
            return None
        return phrase, self.entity_at(start, stop)


def _strip_span(text: str, start: int, end: int, *, determiners: bool = True) -> tuple[int, int]:
    while start < end and text[start] in " \t\n\"'`*_\u201c\u2018":
        start += 1
    if determiners:
        m = _DET.match(text, start, end)
        if m:
            start = m.end()
    while end > start and text[end - 1] in " \t\n.,;:!?\"'`*_\u201d\u2019)":
        end -= 1
    if text[start:end].endswith(("'s", "\u2019s")):
        end -= 2
    return start, end


# --- the rules ---------------------------------------------------------------------------
# Each takes the sentence and a clause span and returns drafts; the first rule that finds
# something in a clause wins, so the order below is the order of trust.

Rule = Callable[[_Sentence, int, int], list[_Draft]]

_OWN_VERBS = (
    r"(?:now\s+|also\s+|still\s+)?(?:owns|own|maintains|maintain|leads|lead|runs|manages|"
    r"will\s+own|will\s+lead|took\s+over|takes\s+over|has\s+taken\s+over|is\s+taking\s+over|"
    r"(?:is|are)\s+(?:now\s+|still\s+)?(?:responsible|accountable)\s+for|"
    r"(?:is|are)\s+(?:now\s+|still\s+)?in\s+charge\s+of|"
    r"(?:is|are)\s+(?:now\s+|still\s+)?(?:the\s+|our\s+)?(?:new\s+)?(?:owner|owners|DRI|lead|"
    r"tech\s+lead|maintainer|point\s+of\s+contact|(?:escalation\s+)?contact)\s+(?:of|for|on))"
)
_OWNS = re.compile(
    r"(?P<p>@[\w.-]+|[A-Z][\w'\u2019.-]*(?:\s+[A-Z][\w'\u2019-]*){0,2}|(?:[Tt]he\s+)?[\w-]+(?:\s+[\w-]+)?"
    rf"\s+team)\s+{_OWN_VERBS}\s+(?P<x>{_NP})"
    r"(?:\s+from\s+(?P<old>@[\w.-]+|[A-Z][\w'\u2019-]*(?:\s+[A-Z][\w'\u2019-]*)?))?"
    r"(?=\s*(?:[,;.!(]|\s[-\u2013\u2014]\s|\s(?:since|from|as\s+of|starting|effective|until|on|in|"
    r"and|while|but|now)(?![\w-])|$))"
)
_OWNED_BY = re.compile(
    rf"(?P<x>{_NP})\s+(?:is|are|was|will\s+be|has\s+been)\s+(?:now\s+|still\s+)?"
    r"(?:owned|maintained|run|led|managed|handled)\s+by\s+(?P<p>.+)"
    rf"|(?P<x2>{_NP})\s+(?:now\s+|still\s+)?(?:belongs\s+to|belong\s+to|sits\s+with|sit\s+with|"
    r"is\s+the\s+responsibility\s+of|falls\s+(?:to|under))\s+(?P<p2>.+)"
)
# "Ownership of the release train moves to Ade", "... passes from Keiko to Ade".
_OWNERSHIP_MOVES = re.compile(
    rf"(?:[Tt]he\s+)?[Oo]wnership\s+of\s+(?P<x>{_NP})\s+(?:now\s+)?(?:is\s+|has\s+|will\s+)?"
    r"(?:moves|moved|moving|move|passes|passed|passing|pass|goes|went|gone|go|"
    r"transfers|transferred|transfer|been\s+transferred|been\s+handed|handed)\s+"
    r"(?:over\s+)?(?:from\s+(?P<old>[^,;]+?)\s+)?to\s+(?P<p>.+)"
)
_ATTR = re.compile(
    rf"(?:[Tt]he\s+|[Oo]ur\s+)?(?P<x>(?:[\w'\u2019/&.@-]+\s+){{0,4}}?)(?P<a>{ATTRIBUTE_ALTERNATION})"
    r"\s+(?:is|are|was|will\s+be|has\s+been|remains|becomes|moves\s+to|moved\s+to|changes\s+to|"
    r"changed\s+to|is\s+now|is\s+moving\s+to|(?:has\s+)?(?:slipped|moved)\s+to)\s+(?:now\s+)?"
    r"(?:set\s+(?:to|for)\s+|on\s+|at\s+)?(?P<v>.+)",
    re.IGNORECASE,
)
_ATTR_OF = re.compile(
    rf"(?:[Tt]he\s+)?(?P<a>{ATTRIBUTE_ALTERNATION})\s+(?:of|for)\s+(?P<x>{_NP})\s+"
    r"(?:is|are|was|will\s+be|remains)\s+(?:now\s+)?(?P<v>.+)",
    re.IGNORECASE,
)
_MOVE_VERB = (
    r"(?:move|moving|moved|migrate|migrating|migrated|switch|switching|switched|port|porting|"
    r"ported|transition|transitioning|transitioned)"
)
# "moved off Redshift onto BigQuery" says what "moved from Redshift to BigQuery" says ("off"
# only before an "onto": "switched off the lights to save power" moves nothing).
_FROM = r"(?:from|off(?:\s+of)?(?=[^,;]*\sonto\s))"
_MOVE = re.compile(
    rf"(?:.*?\b)?{_MOVE_VERB}\s+(?!(?:from|off)\b)(?P<x>{_NP})\s+(?:{_FROM}\s+(?P<old>[^,;]+?)\s+)?"
    r"(?:over\s+)?(?:to|onto)\s+(?P<v>.+)"
)
_MOVES = re.compile(
    rf"(?P<x>{_NP})\s+(?:will\s+|is\s+|are\s+|has\s+|have\s+)?(?:being\s+|be\s+)?"
    r"(?:migrates|moves|migrating|moving|migrated|moved|switches|switching|switched|"
    rf"migrate|move|switch)\s+(?:{_FROM}\s+(?P<old>[^,;]+?)\s+)?(?:over\s+)?(?:to|onto)\s+(?P<v>.+)"
)
_SWITCHED_FROM = re.compile(
    rf"(?P<who>(?:.*?\s)?){_MOVE_VERB}\s+{_FROM}\s+(?P<old>[^,;]+?)\s+(?:to|onto)\s+(?P<v>[^,;]+?)"
    rf"(?:\s+for\s+(?P<x>{_NP}))?(?=\s*[,;.!]|\s+(?:in|on|last|this|after|because)\b|$)"
)
_REPLACES = re.compile(
    rf"(?P<v>{_NP})\s+(?:replaces|replaced|will\s+replace|is\s+replacing|has\s+replaced)\s+"
    rf"(?P<old>[^,;]+?)(?:\s+(?:for|as)\s+(?P<x>{_NP}))?(?=\s*[,;.!]|\s+(?:in|on|from|"
    r"starting|effective|as\s+of)\b|$)"
)
# "we're ditching Sentry for Rollbar", "swapped Sketch for Figma", "replaced CircleCI with
# Buildkite", "dropping SurveyMonkey in favour of Typeform": the old thing, then the new.
_DROPS = re.compile(
    r"(?P<who>(?:.*?\s)?)(?:(?:drop|drops|dropping|dropped|ditch|ditches|ditching|ditched|"
    r"swap|swaps|swapping|swapped|trade|trades|trading|traded)\s+(?P<old>[^,;]+?)\s+(?:out\s+)?"
    r"(?:for|in\s+favou?r\s+of)"
    r"|(?:replace|replaces|replacing|replaced)\s+(?P<old2>[^,;]+?)\s+with)"
    r"\s+(?P<v>[^,;]+?)"
    rf"(?:\s+(?:for|as)\s+(?P<x>{_NP}))?(?=\s*[,;.!]|\s+(?:in|on|last|this|next|after|"
    r"because|starting|effective|from|since|across)\b|$)",
    re.IGNORECASE,
)
_NAME_LIKE = re.compile(r"[A-Z0-9]|[a-z]+[A-Z]")
_AUXILIARY = re.compile(
    r"(?:['\u2019](?:re|ve|ll|d|s)\b)?"
    r"(?:\s+(?:is|are|was|were|has|have|had|will|just|finally|also|now|officially))*$",
    re.IGNORECASE,
)
_REPLACED_BY = re.compile(
    rf"(?P<old>{_NP})\s+(?:is|was|has\s+been|will\s+be|are|were)\s+(?:being\s+)?replaced\s+by\s+"
    r"(?P<v>.+)"
)
_DEFINES = re.compile(
    r"(?P<x>\"[^\"]{1,40}\"|\u201c[^\u201d]{1,40}\u201d|`[^`]{1,40}`|[A-Za-z][\w&/-]*(?:\s+[\w&/-]+){0,2}?)\s+"
    r"(?:means|stands\s+for|is\s+short\s+for|is\s+an\s+abbreviation\s+(?:for|of)|"
    r"is\s+defined\s+as|refers\s+to|is\s+our\s+(?:term|name|word)\s+for)\s+(?P<v>.+)"
)
_PREFERS = re.compile(
    r"(?P<p>@[\w.-]+|[A-Z][\w'\u2019.-]*(?:\s+[A-Z][\w'\u2019-]*){0,2})\s+"
    r"(?:really\s+|strongly\s+|generally\s+|usually\s+|still\s+|always\s+|much\s+|also\s+)?"
    r"(?P<verb>prefers|likes|loves|enjoys|favou?rs|wants|would\s+(?:rather|like|prefer)|"
    r"dislikes|hates|doesn't\s+like|does\s+not\s+like|doesn\u2019t\s+like|can't\s+stand|"
    r"cannot\s+stand|avoids|is\s+not\s+a\s+fan\s+of|isn't\s+a\s+fan\s+of|is\s+a\s+fan\s+of|"
    r"is\s+allergic\s+to|asked\s+for|asks\s+for)\s+(?:to\s+)?(?P<v>.+)"
)
_PREFERENCE_OF = re.compile(
    r"(?P<p>[A-Z][\w.-]*(?:\s+[A-Z][\w-]*)?)(?:'s|\u2019s)\s+(?:preference|"
    r"preferred\s+[\w-]+(?:\s+[\w-]+)?|favou?rite\s+[\w-]+)\s+(?:is|are)\s+(?P<v>.+)"
)
_DISLIKE = re.compile(r"dislikes|hates|n't|n\u2019t|not|cannot|avoids|allergic", re.IGNORECASE)
_DECIDED = re.compile(
    r"(?:[Ww]e|[Tt]he\s+team|[\w-]+\s+team|[Ee]veryone|[Ll]eadership|[Tt]he\s+group|"
    r"[A-Z][\w'\u2019-]+(?:\s+(?:and|&)\s+[A-Z][\w'\u2019-]+)?)\s+(?:have\s+|has\s+|finally\s+|"
    r"formally\s+|unanimously\s+|all\s+)?(?:decided|agreed|chose|resolved|committed|"
    r"settled|signed\s+off)\s+(?:to|that|on|upon|for)\s+(?P<c>.+)"
    r"|(?:[Ii]t\s+(?:was|has\s+been|is)\s+(?:decided|agreed)\s+(?:that|to)\s+(?P<c2>.+))"
    r"|(?:(?:[Gg]oing\s+forward|[Mm]oving\s+forward|[Ff]rom\s+now\s+on|[Ff]rom\s+here\s+on(?:\s+out)?|"
    r"[Ee]ffective\s+(?:immediately|[^,]+)),\s+"
    r"(?P<c3>.+))"
)
# "Postmortems are written in Notion", "the site is now built with Astro": a thing done in,
# on or with a tool, in the passive.
_DONE_WITH = (
    r"(?:is|are)\s+(?:now\s+|still\s+|also\s+|currently\s+|all\s+)?(?:"
    r"(?!(?:used|needed|required|allowed|expected|supposed|interested|involved|included|"
    r"mentioned|discussed|listed|described|explained|covered|referenced|defined|based|"
    r"located|scheduled|planned|due|interested)\b)"
    r"(?:[a-z]+ed|written|built|run|kept|sent|done|held|drawn|shown|set|taken)\s+"
    r"(?:on|in|with|via|through|using)|"
    r"sent\s+to|(?:backed|scheduled|orchestrated|monitored)\s+by)"
)
_USES = re.compile(
    rf"(?P<x>{_NP})\s+(?:(?:should|will|must)\s+)?(?:now\s+|still\s+|also\s+)?(?P<verb>uses|use|"
    r"runs\s+on|run\s+on|lives\s+in|live\s+in|is\s+built\s+on|depends\s+on|"
    r"standardi[sz]ed\s+on|standardi[sz]es\s+on|goes\s+to|go\s+to|go(?:es)?\s+(?:through|via)|deploys?\s+(?:with|via|through)|builds?\s+with|"
    rf"{_DONE_WITH})"
    r"\s+(?P<v>.+)"
)
# "Questions about billing go to Sam", "SOC 2 audit questions go to Elif": who answers them.
_ASKED = re.compile(
    r"(?:(?:all\s+|any\s+)?(?:questions|requests|queries|escalations)\s+(?:about|on|regarding|"
    r"for|related\s+to|around)\s+)?(?P<x>.+?)(?:\s+(?:questions|requests|queries|escalations))?",
    re.IGNORECASE,
)
_WE_USE = re.compile(
    r"(?:[Ww]e|[Tt]he\s+team|[\w-]+\s+team|[Ee]veryone)\s+(?:now\s+|still\s+|also\s+)?"
    r"(?:use|uses|adopted|adopt|will\s+use|standardi[sz]ed\s+on|go\s+with|went\s+with)\s+"
    rf"(?P<v>[^,;]+?)\s+(?:for|as\s+(?:our|the))\s+(?P<x>{_NP})(?=\s*[,;.!]|\s+(?:from|starting|"
    r"instead|rather|in|on)\b|$)"
)
_COPULA = re.compile(
    rf"(?:[Tt]he\s+|[Oo]ur\s+)?(?P<x>{_NP})\s+(?:is|are|will\s+be|remains|stays|stay)\s+"
    r"(?:now\s+|still\s+)?"
    r"(?P<on>on\s+|every\s+|held\s+on\s+|(?:scheduled|planned|set|due|expected|targeted)"
    r"(?:\s+(?:for|on|by|in))?\s+)?"
    r"(?P<v>.+)"
)
_HAPPENS = re.compile(
    rf"(?:[Tt]he\s+|[Oo]ur\s+)?(?P<x>{_NP})\s+(?:happens|happen|runs|run|takes\s+place|"
    r"is\s+held|are\s+held|occurs|meets|ships|deploys|goes\s+out|starts|start|begins|begin|"
    r"ends|end|kicks\s+off|closes|opens)\s+(?:on\s+)?(?P<v>.+)"
)
_REPORTS_TO = re.compile(
    r"(?P<p>@[\w.-]+|[A-Z][\w'\u2019.-]*(?:\s+[A-Z][\w'\u2019-]*){0,2})\s+(?:now\s+)?reports\s+to\s+"
    r"(?P<v>.+)"
)
_MEMBER = re.compile(
    r"(?P<p>@[\w.-]+|[A-Z][\w'\u2019.-]*(?:\s+[A-Z][\w'\u2019-]*){0,2})\s+(?:is|are)\s+(?:now\s+)?"
    r"(?:on|in|part\s+of|a\s+member\s+of)\s+(?P<v>(?:the\s+)?[\w-]+(?:\s+[\w-]+)?\s+"
    r"(?:team|squad|guild|group))"
)
_JOINED = re.compile(
    r"(?P<p>@[\w.-]+|[A-Z][\w'\u2019.-]*(?:\s+[A-Z][\w'\u2019-]*){0,2})\s+(?:has\s+|have\s+)?"
    r"(?P<verb>joined|left|rejoined|moved\s+to|transferred\s+to|is\s+joining|will\s+join|"
    r"is\s+leaving|will\s+leave)\s+(?P<v>.+)"
)
# "Dana has left." / "Dana has left; ...": left the organisation, with nothing after.
_HAS_LEFT = re.compile(
    r"(?P<p>@[\w.-]+|[A-Z][\w'\u2019.-]*(?:\s+[A-Z][\w'\u2019-]*){0,2})\s+has\s+(?:now\s+)?"
    r"left(?:\s+us)?(?:\s+(?:today|yesterday|this\s+week|last\s+week))?\s*[.!]?\s*$"
)
# A dated retirement (or deprecation) is an event: "We decommissioned Jenkins on 3 March".
_RETIRING = alternation((*RETIRED_VERBS, DEPRECATED))
_SHIPPED = re.compile(
    r"(?:[Ww]e|[Tt]he\s+team|[\w-]+\s+team|[\w-]+|[A-Z][\w'\u2019-]+(?:\s+[A-Z][\w'\u2019-]+)?)\s+"
    r"(?:have\s+|has\s+|finally\s+|successfully\s+)?(?P<verb>shipped|launched|released|"
    r"rolled\s+out|deployed|completed|finished|closed|signed|hired|onboarded|"
    rf"{_RETIRING})\s+(?P<x>[^,;]+?)(?:\s+(?:to|for)\s+[^,;]+?)?\s+"
    r"(?:on|in|at|by|last|this|yesterday|today)\b"
)
_WAS_SHIPPED = re.compile(
    rf"(?P<x>{_NP})\s+(?:was|were|has\s+been|have\s+been|got)?\s*(?:finally\s+)?"
    r"(?P<verb>shipped|launched|released|rolled\s+out|went\s+live|deployed|completed|finished|"
    rf"went\s+down|was\s+down|failed|{_RETIRING}|cut\s+over|"
    r"went\s+out)\b"
)
_OUTAGE = re.compile(
    r"(?:(?:[Tt]he|[Aa]n?|[Oo]ur)\s+)?(?P<x>[\w-]+(?:\s+[\w-]+)?\s+)?"
    r"(?P<verb>outage|incident|postmortem|post-mortem|breach|downtime|sev-?[0-4]|SEV-?[0-4])\s+"
    r"(?:on|of|from|in)\s+"
)
_EVENT_PREDICATES = {
    "shipped": "released",
    "launched": "released",
    "released": "released",
    "rolled out": "released",
    "went live": "released",
    "went out": "released",
    "deployed": "released",
    "cut over": "released",
    "completed": "completed",
    "finished": "completed",
    "closed": "completed",
    "signed": "signed",
    "hired": "hired",
    "onboarded": "hired",
    "went down": "incident",
    "was down": "incident",
    "failed": "incident",
    **dict.fromkeys((*RETIRED_VERBS, DEPRECATED), "retired"),
    "joined": "joined",
    "rejoined": "joined",
    "is joining": "joined",
    "will join": "joined",
    "moved to": "joined",
    "transferred to": "joined",
    "left": "left",
    "is leaving": "left",
    "will leave": "left",
}


def _owns(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    m = _OWNS.match(s.text, cs, ce)
    if not m:
        return []
    subject = s.subject(m.start("x"), m.end("x"), strip_team=True)
    owner = s.object(m.start("p"), m.end("p"), entity_slot=True, people=True)
    if subject is None or owner is None or _is_pronoun(s.text[m.start("p") : m.end("p")]):
        return []
    named = s.entity_starting(m.start("p"), m.end("p"))
    team = m.group("p").split()[-1].lower() == "team"
    if m.start("p") == s.start and not team and (named is None or named.type not in _PEOPLE):
        # A capitalised first word is as likely a thing ("Payroll runs on the 25th").
        return []
    old = _old_value(s, m, "old")
    verb = s.text[m.end("p") : m.start("x")].lower()
    if "contact" not in verb:
        return [_Draft("fact", subject, "owner", owner[0], owner[1], 0.9, old)]
    # "Hana is now the contact for security questions": who answers for security.
    asked = _ASKED.fullmatch(s.text, *_strip_span(s.text, m.start("x"), m.end("x")))
    if asked is not None:
        subject = s.subject(asked.start("x"), asked.end("x")) or subject
    return [_Draft("fact", subject, "contact", owner[0], owner[1], 0.9, old)]


_IS_THE_OWNER = re.compile(
    r"(?P<p>@[\w.-]+|[A-Z][\w'\u2019.-]*(?:\s+[A-Z][\w'\u2019-]*){0,2})(?:\s*\([^)]*\))?\s+"
    r"(?:is|will\s+be|has\s+become|becomes)\s+(?:now\s+)?(?:the|our)\s+(?:new\s+)?"
    r"(?P<x>[\w-]+(?:\s+[\w-]+)?)\s+(?:owner|DRI|lead|maintainer)\b"
)
_HANDS_OVER = re.compile(
    r"(?P<old>.+?)\s+(?:hands|handed|is\s+handing|will\s+hand|hand)\s+(?P<x>.+?)\s+"
    r"(?:over\s+)?to\s+(?P<p>.+)"
)
# "Handing the billing runbook over to Tomas", "Handing over X to P", "X has been handed
# over to P": the same, with nobody named as the one handing it ("over" is required:
# "handing the slides to Sam for review" hands nothing over).
_HANDED_OVER = re.compile(
    r"[Hh]anding\s+(?:over\s+(?P<x>.+?)|(?P<x2>.+?)\s+over)\s+to\s+(?P<p>.+)"
    rf"|(?:[Tt]he\s+|[Oo]ur\s+)?(?P<x3>{_NP})\s+(?:is|was|has\s+been|have\s+been|will\s+be|"
    r"is\s+being|are|were|are\s+being)\s+handed\s+over\s+to\s+(?P<p3>.+)"
)
_PASSIVE_END = re.compile(r"\b(?:is|are|was|were|been|being|be)$", re.IGNORECASE)


def _is_the_owner(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    m = _IS_THE_OWNER.match(s.text, cs, ce)
    if m and not _is_pronoun(m.group("p")):
        subject = s.subject(m.start("x"), m.end("x"))
        owner = s.object(m.start("p"), m.end("p"), entity_slot=True, people=True)
        if subject is not None and owner is not None:
            return [_Draft("fact", subject, "owner", owner[0], owner[1], 0.85)]
    m = _HANDED_OVER.match(s.text, cs, ce)
    if m:
        x = next(g for g in ("x", "x2", "x3") if m.group(g))
        p = "p3" if x == "x3" else "p"
        subject = s.subject(m.start(x), m.end(x))
        owner = s.object(m.start(p), m.end(p), entity_slot=True, people=True)
        if subject is not None and owner is not None:
            return [_Draft("fact", subject, "owner", owner[0], owner[1], 0.8)]
        return []
    m = _HANDS_OVER.match(s.text, cs, ce)
    if m and not _PASSIVE_END.search(m.group("old")):
        subject = s.subject(m.start("x"), m.end("x"))
        owner = s.object(m.start("p"), m.end("p"), entity_slot=True, people=True)
        old = s.subject(m.start("old"), m.end("old"))
        if subject is not None and owner is not None:
            return [
                _Draft(
                    "fact", subject, "owner", owner[0], owner[1], 0.8, old.value if old else None
                )
            ]
    return []


def _owned_by(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    moved = _OWNERSHIP_MOVES.match(s.text, cs, ce)
    if moved is not None:
        subject = s.subject(moved.start("x"), moved.end("x"), strip_team=True)
        owner = s.object(moved.start("p"), moved.end("p"), entity_slot=True, people=True)
        if subject is None or owner is None:
            return []
        old = _old_value(s, moved, "old")
        return [_Draft("fact", subject, "owner", owner[0], owner[1], 0.85, old)]
    m = _OWNED_BY.match(s.text, cs, ce)
    if not m:
        return []
    x, p = ("x", "p") if m.group("x") else ("x2", "p2")
    subject = s.subject(m.start(x), m.end(x), strip_team=True)
    tool = s.entity_starting(*_strip_span(s.text, m.start(p), m.end(p)))
    if subject is not None and tool is not None and tool.type in ("system", "company"):
        # "Billing is handled by Adyen now": a product does it, nobody owns it.
        used = s.object(m.start(p), m.end(p), entity_slot=True)
        return [_Draft("fact", subject, "uses", used[0], used[1], 0.8)] if used else []
    owner = s.object(m.start(p), m.end(p), entity_slot=True, people=True)
    if subject is None or owner is None:
        return []
    return [_Draft("fact", subject, "owner", owner[0], owner[1], 0.9)]


def _attribute(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    m = _ATTR.match(s.text, cs, ce) or _ATTR_OF.match(s.text, cs, ce)
    if not m:
        return []
    predicate = attribute_predicate(m.group("a")) or snake(m.group("a"))
    return _about(s, m.start("x"), m.end("x"), predicate, m.start("v"), m.end("v"), 0.85)


def _about(
    s: _Sentence, xs: int, xe: int, predicate: str, vs: int, ve: int, confidence: float
) -> list[_Draft]:
    """A statement (X, predicate, value) where X may be empty: a relational attribute then
    borrows the section's subject."""
    xs, xe = _strip_span(s.text, xs, xe)
    subject = s.subject(xs, xe, strip_team=predicate == "owner") if xs < xe else s.context
    if subject is None:
        return []
    people = predicate in ("owner", "contact")
    value = _value(s, vs, ve, entity_slot=predicate != "means", people=people)
    if value is None:
        return []
    return [_Draft("fact", subject, predicate, value[0], value[1], confidence)]


def _value(
    s: _Sentence, vs: int, ve: int, *, entity_slot: bool, people: bool = False
) -> tuple[str, Found | None] | None:
    """A value: a date (as written) when it starts with one, else the object phrase."""
    vs, _ = _strip_span(s.text, vs, ve, determiners=False)
    for d in s.dates:
        if vs <= d.start < ve and _LEAD_IN.fullmatch(s.text, vs, d.start):
            return s.text[d.start : d.end], None
    return s.object(vs, ve, entity_slot=entity_slot, people=people)


def _migration(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    for pattern in (_MOVES, _MOVE):
        m = pattern.match(s.text, cs, ce)
        if m:
            subject = s.subject(m.start("x"), m.end("x"))
            target = s.object(m.start("v"), m.end("v"), entity_slot=True)
            if subject is None or target is None or subject.value.lower() in ("we", "us"):
                continue
            old = _old_value(s, m, "old")
            return [_Draft("fact", subject, "migration_target", target[0], target[1], 0.85, old)]
    return []


def _switched_from(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    m = _SWITCHED_FROM.match(s.text, cs, ce)
    if not m:
        return []
    moves = _MOVES.match(s.text, cs, ce)
    if moves and moves.group("old"):
        words = moves.group("x").lower().split()
        if not _PRONOUN.intersection(words) and words[-1] != "team":
            return []  # "The marketing site moved from A to B": the site's migration
    target = s.object(m.start("v"), m.end("v"), entity_slot=True)
    old = _old_value(s, m, "old")
    if target is None or old is None:
        return []
    return _replacement(s, m, target, old, "old")


def _replaces(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    m = _REPLACES.match(s.text, cs, ce)
    if m:
        new = s.object(m.start("v"), m.end("v"), entity_slot=True)
        old = _old_value(s, m, "old")
        if new is None or old is None:
            return []
        if m.group("x"):
            subject = s.subject(m.start("x"), m.end("x"))
            if subject is not None:
                return [_Draft("fact", subject, "uses", new[0], new[1], 0.8, old)]
        subject = s.subject(m.start("old"), m.end("old"))
        if subject is None:
            return []
        return [_Draft("fact", subject, "replaced_by", new[0], new[1], 0.75, old)]
    return []


def _drops(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    m = _DROPS.match(s.text, cs, ce)
    if not m:
        return []
    group = "old" if m.group("old") else "old2"
    old_at = _strip_span(s.text, m.start(group), m.end(group))[0]
    new_at = _strip_span(s.text, m.start("v"), m.end("v"))[0]
    if not all(_NAME_LIKE.match(s.text, i) or _named_at(s, i) for i in (old_at, new_at)) or any(
        d.start in (old_at, new_at) for d in s.dates
    ):
        return []  # "replace the battery with a new one", "swap Friday for Monday"
    new = s.object(m.start("v"), m.end("v"), entity_slot=True)
    old = _old_value(s, m, group)
    if new is None or old is None:
        return []
    return _replacement(s, m, new, old, group)


def _replacement(
    s: _Sentence, m: re.Match[str], new: tuple[str, Found | None], old: str, old_group: str
) -> list[_Draft]:
    """A named replacement of ``old`` by ``new``: a use of what it is for ("... for error
    tracking") or of whoever switched; else of the section's subject; else the old
    thing is ``replaced_by`` the new one (a retirement: docs/graph.md)."""
    actor = _actor(s, m) if not m.group("x") else None
    if actor is False:
        return []
    subject = s.subject(m.start("x"), m.end("x")) if m.group("x") else actor
    if subject is not None:
        return [_Draft("fact", subject, "uses", new[0], new[1], 0.8, old)]
    subject = s.context or s.subject(m.start(old_group), m.end(old_group))
    if subject is None:
        return []
    predicate = "uses" if s.context else "replaced_by"
    return [_Draft("fact", subject, predicate, new[0], new[1], 0.7, old)]


def _named_at(s: _Sentence, at: int) -> bool:
    """Whether a system or company the text names starts at ``at`` ("ditching sentry for
    datadog": names written in lower case)."""
    return any(e.start == at and e.type in ("system", "company") for e in s.entities)


def _actor(s: _Sentence, m: re.Match[str]) -> Found | Literal[False] | None:
    """Who did the switching (``m``'s ``who``): a thing of its own ("The design team
    swapped Sketch for Figma", "the web team switched from A to B") is the subject of the
    new use; nobody, a pronoun or a person ("we", "Ines") leaves it to the old thing;
    anything else unread before the verb is ``False``: say nothing."""
    ws, we = _strip_span(s.text, m.start("who"), m.end("who"), determiners=False)
    we = ws + len(_AUXILIARY.sub("", s.text[ws:we]))
    if ws >= we or _is_pronoun(s.text[ws:we].split()[-1]):
        return None
    if _DET.match(s.text, ws, we):
        return s.subject(ws, we)
    actor = s.entity_at(ws, we)
    return None if actor is not None and actor.type in _PEOPLE else False


def _replaced_by(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    m = _REPLACED_BY.match(s.text, cs, ce)
    if m:
        subject = s.subject(m.start("old"), m.end("old"))
        new = s.object(m.start("v"), m.end("v"), entity_slot=True)
        if subject is None or new is None:
            return []
        return [_Draft("fact", subject, "replaced_by", new[0], new[1], 0.8, subject.value)]
    return []


def _defines(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    m = _DEFINES.match(s.text, cs, ce)
    if not m:
        return []
    subject = s.subject(m.start("x"), m.end("x"))
    value = s.object(m.start("v"), m.end("v"))
    if subject is None or value is None:
        return []
    return [_Draft("fact", subject, "means", value[0], value[1], 0.9)]


def _prefers(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    m = _PREFERS.match(s.text, cs, ce)
    verb = m.group("verb") if m else ""
    if not m:
        m = _PREFERENCE_OF.match(s.text, cs, ce)
    if not m or _is_pronoun(m.group("p")) or m.group("p").split()[0] in ("The", "Our", "We"):
        return []
    person = s.entity_starting(m.start("p"), m.end("p"))
    if person is None or person.type not in _PEOPLE:
        first = s.text[m.start("p") : m.end("p")]
        person = Found("person", first, m.start("p"), m.end("p"))
        s.extra.append(person)
    value = s.object(m.start("v"), m.end("v"), light=True)
    if value is None:
        return []
    text, entity = value
    text = re.split(r"\s+(?:over|to)\s+(?=\S)", text, maxsplit=1)[0] if verb else text
    entity = entity if entity is not None and entity.value == text else None
    predicate = "dislikes" if _DISLIKE.search(verb) else "prefers"
    return [_Draft("preference", person, predicate, text, entity, 0.85)]


def _decided(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    m = _DECIDED.match(s.text, cs, ce)
    if not m:
        return []
    group = next(g for g in ("c", "c2", "c3") if m.group(g) is not None)
    return _decision_of(s, m.start(group), m.end(group), 0.85)


def _decision_of(s: _Sentence, cs: int, ce: int, confidence: float) -> list[_Draft]:
    """What a decision says: the clause's own statement typed as a decision, or else
    (the first thing it names, ``decided``, the clause)."""
    inner = _first_rule(s, cs, ce, _RULES)
    if inner:
        return [
            replace(d, type="decision", confidence=min(d.confidence, confidence)) for d in inner
        ]
    value = s.object(cs, ce, light=True)
    if value is None:
        return []
    named = [e for e in s.entities if cs <= e.start and e.type not in ("person", "handle")]
    subject = named[0] if named else s.context
    lead_np = re.match(r"\s*(?:the|our)\s", s.text[cs:ce], re.IGNORECASE)
    if lead_np is not None and (subject is None or subject.start > cs + lead_np.end()):
        # "the payments service deploys with Jenkins": the clause's own subject leads it,
        # not the first name in it (which is as likely its object).
        subject = None
    if subject is None:
        # "to adopt async standups" -> "async standups"; "deploys stop at 4pm" -> "deploys".
        clause = s.text[cs:ce]
        first = clause.split(maxsplit=1)[0].lower() if clause.split() else ""
        lead = r"(?:to\s+)?\w+\s+" if first in _IMPERATIVE or first == "to" else ""
        lead = r"(?:we|they|everyone|all)\s+\w+\s+" if first in _PRONOUN else lead
        words = re.match(
            rf"\s*{lead}(?P<x>(?:the\s+|our\s+)?[\w-]+"
            r"(?:\s+(?!(?:to|at|on|in|for|by|from|with|is|are|will|should|must|stop|stops|every|"
            r"each|until|before|after|into|off|over|"
            r"start|starts|move|moves|go|goes|get|gets|need|needs|run|runs)\b)[\w-]+)?)",
            clause,
            re.IGNORECASE,
        )
        subject = s.subject(cs + words.start("x"), cs + words.end("x")) if words else None
        if subject is None:
            return []
    return [_Draft("decision", subject, "decided", value[0], value[1], confidence - 0.2)]


_CHOSE = re.compile(
    r"(?:.*?\b)?(?:chose|picked|selected|went\s+with|opted\s+for|settled\s+on)\s+"
    r"(?P<v>[^,;]+?)(?:\s+(?:over|instead\s+of|rather\s+than)\s+(?P<old>[^,;]+?))?"
    rf"\s+(?:for|as)\s+(?:the\s+|our\s+)?(?P<x>{_NP})(?=\s*[,;.!]|$)"
)
_WILL = re.compile(
    r"(?:[Ww]e|[Tt]he\s+team|[\w-]+\s+team)\s+(?:will|plan\s+to|are\s+going\s+to|intend\s+to)\s+"
    r"(?:ship|launch|release|retire|deprecate|sunset|decommission|roll\s+out|turn\s+off|"
    r"shut\s+down|migrate|open|close)\s+(?P<x>[^,;]+?)\s+(?:on|by|in)\s+"
)


def _chose(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    m = _CHOSE.match(s.text, cs, ce)
    if not m:
        return []
    subject = s.subject(m.start("x"), m.end("x"))
    value = s.object(m.start("v"), m.end("v"), entity_slot=True)
    if subject is None or value is None:
        return []
    old = _old_value(s, m, "old")
    return [_Draft("decision", subject, "uses", value[0], value[1], 0.8, old)]


def _planned(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    """ "We will sunset the v1 API on 1 June 2027": a date for it, not an event yet."""
    m = _WILL.match(s.text, cs, ce)
    dated = [d for d in s.dates if m and d.start >= m.end()]
    if not m or not dated:
        return []
    subject = s.subject(m.start("x"), m.end("x"))
    if subject is None:
        return []
    when = s.text[dated[0].start : dated[0].end]
    return [_Draft("fact", subject, "date", when, None, 0.75)]


def _uses(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    m = _WE_USE.match(s.text, cs, ce) or _USES.match(s.text, cs, ce)
    if not m or m.group("x").lower() in ("we", "the team"):
        return []
    xs, xe = m.start("x"), m.end("x")
    value = s.object(m.start("v"), m.end("v"), entity_slot=True)
    if value is None:
        return []
    predicate = "uses"
    if "verb" in m.groupdict() and re.match(r"go|sent", m.group("verb")):
        if value[1] is not None and value[1].type in _PEOPLE:
            # "Questions about billing now go to Sam": Sam answers for billing.
            asked = _ASKED.fullmatch(s.text, *_strip_span(s.text, xs, xe))
            xs, xe, predicate = (
                asked.start("x") if asked else xs,
                asked.end("x") if asked else xe,
                "contact",
            )
    subject = s.subject(xs, xe)
    if subject is None:
        return []
    return [_Draft("fact", subject, predicate, value[0], value[1], 0.8)]


def _copula(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    """``X is <entity>``, ``X is on <date>``, ``X is every Friday``: nothing vaguer."""
    for pattern in (_HAPPENS, _COPULA):
        m = pattern.match(s.text, cs, ce)
        if not m:
            continue
        vs = _strip_span(s.text, m.start("v"), m.end("v"), determiners=False)[0]
        date = next(
            (
                d
                for d in s.dates
                if (vs <= d.start and _LEAD_IN.fullmatch(s.text, vs, d.start))
                or d.start < vs < d.end  # "is every Monday": the mention holds "every"
            ),
            None,
        )
        if date is not None:
            predicate = "schedule" if date.weekday or "every" in s.text[cs:ce] else "date"
            subject = s.subject(m.start("x"), m.end("x"))
            if subject is None:
                return []
            return [_Draft("fact", subject, predicate, s.text[date.start : date.end], None, 0.75)]
        if pattern is _HAPPENS:
            continue
        named = s.entity_at(*_strip_span(s.text, m.start("x"), m.end("x")))
        the = re.match(r"(?:our|the)\s+(?P<y>[\w -]{2,40}?)\s*[.!]?$", s.text[vs : m.end("v")])
        if named is not None and named.type in ("system", "company", "project") and the:
            ys = vs + the.start("y")
            subject = s.subject(ys, vs + the.end("y"))
            if subject is not None:
                return [_Draft("fact", subject, "is", named.value, named, 0.7)]
        valued = _valued(s, m)
        if valued:
            return valued
        found = s.entity_starting(_strip_span(s.text, vs, m.end("v"))[0], m.end("v"))
        rest_start = found.end if found else 0
        if (
            found is None
            or found.type not in _ENTITY_SLOTS
            or re.match(
                r"\s*(?:\w+\s+)?(?:of|for|in|at|to|'s)\b|\s+\w", s.text[rest_start : m.end("v")]
            )
        ):
            continue
        subject = s.subject(m.start("x"), m.end("x"))
        if subject is None or subject.type == "person":
            continue
        return [_Draft("fact", subject, "is", found.value, found, 0.7)]
    return []


# "500 EUR", "$1,200", "30 days", "5%", "2 per week": a policy's value.
_QUANTITY = re.compile(
    r"(?:[$\u20ac\u00a3]\s?)?\d[\d,.]*(?:\s?(?:%|[A-Za-z]{1,12}))?(?:\s+(?:per|a|an)\s+\w+)?"
)
# Nouns naming a slot that a product fills: "The email provider is Mailgun".
_ROLE_NOUN = re.compile(
    r"(?:provider|vendor|tool|platform|database|datastore|host|hosting|cdn|registry|"
    r"framework|runtime|broker|queue|warehouse|cloud|crm|erp|ci|backend|engine|stack)$",
    re.IGNORECASE,
)
_NAME = re.compile(r"[A-Z][\w.+-]*(?:\s+(?:[A-Z][\w.+-]*|v?\d[\d.]*)){0,2}")


def _valued(s: _Sentence, m: re.Match[str]) -> list[_Draft]:
    """``X is 500 EUR`` (a quantity) or ``The email provider is Mailgun`` (a name in a
    slot a product fills): (X, ``is``, value), so that a new value replaces the old."""
    vs, ve = _strip_span(s.text, m.start("v"), m.end("v"), determiners=False)
    cut = _CUT.search(s.text, vs, ve)
    ve = _strip_span(s.text, vs, cut.start() if cut else ve)[1]
    trail = _TRAILING_WHEN.search(s.text, vs, ve)
    ve = _strip_span(s.text, vs, trail.start() if trail else ve)[1]
    xs, xe = _strip_span(s.text, m.start("x"), m.end("x"))
    object_entity: Found | None = None
    if _QUANTITY.fullmatch(s.text, vs, ve):
        pass
    elif _ROLE_NOUN.search(s.text, xs, xe) and _NAME.fullmatch(s.text, vs, ve):
        object_entity = s.entity_at(vs, ve) or Found("system", s.text[vs:ve], vs, ve)
        if object_entity not in s.entities:
            s.extra.append(object_entity)
    else:
        return []
    subject = s.subject(xs, xe)
    if subject is None or subject.type in _PEOPLE or vs >= ve:
        return []
    return [_Draft("fact", subject, "is", s.text[vs:ve], object_entity, 0.7)]


def _people(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    for pattern, predicate in ((_REPORTS_TO, "reports_to"), (_MEMBER, "member_of")):
        m = pattern.match(s.text, cs, ce)
        if m and not _is_pronoun(m.group("p")):
            person = s.object(m.start("p"), m.end("p"), entity_slot=True, people=True)
            value = s.object(m.start("v"), m.end("v"), entity_slot=True, people=True)
            if person is None or person[1] is None or value is None:
                continue
            return [_Draft("fact", person[1], predicate, value[0], value[1], 0.85)]
    return []


def _events(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    m = _HAS_LEFT.match(s.text, cs, ce)
    if m and not _is_pronoun(m.group("p")):
        person = s.object(m.start("p"), m.end("p"), entity_slot=True, people=True)
        if person is not None and person[1] is not None:
            return [_Draft("event", person[1], "left", "the company", None, 0.75)]
    m = _JOINED.match(s.text, cs, ce)
    if m and not _is_pronoun(m.group("p")):
        person = s.object(m.start("p"), m.end("p"), entity_slot=True, people=True)
        value = s.object(m.start("v"), m.end("v"), entity_slot=True)
        if person is not None and person[1] is not None and value is not None:
            text, entity = value
            text = _TRAILING_WHEN.sub("", text) or text
            text = re.sub(r"^as\s+(?:an?\s+|the\s+)?", "", text)
            predicate = _EVENT_PREDICATES[" ".join(m.group("verb").split())]
            return [_Draft("event", person[1], predicate, text, entity, 0.8)]
    dated = [d for d in s.dates if not d.weekday and cs <= d.start < ce]
    if not dated:
        return []
    when = s.text[dated[0].start : dated[0].end]
    m = _SHIPPED.match(s.text, cs, ce)
    if m:
        subject = s.subject(m.start("x"), m.end("x"))
        if subject is not None:
            predicate = _EVENT_PREDICATES[" ".join(m.group("verb").split())]
            return [_Draft("event", subject, predicate, when, None, 0.8)]
    m = _WAS_SHIPPED.match(s.text, cs, ce)
    if m:
        subject = s.subject(m.start("x"), m.end("x"))
        if subject is not None:
            predicate = _EVENT_PREDICATES[" ".join(m.group("verb").split())]
            return [_Draft("event", subject, predicate, when, None, 0.8)]
    m = _OUTAGE.search(s.text, cs, ce)
    if m:
        codes = [e for e in s.entities if e.type == "code" and cs <= e.start < ce]
        subject = (
            (
                s.subject(m.start("x"), m.end("x"))
                if m.group("x")
                and m.group("x").split()[0].lower()
                not in ("the", "a", "an", "during", "after", "before", "since", "in", "on", "of")
                else None
            )
            or (codes[0] if codes else None)
            or s.subject(m.start("verb"), m.end("verb"))
        )
        if subject is not None:
            return [_Draft("event", subject, "incident", when, None, 0.75)]
    return []


_GONE = re.compile(
    rf"(?:[Tt]he\s+|[Oo]ur\s+)?(?P<x>{_NP})\s+(?:is|was|has\s+been|are|were|have\s+been|"
    r"got|gets)\s+(?:now\s+|officially\s+|finally\s+)?"
    rf"(?:{alternation(GONE_WORDS)})"
    r"(?:\s+(?:now|today|for\s+good|as\s+of\s+today))?\s*[.!]?\s*$"
)


_WE_RETIRED = re.compile(
    r"(?:[Ww]e|[Tt]he\s+team|[\w-]+\s+team)\s+(?:have\s+|has\s+|finally\s+|officially\s+)?"
    rf"(?:{alternation(RETIRED_VERBS)})\s+"
    rf"(?:the\s+|our\s+)?(?P<x>{_NP})"
    r"(?:\s+(?:now|today|for\s+good|as\s+of\s+today))?\s*[.!]?\s*$"
)


def _gone(s: _Sentence, cs: int, ce: int) -> list[_Draft]:
    """ "Jenkins is retired.", "We retired Jenkins." (no date; a dated one is an event):
    its status, which ends what used it (docs/graph.md)."""
    m = _GONE.match(s.text, cs, ce) or _WE_RETIRED.match(s.text, cs, ce)
    if not m or _is_pronoun(m.group("x")):
        return []
    subject = s.subject(m.start("x"), m.end("x"))
    if subject is None or subject.type in _PEOPLE:
        return []
    return [_Draft("fact", subject, "status", "retired", None, 0.8)]


_RULES: tuple[Rule, ...] = (
    _decided,
    _prefers,
    _owned_by,
    _is_the_owner,
    _owns,
    _defines,
    _replaced_by,
    _drops,
    _replaces,
    _switched_from,
    _attribute,
    _migration,
    _people,
    _chose,
    _planned,
    _events,
    _gone,
    _uses,
    _copula,
)


_APPOSITIVE_OWNER = re.compile(
    r",\s+(?:now\s+|still\s+)?(?:owned|maintained|led|run|managed)\s+by\s+(?P<p>[^,;.()]+)"
)


def _first_rule(s: _Sentence, cs: int, ce: int, rules: Sequence[Rule]) -> list[_Draft]:
    for rule in rules:
        if rule is _decided and cs != s.start:
            continue
        found = rule(s, cs, ce)
        if found:
            return found + _appositive_owner(s, cs, ce, found[0])
    return []


def _appositive_owner(s: _Sentence, cs: int, ce: int, first: _Draft) -> list[_Draft]:
    """ "The payments service deploys with Jenkins, owned by Priya": who owns the subject."""
    m = _APPOSITIVE_OWNER.search(s.text, cs, ce)
    if m is None or first.predicate == "owner" or first.subject.type in _PEOPLE:
        return []
    owner = s.object(m.start("p"), m.end("p"), entity_slot=True, people=True)
    if owner is None or owner[1] is None:
        return []
    return [_Draft(first.type, first.subject, "owner", owner[0], owner[1], 0.8)]


def _date_at(dates: Sequence[DateMention], *starts: int) -> DateMention | None:
    for d in dates:
        if d.start in starts:
            return d
    return None


def _is_pronoun(text: str) -> bool:
    return text.strip().lower() in _PRONOUN


def _old_value(s: _Sentence, m: re.Match[str], group: str) -> str | None:
    if m.groupdict().get(group) is None:
        return None
    found = s.object(m.start(group), m.end(group), entity_slot=True)
    return found[0] if found else None


# --- labels and tables -------------------------------------------------------------------

_LEAD_IN = re.compile(
    r"[\s,]*(?:(?:now|currently|still|planned|scheduled|set|expected|due|targeted|moved|"
    r"pushed|slipped|fixed|confirmed|tentatively)\s+)*(?:(?:for|to|on|by|in|at|before)\s+)?"
    r"(?:the\s+)?(?:(?:week|end|start|beginning|middle)\s+of\s+)?",
    re.IGNORECASE,
)
_GLOSSARY = re.compile(r"glossary|terms|definitions|acronyms|vocabulary|jargon", re.IGNORECASE)
_IMPERATIVE = frozenset(
    "adopt use move migrate switch keep drop stop start ship freeze require deprecate retire "
    "run hold cancel pause hire build buy delay postpone go make add remove rename split "
    "merge standardise standardize limit allow ban enforce publish review rotate replace "
    "consolidate sunset launch release deploy invest pilot trial test track set raise lower "
    "reduce increase cut extend introduce send close open skip default pay charge offer "
    "write document archive delete block require record host store rewrite fund".split()
)
_LABEL_ATTR = re.compile(
    rf"(?P<a0>{ATTRIBUTE_ALTERNATION})$|(?P<x>.*?)\s+(?P<a>{ATTRIBUTE_ALTERNATION})$"
    rf"|(?P<a2>{ATTRIBUTE_ALTERNATION})\s+(?:of|for)\s+(?P<x2>.+)$",
    re.IGNORECASE,
)
_LABEL_SPLIT = re.compile(r"\**(?P<label>[^:]{1,50}?)\**:\s+(?P<v>.+)", re.DOTALL)
_ACRONYM = re.compile(r"[A-Z][A-Z0-9&]{1,7}s?")


def _label(s: _Sentence) -> list[_Draft]:
    m = _LABEL_SPLIT.match(s.text, s.start, s.end)
    if not m:
        return _sentence_rules(s, s.start, s.end)
    label = m.group("label").strip().strip("*_` ")
    key = label.lower()
    vs, ve = m.start("v"), m.end("v")
    value = s.text[vs:ve].strip()
    if key in _DECISION_LABELS:
        return _decision_of(s, vs, ve, 0.85)
    if key in _UNDECIDED_LABELS or _HEDGE.search(label):
        return []  # "Proposal: move the docs to Docusaurus" states nothing yet
    ls = m.start("label") + m.group("label").index(label)
    le = ls + len(label)
    titled = s.entity_at(ls, le)
    if titled is not None and titled.type == "code":
        # "ADR-011: Session state lives in Redis.": a record's title, then what it says.
        said = _sentence_rules(s, vs, ve)
        if said:
            return said
    first_word = value.split()[0].lower().strip(",.'") if value.split() else ""
    if (
        key in _SKIP_LABELS
        or _SPEAKER.fullmatch(label) is not None
        or len(value.split()) > 14
        or first_word in _PRONOUN
        or first_word in ("let's", "lets", "i'm", "we're", "i'll", "we'll")
        or _OPENER.match(value) is not None
        or states_nothing(value)
    ):
        # Chat ("Priya: I think ...") or a note: read the value as a sentence of its own.
        return _sentence_rules(s, vs, ve)
    if _ACRONYM.fullmatch(label) and _spells(label, value):
        subject = s.subject(ls, le)
        meaning = s.object(vs, ve)
        if subject is None or meaning is None:
            return []
        return [_Draft("fact", subject, "means", meaning[0], meaning[1], 0.85)]
    attr = _LABEL_ATTR.match(s.text, ls, le)
    if attr:
        a, x = next((a, x) for a, x in (("a0", "x"), ("a", "x"), ("a2", "x2")) if attr.group(a))
        predicate = attribute_predicate(attr.group(a)) or snake(attr.group(a))
        if attr.group(x) or predicate in RELATIONAL:
            xs, xe = (attr.start(x), attr.end(x)) if attr.group(x) else (ls, ls)
            if not attr.group(x) and s.context is None:
                return []
            return _about(s, xs, xe, predicate, vs, ve, 0.85)
    said = _sentence_rules(s, vs, ve)
    if said:
        return said  # "Per the retro: builds now run on Buildkite.": a clause of its own
    subject = s.subject(ls, le)
    if subject is None:
        return []
    first = _strip_span(s.text, vs, ve, determiners=False)[0]
    date = _date_at(s.dates, first)
    if date is not None:
        predicate = "schedule" if date.weekday else "date"
        return [_Draft("fact", subject, predicate, s.text[date.start : date.end], None, 0.8)]
    # "Database: CockroachDB" names a thing; "title: Northwind Engineering Handbook" is a
    # phrase that only starts with one.
    found = s.object(vs, ve)
    if found is None:
        return []
    predicate = "means" if s.context is not None and _GLOSSARY.search(s.context.value) else "is"
    return [_Draft("fact", subject, predicate, found[0], found[1], 0.7)]


def _spells(acronym: str, value: str) -> bool:
    letters = acronym.rstrip("s").replace("&", "").lower()
    words = [w for w in re.findall(r"[A-Za-z]+", value) if w.lower() not in ("of", "and", "the")]
    return len(words) >= len(letters) and "".join(w[0].lower() for w in words).startswith(letters)


def _cells(text: str, unit: Unit) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    pos = unit.start
    line = text[unit.start : unit.end]
    for part in line.split("|"):
        start, end = _strip_span(text, pos, pos + len(part), determiners=False)
        spans.append((start, end))
        pos += len(part) + 1
    if line.startswith("|"):
        spans = spans[1:]
    if line.endswith("|"):
        spans = spans[:-1]
    return spans


def _row(s: _Sentence, unit: Unit, header: list[str] | None) -> list[_Draft]:
    cells = _cells(s.text, unit)
    if len(cells) < 2 or cells[0][0] >= cells[0][1]:
        return []
    subject = s.subject(*cells[0])
    if subject is None:
        return []
    drafts: list[_Draft] = []
    for i, (start, end) in enumerate(cells[1:], start=1):
        if start >= end:
            continue
        if header is not None and i < len(header):
            predicate = attribute_predicate(header[i]) or snake(header[i])
        elif header is None and len(cells) == 2:
            predicate = "is"
        else:
            continue
        value = _value(s, start, end, entity_slot=True, people=predicate in ("owner", "contact"))
        if value is not None:
            drafts.append(_Draft("fact", subject, predicate, value[0], value[1], 0.75))
    return drafts


# --- one sentence, one text --------------------------------------------------------------


def _sentence_rules(s: _Sentence, start: int, end: int) -> list[_Draft]:
    if states_nothing(s.text[start:end]):
        return []
    drafts: list[_Draft] = []
    cursor = start
    # Clauses split at ";" and at ", and"/" and" before a new subject with a verb of its own.
    for clause in re.split(r";\s+|,?\s+and\s+(?=[A-Z@])|,\s+while\s+", s.text[start:end]):
        idx = s.text.index(clause, cursor)
        cursor = idx + len(clause)
        cs, ce = _strip_span(s.text, idx, cursor, determiners=False)
        opener = _OPENER.match(s.text, cs, ce)
        cs = opener.end() if opener else cs
        dated = _DATED_OPENER.match(s.text, cs, ce)
        cs = dated.end() if dated else cs
        if cs >= ce:
            continue
        no_longer = _NO_LONGER.search(s.text, cs, ce)
        if no_longer is not None:
            # "Billing no longer runs on MySQL": says what stopped, not what holds now.
            s.antecedent = s.subject(cs, no_longer.start()) or s.antecedent
            continue
        if _NEGATION.search(s.text, cs, ce):
            drafts += _prefers(s, cs, ce)
            continue
        found = _first_rule(s, cs, ce, _RULES)
        if found:
            s.antecedent = found[0].subject
        drafts += found
    return drafts


def _heading_subject(text: str, unit: Unit, entities: Sequence[Found]) -> Found | None:
    for e in entities:
        if unit.start <= e.start and e.end <= unit.end and e.type == "code":
            return e
    start, end = _strip_span(text, unit.start, unit.end)
    title = text[start:end]
    if not title or len(title.split()) > 8:
        return None
    return Found("topic", title, start, end)


def merge_entities(entities: Sequence[Found], claims: Sequence[Claim]) -> tuple[Found, ...]:
    """The mentions, plus the subjects and object entities claims introduced."""
    seen = {(e.type, e.start, e.end) for e in entities}
    merged = list(entities)
    for claim in claims:
        for found in (claim.subject, claim.object_entity):
            if found is not None and (found.type, found.start, found.end) not in seen:
                seen.add((found.type, found.start, found.end))
                merged.append(found)
    merged.sort(key=lambda f: (f.start, f.end, f.type))
    return tuple(merged)


class PatternExtractor:
    """Rules only: entities by shape, word list and ``known``; statements by sentence."""

    def extract(self, text: str, *, known: Sequence[tuple[str, str]] = ()) -> Extraction:
        entities = find_entities(text, known)
        units = split_units(text)
        claims: list[Claim] = []
        context: Found | None = None
        header: list[str] | None = None
        for i, unit in enumerate(units):
            if unit.kind == "heading":
                context = _heading_subject(text, unit, entities)
                header = None
                continue
            s = _Sentence(text, unit, entities, context)
            if unit.kind == "row":
                line = text[unit.start : unit.end]
                if re.fullmatch(r"[\s|:-]+", line):
                    continue
                following = units[i + 1] if i + 1 < len(units) else None
                is_header = (
                    following is not None
                    and following.kind == "row"
                    and bool(re.fullmatch(r"[\s|:-]+", text[following.start : following.end]))
                )
                if is_header:
                    header = [text[a:b] for a, b in _cells(text, unit)]
                    continue
                drafts = _row(s, unit, header)
            else:
                header = None
                drafts = (
                    _label(s) if unit.kind == "label" else _sentence_rules(s, unit.start, unit.end)
                )
            claims += _finish(s, drafts)
            entities += [e for e in s.extra if e not in entities]
            if i == 0 and unit.kind == "label":
                context = title_code(text, units, entities)  # "ADR-011: ..." titles it
        claims += document_links(text, units, entities)
        return Extraction(merge_entities(entities, claims), tuple(_retiring(text, claims)))


def _finish(s: _Sentence, drafts: Sequence[_Draft]) -> list[Claim]:
    sentence = s.text[s.start : s.end]
    dated = [d.value for d in s.dates if d.value is not None]
    instead = _INSTEAD.search(sentence) or _NO_LONGER.search(sentence)
    change = CHANGE.search(sentence) is not None and ADDITIVE.search(sentence) is None
    claims: list[Claim] = []
    seen: set[tuple[str, str, str]] = set()
    for d in drafts:
        key = (d.subject.value.lower(), d.predicate, d.object.lower())
        if key in seen or not d.object.strip():
            continue
        seen.add(key)
        replaces = d.replaces
        if replaces is None and instead is not None:
            old = (instead.group("old") or instead.group("not") or "").strip()
            replaces = _strip_old(old) or None
        claims.append(
            Claim(
                type=d.type,
                subject=d.subject,
                predicate=d.predicate,
                object=d.object,
                object_entity=d.object_entity,
                start=s.start,
                end=s.end,
                valid_from=dated[0] if dated else None,
                replaces=replaces if replaces and replaces.lower() != d.object.lower() else None,
                tier="pattern",
                confidence=d.confidence,
                change=change,
            )
        )
    return claims


def _retiring(text: str, claims: list[Claim]) -> list[Claim]:
    """A text that retires one thing ("Jenkins is retired. Checkout deploys with GitHub
    Actions now.") says its other uses/is/moves-to claims replace it."""
    gone = {
        _strip_old(m.group("x")).casefold(): _strip_old(m.group("x"))
        for m in _RETIRED.finditer(text)
    }
    if len(gone) != 1:
        return claims
    [(key, name)] = gone.items()
    return [
        replace(c, replaces=name)
        if c.predicate in REPLACEABLE
        and c.replaces is None
        and key not in (c.object.casefold(), c.subject.value.casefold())
        else c
        for c in claims
    ]


def _strip_old(old: str) -> str:
    old = _TRAILING_WHEN.sub("", old)
    old = _DET.sub("", old, count=1) if _DET.match(old) else old
    return old.strip(" .`'\"")
