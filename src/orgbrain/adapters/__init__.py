"""Adapters: the real implementations of the ports in ``orgbrain.ports``.

Each adapter lives in its own module and is imported from there, so that importing this
package pulls in no optional dependency (torch, httpx, a database driver).
"""

from __future__ import annotations

__all__: list[str] = []
