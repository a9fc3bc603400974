"""The ``writeback`` job kind (asked for by ``orgbrain.writeback.request_writeback``):
one pass per run, with the eyes and write rights of whoever asked for it."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..context import BrainContext
from ..errors import InvalidInput, OrgBrainError, Unavailable
from ..ports import Job
from ..writeback import WRITEBACK_KIND, parse_products, run_pass, writer_for
from .derive import known_entities
from .index import Asker
from .worker import Outcome, Settle

__all__ = ["WriteBackJobs"]


class WriteBackJobs:
    kind = WRITEBACK_KIND

    def __init__(self, batch: int = 4) -> None:
        self.batch = batch

    def run(self, ctx: BrainContext, jobs: Sequence[Job], settle: Settle) -> None:
        for job in jobs:
            settle(self._one(Asker.of(job).context(ctx), job))

    def _one(self, ctx: BrainContext, job: Job) -> Outcome:
        data: Any = job.payload.get("products")
        try:
            if not isinstance(data, dict):
                raise InvalidInput("the job holds no work products")
            products = parse_products(str(job.payload.get("run_id", "")), data)
            run_pass(ctx, products, writer_for(ctx, known_entities(ctx)))
        except Unavailable as exc:
            return Outcome(job.id, f"{exc.code}: {exc.message}", retry=True)
        except OrgBrainError as exc:
            return Outcome(job.id, f"{exc.code}: {exc.message}")
        return Outcome(job.id)
