"""An immutable message history whose versions share one append-only log.

A run appends to its history every step, and every FinalRequest keeps the history it was
sent: as tuples, N turns would copy O(N²) references and hold them all. A ``History`` is a
prefix of a shared log: appending to the newest version extends the log in place (the older
versions still see only their own prefix), so an append costs the messages appended and a
kept version costs O(1). Appending to an older version copies its prefix into a new log.

It behaves as the FrozenList (a tuple) it replaces in every use a history has: it compares
equal to the same messages in a list, tuple or FrozenList, hashes as the tuple of them,
indexes, slices (to a tuple), iterates, adds, and prints as a list; list mutators raise
ImmutableError. ``isinstance(history, tuple)`` is what differs: it is a ``Sequence``.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NoReturn, TypeVar, final, overload

from hookproof.errors import ImmutableError

__all__ = ["History"]

T = TypeVar("T")

_IMMUTABLE = (
    "hookproof: this sequence is immutable, so changing it in place would silently change "
    "the request other layers see. Build a new list and pass it to request.override(...) "
    "instead."
)
# Appends to a shared log are checked and made under one lock: two threads extending the
# same version must not both think theirs is the newest.
_log_lock = threading.Lock()


_new_history = object.__new__


def _refuse(self: object, *_args: object, **_kwargs: object) -> NoReturn:
    raise ImmutableError(_IMMUTABLE)


# Final, so that ``type(x) is History`` is the whole test: ``isinstance`` against a Sequence
# (an ABC) is a Python-level call, and the engine asks it at every update.
@final
class History(Sequence[T]):
    """The first ``size`` items of a shared append-only ``log``."""

    # Weakly referable: a bridge that keeps a view per history keeps it as long as the
    # history lives, not in a bounded strong cache.
    __slots__ = ("__weakref__", "_log", "_size")

    def __init__(self, items: Iterable[T] = ()) -> None:
        self._log: list[T] = list(items)
        self._size = len(self._log)

    @classmethod
    def _view(cls, log: list[T], size: int) -> History[T]:
        history = cls.__new__(cls)
        history._log, history._size = log, size
        return history

    def extended(self, items: Sequence[T]) -> History[T]:
        """This history followed by ``items``: O(len(items)) when this is the newest
        version of its log, else one copy of this history."""
        if not items:
            return self
        log, size = self._log, self._size
        with _log_lock:
            if len(log) == size:
                log.extend(items)
            else:
                log = [*log[:size], *items]
        history = _new_history(History)  # History._view inline: every update is here
        history._log, history._size = log, size + len(items)
        return history

    def shares_prefix(self, other: object) -> bool:
        """Whether ``other`` is a History on the same log no longer than this one, so its
        items are this history's first items (O(1); False means "not known", not "no")."""
        return type(other) is History and other._log is self._log and other._size <= self._size

    def since(self, head: Sequence[T]) -> list[T] | None:
        """This history's items after ``head`` when ``head`` is known to be its beginning
        (empty, or an earlier version of the same log); None when that is not known."""
        if type(head) is History:
            if head._log is self._log and head._size <= self._size:
                return self._log[head._size : self._size]
            return None
        return None if head else self._log[: self._size]

    # -- reading --------------------------------------------------------------------------

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[T]:
        return itertools.islice(self._log, self._size)

    def __reversed__(self) -> Iterator[T]:
        # Backwards from this version's last item, by position (a longer log is fine): in C.
        return map(self._log.__getitem__, range(self._size - 1, -1, -1))

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...
    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._size)
            if step > 0:
                return tuple(self._log[start:stop:step])
            return tuple(self._log[: self._size])[index]
        size = self._size
        position = index.__index__()
        if position < 0:
            position += size
        if not 0 <= position < size:
            raise IndexError("tuple index out of range")
        return self._log[position]

    def __contains__(self, value: object) -> bool:
        return any(item is value or item == value for item in self)

    def index(self, value: Any, start: int = 0, stop: int | None = None) -> int:
        start, stop, _ = slice(start, stop).indices(self._size)
        try:
            return self._log.index(value, start, stop)
        except ValueError:
            raise ValueError("tuple.index(x): x not in tuple") from None

    def count(self, value: Any) -> int:
        return self._log[: self._size].count(value)

    # -- comparing, hashing, printing -----------------------------------------------------

    def _items(self) -> tuple[T, ...]:
        return tuple(itertools.islice(self._log, self._size))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, History):
            if other._log is self._log:
                return other._size == self._size
            return other._size == self._size and self._items() == other._items()
        if not isinstance(other, list | tuple):
            return NotImplemented
        # A C-level pass, as a tuple compares: the same objects match before any field.
        return len(other) == self._size and self._items() == tuple(other)

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:
        return hash(self._items())

    def _ordered(self, other: object) -> tuple[T, ...] | None:
        if isinstance(other, History):
            return other._items()
        return other if isinstance(other, tuple) else None

    def __lt__(self, other: object) -> bool:
        theirs = self._ordered(other)
        return NotImplemented if theirs is None else self._items() < theirs

    def __le__(self, other: object) -> bool:
        theirs = self._ordered(other)
        return NotImplemented if theirs is None else self._items() <= theirs

    def __gt__(self, other: object) -> bool:
        theirs = self._ordered(other)
        return NotImplemented if theirs is None else self._items() > theirs

    def __ge__(self, other: object) -> bool:
        theirs = self._ordered(other)
        return NotImplemented if theirs is None else self._items() >= theirs

    def __repr__(self) -> str:
        return f"[{', '.join(repr(item) for item in self)}]"

    # -- building new values: tuples, as a tuple's operators give -------------------------

    def __add__(self, other: object) -> tuple[Any, ...]:
        theirs = self._ordered(other)
        return NotImplemented if theirs is None else self._items() + theirs

    def __radd__(self, other: object) -> tuple[Any, ...]:
        theirs = self._ordered(other)
        return NotImplemented if theirs is None else theirs + self._items()

    def __mul__(self, times: int) -> tuple[T, ...]:
        return self._items() * times

    __rmul__ = __mul__

    def __copy__(self) -> History[T]:
        return self

    def __deepcopy__(self, _memo: dict[int, Any]) -> History[T]:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (History, (self._items(),))

    append = extend = insert = remove = pop = clear = sort = reverse = _refuse
    __setitem__ = __delitem__ = _refuse
