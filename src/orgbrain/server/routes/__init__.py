"""The HTTP routes, one module per concern; each route parses, authenticates and calls the
Brain facade, nothing more."""

from __future__ import annotations

from fastapi import APIRouter

from .. import routes_context
from . import admin, content, files, health, items, jobs, loop, memory, notes, search, writeback

__all__ = ["ROUTERS"]

ROUTERS: tuple[APIRouter, ...] = (
    health.router,
    admin.me_router,
    files.router,
    notes.router,
    items.router,
    content.router,
    memory.router,
    search.router,
    jobs.router,
    writeback.router,
    routes_context.router,
    loop.router,
    admin.router,
)
