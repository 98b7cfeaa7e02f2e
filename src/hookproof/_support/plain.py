"""Model settings as plain data: what a recorded request's ``model_settings`` holds."""

from __future__ import annotations

from typing import Any

__all__ = ["plain_setting"]


def plain_setting(value: Any) -> Any:
    """``value`` with every pydantic model dumped to JSON data and every tuple a list."""
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    if isinstance(value, list | tuple):
        return [plain_setting(item) for item in value]
    return value
