"""A reranker behind the rerank API most servers speak.

``cohere`` (also Jina's, and what vLLM, Infinity and LiteLLM serve):
``POST /rerank {model, query, documents, top_n}`` -> ``{results: [{index,
relevance_score}]}``; ``tei`` (Hugging Face text-embeddings-inference):
``POST /rerank {query, texts}`` -> ``[{index, score}]``. The URL is the server's base
(``/rerank`` is added) or the endpoint itself (one ending in ``/rerank``).

It never retries: it sits on the read path, whose caller keeps its own order when it
fails (``retrieve.rerank.judge``). A timeout, a failed connection, an error status or a
body that is not one finite score per passage raises ``Unavailable``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

import httpx

from ..errors import InvalidInput, Unavailable
from .openai_http import LazyClient, server_message, snippet

__all__ = ["PROTOCOLS", "HTTPReranker", "RerankProtocol"]

RerankProtocol = Literal["cohere", "tei"]
PROTOCOLS: tuple[RerankProtocol, ...] = ("cohere", "tei")


class HTTPReranker:
    """Scores passages through ``{url}/rerank``, within ``timeout`` seconds."""

    def __init__(
        self,
        url: str,
        model: str | None = None,
        *,
        protocol: str = "cohere",
        api_key: str | None = None,
        timeout: float = 5.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        if not url.startswith(("http://", "https://")):
            raise InvalidInput(f"the rerank URL must be http(s)://..., not {url!r}")
        if protocol not in PROTOCOLS:
            raise InvalidInput(f"unknown rerank protocol {protocol!r}: use cohere or tei")
        root = url.rstrip("/")
        self.url = root if root.endswith("/rerank") else f"{root}/rerank"
        self.model = model
        self.protocol = protocol
        self.timeout = timeout
        self._http = LazyClient(timeout, api_key, transport)

    def __repr__(self) -> str:
        return f"HTTPReranker({self.url!r}, {self.model!r}, protocol={self.protocol!r})"

    @property
    def name(self) -> str:
        return f"{self.protocol}:{self.model or self.url}"

    def close(self) -> None:
        self._http.close()

    def rerank(self, query: str, documents: Sequence[str]) -> list[float]:
        docs = list(documents)
        if not docs:
            return []
        body: dict[str, Any]
        if self.protocol == "tei":
            body = {"query": query, "texts": docs}
        else:
            body = {"query": query, "documents": docs, "top_n": len(docs)}
            if self.model:
                body["model"] = self.model
        try:
            response = self._http.get().post(self.url, json=body)
        except httpx.TimeoutException as exc:
            raise Unavailable(f"reranker {self.url} timed out after {self.timeout:g} s") from exc
        except httpx.HTTPError as exc:
            raise Unavailable(f"reranker {self.url} failed: {exc!r}") from exc
        if response.status_code >= 400:
            raise Unavailable(
                f"reranker {self.url} answered HTTP {response.status_code}: "
                f"{server_message(response)}"
            )
        return self._scores(response, len(docs))

    def _scores(self, response: httpx.Response, count: int) -> list[float]:
        """One score per passage, by index; a passage the answer leaves out (a server
        that keeps only its top_n) ranks below every one it scored, in its own order."""

        def malformed(why: str) -> Unavailable:
            return Unavailable(f"reranker {self.url} did not return scores: {why}")

        try:
            payload = response.json()
        except ValueError:
            raise malformed(f"the body is not JSON ({snippet(response.text)!r})") from None
        key = "score" if self.protocol == "tei" else "relevance_score"
        rows = payload if self.protocol == "tei" else None
        if isinstance(payload, dict):
            rows = payload.get("results")
        if not isinstance(rows, list):
            raise malformed("no list of results")
        scores: list[float | None] = [None] * count
        for n, row in enumerate(rows):
            index = row.get("index") if isinstance(row, dict) else None
            value = row.get(key) if isinstance(row, dict) else None
            if type(index) is not int or not 0 <= index < count or scores[index] is not None:
                raise malformed(f"result {n} has a bad or repeated index {index!r}")
            if not isinstance(value, int | float) or not math.isfinite(value):
                raise malformed(f"result {n} has no finite {key}")
            scores[index] = float(value)
        if all(s is None for s in scores):
            raise malformed("no passage was scored")
        low = min(s for s in scores if s is not None) - 1.0
        return [low - n * 1e-6 if s is None else s for n, s in enumerate(scores)]
