"""Secrets: keys and tokens a machine presents. Provider formats first (a prefix and a
length say enough), then shapes (JWTs, private key blocks, URLs with a password), then
a random-looking value assigned to a name that says key, secret or token."""

from __future__ import annotations

import re

from .rule import Rule, looks_random, placeholder

__all__ = ["SECRET_RULES"]

SECRET = "secret"


def _token(name: str, reason: str, pattern: str) -> Rule:
    # Token prefixes are exact and case-sensitive; the edges keep a match whole.
    return Rule(name, SECRET, reason, re.compile(rf"(?<![\w-])(?P<v>{pattern})(?![\w-])"))


_PROVIDERS = (
    _token("orgbrain-key", "an orgbrain API key", r"ob_[0-9a-f]{16}_[0-9a-f]{32,}"),
    _token("aws-access-key-id", "an AWS access key id", r"(?:AKIA|ASIA)[A-Z0-9]{16}"),
    _token("gcp-api-key", "a Google Cloud API key", r"AIza[0-9A-Za-z_-]{30,40}"),
    _token("gcp-oauth-token", "a Google OAuth access token", r"ya29\.[0-9A-Za-z_-]{20,}"),
    _token("gcp-client-secret", "a Google OAuth client secret", r"GOCSPX-[0-9A-Za-z_-]{20,}"),
    _token(
        "azure-client-secret",
        "an Azure client secret",
        r"[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}",
    ),
    _token("github-token", "a GitHub token", r"gh[pousr]_[A-Za-z0-9]{30,}|github_pat_\w{30,}"),
    _token(
        "gitlab-token",
        "a GitLab token",
        r"gl(?:pat|dt|rt|ptt|ft|cbt|imt|soat|oas|agent)-[A-Za-z0-9_-]{20,}",
    ),
    _token("slack-token", "a Slack token", r"xox[abposer]-[A-Za-z0-9-]{10,}"),
    _token(
        "stripe-secret-key",
        "a Stripe secret key",
        r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{20,}",
    ),
    _token(
        "llm-api-key",
        "an OpenAI or Anthropic API key",
        r"sk-(?:ant-|proj-|svcacct-|admin-)?(?=[A-Za-z0-9_-]*\d)[A-Za-z0-9_-]{20,}",
    ),
    _token("npm-token", "an npm token", r"npm_[A-Za-z0-9]{30,}"),
    _token("pypi-token", "a PyPI token", r"pypi-AgE[A-Za-z0-9_-]{40,}"),
    _token("huggingface-token", "a Hugging Face token", r"hf_[A-Za-z0-9]{30,}"),
    _token("sendgrid-key", "a SendGrid API key", r"SG\.[\w-]{16,}\.[\w-]{16,}"),
    _token("twilio-key", "a Twilio API key", r"SK[0-9a-f]{32}"),
    _token("grafana-token", "a Grafana token", r"gl(?:sa|c)_[A-Za-z0-9_=+/-]{30,}"),
    _token("vault-token", "a HashiCorp Vault token", r"hv[sb]\.[A-Za-z0-9_-]{20,}"),
    _token("shopify-token", "a Shopify token", r"shp(?:at|ss|ca|pa)_[0-9a-fA-F]{32}"),
    _token("digitalocean-token", "a DigitalOcean token", r"do[por]_v1_[0-9a-f]{64}"),
    _token("telegram-bot-token", "a Telegram bot token", r"\d{8,10}:AA[A-Za-z0-9_-]{33}"),
)

# A password for a database on the reader's own machine is a local default, not a secret.
_LOCAL_HOSTS = frozenset(("localhost", "127.0.0.1", "0.0.0.0", "host.docker.internal"))

_SHAPES = (
    Rule(
        "jwt",
        SECRET,
        "a JSON web token",
        re.compile(r"(?<![\w-])(?P<v>eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]{8,})"),
    ),
    Rule(
        "private-key",
        SECRET,
        "a private key",
        re.compile(r"(?P<v>-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----)"),
    ),
    Rule(
        "url-credentials",
        SECRET,
        "a connection string or URL with a password",
        re.compile(r"\b[a-zA-Z][\w+.-]{1,20}://[^\s:/@]*:(?P<v>[^\s@/]+)@(?P<host>[\w.-]+)"),
        lambda m: not placeholder(m["v"]) and m["host"] not in _LOCAL_HOSTS,
    ),
    Rule(
        "azure-account-key",
        SECRET,
        "an Azure storage key",
        re.compile(r"(?i)\b(?:AccountKey|SharedAccessKey)=(?P<v>[A-Za-z0-9+/=]{30,})"),
    ),
    Rule(
        "signed-url",
        SECRET,
        "a signed URL's signature",
        re.compile(r"[?&](?:sig|X-Amz-Signature|Signature)=(?P<v>[A-Za-z0-9%+/=_-]{20,})"),
    ),
    Rule(
        "slack-webhook",
        SECRET,
        "a Slack webhook URL",
        re.compile(r"hooks\.slack\.com/services/(?P<v>T\w+/B\w+/\w+)"),
    ),
    Rule(
        "auth-header",
        SECRET,
        "an authorization header",
        re.compile(r"(?i)\b(?:bearer|basic)\s+(?P<v>[A-Za-z0-9._~+/-]{20,}=*)"),
        lambda m: looks_random(_whole(m)),
    ),
)

# Names that end in key but hold no secret: database keys, cache keys, public keys.
_NOT_SECRET_BEFORE = frozenset(
    "primary partition sort foreign public publishable pub cache idempotency hash range "
    "row lookup dedup dedupe routing shard index composite unique natural surrogate "
    "ssh license licence map dict object kv".split()
)
_SECRET_LAST = frozenset("key apikey secret token seed salt".split())
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _secret_name(name: str) -> bool:
    parts = [p for p in re.split(r"[\s_.-]+", _CAMEL.sub("_", name).casefold()) if p]
    if not parts or parts[-1] not in _SECRET_LAST:
        return False
    return not (len(parts) > 1 and parts[-2] in _NOT_SECRET_BEFORE)


def _whole(m: re.Match[str]) -> str:
    # The value with any dots after it: "ob_3f9c..." is an elided example, not a key.
    tail = m.string[m.end("v") : m.end("v") + 3]
    return m["v"] + tail[: len(tail) - len(tail.lstrip(".\u2026"))]


def _assigned(m: re.Match[str]) -> bool:
    return _secret_name(m["name"]) and looks_random(_whole(m))


_NOT_THE_VALUE = re.compile(r"(?i)\b(?:ids?|names?|format|path|location|prefix|type|length)\b")


def _stated(m: re.Match[str]) -> bool:
    before = m.string[max(0, m.start() - 12) : m.start()].casefold().split()
    if before and before[-1] in _NOT_SECRET_BEFORE:
        return False
    return not _NOT_THE_VALUE.search(m["gap"]) and looks_random(_whole(m))


_VALUE = r"[\"'`]?(?P<v>[^\s\"'`,;]*[^\s\"'`,;.)])"
_ASSIGNMENTS = (
    Rule(
        "assigned-secret",
        SECRET,
        "a random value given a secret's name",
        re.compile(
            rf"(?<![\w.-])[\"']?(?P<name>[A-Za-z][\w.-]*)[\"']?\s*(?:=>|:=|[:=])\s*{_VALUE}"
        ),
        _assigned,
    ),
    Rule(
        "argument-secret",
        SECRET,
        "a random value given a secret's name",
        re.compile(rf"(?<![\w.-])(?P<name>[A-Za-z]\w*_\w+)[ \t]+{_VALUE}"),
        _assigned,
    ),
    Rule(
        "stated-secret",
        SECRET,
        "a random value given a secret's name",
        re.compile(
            r"(?i)\b(?:key|secret|token|seed)\b"
            r"(?P<gap>(?:\s+(?!is\b|was\b)[\w'\u2019()-]+){0,5}?)"
            rf"\s*(?:\bis\b|\bwas\b|[:=])\s*(?:still\s+|now\s+)?{_VALUE}"
        ),
        _stated,
    ),
)

SECRET_RULES: tuple[Rule, ...] = (*_PROVIDERS, *_SHAPES, *_ASSIGNMENTS)
