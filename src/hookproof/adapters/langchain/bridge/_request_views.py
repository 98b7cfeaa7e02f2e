"""The locked LangChain requests a wrap hook is shown, built and overridden directly.

LangChain's ``ModelRequest`` is a dataclass whose ``__init__`` sets each field in turn (a
None ``tools``, ``state`` or ``model_settings`` becomes an empty value, a ``system_prompt``
a SystemMessage), and whose ``override`` is ``dataclasses.replace``: it reads every field
and runs ``__init__`` again. A bridged wrap hook is shown one request per call and most
hooks override it before passing it on. Where ``__init__`` would keep every value as given,
the view and its overrides are built from the values directly; anything else goes
LangChain's own way (``tests/adapters`` compares both field by field).

The views of the messages, the system message, the tools and the state are made when a hook
first reads them (most hooks read one or two), once for the view and every request
overridden or copied from it, so each request holds the same view objects as before. A
request's ``__dict__`` holds only the fields made so far: the bridge reads it that way,
and copying or pickling a request makes every field first.
"""

from __future__ import annotations

import copyreg
import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from langchain.agents.middleware import ModelRequest as LCModelRequest
from langgraph.prebuilt.tool_node import ToolCallRequest as LCToolCallRequest

from hookproof.adapters.langchain.bridge._locked import refuse_edit

__all__ = [
    "DEFERRED_FIELDS",
    "Deferred",
    "LockedModelRequest",
    "LockedToolCallRequest",
    "deferred_of",
    "locked_model_request",
]

_FIELD_NAMES = frozenset(field.name for field in dataclasses.fields(LCModelRequest))
DEFERRED_FIELDS = ("messages", "system_message", "tools", "state")
_DEFERRED_NAMES = frozenset(DEFERRED_FIELDS)
_GIVEN: Any = object()
# What a dataclass instance reduces to: cls.__new__(cls), then its __dict__ set.
_NEW_OBJECT: Any = copyreg.__newobj__  # type: ignore[attr-defined]
_Request = TypeVar("_Request", bound="LockedModelRequest")


class Deferred:
    """The deferred fields of one request view: ``makers[name](source)`` of each, made once
    and shared by every request overridden or copied from the view."""

    __slots__ = ("made", "makers", "source")

    def __init__(self, source: Any, makers: Mapping[str, Callable[[Any], Any]]) -> None:
        self.source, self.makers = source, makers
        self.made: dict[str, Any] = {}

    def value(self, name: str) -> Any:
        made = self.made
        if name in made:
            return made[name]
        # setdefault: a thread that made it first wins, so every reader holds one object
        return made.setdefault(name, self.makers[name](self.source))


class LockedModelRequest(LCModelRequest):
    """LangChain's ModelRequest whose fields cannot be reassigned (``override`` still makes
    a new one)."""

    __slots__ = ("_deferred",)
    __setattr__ = refuse_edit
    __delattr__ = refuse_edit

    def __getattr__(self, name: str) -> Any:
        deferred = deferred_of(self) if name in _DEFERRED_NAMES else None
        if deferred is None:
            raise AttributeError(
                f"'{type(self).__name__}' object has no attribute '{name}'", name=name, obj=self
            )
        value = self.__dict__[name] = deferred.value(name)
        return value

    def override(self, **overrides: Any) -> Any:
        if not _FIELD_NAMES.issuperset(overrides) or _emptied(overrides):
            return super().override(**overrides)  # LangChain's conversions and errors
        return _built(type(self), {**self.__dict__, **overrides}, deferred_of(self))

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        """As a dataclass instance reduces, with every field made (a copy owes the view
        nothing)."""
        for name in DEFERRED_FIELDS:
            getattr(self, name)
        return (_NEW_OBJECT, (type(self),), dict(self.__dict__))


_deferred_slot: Any = LockedModelRequest.__dict__["_deferred"]


def deferred_of(request: Any) -> Deferred | None:
    """The deferred fields of a request view or of a request made from one (None for one
    LangChain's constructor made: it holds every field)."""
    if not isinstance(request, LockedModelRequest):
        return None
    try:
        return _deferred_slot.__get__(request)  # type: ignore[no-any-return]
    except AttributeError:
        return None


def _emptied(overrides: dict[str, Any]) -> bool:
    """Whether LangChain's constructor would replace a given None by an empty value."""
    return (
        overrides.get("tools", _GIVEN) is None
        or overrides.get("state", _GIVEN) is None
        or overrides.get("model_settings", _GIVEN) is None
    )


def locked_model_request(
    values: dict[str, Any], source: Any, makers: Mapping[str, Callable[[Any], Any]]
) -> LockedModelRequest:
    """``LockedModelRequest(**values)``, for ``values`` naming every field but the deferred
    ones (``makers[name](source)`` makes those), none a None the constructor would empty."""
    return _built(LockedModelRequest, values, Deferred(source, makers))


def _built(cls: type[_Request], values: dict[str, Any], deferred: Deferred | None) -> _Request:
    request = object.__new__(cls)  # what LangChain's class inherits
    object.__setattr__(request, "__dict__", values)
    if deferred is not None:
        _deferred_slot.__set__(request, deferred)
    return request


def _set_once(self: object, name: str, value: Any) -> None:
    if name in self.__dict__:
        refuse_edit(self)
    object.__setattr__(self, name, value)


class LockedToolCallRequest(LCToolCallRequest):
    """LangChain's ToolCallRequest whose fields cannot be reassigned after it is built."""

    __setattr__ = _set_once
    __delattr__ = refuse_edit
