"""``create_app``: the HTTP API as an ASGI app (FastAPI), and a loopback server in a thread.

One app serves every workspace from one shared brain: each request's key decides the
workspace and principal, and the route works on ``brain.for_principal(principal)``.

Around the routes, outermost first: a JSON-lines access log (method, path, status, ms,
workspace, key id; never bodies or keys), a deadline (a request that has not started its
response in ``deadline_s`` gets a 503 problem) and a body cap for JSON requests. Other
ASGI apps (the MCP server) are mounted with ``extra_mounts`` and get neither the deadline
nor the body cap; ``lifespans`` lets them run their own startup and shutdown.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import threading
import time
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from importlib import resources
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from types import TracebackType
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.openapi.utils import get_openapi
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from .. import deadline
from ..brain import Brain
from ..errors import Unavailable
from ..keys import KeyStore
from .auth import ServerConfig, ServerContext
from .problems import Problem, error_response, install_problem_handlers, problem_response
from .routes import ROUTERS
from .ui import UiConfig, install_ui
from .worker import WorkerPool

__all__ = ["BackgroundServer", "Lifespan", "create_app"]

access_log = logging.getLogger("orgbrain.http.access")
log = logging.getLogger("orgbrain.http")
DOCS_ASSETS = "/docs/assets"

Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[object]]

DESCRIPTION = """\
orgbrain's HTTP API: an organisation's shared memory. Every `/v1` route takes an API key
(`Authorization: Bearer ob_...`); the key decides the workspace and what may be seen.
Errors are `application/problem+json` with a stable `code`."""


def create_app(
    brain: Brain,
    keys: KeyStore,
    *,
    config: ServerConfig | None = None,
    extra_mounts: Mapping[str, ASGIApp] | None = None,
    lifespans: Sequence[Lifespan] = (),
    ui: UiConfig | None = None,
) -> FastAPI:
    """The API over ``brain`` (the shared, unscoped brain) with keys from ``keys``.

    ``extra_mounts`` maps a path prefix (e.g. ``"/mcp"``) to an ASGI app served beside the
    API; ``lifespans`` are entered, in order, after the job workers start. The context
    (brain, keys, worker, config) is ``app.state.orgbrain``; a mounted transport
    authenticates with ``orgbrain.server.auth.caller_for(ctx, authorization, permission)``.
    The web UI is served under ``/ui`` (``ui`` says how it signs its sessions).
    """
    cfg = config or ServerConfig()
    workers = WorkerPool(brain, threads=cfg.index_threads, lease_s=cfg.job_lease_s)
    # Every request's brain is this one seen through its key: searches count as "http"
    # (an MCP tool call says "mcp" itself).
    ctx = ServerContext(brain.via("http"), keys, workers, cfg)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Nothing to recover: unfinished jobs are in the queue, and an expired lease
        # makes a job that was running when a process died claimable again. What a kill
        # left between a blob's write and its row's commit is swept (older than an hour,
        # so another process's upload in flight is never taken).
        await run_in_threadpool(_sweep, brain)
        ctx.worker.start()
        try:
            async with AsyncExitStack() as stack:
                for hook in lifespans:
                    await stack.enter_async_context(hook(app))
                yield
        finally:
            await run_in_threadpool(ctx.worker.stop)

    app = FastAPI(
        title="orgbrain",
        version=_version(),
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
    )
    _serve_docs(app)
    app.state.orgbrain = ctx
    install_problem_handlers(app)
    for router in ROUTERS:
        app.include_router(router)
    install_ui(app, ui)
    mounts = dict(extra_mounts or {})
    for prefix, sub in mounts.items():
        app.mount(prefix, sub)
    exempt = tuple(p.rstrip("/") for p in mounts)
    # Added innermost first: the access log wraps everything, the deadline wraps the rest.
    app.add_middleware(BodyLimitMiddleware, max_bytes=cfg.max_json_bytes, exempt=exempt)
    app.add_middleware(DeadlineMiddleware, seconds=cfg.deadline_s, exempt=exempt)
    app.add_middleware(AccessLogMiddleware)

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title,
                version=app.version,
                description=app.description,
                routes=app.routes,
            )
            components = schema.setdefault("components", {}).setdefault("schemas", {})
            components["Problem"] = Problem.model_json_schema(
                ref_template="#/components/schemas/{model}"
            )
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    return app


def _version() -> str:
    try:
        return version("orgbrain")
    except PackageNotFoundError:
        return "0"


def _exempt(scope: Scope, prefixes: tuple[str, ...]) -> bool:
    path = str(scope.get("path", ""))
    return any(path == p or path.startswith(p + "/") for p in prefixes)


# -- middleware ---------------------------------------------------------------------------


class AccessLogMiddleware:
    """One JSON line per request on ``orgbrain.http.access``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        t0 = time.perf_counter()
        status = 500
        state: dict[str, Any] = scope.setdefault("state", {})

        async def send_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, send_status)
        finally:
            record = {
                "event": "http",
                "method": scope.get("method"),
                "path": scope.get("path"),
                "status": status,
                "ms": round((time.perf_counter() - t0) * 1000, 2),
                "workspace": state.get("workspace"),
                "key_id": state.get("key_id"),
            }
            access_log.info(json.dumps(record))


class DeadlineMiddleware:
    """A request must start its response within ``seconds`` or it gets a 503 problem.

    The work itself is not killed (a sync route runs in a thread, which cannot be): it
    finishes in the background and whatever it sends is dropped. Once the response has
    started (a file streaming out, say) the deadline no longer applies.
    """

    def __init__(self, app: ASGIApp, *, seconds: float, exempt: tuple[str, ...] = ()) -> None:
        self.app = app
        self.seconds = seconds
        self.exempt = exempt
        self._stragglers: set[asyncio.Future[None]] = set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.seconds <= 0 or _exempt(scope, self.exempt):
            await self.app(scope, receive, send)
            return
        started = asyncio.Event()
        late = False

        async def guarded_send(message: Message) -> None:
            if late:
                return
            if message["type"] == "http.response.start":
                started.set()
            await send(message)

        # The request's work sees its deadline (orgbrain.deadline), in its task and in the
        # threads it hands sync work to, so a store can bound its statements by it.
        with deadline.within(self.seconds):
            task = asyncio.ensure_future(self.app(scope, receive, guarded_send))
        waiter = asyncio.ensure_future(started.wait())
        try:
            await asyncio.wait(
                {task, waiter}, timeout=self.seconds, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            waiter.cancel()
        if task.done() or started.is_set():
            await task
            return
        late = True
        self._stragglers.add(task)
        task.add_done_callback(self._forget)
        response = error_response(
            Unavailable(f"the request did not finish within {self.seconds:g} s")
        )
        await response(scope, receive, send)

    def _forget(self, task: asyncio.Future[None]) -> None:
        self._stragglers.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("a request past its deadline then failed: %r", task.exception())


class BodyLimitMiddleware:
    """Cap request bodies (JSON) at ``max_bytes``; uploads have their own, larger cap."""

    UPLOAD_PATHS = ("/v1/files", "/ui/files")

    def __init__(self, app: ASGIApp, *, max_bytes: int, exempt: tuple[str, ...] = ()) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.exempt = exempt

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != "http"
            or scope.get("path") in self.UPLOAD_PATHS
            or _exempt(scope, self.exempt)
        ):
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length" and value.isdigit() and int(value) > self.max_bytes:
                response = problem_response(
                    413, "too_large", f"request bodies are at most {self.max_bytes} bytes"
                )
                await response(scope, receive, send)
                return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise StarletteHTTPException(
                        413, f"request bodies are at most {self.max_bytes} bytes"
                    )
            return message

        await self.app(scope, counted, send)


# -- a server in a thread -----------------------------------------------------------------


class BackgroundServer:
    """Serve an ASGI app with uvicorn on a loopback port in a daemon thread.

    ``with BackgroundServer(app) as server: httpx.get(server.url + "/healthz")``. Port 0
    (the default) takes a free port; the socket is bound before the thread starts.
    """

    def __init__(
        self, app: ASGIApp, *, host: str = "127.0.0.1", port: int = 0, timeout: float = 60.0
    ) -> None:
        import uvicorn

        # IPPROTO_TCP explicitly: asyncio sets TCP_NODELAY only on sockets that say TCP,
        # and without it Nagle + delayed ACK add ~40 ms to every keep-alive response.
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((host, port))
        self.host = host
        self.port = int(self._sock.getsockname()[1])
        self.url = f"http://{host}:{self.port}"
        self._timeout = timeout
        config = uvicorn.Config(
            app,
            log_config=None,
            access_log=False,
            lifespan="on",
            timeout_graceful_shutdown=5,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run,
            kwargs={"sockets": [self._sock]},
            name=f"uvicorn-{self.port}",
            daemon=True,
        )

    def start(self) -> BackgroundServer:
        self._thread.start()
        deadline = time.monotonic() + self._timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise Unavailable(f"the server on {self.url} did not start")
            time.sleep(0.01)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(self._timeout)
        self._sock.close()

    def __enter__(self) -> BackgroundServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def _sweep(brain: Brain) -> None:
    try:
        report = brain.sweep()
    except Exception:  # a sweep that fails must not keep the server from starting
        log.warning("the startup sweep failed", exc_info=True)
        return
    if report.blobs_removed or report.partial_removed or report.forgets_finished:
        log.info(
            "swept %d unnamed blobs and %d partial writes; finished %d interrupted forgets",
            report.blobs_removed,
            report.partial_removed,
            report.forgets_finished,
        )
    if report.owed_relayed:
        log.info("asked for the work %d interrupted writes owed", report.owed_relayed)


def _serve_docs(app: FastAPI) -> None:
    """Swagger UI at /docs from assets inside an installed package (fastapi-offline), so
    the page works with no network (FastAPI's default loads them from a CDN)."""
    assets = Path(str(resources.files("fastapi_offline") / "static"))
    app.mount(DOCS_ASSETS, StaticFiles(directory=assets), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=f"{app.title} API",
            swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{DOCS_ASSETS}/favicon.png",
        )
