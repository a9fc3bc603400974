"""The UI's pages, one module per page; each reads through ``viewer.brain`` and renders
views, nothing more."""

from __future__ import annotations

from fastapi import APIRouter

from . import auth, entities, graph, health, inbox, item, items, search

__all__ = ["PAGES"]

PAGES: tuple[APIRouter, ...] = (
    auth.router,
    items.router,
    item.router,
    search.router,
    entities.router,
    graph.router,
    inbox.router,
    health.router,
)
