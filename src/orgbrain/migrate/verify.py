"""Checking a move: the two brains hold the same records, the new one's blobs are the old
one's bytes, and both answer a few searches with the same top hit."""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import replace

from ..context import BrainContext
from ..errors import NotFound
from ..keys import KeyStore
from ..move_report import BlobCheck, CountCheck, MoveOptions, ProbeCheck, Verification
from ..ports import RECORD_KINDS, BlobStore, ItemFilter, RecordKind, Store
from ..retrieve import Searcher, get_plan
from ..scopes import Visibility

__all__ = ["verify"]

_LISTED = 20  # keys listed per problem; the counts say how many


def verify(
    source: BrainContext,
    target: BrainContext,
    source_keys: KeyStore,
    target_keys: KeyStore,
    options: MoveOptions | None = None,
) -> Verification:
    """Counts per kind per workspace on both sides; every blob the new brain names, its
    size against the source's, and a sample (``options.sample``) hashed on both; the top
    hit of ``options.probes`` searches on both. Nothing is written to either."""
    opts = options or MoveOptions()
    return Verification(
        counts=_counts(source.store, target.store, source_keys, target_keys),
        blobs=_blobs(source.blobs, target.blobs, target.store, opts.sample),
        probes=tuple(_probes(source, target, opts.probes)),
    )


def _counts(source: Store, target: Store, sk: KeyStore, tk: KeyStore) -> tuple[CountCheck, ...]:
    out: list[CountCheck] = []
    sides: list[tuple[str, Mapping[str, int], Mapping[str, int]]] = [
        (kind, source.count_records(kind), target.count_records(kind)) for kind in RECORD_KINDS
    ]
    sides.append(
        (
            "keys",
            Counter(k.workspace for k in sk.list_keys()),
            Counter(k.workspace for k in tk.list_keys()),
        )
    )
    for kind, left, right in sides:
        for ws in sorted(set(left) | set(right)):
            out.append(CountCheck(kind, ws, left.get(ws, 0), right.get(ws, 0)))
    return tuple(out)


def _named_blobs(store: Store) -> Iterator[str]:
    """Every blob key the store's items and versions name, each once."""
    seen: set[str] = set()
    kinds: tuple[RecordKind, ...] = ("items", "versions")
    for kind in kinds:
        after: int | None = 0
        while after is not None:
            page = store.export_records(kind, after=after, limit=1000)
            for record in page.records:
                for column in ("blob_key", "text_key"):
                    key = record.get(column)
                    if key and str(key) not in seen:
                        seen.add(str(key))
                        yield str(key)
            after = page.next_after


def _blobs(source: BlobStore, target: BlobStore, named_by: Store, sample: int | None) -> BlobCheck:
    named = sized = absent = 0
    missing: list[str] = []
    differ: list[str] = []
    picked: list[str] = []
    rng = random.Random(0)  # the same sample each time the same brain is checked
    for key in _named_blobs(named_by):
        named += 1
        try:
            size = source.size(key)
        except NotFound:
            absent += 1
            continue
        try:
            there = target.size(key)
        except NotFound:
            missing.append(key)
            continue
        sized += 1
        if there != size:
            differ.append(key)
            continue
        # Reservoir sampling: every key equally likely to be hashed, in one pass.
        if sample is None or len(picked) < sample:
            picked.append(key)
        elif sample and (slot := rng.randrange(sized)) < sample:
            picked[slot] = key
    for key in picked:
        if _sha256(source, key) != _sha256(target, key):
            differ.append(key)
    return BlobCheck(
        named=named,
        sized=sized,
        hashed=len(picked),
        missing=tuple(missing[:_LISTED]),
        differ=tuple(differ[:_LISTED]),
        absent_in_source=absent,
    )


def _sha256(blobs: BlobStore, key: str) -> str:
    digest = hashlib.sha256()
    for chunk in blobs.stream(key):
        digest.update(chunk)
    return digest.hexdigest()


def _probes(source: BrainContext, target: BrainContext, wanted: int) -> Iterator[ProbeCheck]:
    """Searches for what the source's own notes and sections say, spread over its
    workspaces, asked of both as their local owner (not logged: nothing is written)."""
    if wanted <= 0:
        return
    plan = get_plan(source.settings.plan)
    queries = _probe_queries(source.store, wanted)
    for ws, query in queries:
        tops = []
        for ctx in (source, target):
            reader = replace(ctx, workspace=ws, principal=None, search_log=False)
            hits = Searcher(reader).search(query, plan, k=5).hits
            tops.append(hits[0].item.id if hits else None)
        yield ProbeCheck(ws, query, tops[0], tops[1])


def _probe_queries(store: Store, wanted: int) -> list[tuple[str, str]]:
    pools: list[list[tuple[str, str]]] = []
    for ws in store.workspaces():
        page = store.list_items(
            ws,
            ItemFilter(storage_classes=("note", "section"), indexed=True),
            Visibility.everything(),
            limit=200,
        )
        texts = [(ws, q) for item in page.items if (q := _query_of(item.label, item.body))]
        step = max(1, len(texts) // wanted)
        pools.append(texts[::step])
    out: list[tuple[str, str]] = []
    while len(out) < wanted and any(pools):  # the workspaces take turns
        for pool in pools:
            if pool and len(out) < wanted:
                out.append(pool.pop(0))
    return out


def _query_of(label: str, body: str) -> str:
    """A label of a few words, else the body's first twelve."""
    words = label.split()
    if len(words) >= 2:
        return " ".join(words[:12])
    return " ".join(body.split()[:12])
