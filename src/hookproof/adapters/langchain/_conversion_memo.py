"""Conversions of LangChain messages that cannot change, made once per message.

LangChain messages are mutable, so a conversion is only kept for a message declared
unchanging: the bridge's locked views, which refuse edits. The one way such a view changes
(a node hook's edit, see the bridge's ``editable_messages``) forgets its conversion when the
edit is made and again when it is undone. Any other message is converted on every call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["converted_once", "forget_conversion", "mark_unchanging"]

_KEPT_MAX = 20_000
_UNCONVERTED: Any = object()
# id(message) -> (message, its conversion or _UNCONVERTED); holding the message keeps the
# id from being reused while the entry lives.
_kept: dict[int, tuple[Any, Any]] = {}


def mark_unchanging(message: Any) -> None:
    """Declare that ``message`` cannot change until ``forget_conversion(message)``."""
    if len(_kept) > _KEPT_MAX:
        _kept.clear()
    _kept[id(message)] = (message, _UNCONVERTED)


def forget_conversion(message: Any) -> None:
    """``message`` is changing: its conversion is no longer kept, nor made once."""
    entry = _kept.get(id(message))
    if entry is not None and entry[0] is message:
        del _kept[id(message)]


def converted_once(message: Any, convert: Callable[[Any], Any]) -> Any:
    """``convert(message)``, made once for an unchanging message and kept."""
    entry = _kept.get(id(message))
    if entry is None or entry[0] is not message:
        return convert(message)
    if entry[1] is _UNCONVERTED:
        entry = _kept[id(message)] = (message, convert(message))
    return entry[1]
