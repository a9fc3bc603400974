"""The graph view: an item's or entity's neighbourhood, 1 or 2 hops out with the same caps
as the ``brain_neighborhood`` tool, drawn by the vendored Cytoscape.js; click a node to
see it, double-click to walk there. The page works from the JSON it carries; expanding a
node fetches ``/ui/graph/<id>.json``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from starlette.responses import JSONResponse, Response

from ....views import ItemView, NeighborhoodView
from ..access import Viewing, ui_state
from ..routing import HtmlRoute

__all__ = ["elements", "router"]

router = APIRouter(route_class=HtmlRoute, include_in_schema=False)

Hops = Annotated[int, Query(ge=1, le=2)]


def _node(item: ItemView, depth: int) -> dict[str, Any]:
    return {
        "data": {
            "id": item.id,
            "label": (item.label or item.name or item.id)[:60],
            "cls": item.storage_class,
            "kind": item.kind,
            "scope": item.scope,
            "depth": depth,
            # Sections of two files may share a label ("Billing"): the list says whose.
            "file": item.name if item.storage_class == "section" else None,
            "href": f"/ui/entities/{item.id}"
            if item.storage_class == "entity"
            else f"/ui/items/{item.id}",
        }
    }


def elements(n: NeighborhoodView) -> dict[str, Any]:
    """Cytoscape's elements (nodes, then edges between nodes shown), and whether a cap
    left something out."""
    nodes = [_node(n.center, 0)]
    seen = {n.center.id}
    for hop in n.hops:
        for item in hop.items:
            if item.id not in seen:
                seen.add(item.id)
                nodes.append(_node(item, hop.depth))
    edges = [
        {"data": {"id": e.id, "source": e.src, "target": e.dst, "type": e.type}}
        for hop in n.hops
        for e in hop.edges
        if e.src in seen and e.dst in seen
    ]
    return {
        "center": n.center.id,
        "nodes": nodes,
        "edges": edges,
        "truncated": any(h.truncated for h in n.hops),
    }


@router.get("/ui/graph/{item_id}.json")
def graph_json(viewer: Viewing, item_id: str, hops: Hops = 1) -> JSONResponse:
    view = NeighborhoodView.of(viewer.brain.neighborhood(item_id, hops), body_chars=0)
    return JSONResponse(elements(view), headers={"Cache-Control": "no-store"})


@router.get("/ui/graph/{item_id}")
def graph_page(request: Request, viewer: Viewing, item_id: str, hops: Hops = 1) -> Response:
    view = NeighborhoodView.of(viewer.brain.neighborhood(item_id, hops), body_chars=0)
    data = elements(view)
    return ui_state(request).renderer.html(
        "graph.html",
        {
            "viewer": viewer,
            "nav": "graph",
            "center": view.center,
            "hops": hops,
            "data": data,
            "counts": {"nodes": len(data["nodes"]), "edges": len(data["edges"])},
        },
    )
