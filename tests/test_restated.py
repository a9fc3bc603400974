"""A value restated as a change (``derive/restated.py``, ``extraction/values.py``): the
reading of values and names, then real brains (real SQLite, real embedder, the default
extractor) in which a newer note restates an older one's value, or does not."""

from __future__ import annotations

import pytest

from orgbrain import Brain
from orgbrain.extraction.cues import change_cue, titled_change
from orgbrain.extraction.named import gone_name, names_in, toward
from orgbrain.extraction.qualifiers import qualifiers
from orgbrain.extraction.states import statuses_in
from orgbrain.extraction.values import marked_old, values_in
from orgbrain.ports import Embedder
from tests.restating import NOV, OCT, SEP, derived, values


@pytest.fixture
def brain(memory_brain: Brain) -> Brain:
    """A rule's decision needs no file: the brain is held in memory (tests/conftest.py)."""
    return memory_brain


def _read(text: str) -> list[tuple[str, str, str, str]]:
    return [(v.kind, v.unit, v.key, text[v.start : v.end]) for v in values_in(text)]


# -- reading values --------------------------------------------------------------------------


def test_values_by_kind_with_the_noun_a_count_counts() -> None:
    assert _read("Any single purchase above $500 needs approval.") == [
        ("money", "", "$500", "$500")
    ]
    assert _read("The public API allows 600 requests per minute.") == [
        ("quantity", "request", "600", "600 requests")
    ]
    assert _read("Retention: 14 days.") == [("quantity", "day", "14", "14 days")]
    assert _read("needs two approving reviews") == [
        ("quantity", "approving review", "2", "two approving reviews")
    ]
    assert _read("within 4 business hours, Mondays") == [
        ("quantity", "business hour", "4", "4 business hours"),
        ("weekday", "", "mon", "Mondays"),
    ]
    assert _read("Q4 code freeze is Friday Dec 11.") == [("date", "", "12-11", "Dec 11")]
    assert _read("standup at 9:45, 20% off, a €3k budget, $1,000 or $1000") == [
        ("time", "", "9:45", "9:45"),
        ("percent", "", "20", "20%"),
        ("money", "", "€3000", "€3k"),
        ("money", "", "$1000", "$1,000"),
        ("money", "", "$1000", "$1000"),
    ]


def test_links_addresses_and_phone_numbers_are_values() -> None:
    assert _read("Map viewer: http://maps.acme.internal/gis (read-only).") == [
        ("link", "", "maps.acme.internal/gis", "http://maps.acme.internal/gis")
    ]
    assert _read("the old status.acme.io page, or write to ops@acme.example") == [
        ("link", "", "status.acme.io", "status.acme.io"),
        ("email", "", "ops@acme.example", "ops@acme.example"),
    ]
    assert _read("Call the after-hours hotline on 1800 555 0147.") == [
        ("phone", "", "18005550147", "1800 555 0147")
    ]
    assert _read("ring +44 20 7946 0958") == [("phone", "", "442079460958", "+44 20 7946 0958")]
    # digits in groups that nothing dials are numbers; a long number is one number
    assert [r[2] for r in _read("rooms 101 102 103 104")] == ["101", "102", "103", "104"]
    assert _read("Budget raised to 25000") == [("number", "", "25000", "25000")]
    assert _read("rose to 12000 USD") == [("money", "", "12000", "12000 USD")]


def test_an_amount_after_its_currency_code_is_money_and_the_code_no_name() -> None:
    assert _read("Mileage: CHF 0.70 / km, a EUR45k cap") == [
        ("money", "", "0.7", "CHF 0.70"),
        ("money", "", "45000", "EUR45k"),
    ]
    assert names_in("Per diem: EUR 45 / day, USD 50 abroad") == []


def test_a_things_state_by_its_kind() -> None:
    def read(text: str) -> list[tuple[str, str]]:
        return [(v.key, text[v.start : v.end]) for v in statuses_in(text)]

    assert read("- status: green") == [("on track", "green")]
    assert read("RAG: 🟡 amber") == [("at risk", "🟡")]
    assert read("Heron is on hold until the audit.") == [("on hold", "on hold")]
    assert read("KR2 Heron: PAUSED until Q1") == [("on hold", "PAUSED")]
    assert read("State: Beta (staff only)") == [("beta", "Beta")]
    assert read("offline mode is live for all customers") == [("live", "live")]
    assert read("Weekly status: Heron: 🟢 on track") == [("on track", "🟢")]
    assert read("Status: Done") == [("live", "Done")]
    # colours, "done" and "live" only as states; a state's words describing a noun
    assert read("we live in Lisbon; press the red button when done") == []
    assert read("people who now live in Porto") == []
    assert read("Heron offsite cancelled; customers at risk of churn; the beta testers") == []
    assert read("leadership has put Heron on hold") == [("on hold", "on hold")]
    # a scheme's or a queue's state, not its hours
    assert read("Applications are CLOSED from today") == [("closed", "CLOSED")]
    assert read("the fund is open for applications again") == [("open", "open")]
    assert read("The office is closed on Sundays; reception is open 8-6") == []
    assert read("the open beta starts Monday; we open a new office") == []


def test_codes_versions_years_and_phrases_are_not_values() -> None:
    assert _read("ADR-014, v5.8, KR1 and Q4 in 2026; no one of us; any single thing") == []


def test_a_change_is_stated_not_asked_hedged_or_temporary() -> None:
    assert change_cue("the per-file limit is now 100 MB")
    assert change_cue("retention raised to 35 days (was 14)")
    assert not change_cue("The limit is 100 MB.")
    assert not change_cue("Should we raise the limit to 100 MB now?")
    assert not change_cue("We might raise the limit to 100 MB now.")
    assert not change_cue("This week only, the limit is raised to 100 MB.")
    assert not change_cue("Rounds run a day later than usual because of the bank holiday.")


@pytest.mark.parametrize(
    "text",
    [
        "Backup retention drops to 14 days.",
        "We are trimming the design crit to 45 minutes.",
        "The on-call stipend is capped at $400 a week.",
        "Priya takes over the supplier contracts.",
        "The wiki is retired; docs live in Notion.",
        "From next week the standup is at 9:30.",
        "From 1 March the mileage rate is 0.30 per km.",
        "So from the 12th our chilled overflow is at Culina Deeside.",
        "Reviews close on Friday from the spring cycle on.",
        "The v3 launch slips to 12 May.",
        "KPI Definitions v3 (supersedes v2): notice is 72 hours.",
        "Payslips will be in the Deel app from then on.",
    ],
)
def test_a_change_said_by_a_verb_of_size_or_hand_over_or_when_it_takes_effect(
    text: str,
) -> None:
    assert change_cue(text)


@pytest.mark.parametrize(
    "text",
    [
        "Drop a note in #help-it if the printer jams.",
        "Get sign-off from your manager on Slack.",
        "Park by the side gate to shorten the walk.",
        "From 1 January we plan to move the pension to Swiss Life.",
        "We are considering a switch to Pleo from next month.",
        "The standup is at 9:30 on Mondays.",
    ],
)
def test_words_that_only_look_like_a_change(text: str) -> None:
    assert not change_cue(text)


@pytest.mark.parametrize(
    "text",
    [
        "Please double-check the config.",
        "I got feedback from the team we depend on.",
        "Approvals fall to the finance lead.",
        "Open a merge request for it.",
    ],
)
def test_idioms_that_only_look_like_a_change(text: str) -> None:
    assert not change_cue(text)


def test_a_heading_that_states_a_change_cues_the_lines_below_it() -> None:
    assert titled_change("Updated travel rules (effective 1 May)")
    assert titled_change("Parking policy v2 - revised")
    assert not titled_change("Launch notes: new Starter plan")
    assert not titled_change("Merge request guidelines")
    assert not titled_change("Handover notes")
    assert not titled_change("Weekly update")
    assert not titled_change("Travel rules")
    assert change_cue("| over €2,000 | your manager |", heading=True)
    assert not change_cue("| over €2,000 | your manager |")
    assert not change_cue("Is it over €2,000?", heading=True)


def test_a_contraction_that_opens_a_sentence_is_no_name() -> None:
    text = "We've relaxed the rule. I'm told it\u2019s fine. Let\u2019s ask Priya."
    assert [text[v.start : v.end] for v in names_in(text)] == ["Priya"]


def test_the_value_named_as_the_one_before() -> None:
    text = "per-key rate limit raised from 600 to 1,200 requests/minute"
    six, twelve = values_in(text)
    assert marked_old(text, six) and not marked_old(text, twelve)
    text = "Backup retention raised to 35 days (was 14)."
    new, was = values_in(text)
    assert marked_old(text, was) and not marked_old(text, new)


def test_qualifiers_by_family() -> None:
    assert qualifiers("lowered max_connections on the STAGING Postgres") == {
        "environment": frozenset({"staging"})
    }
    assert qualifiers("Postgres config (prod), EU region") == {
        "environment": frozenset({"production"}),
        "region": frozenset({"EU"}),
    }
    assert qualifiers("tell us about it") == {}  # "us" is not the US


def test_names_gone_and_names_pointed_at() -> None:
    text = "As of Monday, Ines and her team now report to Marcus Lee rather than Ana."
    found = {text[v.start : v.end]: v for v in names_in(text)}
    assert set(found) == {"Ines", "Marcus Lee", "Ana"}
    assert gone_name(text, found["Ana"]) and not gone_name(text, found["Marcus Lee"])
    assert toward(text, found["Marcus Lee"]) and not toward(text, found["Ines"])
    text = "#help-it has been renamed to #it-desk."
    old, new = names_in(text)
    assert gone_name(text, old) and toward(text, new)
    text = "From Monday permits get signed off by Lauren Hicks, not Ravi."
    found = {text[v.start : v.end]: v for v in names_in(text)}
    assert gone_name(text, found["Ravi"]) and toward(text, found["Lauren Hicks"])
    text = "Send invoice queries to Finance, not HR."  # no change stated: where it goes
    found = {text[v.start : v.end]: v for v in names_in(text)}
    assert not gone_name(text, found["HR"])
    text = "Inductions moved from Cabin 3 to the new Training Room. Datatank have been stood down."
    found = {text[v.start : v.end]: v for v in names_in(text)}
    assert toward(text, found["Training Room"]) and gone_name(text, found["Datatank"])
    text = "The paper HR-07s are gone: submit hours via the Clockwise app."
    found = {text[v.start : v.end]: v for v in names_in(text)}
    assert found["HR-07s"].key == "hr-07" and gone_name(text, found["HR-07s"])
    assert toward(text, found["Clockwise"])
    text = "Requests still go via the AC1 form, Mon-Fri."
    found = {text[v.start : v.end]: v for v in names_in(text)}
    assert set(found) == {"AC1"} and not toward(text, found["AC1"])
    text = "Store it in LastPass."
    assert [text[v.start : v.end] for v in names_in(text)] == ["LastPass"]
    text = "From Monday Tomasz Wójcik takes over the gateway; Ines Duarte stays as backup."
    found = {text[v.start : v.end]: v for v in names_in(text)}
    assert toward(text, found["Tomasz Wójcik"]) and not toward(text, found["Ines Duarte"])


# -- on a brain ------------------------------------------------------------------------------


OLD_LIMIT = (
    "Finance Handbook > Spending\n"
    "Any single purchase above $500 needs written approval from your budget owner.\n"
)
NEW_LIMIT = (
    "Subject: Update to purchase approvals\n"
    "Hi all, the pre-approval limit is going up: you now only need budget-owner sign-off "
    "for single purchases over $1,000. Thanks, Dana"
)


@pytest.mark.parametrize("newer_first", [False, True])
def test_a_restated_amount_replaces_the_older_one_in_either_order(
    brain: Brain, newer_first: bool
) -> None:
    notes = [(OLD_LIMIT, SEP), (NEW_LIMIT, NOV)]
    ids = derived(brain, *(reversed(notes) if newer_first else notes))
    old, new = reversed(ids) if newer_first else ids
    [was], [now] = values(brain, old), values(brain, new)
    assert (was.predicate, was.object, now.object) == ("value", "$500", "$1,000")
    assert was.superseded_by == now.id and now.current
    assert was.text.endswith(
        "Any single purchase above $500 needs written approval from your budget owner."
    )
    assert brain.get(old).superseded_by == new  # it said nothing else
    hits = brain.search("how much can I spend without my budget owner signing off?").hits
    assert hits[0].item.id == new
    assert [(r.old, r.new) for r in hits[0].replaces] == [("$500", "$1,000")]


def test_a_value_restated_twice_is_one_chain(brain: Brain) -> None:
    a, b, c = derived(
        brain,
        ("Runbook: Postgres backups\n- Retention: 14 days.", SEP),
        ("Postmortem PM-88\n- [done] Postgres backup retention raised to 35 days (was 14).", OCT),
        ("[#sre] the Postgres backup retention is now 60 days.", NOV),
    )
    [first], [second], [third] = (values(brain, i) for i in (a, b, c))
    assert first.subject_id == second.subject_id == third.subject_id
    assert (first.superseded_by, second.superseded_by, third.current) == (
        second.id,
        third.id,
        True,
    )


def test_a_renamed_channel_and_a_named_successor(brain: Brain) -> None:
    a, b = derived(
        brain,
        ("First week checklist:\n1. Need help with hardware? Post in #help-it.", SEP),
        ("[#general] admin-bot: #help-it has been renamed to #it-desk.", OCT),
    )
    [was], [now] = values(brain, a), values(brain, b)
    assert (was.object, now.object, was.superseded_by) == ("#help-it", "#it-desk", now.id)


@pytest.mark.parametrize(
    ("older", "newer", "was", "now"),
    [
        (  # the new name in the sentence beside the one that says the old is gone
            "To open the staging dashboards, sign in through Okta.",
            "[#it] heads up: dashboard sign-in is now Authentik. Okta gets switched off Friday.",
            "Okta",
            "Authentik",
        ),
        (  # a person who moved on, a name that starts its sentence
            "Q: who signs off vendor contracts?\nA: Priya Raman, legal ops.",
            "Priya has moved over to the EU entity, so vendor contract sign-off now goes to Tomas.",
            "Priya Raman",
            "Tomas",
        ),
        (
            "Weekly sync notes: the design crit is run by Noor.",
            "From next week the design crit is run by Omar rather than Noor.",
            "Noor",
            "Omar",
        ),
        (  # ", not" the old holder, in a sentence that states a change
            "Northgate Quarter - Permit to Dig\nIssued by: Site Engineer (Ravi Patel) after "
            "the CAT scan.",
            "#northgate\ngary.d: from monday permits to dig at Northgate get signed off by "
            "Lauren Hicks (TWC), not Ravi - he's moved to Riverside.",
            "Ravi Patel",
            "Lauren Hicks",
        ),
        (  # a form no longer accepted, its successor in the sentence beside
            "HR FAQ\nQ: How do I book annual leave?\nA: Complete form AL1 and send it to HR Admin.",
            "From Monday 9 March annual leave requests must be submitted in iTrent Employee "
            "Self Service. Paper AL1 forms will no longer be accepted.",
            "AL1",
            "Employee Self Service",
        ),
        (  # moved "to the new" room, in a weekly bulletin of the same site
            "Eastfield Depot Inductions\nInductions Mon & Wed 07:30, Cabin 3 (next to the "
            "gatehouse).",
            "Eastfield Weekly Bulletin - wk13\n- Inductions moved from Cabin 3 to the new "
            "Training Room in compound B (first floor). Same times.",
            "Cabin",
            "Training Room",
        ),
        (  # the clause after the one that retires it, in the same sentence, points at it
            "Licensed premises inspections - SOP\n1. Pull due inspections from the "
            "Inspections Tracker (Excel, Licensing > Compliance)\n2. Risk-rate A-E",
            "Subject: Inspections going into Uniform\n\nHi team, as of 1 April the Excel "
            "tracker is retired - all premises inspections are scheduled and recorded in "
            "the Uniform Licensing module (Inspections tab).",
            "Excel",
            "Uniform Licensing",
        ),
        (  # a form's code in the plural, the tool gone "through" in the clause after
            "SOP HR-04 Timesheets - Site Staff\n1. Complete paper timesheet (form HR-07) "
            "daily.\n2. Supervisor checks and signs Friday.",
            "#all-sites\npayroll.jo: reminder the paper HR-07s are gone from this week - all "
            "hours go in through the Clockwise app on your phone.",
            "HR-07",
            "Clockwise",
        ),
    ],
)
def test_a_name_said_to_be_gone(brain: Brain, older: str, newer: str, was: str, now: str) -> None:
    """Read as a value, or by the typed rules where they read both sentences ("design
    crit | owner | Noor"): either way the older name ends, replaced by the newer."""
    a, b = derived(brain, (older, SEP), (newer, NOV))
    new = {s.id: s for s in brain.statements(item_id=b, current=None)}
    ended = [s for s in brain.statements(item_id=a, current=None) if s.superseded_by in new]
    assert ended and all(was in s.object for s in ended)
    assert {new[s.superseded_by or ""].object for s in ended} == {now}


@pytest.mark.parametrize(
    ("older", "newer", "was", "now"),
    [
        (  # the old name not said again: the new one is pointed at, the topic shared
            "Engineering handbook > Observability\nWe use Sentry for error tracking.",
            "OPS-1422 Migrate error tracking to Rollbar\nStatus: Done",
            "Sentry",
            "Rollbar",
        ),
    ],
)
def test_a_name_replaced_by_one_pointed_at(
    brain: Brain, older: str, newer: str, was: str, now: str
) -> None:
    a, b = derived(brain, (older, SEP), (newer, NOV))
    [old] = values(brain, a)
    [new] = values(brain, b)
    assert (old.object, new.object, old.superseded_by) == (was, now, new.id)


@pytest.mark.parametrize(
    ("older", "newer", "was", "now"),
    [
        (  # a person who joined as the holder, written with the first name
            "Trees & Conservation - contacts\nTPO applications & tree works in conservation "
            "areas: Tom Greaves (tree officer) ext 5120",
            "Subject: Tree works apps\n\nHi all, Tom left us on Friday. Priya Sandhu joined "
            "as Arboricultural Officer this week and is picking up all TPO and conservation "
            "area tree notices, ext 5127.",
            "Tom Greaves",
            "Priya Sandhu",
        ),
        (  # the older card's line has a label for a subject; its title is the newer's
            "Out of hours repairs\nCalls 5pm-8am & weekends: Kingsway Response Ltd, 0800 123 "
            "4567 (tenant line)",
            "Housing Staff News - May\n* Apex Property Services took over the out-of-hours "
            "repairs line on 1 May (same 0800 number for tenants) - any OOH job queries to "
            "their coordinator desk",
            "Kingsway Response Ltd",
            "Property Services",
        ),
        (  # the one handed the thing, not a name the sentence points at besides
            "Escalation path (Support)\n3. T2 escalation queue owner: Marco Bianchi (Support Ops).",
            "Subject: Team changes - Support Ops\nHi all, Marco is moving across to CS Ops. "
            "Aisha Raman is looking after the T2 escalation queue from today, including the "
            "call on when to loop in Eng.",
            "Marco Bianchi",
            "Aisha Raman",
        ),
    ],
)
def test_a_holder_handed_on(brain: Brain, older: str, newer: str, was: str, now: str) -> None:
    a, b = derived(brain, (older, SEP), (newer, NOV))
    new = {s.id: s for s in brain.statements(item_id=b, current=None)}
    ended = [s for s in brain.statements(item_id=a, current=None) if s.superseded_by in new]
    assert ended and all(s.object == was for s in ended)
    assert {new[s.superseded_by or ""].object for s in ended} == {now}


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # an addition; the older name still said; a name marked as the one before
        ("We use Sentry for error tracking.", "We now also send error tracking to Rollbar."),
        (
            "Feature specs are written in Notion.",
            "Going forward, specs are written in Notion and reviewed in Figma.",
        ),
        (
            "The marketing site is built with Gatsby.",
            "Reminder: the marketing site used to be built with WordPress.",
        ),
        # a name the newer says is "still" the one, beside a verb that looks like a change
        (
            "Waste & Recycling - collection days\nRounds run Mon-Fri, 6:30am start.\nNo "
            "routine collections on Saturdays.",
            "#waste-cs\nkerry.h: assisted collection requests still via the AC1 form, crews "
            "update the round sheet",
        ),
        # a name said in another sentence, with no change word, is not the successor
        (
            "Inspections\nPull due inspections from the Excel tracker.",
            "The Excel tracker is retired. Premises visits are written up in Uniform.",
        ),
        # the typed rules read two subjects ("Retros", "design retros")
        ("Retros are run in Miro.", "Going forward, design retros are run in FigJam."),
        # a record not in force changes nothing
        (
            "ADR-7: Public API style\nStatus: Accepted\nDecision: the public API is REST.",
            "ADR-29: Replace the public REST API with GraphQL\nStatus: Rejected",
        ),
    ],
)
def test_what_is_not_a_name_replaced(brain: Brain, older: str, newer: str) -> None:
    a, _ = derived(brain, (older, SEP), (newer, NOV))
    assert brain.get(a).superseded_by is None
    assert all(s.current for s in brain.statements(item_id=a, current=None))


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # another setting of the same thing
        (
            "Postgres config (production)\nmax_connections = 500, shared_buffers = 16GB.",
            "[#sre] lowered max_connections on the STAGING Postgres from 500 to 100.",
        ),
        # a temporary exception, a hedge, a question, an idea
        (
            "The travel cap is $500 per night.",
            "This week only, the travel cap is raised to $800 per night.",
        ),
        ("The travel cap is $500 per night.", "We might raise the travel cap to $800 now."),
        # a shift from the norm leaves the norm standing
        (
            "Waste & Recycling - collection days\nRounds run Mon-Fri, 6:30am start. Bins "
            "out by 7am on collection day.",
            "Staff Bulletin - Easter\nBin collections in the week of 6 April run one day "
            "later than normal (Mon rounds on Tue ... Fri rounds on Sat 11 April) because "
            "of Easter Monday. Normal days resume from 13 April.",
        ),
        ("The travel cap is $500 per night.", "Should the travel cap now be $800 per night?"),
        ("The billing alerts go to PagerDuty.", "Idea: move the billing alerts to Opsgenie."),
        # a plan, though each sentence's label reads as a statement of a name
        (
            "Pension (Netherlands): the company pension is through Aegon, with a 10% top-up.",
            "Heads up: from 1 January we plan to move the Dutch company pension to NN Group. "
            "Nothing changes for you this year.",
        ),
        (
            "Courier runs: collect the cool boxes from the lab fridge at Quarry Depot.",
            "Team notes\n- Idea raised: move the lab fridge to Elm Street to shorten courier "
            "runs. Parked.",
        ),
        # the same value again; another noun counted; nothing said to change
        ("Uploads are limited to 25 MB.", "Reminder: uploads are now limited to 25 MB."),
        (
            "The public API allows 600 requests per minute.",
            "The public API now allows 50 concurrent connections.",
        ),
        ("The travel cap is $500 per night.", "The meal cap is $80 per day."),
        # a tool another subject stops using ("statements.py" decides: another subject)
        (
            "The data team uses Airflow for the nightly reports.",
            "We moved billing exports from Airflow to Dagster.",
        ),
        ("We are on Jira.", "We are not moving from Jira to Linear."),
    ],
)
def test_what_is_not_a_restatement(brain: Brain, older: str, newer: str) -> None:
    a, b = derived(brain, (older, SEP), (newer, NOV))
    assert brain.get(a).superseded_by is None
    assert all(s.current for s in brain.statements(item_id=a, current=None))
    assert not values(brain, b)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # a size set anew by a verb, and a date it takes effect
        (
            "Observability standards\n- Traces are kept 14 days in Tempo, then dropped.",
            "Platform update\n- To save storage, trace retention in Tempo drops to 7 days "
            "from 1 Dec.",
        ),
        # a link and a phone number, changed
        (
            "Pipe network map viewer: http://maps.acme.internal/gis (use your login).",
            "The pipe network map is now on https://gis.acme.local/portal, same login.",
        ),
        (
            "Contractors: for faults out of hours call the operations hotline on 1800 555 0147.",
            "OPS-77 done: the out of hours operations hotline is now 1800 555 0192.",
        ),
        # the same rule issued again but for its value, with no change word
        (
            "Staff handbook - Leave: annual leave requests must be submitted in ESS at least "
            "10 working days before the first day of leave.",
            "Staff handbook - Leave: annual leave requests must be submitted in ESS at least "
            "15 working days before the first day of leave, so rosters can be covered.",
        ),
        # a card's line about what its title names ("GA target" of "Billing v3")
        (
            "Billing v3 - project brief\nGoal: usage-based invoicing\nGA target: October 15",
            "standup notes\n- amara: billing v3 GA slips to Nov 12, the tax engine is late",
        ),
        # an FAQ's answer, about what its question asks
        (
            "Lab FAQ\nQ: Who do I contact about custody forms for samples?\nA: Tom Hale, Lab "
            "Coordinator, ext 4471.",
            "Today is my last day. From Monday send custody forms for samples to Mercy Adebayo "
            "(ext 4478).",
        ),
        # a line under a heading that states the change (without it, two settings)
        (
            "Travel rules\nHotels can be booked up to €150 a night in every city.",
            "Updated travel rules (effective 1 November)\nHotels can be booked up to €180 a "
            "night in every city.",
        ),
    ],
)
def test_a_change_said_by_its_verb_or_its_heading(brain: Brain, older: str, newer: str) -> None:
    a, b = derived(brain, (older, SEP), (newer, NOV))
    [was], [now] = values(brain, a), values(brain, b)
    assert was.superseded_by == now.id and now.current


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        (
            "Project Heron kickoff\n- team: 4 engineers\n- status: green",
            "Portfolio review: Heron is on hold until further notice, the team moves to the "
            "billing push.",
        ),
        # a state widens whom it reaches as it rolls out
        (
            "Linear MOB-77 Offline mode\nState: Beta (staff only)",
            "[#releases] kim: offline mode is live for all customers!",
        ),
        # a scheme closes, then opens again
        (
            "Subject: Hardship Fund - closed\n\nHardship Fund applications are closed from"
            " today; please signpost to the food bank.",
            "#benefits-team\ncarla.m: Hardship Fund applications are open again - new"
            " allocation came through.",
        ),
    ],
)
def test_a_state_said_later_as_another_replaces_it(brain: Brain, older: str, newer: str) -> None:
    a, b = derived(brain, (older, SEP), (newer, NOV))
    [was], [now] = values(brain, a), values(brain, b)
    assert was.superseded_by == now.id and now.current
    assert not [s for s in brain.statements(item_id=a, current=True) if s.predicate == "status"]


def test_an_ended_state_gives_the_graph_no_vote_for_now(brain: Brain) -> None:
    """The older card answers "state" in its own words; its state ended, so the graph
    stream, asked for the current belief, lists the newer one (in history, both)."""
    a, b = derived(
        brain,
        ("Project Heron (warehouse move)\nStatus: In progress - phase 2\nLead: Noor", SEP),
        ("Q3 OKR update - Data\nKR3 Heron: PAUSED until Q1 because of the budget freeze", NOV),
    )
    hits = brain.search("what's the state of Heron at the moment?").hits
    assert [h.item.id for h in hits[:2]] == [b, a]
    assert ("In progress", "PAUSED") in [(r.old, r.new) for r in hits[0].replaces]


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # two plants' notes, one rule each, in the same words
        (
            "Ashby WTP operating note: filters are backwashed every 48 hours at most.",
            "Corley WTP operating note: filters are backwashed every 36 hours at most.",
        ),
        # two projects
        (
            "Project Heron update\nStatus: on track for the June launch.",
            "Project Osprey update\nStatus: at risk, the vendor is late.",
        ),
        # a state denied, on a condition, for a while, or of an event
        ("Heron status: on track.", "To be clear, Heron is not on hold."),
        ("Project Heron kickoff\nStatus: green", "If the vendor slips again, Heron goes on hold."),
        (
            "Project Heron kickoff\nStatus: green",
            "The Heron demo is paused while we fix the projector.",
        ),
        ("Project Heron kickoff\nStatus: green", "Heron offsite cancelled."),
        # one rule each for two groups, in the same words
        (
            "all contractors must complete 2 safety modules before site access.",
            "all visitors must complete 1 safety module before site access.",
        ),
        # a title of a thing, not of a revision
        (
            "Merge request guidelines\nReviews need 2 approvals",
            "Merge request guidelines\nReviews for the docs repo need 1 approval",
        ),
        ("Heron status: on track.", "Next quarter we plan to put Heron on hold."),
    ],
)
def test_what_is_not_a_state_changed(brain: Brain, older: str, newer: str) -> None:
    a, _ = derived(brain, (older, SEP), (newer, NOV))
    assert all(s.current for s in brain.statements(item_id=a, current=None))


def test_a_note_of_one_line_has_no_title_to_leave_its_name_out(brain: Brain) -> None:
    """(Its label reads as "Reminder to all field crews | is | every expense claim ...":
    a whole clause, no typed reading of the name that would settle the pair itself.)"""
    a, b = derived(
        brain,
        ("Reminder to all field crews: every expense claim gets filed in Expensify.", SEP),
        ("From today all expense claims are filed in Pleo.", NOV),
    )
    assert brain.get(a).superseded_by == b


def test_a_chat_lines_channel_is_not_a_name_it_holds(brain: Brain) -> None:
    a, b = derived(
        brain,
        ("[#eng-announce] reminder: all builds run on CircleCI.", SEP),
        ("CI migration done: every build now runs on GitHub Actions.", NOV),
    )
    assert brain.get(a).superseded_by == b


def test_a_heading_that_adds_a_plan_does_not_change_another(brain: Brain) -> None:
    a, _ = derived(
        brain,
        ("Pricing\nPro plan: $40 per user per month.", SEP),
        ("Launch notes: new Lite plan\nLite plan: $15 per user per month.", NOV),
    )
    assert brain.get(a).superseded_by is None
    assert all(s.current for s in brain.statements(item_id=a, current=None))


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        (  # the twins of the first controls above, which do restate
            "Postgres config (production)\nmax_connections = 500, shared_buffers = 16GB.",
            "[#sre] lowered max_connections on the production Postgres from 500 to 100.",
        ),
        ("The travel cap is $500 per night.", "The travel cap is raised to $800 per night."),
        ("The billing alerts go to PagerDuty.", "Billing alerts moved from PagerDuty to Opsgenie."),
    ],
)
def test_the_controls_twins_do_restate(brain: Brain, older: str, newer: str) -> None:
    """(The tool's move is read by the patterns as a typed statement, which replaces the
    older use itself: ``statements.py``.)"""
    a, b = derived(brain, (older, SEP), (newer, NOV))
    now = {s.id for s in brain.statements(item_id=b, current=None)}
    assert brain.get(a).superseded_by == b
    assert all(s.superseded_by in now for s in brain.statements(item_id=a, current=None))


def test_a_superseded_hit_out_of_the_gates_view_lets_its_successor_speak(
    embedder: Embedder,
) -> None:
    # The question shares no word with the notes: the search needs the model's meaning.
    with Brain.in_memory(embedder=embedder) as brain:
        _successor_speaks(brain)


def _successor_speaks(brain: Brain) -> None:
    for body in (
        "The quarterly planning offsite is in the spring.",
        "New hires get their laptop on the first day.",
        "The on-call rotation changes every Monday.",
    ):
        brain.add_note(body)
    _, new = derived(
        brain,
        ("CONTRIBUTING.md\nEvery pull request needs two approving reviews before merge.", SEP),
        ("[#eng-leads] greta: we're dropping to a single approving review for all repos.", NOV),
    )
    result = brain.search("how many approvals do I need before I can merge a PR?")
    assert result.hits and result.hits[0].item.id == new
    assert "supersedes a hit that" in result.reason


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        (
            "Travel policy (US)\nHotel cap: $250 per night\nPer diem: $75",
            "Travel policy (UK)\nHotel cap: £180 per night\nPer diem: £50",
        ),
        (
            "Service: payments-gateway\nOwner: Priya Raman\nTeam: Checkout Platform",
            "Service: payments-ledger\nOwner: Tomasz Wójcik\nTeam: Finance Eng",
        ),
    ],
)
def test_two_settings_are_not_one_changed(brain: Brain, older: str, newer: str) -> None:
    """Two regions' policies, two records' cards: the typed statements' own settling
    (``statements.py``) leaves each current, as the restatements do."""
    a, _ = derived(brain, (older, SEP), (newer, NOV))
    assert brain.get(a).superseded_by is None
    assert all(s.current for s in brain.statements(item_id=a, current=None))


def test_one_line_cards_and_replies_still_change(brain: Brain) -> None:
    a, b, c, d = derived(
        brain,
        ("Payments service owner: Priya.", SEP),
        ("Payments service owner: Marco.", NOV),
        ("Subject: Q4 release calendar\nTeam, the Q4 code freeze is Friday Dec 11.", SEP),
        (
            "Subject: RE: Q4 release calendar\nWe're pulling the code freeze a week earlier, "
            "to Friday Dec 4.",
            NOV,
        ),
    )
    assert brain.get(a).superseded_by == b
    [was], [now] = values(brain, c), values(brain, d)
    assert (was.object, now.object, was.superseded_by) == ("Dec 11", "Dec 4", now.id)


@pytest.mark.parametrize(
    ("newer", "ends"),
    [
        ("The status page moves to Instatus.", True),
        ("We migrated the status page to Instatus.", True),
        ("The status page will move to Instatus in Q3.", False),
        ("The status page is moving to Instatus next quarter.", False),
        ("Roadmap\n- Q2 2027: evaluate moving the status page to Instatus", False),
    ],
)
def test_a_move_done_ends_the_one_use_a_move_ahead_does_not(
    brain: Brain, newer: str, ends: bool
) -> None:
    """(``statements.py``: a ``migration_target`` without "instead of" ends its subject's
    one current ``uses`` when the move is said as done or now, not as a plan.)"""
    a, b = derived(brain, ("The status page is hosted on Statuspage.", SEP), (newer, NOV))
    [use] = brain.statements(item_id=a, current=None)
    assert use.predicate == "uses" and use.current is not ends
    if ends:
        assert brain.get(a).superseded_by == b


def test_a_move_leaves_a_subject_of_several_uses(brain: Brain) -> None:
    a, b = derived(
        brain,
        ("The data team uses Airflow.", SEP),
        ("The data team uses dbt.", SEP),
        ("The data team moves to Dagster.", NOV),
    )[:2]
    for item in (a, b):
        assert all(s.current for s in brain.statements(item_id=item, current=None))


def test_a_record_withdrawn_elsewhere_ends_its_status(brain: Brain) -> None:
    a, b = derived(
        brain,
        ("RFC-31 In-house feature flag service\nStatus: accepted\nOwner: Platform.", SEP),
        ("[#architecture] update: RFC-31 marked Withdrawn, we buy LaunchDarkly instead.", NOV),
    )
    [now] = [s for s in brain.statements(item_id=b) if s.predicate == "status"]
    [was] = [s for s in brain.statements(item_id=a, current=None) if s.predicate == "status"]
    assert (was.object, now.object, was.superseded_by) == ("accepted", "withdrawn", now.id)


@pytest.mark.parametrize("newer_first", [False, True])
def test_a_revised_document_replaces_its_earlier_version(brain: Brain, newer_first: bool) -> None:
    notes = [
        ("Handbook: Hybrid work\nWe're in the office three days a week: Monday and Tuesday.", SEP),
        (
            "Handbook: Hybrid work (updated November 2026)\nTeams come in on Tuesdays and "
            "Thursdays.\nDesk booking via Robin stays mandatory.",
            NOV,
        ),
    ]
    ids = derived(brain, *(reversed(notes) if newer_first else notes))
    old, new = reversed(ids) if newer_first else ids
    assert brain.get(old).superseded_by == new
    assert brain.get(new).superseded_by is None


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # one title, no revision mark: two weeks' notes, not two versions
        ("Weekly status\nAtlas is on track.", "Weekly status\nBilling v2 slipped a week."),
        # a revision mark on another title
        (
            "IT onboarding checklist\nInstall 1Password.",
            "Travel policy (rev. August)\nBook economy.",
        ),
    ],
)
def test_what_is_not_a_revision(brain: Brain, older: str, newer: str) -> None:
    a, _ = derived(brain, (older, SEP), (newer, NOV))
    assert brain.get(a).superseded_by is None


def test_a_role_taken_over_in_one_region_leaves_the_others(brain: Brain) -> None:
    """ "From Monday P takes over as R": the verb after the name outweighs the "From"
    before it; a subject's stopword ("SHE") need not be said; the holder's first name is
    a person's ("Steve"); and "North" and "South" are two regions' settings."""
    north, south, new = derived(
        brain,
        ("North Region - Key Contacts\nRegional SHE Advisor: Steve Pollard (07700 900256)", SEP),
        ("South Region - Key Contacts\nRegional SHE Advisor: Karen Lowe (07700 900533)", SEP),
        (
            "Subject: Moving on\nFrom Monday Nadia Okafor takes over as Regional SHE Advisor "
            "for the North (Leeds and York jobs).",
            NOV,
        ),
    )
    by = {s.id for s in brain.statements(item_id=new, current=None)}
    ended = [s for s in brain.statements(item_id=north, current=None) if s.superseded_by in by]
    assert ended and all(s.object == "Steve Pollard" for s in ended)
    assert all(s.current for s in brain.statements(item_id=south, current=None))
