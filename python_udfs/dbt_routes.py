"""Routing one of dbt's names through the project's version, once per process (D44, D46)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def route(owner: Any, name: str, routed_version: Callable[[Callable], Callable]) -> bool:
    """Replace `owner.<name>` by `routed_version(<dbt's own>)`, marked `cdc_routed` and with
    dbt's own as `__wrapped__`; a second call leaves it as it is. False (nothing changed) when
    this dbt has no such name."""
    dbt_own = getattr(owner, name, None)
    if dbt_own is None or getattr(dbt_own, "cdc_routed", False):
        return dbt_own is not None
    routed = routed_version(dbt_own)
    routed.cdc_routed = True
    routed.__wrapped__ = dbt_own
    setattr(owner, name, routed)
    return True
