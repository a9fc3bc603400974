"""The facade's move of a whole brain into another: ``Brain.move_to`` (``orgbrain
migrate``; docs/postgres.md, "Moving house")."""

from __future__ import annotations

from ..context import BrainContext
from ..errors import Forbidden
from ..keys import KeyStore
from ..migrate import House, MoveOptions, MoveReport, Progress, move

__all__ = ["MovingFacade"]


class MovingFacade:
    """``Brain``'s move (one class of the facade)."""

    _ctx: BrainContext

    def move_to(
        self,
        target: MovingFacade,
        *,
        keys: KeyStore,
        target_keys: KeyStore,
        name: str,
        target_name: str,
        options: MoveOptions | None = None,
        progress: Progress | None = None,
    ) -> MoveReport:
        """Copy this brain, every workspace of it, with its API keys (``keys``) and blobs,
        into ``target`` (an empty brain, or one a cut-short move of this brain left),
        then verify the two. ``name`` and ``target_name`` name them in the report.
        Only the local owner moves a brain."""
        if self._ctx.principal is not None or target._ctx.principal is not None:
            raise Forbidden("only the brain's local owner moves it")
        return move(
            House(self._ctx, keys, name),
            House(target._ctx, target_keys, target_name),
            options,
            progress=progress,
        )
