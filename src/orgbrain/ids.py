"""Identifiers: short, time-ordered, unguessable strings with a readable prefix."""

from __future__ import annotations

import secrets
import time

__all__ = ["new_id"]

_ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"  # Crockford base32, lower case


def _b32(n: int, width: int) -> str:
    out = []
    for _ in range(width):
        out.append(_ALPHABET[n & 31])
        n >>= 5
    return "".join(reversed(out))


def new_id(prefix: str) -> str:
    """``<prefix>_`` + 8 chars of milliseconds + 10 random chars, e.g. ``fil_0j3k...``."""
    ms = time.time_ns() // 1_000_000
    return f"{prefix}_{_b32(ms, 9)}{_b32(secrets.randbits(50), 10)}"
