"""Text analysis: tokenising, stemming and stopwords, each language a record of data."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from orgbrain.analysis import (
    LANGUAGES,
    STOPWORDS,
    Language,
    detect_language,
    key_terms,
    label_words,
    letter_words,
    plain_words,
    stem,
    stopwords,
    text_stems,
    topic_words,
    words,
)
from orgbrain.errors import Unsupported

TEXT = "Don't ship v2 to O'Brien's team_a rock'n'roll I/O"


def test_each_tokeniser_cuts_where_its_difference_matters() -> None:
    assert words(TEXT) == [
        "Don't",
        "ship",
        "v2",
        "to",
        "O'Brien",
        "s",
        "team",
        "a",
        "rock'n",
        "roll",
        "I",
        "O",
    ]
    assert label_words(TEXT) == [
        "Don't",
        "ship",
        "v2",
        "to",
        "O'Brien's",
        "team",
        "a",
        "rock'n'roll",
        "I",
        "O",
    ]
    assert letter_words(TEXT) == ["Don", "ship", "to", "Brien", "team", "rock", "roll"]
    assert plain_words("Day-1 plan: v2\u2019s") == ["Day", "1", "plan", "v2", "s"]


def test_key_terms_are_lowered_distinct_and_say_what_the_text_is_about() -> None:
    assert key_terms("Which database do we use these days? The DATABASE, v 2") == ["database", "2"]
    assert key_terms("alpha beta gamma delta", max_terms=2) == ["alpha", "beta"]
    assert key_terms("I\u2019m here") == ["i'm"]  # a curly apostrophe reads as a straight one


def test_stem_meets_the_forms_of_one_word() -> None:
    assert stem("painted") == stem("painting") == "paint"
    assert stem("escalates") == stem("escalate") == stem("escalated")
    assert stem("Databases") == stem("database")
    assert stem("Caroline's") == stem("caroline")
    assert stem("bus") == "bus"  # too short a stem to strip


def test_text_stems_and_topic_words() -> None:
    assert text_stems("The notes were painted") == {"the", "not", "wer", "paint"}
    # stopwords go before stemming: "notes" stays a topic though its stem is "not"
    assert topic_words("We use the notes") == {"not"}


def test_stopwords_are_chosen_by_language_defaulting_to_english() -> None:
    assert stopwords() is stopwords("en") is STOPWORDS
    assert {"the", "use", "thanks"} <= STOPWORDS
    assert "database" not in STOPWORDS


@pytest.mark.parametrize(
    "call",
    [
        lambda: stopwords("xx"),
        lambda: stem("painted", "xx"),
        lambda: text_stems("painted", "xx"),
        lambda: key_terms("painted", language="xx"),
    ],
)
def test_an_unknown_language_is_a_clear_error(call: Callable[[], object]) -> None:
    with pytest.raises(
        Unsupported, match=r"no text analysis for language 'xx' \(known: de, en, es, fr\)"
    ):
        call()


def test_a_language_is_data(monkeypatch: pytest.MonkeyPatch) -> None:
    dutch = Language("nl", frozenset({"de", "het"}), (("en", ""),), re.compile(r"\btegenwoordig\b"))
    monkeypatch.setitem(LANGUAGES, "nl", dutch)
    assert stem("fietsen", "nl") == "fiets"
    assert stopwords("nl") == {"de", "het"}
    assert key_terms("de fietsen tegenwoordig", language="nl") == ["fietsen"]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("Wer ist für das Onboarding zuständig?", "de"),
        ("Quelle base de données utilisons-nous ?", "fr"),
        ("¿Qué base de datos usamos?", "es"),
        ("Who owns the payments service?", "en"),
        ("Support hours: 08:00-18:00 CET", "en"),  # "cet" is French, but CET is a code
        ("Figma", "en"),  # nothing to tell by: the default
        ("Release manager: Tomás Ortega", "en"),  # a name's accent tells nothing
        # a rota's "Mon" and a table's Y/N flags are not French's "mon" and "y"
        ("Shift   Hours         Mon  Tue  Wed\nEarly   06:00-14:00   JB   JB   KL", "en"),
        ("tier,classes,spa\nFLX,Y,N\nPLUS,Y,Y\nGOLD,Y,Y", "en"),
        ("Badges Lyon : voir Jérôme à l'accueil", "fr"),  # a one-letter word of a sentence
        ("Y a-t-il du café ?", "fr"),
    ],
)
def test_a_text_is_read_in_the_language_whose_stopwords_it_uses(text: str, code: str) -> None:
    assert detect_language(text) == code


def test_key_terms_drop_the_stopwords_of_the_language_the_text_is_in() -> None:
    assert key_terms("Wer ist zurzeit für das Onboarding zuständig?") == [
        "onboarding",
        "zuständig",
    ]
    assert key_terms("Qui gère l'équipe de support en ce moment ?") == ["gère", "équipe", "support"]
    assert key_terms("¿Quién lleva las nóminas actualmente?") == ["lleva", "nóminas"]


def test_stems_meet_across_inflections_and_accents_in_each_language() -> None:
    assert stem("Datenbanken", "de") == stem("Datenbank", "de") == stem("datenbank")
    assert stem("Prüfungen", "de") == stem("Prufung", "de")
    assert stem("l'équipe", "fr") == stem("équipes", "fr") == stem("equipe", "fr")
    assert stem("reuniones", "es") == stem("reunión", "es")
    assert stem("Straße", "de") == stem("strasse", "de")
    assert text_stems("Die Datenbanken laufen über Jürgen.") >= {"datenbank", "uber"}
    assert topic_words("Wir nutzen die Datenbanken") == {"datenbank"}
