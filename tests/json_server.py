"""A JSON-over-HTTP server on 127.0.0.1, for the tests of ports reached over HTTP (a chat
model, a reranker, an embedding server): a handler base that answers JSON and logs
nothing, and the server's life as a context manager."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

__all__ = ["JSONHandler", "serving"]


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
