"""The client's HTTP: one retry on a transient failure, JSON in, problems raised as the
exception their ``code`` names."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from typing import Any, TypeVar
from urllib.parse import quote

import httpx
from pydantic import ValidationError

from ..errors import (
    Conflict,
    Forbidden,
    InvalidInput,
    NotFound,
    OrgBrainError,
    TooLarge,
    Unauthenticated,
    Unavailable,
    Unsupported,
)
from ..views import View

__all__ = ["DEFAULT_TIMEOUT", "Transport", "drop_none", "error_from_response", "segment"]

DEFAULT_TIMEOUT = 30.0
V = TypeVar("V", bound=View)

_RETRY_STATUSES = frozenset({502, 503, 504})
_TRANSIENT = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.ReadError,
    httpx.WriteError,
    httpx.RemoteProtocolError,
    httpx.PoolTimeout,
)
# Only for a response whose body names no code we know (a proxy's 502 page, an older
# server): the class its status says. A known code always decides (``from_code``).
_BY_STATUS: dict[int, type[OrgBrainError]] = {
    401: Unauthenticated,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    413: TooLarge,
    415: Unsupported,
}


class Transport:
    """An API key's session with one server."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        retry_wait: float = 0.2,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._retry_wait = retry_wait
        self._http = httpx.Client(
            base_url=self.base_url,
            headers={"Authorization": f"Bearer {api_key}", "User-Agent": "orgbrain-client"},
            timeout=timeout,
            transport=transport,
        )

    def close(self) -> None:
        self._http.close()

    def view(self, shape: type[V], method: str, path: str, **kwargs: Any) -> V:
        """The response body, parsed as the view ``shape``."""
        data = self.json(method, path, **kwargs)
        try:
            return shape.model_validate(data)
        except ValidationError as exc:
            raise Unavailable(f"{method} {path}: the server sent an unknown shape: {exc}") from None

    def json(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        response = self.request(method, path, **kwargs)
        try:
            data = response.json()
        except ValueError:
            raise Unavailable(f"{method} {path}: the server sent no JSON") from None
        if not isinstance(data, dict):
            raise Unavailable(f"{method} {path}: the server sent {type(data).__name__}")
        return data

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        request = self._http.build_request(method, path, **kwargs)
        response = self._send(request, stream=False)
        if response.is_error:
            raise error_from_response(response)
        return response

    def stream(
        self, method: str, path: str, chunk_size: int | None, **kwargs: Any
    ) -> Iterator[bytes]:
        """The body as it arrives (in ``chunk_size`` pieces; None: as each piece comes off
        the wire); the request is made (and its errors raised) now."""
        request = self._http.build_request(method, path, **kwargs)
        response = self._send(request, stream=True)
        if response.is_error:
            response.read()
            response.close()
            raise error_from_response(response)
        return _chunks(response, chunk_size)

    def _send(self, request: httpx.Request, *, stream: bool) -> httpx.Response:
        """Send, and once more after a transient failure."""
        request.read()  # bodies here are in memory: held as bytes, they can be sent twice
        try:
            try:
                response = self._http.send(request, stream=stream)
            except _TRANSIENT:
                time.sleep(self._retry_wait)
                return self._http.send(request, stream=stream)
            if response.status_code in _RETRY_STATUSES:
                response.close()
                time.sleep(_retry_after(response, self._retry_wait))
                return self._http.send(request, stream=stream)
            return response
        except httpx.TransportError as exc:
            raise Unavailable(
                f"{request.method} {request.url}: {type(exc).__name__}: {exc}"
            ) from exc


def error_from_response(response: httpx.Response) -> OrgBrainError:
    """The exception a problem response stands for: by its ``code``, else by its status."""
    code: str | None = None
    detail = response.reason_phrase or f"HTTP {response.status_code}"
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict):
        if isinstance(body.get("code"), str):
            code = body["code"]
        if isinstance(body.get("detail"), str):
            detail = body["detail"]
    fallback = _BY_STATUS.get(response.status_code)
    if fallback is None:
        fallback = Unavailable if response.status_code >= 500 else InvalidInput
    return OrgBrainError.from_code(code, detail, fallback=fallback)


def _retry_after(response: httpx.Response, default: float) -> float:
    value = response.headers.get("Retry-After", "")
    return min(float(value), 5.0) if value.isdigit() else default


def _chunks(response: httpx.Response, chunk_size: int | None) -> Iterator[bytes]:
    try:
        yield from response.iter_bytes(chunk_size)
    finally:
        response.close()


def segment(value: str) -> str:
    """``value`` as one URL path segment."""
    return quote(str(value), safe="")


def drop_none(values: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in values.items() if v is not None}
