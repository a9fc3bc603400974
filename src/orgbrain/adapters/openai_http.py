"""What the OpenAI-compatible adapters (``embed_http.py``, ``chat_openai.py``) share: the
endpoint URL, one lazily made HTTP client per adapter, and the server's own words when it
refuses."""

from __future__ import annotations

import threading

import httpx

from ..errors import InvalidInput

__all__ = ["LazyClient", "endpoint", "server_message", "snippet"]

MESSAGE_LIMIT = 500


def endpoint(base_url: str, path: str, what: str) -> str:
    """``{base_url}/v1/{path}``; ``base_url`` may end in ``/v1`` or not."""
    if not base_url.startswith(("http://", "https://")):
        raise InvalidInput(f"{what} base_url must be http(s)://..., not {base_url!r}")
    root = base_url.rstrip("/")
    if root.endswith("/v1"):
        root = root[: -len("/v1")]
    return f"{root}/v1/{path}"


class LazyClient:
    """One ``httpx.Client`` made on first use (thread-safe), with the API key as a bearer
    token; ``close`` closes it, and the next use makes another."""

    def __init__(
        self,
        timeout: float,
        api_key: str | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.timeout = timeout
        self._api_key = api_key
        self._transport = transport
        self._client: httpx.Client | None = None
        self._lock = threading.Lock()

    def get(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                headers = {"Accept": "application/json"}
                if self._api_key:
                    headers["Authorization"] = f"Bearer {self._api_key}"
                self._client = httpx.Client(
                    timeout=self.timeout, headers=headers, transport=self._transport
                )
            return self._client

    def close(self) -> None:
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()


def server_message(response: httpx.Response) -> str:
    """The server's own words: OpenAI's ``error.message``, a ``detail``, or the body."""
    try:
        payload = response.json()
    except ValueError:
        payload = None
    if isinstance(payload, dict):
        error = payload.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return snippet(error["message"])
        for key in ("error", "detail", "message"):
            value = payload.get(key)
            if isinstance(value, str):
                return snippet(value)
    text = response.text.strip()
    return snippet(text) if text else response.reason_phrase or f"HTTP {response.status_code}"


def snippet(text: str) -> str:
    return text if len(text) <= MESSAGE_LIMIT else text[:MESSAGE_LIMIT] + "..."
