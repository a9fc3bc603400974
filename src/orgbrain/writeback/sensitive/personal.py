"""Personal data with a shape: a person's email address or phone number, card numbers
(Luhn), IBANs (mod 97), US social security and UK National Insurance numbers, passport
and licence numbers. Shared addresses (a team alias, a support line) and published test
numbers (Stripe's test cards) are organisation knowledge, not a person's."""

from __future__ import annotations

import re

from .rule import Rule, iban_ok, luhn_ok, sentence_at

__all__ = ["PERSONAL_RULES", "role_address"]

PERSONAL = "personal"

# An address whose every word is one of these names a role or a team, not a person.
_ROLE_WORDS = frozenset(
    """team teams group all everyone staff support help helpdesk desk service services
    security sec secops soc privacy legal compliance abuse postmaster hostmaster webmaster
    admin admins administrator root sysadmin it ops devops sre oncall on call infra
    platform data analytics eng engineering dev devs developers development qa test
    testing release releases build builds ci cd deploy deploys bot bots robot automation
    alerts alert alerting monitoring notifications notify noreply no reply donotreply
    do not info hello hi contact contacts enquiries inquiries office reception careers
    jobs hiring recruiting talent hr people payroll finance billing invoices invoice
    accounts payable receivable payments sales marketing press media pr partners
    partnerships customers customer success product design ux mobile web api growth
    community events announce announcements news newsletter list lists feedback orders
    shop store ops-team git github gitlab svc system mail mailer daemon incident incidents
    it-support tech research leadership exec execs board founders subscribe
    unsubscribe""".split()
)
_MACHINE_DOMAINS = ("gserviceaccount.com", "noreply.github.com", "googlegroups.com")
# RFC 2606's documentation domains: an address there is an example, nobody's.
_EXAMPLE_DOMAIN = re.compile(
    r"(?:^|\.)(?:example\.(?:com|org|net)|[\w-]+\.(?:example|test|invalid|localhost))$|^localhost$"
)


def role_address(address: str) -> bool:
    """A team alias or a machine's address rather than a person's."""
    local, _, domain = address.casefold().partition("@")
    if domain.endswith(_MACHINE_DOMAINS) or _EXAMPLE_DOMAIN.search(domain):
        return True
    words = [w for w in re.split(r"[._+-]+|\d+", local) if w]
    return bool(words) and all(w in _ROLE_WORDS for w in words)


def _email(m: re.Match[str]) -> bool:
    before = m.string[max(0, m.start() - 3) : m.start()]
    if before.endswith(("//", ":")) or "://" in before:
        return False  # the user part of a URL, not an address
    return not role_address(m["v"])


_SHARED_LINE = re.compile(
    r"(?i)\b(?:support|hotline|help\s?desk|service\s+desk|switchboard|reception|main\s+"
    r"(?:line|number)|toll[\s-]free|freephone|front\s+desk|office\s+(?:line|number)|fax)\b"
)


def _phone(m: re.Match[str]) -> bool:
    digits = re.sub(r"\D", "", m["v"])
    if not 9 <= len(digits) <= 15:
        return False
    return not _SHARED_LINE.search(sentence_at(m.string, *m.span()))


# Published test numbers: Stripe's, Braintree's, Adyen's documentation cards.
_TEST_CARDS = frozenset(
    """4242424242424242 4000056655665556 5555555555554444 2223003122003222 5200828282828210
    5105105105105100 378282246310005 371449635398431 6011111111111117 6011000990139424
    3056930009020004 36227206271667 3566002020360505 4111111111111111 4012888888881881
    4000000000000002 4000000000009995 4000000000000077 4000002500003155 4000000000003220
    4000000000000341 4000000000000069 4000000000000127 4000000000000119""".split()
)
_CARD_PREFIX = re.compile(
    r"4|5[1-5]|2(?:2[2-9]|[3-6]\d|7[01]|720)|3[47]|3(?:0[0-5]|[68])|6(?:011|5|4[4-9])|35"
)


def _card(m: re.Match[str]) -> bool:
    digits = re.sub(r"\D", "", m["v"])
    return (
        13 <= len(digits) <= 19
        and bool(_CARD_PREFIX.match(digits))
        and luhn_ok(digits)
        and digits not in _TEST_CARDS
    )


_IBAN_COUNTRIES = frozenset(
    """AD AE AL AT AZ BA BE BG BH BR BY CH CR CY CZ DE DK DO EE EG ES FI FO FR GB GE GI GL
    GR GT HR HU IE IL IQ IS IT JO KW KZ LB LC LI LT LU LV MC MD ME MK MR MT MU NL NO PK PL
    PS PT QA RO RS SA SC SE SI SK SM ST SV TL TN TR UA VA VG XK""".split()
)


def _iban(m: re.Match[str]) -> bool:
    return m["v"][:2] in _IBAN_COUNTRIES and iban_ok(m["v"])


PERSONAL_RULES: tuple[Rule, ...] = (
    Rule(
        "email",
        PERSONAL,
        "a person's email address",
        re.compile(
            r"(?<![\w.+-])(?P<v>[A-Za-z0-9][\w.+-]*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})\b"
        ),
        _email,
    ),
    Rule(
        "phone",
        PERSONAL,
        "a phone number",
        re.compile(
            r"(?<![\w+.-])(?<!\d[ -])(?P<v>"  # not the tail of a longer run of digits
            r"\+\d{1,3}(?:[ .-]?\(?\d{1,5}\)?){2,6}"  # international
            r"|(?:1[ .-])?(?:\(\d{3}\)\s?|\d{3}[ .-])\d{3}[ .-]\d{4}"  # North American
            r"|0\d{2,4}[ -]?\d{3,4}[ -]?\d{3,4}"  # national trunk prefix (UK, EU)
            r")(?![\w.-]\d|\w)"
        ),
        _phone,
    ),
    Rule(
        "card-number",
        PERSONAL,
        "a payment card number",
        re.compile(r"(?<![\w+.-])(?P<v>\d(?:[ -]?\d){12,18})(?![\w-]|\.\d)"),
        _card,
    ),
    Rule(
        "iban",
        PERSONAL,
        "a bank account number (IBAN)",
        re.compile(r"\b(?P<v>[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?)\b"),
        _iban,
    ),
    Rule(
        "us-ssn",
        PERSONAL,
        "a US social security number",
        re.compile(
            r"(?<![\w-])(?P<v>(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4})(?![\w-])"
            r"|(?i:\b(?:ssn|social\s+security(?:\s+(?:number|no\.?))?)\b)\D{0,20}?"
            r"(?<!\d)(?P<bare>\d{9})(?!\d)"
        ),
    ),
    Rule(
        "uk-nino",
        PERSONAL,
        "a UK National Insurance number",
        re.compile(
            r"\b(?P<v>(?!BG|GB|KN|NK|NT|TN|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]"
            r" ?\d{2} ?\d{2} ?\d{2} ?[A-D])\b"
        ),
    ),
    Rule(
        "id-document",
        PERSONAL,
        "a passport, licence or national id number",
        re.compile(
            r"(?i)\b(?:passport|driv(?:er'?s|ing)\s+licen[cs]e|national\s+id(?:entity)?"
            r"|id\s+card|tax\s+id|tin)(?:\s+(?:number|no\.?|#))?\b[^.\n\d]{0,30}?"
            r"(?P<v>\b(?=[A-Z0-9]*\d)[A-Z0-9]{6,12}\b)"
        ),
    ),
)
