"""Each value's view, and each view's value, kept as long as the value lives.

A view is made once per value (a message, a tool, a runtime) and must stay the same object
while the value lives, and lead back to it. Values that accept weak references (messages,
tools, models, runtimes) keep their entry exactly as long as they live: an entry holds its
view strongly and its value weakly, and goes when the value does. So a long property test
does not pile up the views of every run it made for the garbage collector to walk again and
again. Values that accept no weak reference (tuples and histories of them) are kept
strongly, the most recent few hundred.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

__all__ = ["keep", "kept_original", "kept_view"]

_STRONG_MAX = 128
# id(value) -> (a weak reference to it, or the value itself, and its view)
_views: dict[int, tuple[Any, Any]] = {}
# id(view) -> (the view, the same reference to its value)
_originals: dict[int, tuple[Any, Any]] = {}
# ids of the values kept strongly, oldest first
_strong: dict[int, None] = {}


class _Held(weakref.ref):  # type: ignore[type-arg]
    """A weak reference to a kept value, with the ids its entries are filed under."""

    __slots__ = ("key", "view_key")
    key: int
    view_key: int


def _forget(
    held: _Held,
    views: dict[int, tuple[Any, Any]] = _views,
    originals: dict[int, tuple[Any, Any]] = _originals,
) -> None:
    """The value ``held`` referred to is gone: so are its entries (``pop``, not ``del``: a
    callback may run on any thread, while another forgets the same entry). The tables are
    bound here: a history still alive when the interpreter clears this module's globals
    calls back after that."""
    entry = views.get(held.key)
    if entry is not None and entry[0] is held:
        views.pop(held.key, None)
    found = originals.get(held.view_key)
    if found is not None and found[1] is held:
        originals.pop(held.view_key, None)


def keep(original: Any, view: Any) -> Any:
    """Remember ``view`` as the view of ``original`` (and the way back); returns ``view``."""
    key = id(original)
    held: Any
    if type(original).__weakrefoffset__:  # accepts weak references (no exception to catch)
        held = _Held(original, _forget)
        held.key, held.view_key = key, id(view)
    else:
        held = original
        _hold_strongly(key)
    _views[key] = (held, view)
    _originals[id(view)] = (view, held)
    return view


def kept_view(original: Any) -> Any:
    entry = _views.get(id(original))
    if entry is None:
        return None
    held = entry[0]
    return entry[1] if (held() if type(held) is _Held else held) is original else None


def kept_original(view: Any) -> Any:
    entry = _originals.get(id(view))
    if entry is None or entry[0] is not view:
        return None
    held = entry[1]
    return held() if type(held) is _Held else held


def _forget_view(key: int, held: Any) -> None:
    entry = _originals.get(key)
    if entry is not None and entry[1] is held:
        _originals.pop(key, None)


def _hold_strongly(key: int) -> None:
    with _strong_lock:
        _strong.pop(key, None)
        _strong[key] = None
        while len(_strong) > _STRONG_MAX:
            oldest = next(iter(_strong))
            del _strong[oldest]
            entry = _views.get(oldest)
            if entry is not None and type(entry[0]) is not _Held:
                _views.pop(oldest, None)
                _forget_view(id(entry[1]), entry[0])


# Threads keep values at once (check_isolation's concurrent runs): the order of the strongly
# kept ones is read and changed under this lock (no weak reference callback takes it).
_strong_lock = threading.Lock()
