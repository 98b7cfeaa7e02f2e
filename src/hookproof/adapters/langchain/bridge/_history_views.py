"""The LangChain view of a message history, grown from the view of an earlier version.

A run's history grows by a few messages per step, and every model call and hook is given
the whole of it: a view made afresh costs Python work per message on every call, so a long
run grows quadratically. The engine's histories share one append-only log between their
versions (``History.shares_prefix`` says so in O(1)), so the view of a longer version reuses
the view of a shorter one: the messages appended since are converted, the rest is one copy
of references. Views of the few most recent histories are remembered for that.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from hookproof._support.history import History

__all__ = ["grown_view"]

_RECENT = 8
# Shorter histories are viewed afresh: looking for an earlier view would cost more.
_GROWN_FROM = 16
# (history, its view), newest last; a copy is read under the GIL, so threads may share it.
_recent: deque[tuple[History[Any], list[Any]]] = deque(maxlen=_RECENT)


def grown_view(
    messages: Sequence[Any],
    convert: Callable[[Any], Any],
    make: Callable[[Any], list[Any]],
) -> list[Any] | None:
    """``make`` of the views of ``messages`` (``convert`` of each), reusing the view of a
    recent shorter version of the same history; None for a short history or no History."""
    if type(messages) is not History or len(messages) < _GROWN_FROM:
        return None
    earlier, view = _longest_prefix(messages)
    added = messages[len(earlier) :] if earlier is not None else messages
    grown = make(itertools.chain(view, map(convert, added)))
    _recent.append((messages, grown))
    return grown


_NOTHING: tuple[Any, ...] = ()


def _longest_prefix(messages: History[Any]) -> tuple[History[Any] | None, Sequence[Any]]:
    best: tuple[History[Any] | None, Sequence[Any]] = (None, _NOTHING)
    for earlier, view in tuple(_recent):
        if messages.shares_prefix(earlier) and (best[0] is None or len(earlier) > len(best[0])):
            best = (earlier, view)
    return best
