"""An embedder for any OpenAI-compatible ``POST /v1/embeddings`` endpoint.

OpenAI itself, and the servers that copy its API (vLLM, llama.cpp, Ollama, text-embeddings-
inference, LiteLLM, ...). Errors map onto orgbrain's tree:

- connection failure, timeout, any 5xx, 401/403 (our key is wrong: a misconfigured
  dependency, not the caller's fault) and 429 -> ``Unavailable``;
- any other 4xx -> ``InvalidInput``, with the server's own message;
- a body that is not a list of embeddings, one per text -> ``Unavailable``;
- vectors of another dimension than configured -> ``Conflict``.

Transient failures (connection reset or refused, 429, 502, 503, 504) are retried once;
a timeout is not, since it has already cost the whole timeout.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

import httpx
import numpy as np

from ..errors import Conflict, InvalidInput, Unavailable
from ..ports import Vector
from .openai_http import LazyClient, endpoint, server_message, snippet

__all__ = ["OpenAIEmbedder"]

_RETRY_STATUS = frozenset({429, 502, 503, 504})
_RETRY_ERRORS = (httpx.ConnectError, httpx.ReadError, httpx.WriteError, httpx.RemoteProtocolError)


class _Transient(Exception):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class OpenAIEmbedder:
    """Embeds through ``{base_url}/v1/embeddings``; ``base_url`` may end in ``/v1`` or not.

    ``dim`` pins the dimension (a response of another one raises ``Conflict``); left as
    None it is learnt from the first response, and reading ``dim`` before any ``embed``
    makes one probe call. Rows come back L2-normalised, in the order of the texts.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        dim: int | None = None,
        timeout: float = 30.0,
        batch_size: int = 100,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not model:
            raise InvalidInput("the embedding model name is empty")
        if batch_size < 1:
            raise InvalidInput(f"batch_size must be at least 1, not {batch_size}")
        if dim is not None and dim < 1:
            raise InvalidInput(f"dim must be positive, not {dim}")
        self.url = endpoint(base_url, "embeddings", "embedding")
        self.model = model
        self.batch_size = batch_size
        self.timeout = timeout
        self.retry_delay = 0.25
        self._dim = dim
        self._pinned = dim is not None
        self._http = LazyClient(timeout, api_key, transport)
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"OpenAIEmbedder({self.url!r}, {self.model!r}, dim={self._dim})"

    @property
    def name(self) -> str:
        return self.model

    @property
    def dim(self) -> int:
        if self._dim is None:
            self.embed(["dim probe"])
        assert self._dim is not None  # embed sets it or raises
        return self._dim

    def embed(self, texts: Sequence[str]) -> Vector:
        if isinstance(texts, str):
            raise InvalidInput("embed takes a sequence of texts, not a single string")
        batch = list(texts)
        for i, text in enumerate(batch):
            if not isinstance(text, str):
                raise InvalidInput(f"text {i} is a {type(text).__name__}, not a str")
        if not batch:
            return np.zeros((0, self.dim), dtype=np.float32)
        parts = [
            self._embed_batch(batch[start : start + self.batch_size])
            for start in range(0, len(batch), self.batch_size)
        ]
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> OpenAIEmbedder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- one request --------------------------------------------------------------------

    def _embed_batch(self, texts: list[str]) -> Vector:
        body = {"model": self.model, "input": texts}
        try:
            response = self._post(body)
        except _Transient as first:
            time.sleep(self.retry_delay)
            try:
                response = self._post(body)
            except _Transient as second:
                raise Unavailable(
                    f"embedding server {self.url} failed twice: {first.message}; then "
                    f"{second.message}"
                ) from None
        return self._vectors(response, len(texts))

    def _post(self, body: dict[str, Any]) -> httpx.Response:
        try:
            response = self._http.get().post(self.url, json=body)
        except httpx.TimeoutException as exc:
            raise Unavailable(
                f"embedding server {self.url} timed out after {self.timeout:g} s ({exc!r})"
            ) from exc
        except _RETRY_ERRORS as exc:
            raise _Transient(f"{type(exc).__name__}: {exc}") from exc
        except httpx.HTTPError as exc:
            raise Unavailable(f"embedding server {self.url} failed: {exc!r}") from exc
        status = response.status_code
        if status < 400:
            return response
        message = server_message(response)
        if status in _RETRY_STATUS:
            raise _Transient(f"HTTP {status}: {message}")
        if status >= 500:
            raise Unavailable(f"embedding server {self.url} answered HTTP {status}: {message}")
        if status in (401, 403):
            raise Unavailable(
                f"embedding server {self.url} refused our credentials (HTTP {status}): "
                f"{message}; check the API key"
            )
        raise InvalidInput(f"embedding server {self.url} rejected the request: {message}")

    def _vectors(self, response: httpx.Response, count: int) -> Vector:
        def malformed(why: str) -> Unavailable:
            return Unavailable(f"embedding server {self.url} did not return embeddings: {why}")

        try:
            payload = response.json()
        except ValueError:
            raise malformed(f"the body is not JSON ({snippet(response.text)!r})") from None
        data = payload.get("data") if isinstance(payload, dict) else None
        if not isinstance(data, list):
            raise malformed("no 'data' list in the response")
        if len(data) != count:
            raise malformed(f"{len(data)} embeddings for {count} texts")
        rows: list[Any] = [None] * count
        for position, entry in enumerate(data):
            if not isinstance(entry, dict):
                raise malformed(f"data[{position}] is not an object")
            index = entry.get("index", position)
            if type(index) is not int or not 0 <= index < count or rows[index] is not None:
                raise malformed(f"data[{position}] has a bad or repeated index {index!r}")
            rows[index] = entry.get("embedding")
        try:
            vectors = np.asarray(rows, dtype=np.float32)
        except (TypeError, ValueError):
            raise malformed("embeddings are not equal-length lists of numbers") from None
        if vectors.ndim != 2 or vectors.shape[1] == 0:
            raise malformed(f"embeddings have shape {vectors.shape}")
        if not np.isfinite(vectors).all():
            raise malformed("embeddings hold NaN or infinity")
        self._check_dim(vectors.shape[1])
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        if (norms == 0).any():
            raise malformed("an embedding is all zeros")
        return np.ascontiguousarray(vectors / norms, dtype=np.float32)

    def _check_dim(self, got: int) -> None:
        with self._lock:
            if self._dim is None:
                self._dim = got
                return
            expected = self._dim
        if got != expected:
            how = "configured" if self._pinned else "first returned"
            raise Conflict(
                f"embedding model {self.model!r} at {self.url} returned {got}-dim vectors, "
                f"but {expected} dims were {how}; vectors of different sizes cannot share an "
                f"index"
            )
