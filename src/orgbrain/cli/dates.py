"""The CLI's one way to read a date: ``2026-02-03`` (midnight UTC) or an RFC 3339
date-time (``2026-02-03T09:30:00Z``, ``2026-02-03T09:30:00+01:00``)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import click

__all__ = ["DATE", "DateParam", "parse_date"]


def parse_date(text: str) -> datetime:
    """``text`` as an aware date-time; ``ValueError`` with what was expected."""
    value = text.strip()
    try:
        if len(value) == 10:
            return datetime.combine(date.fromisoformat(value), datetime.min.time(), tzinfo=UTC)
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"{text!r} is not a date: use 2026-02-03 or 2026-02-03T09:30:00Z"
        ) from None
    if parsed.tzinfo is None:
        raise ValueError(f"{text!r} has no time zone: add Z or an offset such as +01:00")
    return parsed.astimezone(UTC)


class DateParam(click.ParamType[datetime]):
    name = "DATE"

    def convert(
        self, value: object, param: click.Parameter | None, ctx: click.Context | None
    ) -> datetime:
        if isinstance(value, datetime):
            return value
        try:
            return parse_date(str(value))
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


DATE = DateParam()
