"""orgbrain's HTTP service: ``create_app(brain, keys)`` is the ASGI app.

Needs the ``server`` extra (FastAPI, uvicorn, python-multipart); importing this package
without them fails with a message that names it.
"""

from __future__ import annotations

try:
    import fastapi  # noqa: F401
    import jinja2  # noqa: F401
    import python_multipart  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        f"orgbrain's HTTP server needs its extra: pip install 'orgbrain[server]' ({exc})"
    ) from exc

from .app import BackgroundServer, Lifespan, create_app
from .auth import Caller, ServerConfig, ServerContext, caller_for
from .problems import Problem, status_for

__all__ = [
    "BackgroundServer",
    "Caller",
    "Lifespan",
    "Problem",
    "ServerConfig",
    "ServerContext",
    "caller_for",
    "create_app",
    "status_for",
]
