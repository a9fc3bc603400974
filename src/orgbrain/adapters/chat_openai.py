"""A chat model behind any OpenAI-compatible ``POST /v1/chat/completions`` endpoint.

Errors map onto orgbrain's tree: connection failure, timeout, 5xx, 401/403 and 429 ->
``Unavailable``; any other 4xx -> ``InvalidInput`` with the server's message; a body that
is not a chat completion -> ``Unavailable`` (the dependency misbehaves, not the caller).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from ..errors import InvalidInput, Unavailable
from ..ports import Chat
from ..settings import Settings
from .openai_http import LazyClient, endpoint, server_message, snippet

__all__ = ["OpenAIChat", "make_chat"]


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
        if not model:
            raise InvalidInput("the chat model name is empty")
        self.url = endpoint(base_url, "chat/completions", "chat")
        self.model = model
        self.timeout = timeout
        self._http = LazyClient(timeout, api_key, transport)

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
            response = self._http.get().post(
                self.url, json=body, timeout=self.timeout if timeout is None else timeout
            )
        except httpx.TimeoutException as exc:
            raise Unavailable(f"chat server {self.url} timed out ({exc!r})") from exc
        except httpx.HTTPError as exc:
            raise Unavailable(f"chat server {self.url} failed: {exc!r}") from exc
        status = response.status_code
        if status >= 400:
            message = server_message(response)
            if status >= 500 or status in (401, 403, 429):
                raise Unavailable(f"chat server {self.url} answered HTTP {status}: {message}")
            raise InvalidInput(f"chat server {self.url} rejected the request: {message}")
        return self._content(response)

    def close(self) -> None:
        self._http.close()

    def _content(self, response: httpx.Response) -> str:
        try:
            payload = response.json()
        except ValueError:
            raise Unavailable(
                f"chat server {self.url} did not return JSON: {snippet(response.text)!r}"
            ) from None
        try:
            content = payload["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise Unavailable(
                f"chat server {self.url} did not return a chat completion: "
                f"{snippet(str(payload))!r}"
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
