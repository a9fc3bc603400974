"""A chat model behind any OpenAI-compatible ``POST /v1/chat/completions`` endpoint.

Errors map onto orgbrain's tree: connection failure, timeout, 5xx, 401/403 and 429 ->
``Unavailable``; any other 4xx -> ``InvalidInput`` with the server's message; a body that
is not a chat completion -> ``Unavailable`` (the dependency misbehaves, not the caller).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from ..errors import InvalidInput, Unavailable
from ..ports import Chat
from ..settings import Settings

__all__ = ["OpenAIChat", "make_chat"]

_MESSAGE_LIMIT = 500


class OpenAIChat:
    """``complete`` posts the messages and returns the first choice's content."""

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 30.0,
        *,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise InvalidInput(f"chat base_url must be http(s)://..., not {base_url!r}")
        if not model:
            raise InvalidInput("the chat model name is empty")
        root = base_url.rstrip("/")
        if root.endswith("/v1"):
            root = root[: -len("/v1")]
        self.url = f"{root}/v1/chat/completions"
        self.model = model
        self.timeout = timeout
        self._api_key = api_key
        self._transport = transport
        self._client: httpx.Client | None = None
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"OpenAIChat({self.url!r}, {self.model!r})"

    def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        json: bool = False,
        timeout: float | None = None,
    ) -> str:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [dict(m) for m in messages],
            "temperature": 0,
        }
        if json:
            body["response_format"] = {"type": "json_object"}
        try:
            response = self._http().post(
                self.url, json=body, timeout=self.timeout if timeout is None else timeout
            )
        except httpx.TimeoutException as exc:
            raise Unavailable(f"chat server {self.url} timed out ({exc!r})") from exc
        except httpx.HTTPError as exc:
            raise Unavailable(f"chat server {self.url} failed: {exc!r}") from exc
        status = response.status_code
        if status >= 400:
            message = _server_message(response)
            if status >= 500 or status in (401, 403, 429):
                raise Unavailable(f"chat server {self.url} answered HTTP {status}: {message}")
            raise InvalidInput(f"chat server {self.url} rejected the request: {message}")
        return self._content(response)

    def close(self) -> None:
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()

    def _http(self) -> httpx.Client:
        with self._lock:
            if self._client is None:
                headers = {"Accept": "application/json"}
                if self._api_key:
                    headers["Authorization"] = f"Bearer {self._api_key}"
                self._client = httpx.Client(
                    timeout=self.timeout, headers=headers, transport=self._transport
                )
            return self._client

    def _content(self, response: httpx.Response) -> str:
        try:
            payload = response.json()
        except ValueError:
            raise Unavailable(
                f"chat server {self.url} did not return JSON: {_snippet(response.text)!r}"
            ) from None
        try:
            content = payload["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise Unavailable(
                f"chat server {self.url} did not return a chat completion: "
                f"{_snippet(str(payload))!r}"
            ) from None
        if not isinstance(content, str):
            raise Unavailable(f"chat server {self.url} returned no text content")
        return content


def make_chat(settings: Settings) -> Chat | None:
    """The chat model the settings name, or None when none is configured."""
    if not settings.chat_url:
        return None
    if not settings.chat_model:
        raise Unavailable("ORGBRAIN_CHAT_URL is set but ORGBRAIN_CHAT_MODEL is not")
    return OpenAIChat(settings.chat_url, settings.chat_model, api_key=settings.chat_key)


def _server_message(response: httpx.Response) -> str:
    try:
        payload = response.json()
    except ValueError:
        payload = None
    if isinstance(payload, dict):
        error = payload.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return _snippet(error["message"])
        for key in ("error", "detail", "message"):
            if isinstance(payload.get(key), str):
                return _snippet(payload[key])
    return _snippet(response.text.strip()) or f"HTTP {response.status_code}"


def _snippet(text: str) -> str:
    return text if len(text) <= _MESSAGE_LIMIT else text[:_MESSAGE_LIMIT] + "..."
