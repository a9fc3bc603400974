"""The judge's units read German, French and Spanish notes: their dates, days, times and
amounts are values, and German's capitalised nouns are not names."""

from __future__ import annotations

import pytest

from orgbrain.extraction.named import names_in
from orgbrain.extraction.sentences import split_units
from orgbrain.judge.units import JUnit, units_of


def _values(unit: JUnit) -> list[tuple[str, str]]:
    return [(v.kind, v.key) for v in unit.values]


def _names(unit: JUnit) -> list[str]:
    return [unit.text[n.start : n.end] for n in unit.names]


def test_a_german_ordinal_date_stays_in_its_sentence_and_reads_as_a_date() -> None:
    note = (
        "Hallo zusammen,\n\ndas Überwachungsaudit durch den TÜV Süd findet am 16. Juni statt. "
        "Bitte haltet euch den Tag frei."
    )
    audit = [u for u in units_of(note) if "Überwachungsaudit" in u.text]
    assert len(audit) == 1
    assert audit[0].text.endswith("findet am 16. Juni statt.")
    assert ("date", "06-16") in _values(audit[0])
    assert _names(audit[0]) == ["TÜV Süd"]


@pytest.mark.parametrize(
    "text",
    [
        "Bahnfahrten werden in der 2. Klasse gebucht. Für Vielreisende gilt anderes.",
        "Die Rufbereitschaft übernimmt ab 1. April das Systemhaus Kraichgau. Hotline folgt.",
    ],
)
def test_an_ordinal_before_a_month_or_after_an_article_ends_no_sentence(text: str) -> None:
    assert len(split_units(text)) == 2


@pytest.mark.parametrize(
    ("text", "kind", "key"),
    [
        ("Das Audit ist am 23. Juni in Halle 2.", "date", "06-23"),
        ("La formation aura lieu le 3 avril dans la salle Érable.", "date", "04-03"),
        ("La session commence le 1er mars pour tous les agents.", "date", "03-01"),
        ("Desde el 3 de abril las devoluciones van a la nave D.", "date", "04-03"),
        ("Ab Montag bin ich in Elternzeit, bitte meldet euch.", "weekday", "mon"),
        ("Le point se tient chaque lundi avec les cadres du pôle.", "weekday", "mon"),
        ("La recogida es el lunes por la mañana en el muelle.", "weekday", "mon"),
        ("Kantine Heilbronn: Mo\u2013Fr geöffnet für alle Schichten.", "weekday", "mon-fri"),
        ("Accueil ouvert du lundi au vendredi pour les familles.", "weekday", "mon-fri"),
        ("Frühschicht beginnt um 14:30 Uhr an der Pforte.", "time", "14:30"),
        ("Frühschicht beginnt um 14.30 Uhr an der Pforte.", "time", "14:30"),
        ("La navette part à 14h30 devant le bâtiment A.", "time", "14:30"),
        ("Le service ouvre de 7 h 00 pour les patients.", "time", "7:00"),
        ("Genehmigung durch die Leitungsrunde ab 10.000 € netto.", "money", "10000"),
        ("Le repas des agents passe à 4,20 € au self.", "money", "4.2"),
        ("Le plafond est fixé à 1 200 euros par an.", "money", "1200"),
        ("Die Quote steigt um 1,5 % im zweiten Quartal.", "percent", "1.5"),
    ],
)
def test_calendar_times_and_amounts_of_each_language_are_values(
    text: str, kind: str, key: str
) -> None:
    [unit] = units_of(text)
    assert (kind, key) in _values(unit)
    calendar = {"Juni", "avril", "mars", "abril", "Montag", "lundi", "lunes", "Mo", "Fr", "Uhr"}
    assert not calendar & {w for n in _names(unit) for w in n.split()}


def test_a_german_sentence_names_its_person_not_its_nouns() -> None:
    [unit] = units_of(
        "Info aus der Werkleitung: Ab sofort übernimmt Marco Lange die Frühschicht in der Montage."
    )
    assert _names(unit) == ["Marco Lange"]


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Die Projektboards für den Sondermaschinenbau liegen in Trello.", ["Trello"]),
        ("Zugang bekommt ihr über Michael, sonst über die Leitung.", ["Michael"]),
        ("Die Drehmomentschlüssel kalibriert jetzt die Hoffmann Group.", ["Hoffmann Group"]),
        ("Die Boards liegen als PDF im Kanal, kurze Info folgt.", ["PDF"]),
    ],
)
def test_german_names_are_runs_acronyms_and_words_after_no_article(
    text: str, names: list[str]
) -> None:
    assert [text[n.start : n.end] for n in names_in(text, "de")] == names


def test_a_function_word_opening_a_french_or_spanish_phrase_is_no_name() -> None:
    assert names_in("Objet : Au revoir les urgences !", "fr") == []
    text = "Propuesta: cambiar a Workwear Norte. ¿Lo vemos en la reunión?"
    assert [text[n.start : n.end] for n in names_in(text, "es")] == ["Workwear Norte"]


def _cues(text: str) -> set[str]:
    (unit,) = units_of(text)
    return {family for family, said in unit.cues.items() if said}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ab sofort übernimmt Marco Lange die Frühschicht.", {"change"}),
        ("Désormais, c'est Claire qui valide les commandes.", {"change"}),
        ("A partir de ahora las facturas las aprueba Lucía.", {"change"}),
        ("Vielleicht wechseln wir im Herbst zu Jira.", {"nothing"}),
        ("Exceptionnellement, le dépôt ouvre à 7h00 samedi.", {"temporary"}),
        ("Las reuniones no se graban.", {"negated"}),
    ],
)
def test_a_unit_in_another_language_is_read_by_its_own_cue_words(
    text: str, expected: set[str]
) -> None:
    assert expected <= _cues(text)


def test_english_change_words_are_not_read_in_a_german_unit() -> None:
    # German "was" is "what", and "findet ... statt" is "takes place": no change said
    assert "change" not in _cues("Was genau im Audit geprüft wird, findet ihr im Wiki.")
    assert "change" not in _cues("Die Begehung findet am 16. Juni statt.")
    # English keeps its readers
    assert "change" in _cues("The audit was moved to 23 June.")


def test_a_unit_with_no_word_to_tell_its_language_is_read_in_its_note_s() -> None:
    note = (
        "Die Schichtleitung wechselt ab sofort, bitte beachten.\n\n"
        "| Schicht | Leitung |\n|---|---|\n| Früh | neu besetzt |\n"
    )
    row = next(u for u in units_of(note) if u.kind == "row")
    assert "change" in {family for family, said in row.cues.items() if said}
