"""Sessions for the web UI: a signed cookie that names an API key, and CSRF tokens.

Signing in with a key gives a cookie ``<payload>.<mac>`` where the payload is the key's
id, when the session began and a random nonce, and the mac is HMAC-SHA256 under a secret
only the server holds (``ORGBRAIN_UI_SECRET``, shared by every server process, or a
random one per process); the key's secret never goes in the cookie. Every request looks
the key up again, so a revoked key ends its sessions at once. Signing out records the
session's id (a digest of its nonce) in the key store (``KeyStore.end_session``), which
every process over the store consults, as well as deleting the cookie.

CSRF: every form carries a token derived from the session's nonce (HMAC under the same
secret); the sign-in form, before there is a session, a token derived from a nonce in a
short-lived cookie of its own (double submit). Cookies are HttpOnly and SameSite=Strict,
``Secure`` when the request came over HTTPS.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime

from ...errors import InvalidInput
from ...settings import Settings

__all__ = [
    "LOGIN_COOKIE",
    "MIN_SECRET_BYTES",
    "SESSION_COOKIE",
    "Session",
    "Sessions",
    "UiConfig",
]

SESSION_COOKIE = "ob_session"
LOGIN_COOKIE = "ob_login"
MIN_SECRET_BYTES = 32
_NONCE = 16


@dataclass(frozen=True, slots=True)
class UiConfig:
    """How the web UI signs sessions. ``secret`` None: a random one per process, so a
    restart signs everyone out and no other process reads its cookies; give every server
    process the same one (``ORGBRAIN_UI_SECRET``) to share sessions and keep them across
    restarts."""

    secret: bytes | None = field(default=None, repr=False)
    session_s: float = 12 * 3600.0
    """How long a session lasts after signing in."""
    login_s: float = 3600.0
    """How long a sign-in form stays good."""

    def __post_init__(self) -> None:
        if self.secret is not None and len(self.secret) < MIN_SECRET_BYTES:
            raise InvalidInput(
                f"the UI's session secret needs at least {MIN_SECRET_BYTES} bytes "
                "(python -c 'import secrets; print(secrets.token_hex(32))')"
            )

    @classmethod
    def from_settings(cls, settings: Settings) -> UiConfig:
        """The secret ``ORGBRAIN_UI_SECRET`` gave (``Settings.ui_secret``), if any."""
        secret = settings.ui_secret
        return cls(secret=secret.encode() if secret else None)


@dataclass(frozen=True, slots=True)
class Session:
    key_id: str
    started: float
    nonce: str

    @property
    def id(self) -> str:
        """The session's id as the key store records a sign-out: a digest of its nonce
        (the nonce itself stays in the cookie)."""
        return hashlib.sha256(b"ob-session\0" + self.nonce.encode()).hexdigest()[:32]


@dataclass
class Sessions:
    """Issues and checks session cookies and CSRF tokens under one secret."""

    config: UiConfig = field(default_factory=UiConfig)
    _secret: bytes = field(default=b"", repr=False)

    def __post_init__(self) -> None:
        self._secret = self.config.secret or secrets.token_bytes(MIN_SECRET_BYTES)

    # -- sessions -----------------------------------------------------------------------

    def issue(self, key_id: str, now: float | None = None) -> tuple[Session, str]:
        """A new session for ``key_id`` and its cookie value."""
        session = Session(key_id, time.time() if now is None else now, secrets.token_hex(_NONCE))
        payload = f"{session.key_id}:{session.started:.0f}:{session.nonce}".encode()
        return session, f"{_b64(payload)}.{_b64(self._mac(b'session', payload))}"

    def read(self, cookie: str | None, now: float | None = None) -> Session | None:
        """The session a cookie value stands for; None when forged or expired (whether it
        was signed out is the key store's to say: ``KeyStore.session_ended``)."""
        if not cookie or cookie.count(".") != 1 or len(cookie) > 512:
            return None
        raw_payload, raw_mac = cookie.split(".")
        try:
            payload, mac = _unb64(raw_payload), _unb64(raw_mac)
        except ValueError:
            return None
        if not hmac.compare_digest(mac, self._mac(b"session", payload)):
            return None
        try:
            key_id, started, nonce = payload.decode().split(":")
            began = float(started)
        except ValueError:
            return None
        now = time.time() if now is None else now
        if not began <= now + 60 or now - began > self.config.session_s:
            return None
        if len(nonce) != 2 * _NONCE:
            return None
        return Session(key_id, began, nonce)

    def expires(self, session: Session) -> datetime:
        """When ``session`` ends by itself."""
        return datetime.fromtimestamp(session.started + self.config.session_s, UTC)

    # -- CSRF ---------------------------------------------------------------------------

    def csrf(self, session: Session) -> str:
        """The token every form of this session carries."""
        return self._mac(b"csrf", session.nonce.encode()).hex()[:40]

    def check_csrf(self, session: Session, token: str | None) -> bool:
        return bool(token) and hmac.compare_digest(str(token), self.csrf(session))

    def login_nonce(self) -> tuple[str, str]:
        """A sign-in form's (cookie value, form token) pair."""
        nonce = secrets.token_hex(_NONCE)
        return nonce, self._login_token(nonce)

    def check_login(self, nonce: str | None, token: str | None) -> bool:
        if not nonce or not token or len(nonce) != 2 * _NONCE:
            return False
        return hmac.compare_digest(str(token), self._login_token(nonce))

    def _login_token(self, nonce: str) -> str:
        return self._mac(b"login", nonce.encode()).hex()[:40]

    def _mac(self, purpose: bytes, data: bytes) -> bytes:
        return hmac.new(self._secret, purpose + b"\0" + data, hashlib.sha256).digest()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError) as exc:
        raise ValueError("not base64") from exc
