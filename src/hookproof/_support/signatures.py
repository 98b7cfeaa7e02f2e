"""What a user's callable accepts, read from its signature."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

__all__ = ["takes_positional"]


def takes_positional(method: Callable[..., Any], count: int) -> bool | None:
    """Whether ``method`` accepts ``count`` positional arguments (None when its signature
    cannot be read: a builtin, a C extension)."""
    try:
        parameters = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):
        return None
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) >= count or any(p.kind is p.VAR_POSITIONAL for p in parameters)
