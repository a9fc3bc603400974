"""A JSON-over-HTTP server on 127.0.0.1, for the tests of ports reached over HTTP (a chat
model, a reranker, an embedding server): a handler base that answers JSON and logs
nothing, and the server's life as a context manager."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

__all__ = ["ChatFake", "JSONHandler", "serving"]


class JSONHandler(BaseHTTPRequestHandler):
    def _send(self, status: int, payload: object) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


class ChatFake(JSONHandler):
    """POST /v1/chat/completions as a chat model that answers one kind of question (its
    user message holds ``question``) as ``mode`` says, and finds no statements in any
    other (the statement extractor shares the model). The failures every tier must
    survive are common: ``garbage`` (no JSON), ``error`` (a 500) and ``slow`` (2 s, then
    ``late``); any other mode is the subclass's ``answer``. ``asked`` keeps the
    questions."""

    question: ClassVar[str] = ""
    late: ClassVar[dict[str, object]] = {}
    mode: ClassVar[str] = ""
    asked: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        text = body["messages"][-1]["content"]
        if self.question not in text:
            self._reply(json.dumps({"statements": []}))
            return
        self.asked.append(text)
        if self.mode == "garbage":
            self._reply("sure, that one looks right :)")
        elif self.mode == "error":
            self._send(500, {"error": {"message": "overloaded"}})
        elif self.mode == "slow":
            time.sleep(2)
            self._reply(json.dumps(self.late))
        else:
            self._reply(json.dumps(self.answer(text)))

    def answer(self, text: str) -> dict[str, object]:
        raise NotImplementedError

    def _reply(self, content: str) -> None:
        self._send(200, {"choices": [{"message": {"role": "assistant", "content": content}}]})


@contextmanager
def serving(
    handler: type[BaseHTTPRequestHandler], *, poll_s: float = 0.5, quiet: bool = False
) -> Iterator[str]:
    """``handler`` served on a free port, its base URL yielded; stopped on exit. ``quiet``
    drops the tracebacks of answers whose client has gone (a request that timed out)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    if quiet:
        httpd.handle_error = lambda request, client_address: None  # type: ignore[method-assign]
    thread = threading.Thread(target=httpd.serve_forever, args=(poll_s,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()
