"""Credentials: what a person types to get in. Passwords set in config, passwords stated
in prose ("the wifi password is sunshine"), username/password pairs, PINs and door
codes, recovery codes. A word that describes the password ("is required", "is stored in
the vault") is not one."""

from __future__ import annotations

import re

from .rule import Rule, placeholder, sentence_at

__all__ = ["CREDENTIAL_RULES"]

CREDENTIAL = "credential"

# Words that follow "the password is" when no password does.
_NOT_A_PASSWORD = frozenset(
    """the a an at in on of for to by via from with within into under over per as not no
    never always also only just too very so then there here this that these those it its
    same different set reset kept held required optional mandatory needed necessary valid
    invalid wrong correct weak strong long short case see ask check use found missing
    empty blank unknown secret known shared stored managed handled rotated changed expired
    generated encrypted hashed salted synced saved sent printed logged listed written
    available enabled disabled locked unlocked less more different important sensitive
    what which who where how why when one secure insecure temporary random unique complex
    simple easy hard obvious public private personal default standard new old good bad
    fine ok okay mandatory""".split()
)
# A type annotation or schema, not a value: ``password: str``, ``"password": {"type": …``.
_TYPES = frozenset("str string bytes int text secretstr secret optional any none".split())
_WORDY = re.compile(r"(?i)^[a-z]+(?:ed|ing|ly|able|ible|tion|ment)$")


def _password_like(value: str) -> bool:
    v = value.strip("\"'`.,;:!?)(").strip()
    if len(v) < 3 or placeholder(v):
        return False
    if v.casefold() in _NOT_A_PASSWORD | _TYPES or v.startswith(("http", "/", "$")):
        return False
    if _WORDY.match(v) and not re.search(r"[\d\W]", v):
        return False
    return not _CODE_REF.match(v)


# Code that fetches the password: ``os.environ["DB_PASSWORD"]``, ``getpass()``.
_CODE_REF = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*(?:\(|\[|\.[A-Za-z_])")


def _has_digits(value: str) -> bool:
    return len(re.sub(r"\D", "", value)) >= 3


def _config(m: re.Match[str]) -> bool:
    v = m["v"]
    if v[:1] in "{[(`":
        return False
    return _password_like(v) and v.casefold() not in ("yes", "no", "on", "off")


_LOGIN = re.compile(r"(?i)\b(?:log\s?in|sign\s?in|user(?:name)?|credentials?|creds|account)\b")


def _after(m: re.Match[str]) -> bool:
    # "pass" is mostly a verb ("pass each name"): only beside a login is it a password.
    if m["what"].casefold() == "pass" and not _LOGIN.search(sentence_at(m.string, *m.span())):
        return False
    return _config(m)


# "the password manager is 1Password": the sentence is about a thing named after passwords.
_ABOUT_PASSWORDS = re.compile(
    r"(?i)(?:manager|policy|policies|reset|resets|rotation|requirements?|rules?|length"
    r"|hash|hashes|field|prompt|expiry|change|strength|complexity|store|vault|protected"
    r"|less|login|entry|form|generator|hint)s?"
)


def _stated(m: re.Match[str]) -> bool:
    first = m["gap"].split()[:1]
    if (first and _ABOUT_PASSWORDS.fullmatch(first[0])) or "pass" in m["v"].casefold():
        return False
    what = m["what"].casefold()
    if what.startswith(("pin", "combination", "recovery", "backup")) or what.endswith("code"):
        return _has_digits(m["v"])
    if what == "passphrase" and m["sep"] == ":":
        return len(m.string[m.end() :].split("\n")[0].split()) >= 2 or _password_like(m["v"])
    return _password_like(m["v"])


_PATHISH = re.compile(r"[`<>(){}\[\]]|\.(?:py|md|js|ts|json|ya?ml|toml|txt|sh|go|rs|html)$")


def _pair(m: re.Match[str]) -> bool:
    user, secret = m["user"], m["v"].rstrip(".,;:!?)")
    text = m.string
    if text[m.start("user") - 1 : m.start("user")] == "/" or text[m.end() : m.end() + 1] == "/":
        return False  # a path, not user/password
    if _PATHISH.search(user) or _PATHISH.search(secret):
        return False
    if user.casefold() in ("http", "https", "and", "or") or not _password_like(secret):
        return False
    return secret == user or bool(re.search(r"[\d\W_]", secret))


_PASSWORD = r"(?:pass(?:word|wd|phrase|code)|pwd?|pin)"
_CONFIG_NAME = r"(?:\w*pass(?:word|wd|phrase|code)|(?:\w+[_.-])?(?:pass|pwd?))"
_CODE = (
    r"(?:(?:door|alarm|gate|safe|lock|entry|keypad|key\s?pad|wi-?fi|building|access)"
    r"\s+code|combination|recovery\s+codes?|backup\s+codes?)"
)
CREDENTIAL_RULES: tuple[Rule, ...] = (
    Rule(
        "config-password",
        CREDENTIAL,
        "a password in config",
        re.compile(
            rf"(?i)(?<![\w.-])[\"']?{_CONFIG_NAME}"
            r"[\"']?\s*(?:=>|:=|[:=])\s*"
            r"(?P<v>\"[^\"\n]+\"|'[^'\n]+'|[^\s,;]*[^\s,;.)])"
        ),
        _config,
    ),
    Rule(
        "stated-password",
        CREDENTIAL,
        "a password, PIN or code stated in words",
        re.compile(
            rf"(?i)\b(?P<what>{_PASSWORD}|{_CODE})s?\b"
            r"(?P<gap>(?:\s+(?!is\b|are\b|was\b)[\w'\u2019()-]+){0,6}?)"
            r"\s*(?P<sep>\b(?:is|are|was)\b|:|=|—|\u2013)\s*"
            r"(?:still\s+|now\s+|currently\s+|just\s+|probably\s+)?"
            r"(?P<v>\"[^\"\n]+\"|'[^'\n]+'|[^\s,;]*[^\s,;.)](?:[ ,;-]+\d[\d-]*)*)"
        ),
        _stated,
    ),
    Rule(
        "password-after",
        CREDENTIAL,
        "a password stated in words",
        re.compile(
            r"(?i)(?:\band\b|\bwith\b|,)\s+(?:the\s+)?(?P<what>password|pass|pw|pwd)\s+"
            r"(?P<v>[^\s,;]*[^\s,;.)])"
        ),
        _after,
    ),
    Rule(
        "login-pair",
        CREDENTIAL,
        "a username and password",
        re.compile(
            r"(?i)\b(?:log\s?in|sign\s?in|credentials?|creds|login\s+is|user(?:name)?)\b"
            r"[^.\n]{0,40}?(?<![\w.@+-])(?P<user>[\w.@+-]{2,})(?:\s?/\s?|:(?!\s))"
            r"(?P<v>[^\s/,;]{2,}[^\s/,;.)])"
        ),
        _pair,
    ),
)
