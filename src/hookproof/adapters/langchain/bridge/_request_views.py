"""The locked LangChain requests a wrap hook is shown, built and overridden directly.

LangChain's ``ModelRequest`` is a dataclass whose ``__init__`` sets each field in turn (a
None ``tools``, ``state`` or ``model_settings`` becomes an empty value, a ``system_prompt``
a SystemMessage), and whose ``override`` is ``dataclasses.replace``: it reads every field
and runs ``__init__`` again. A bridged wrap hook is shown one request per call and most
hooks override it before passing it on. Where ``__init__`` would keep every value as given,
the view and its overrides are built from the values directly, holding the same fields in
the same order; anything else goes LangChain's own way (``tests/adapters`` compares both
field by field).
"""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

from langchain.agents.middleware import ModelRequest as LCModelRequest
from langgraph.prebuilt.tool_node import ToolCallRequest as LCToolCallRequest

from hookproof.adapters.langchain.bridge._locked import refuse_edit

__all__ = ["LockedModelRequest", "LockedToolCallRequest", "locked_model_request"]

# LangChain's constructor sets the fields in their declaration order.
_FIELDS = tuple(field.name for field in dataclasses.fields(LCModelRequest))
_FIELD_NAMES = frozenset(_FIELDS)
_GIVEN: Any = object()
_Request = TypeVar("_Request", bound=LCModelRequest)


def _set_once(self: object, name: str, value: Any) -> None:
    if name in self.__dict__:
        refuse_edit(self)
    object.__setattr__(self, name, value)


class LockedModelRequest(LCModelRequest):
    """LangChain's ModelRequest whose fields cannot be reassigned (``override`` still makes
    a new one)."""

    __setattr__ = refuse_edit
    __delattr__ = refuse_edit

    def override(self, **overrides: Any) -> Any:
        if not _FIELD_NAMES.issuperset(overrides) or _emptied(overrides):
            return super().override(**overrides)  # LangChain's conversions and errors
        return _built(type(self), {**self.__dict__, **overrides})


def _emptied(overrides: dict[str, Any]) -> bool:
    """Whether LangChain's constructor would replace a given None by an empty value."""
    return (
        overrides.get("tools", _GIVEN) is None
        or overrides.get("state", _GIVEN) is None
        or overrides.get("model_settings", _GIVEN) is None
    )


def locked_model_request(values: dict[str, Any]) -> LockedModelRequest:
    """``LockedModelRequest(**values)``, for ``values`` naming every field in order, none of
    them a None that the constructor would empty."""
    return _built(LockedModelRequest, values)


def _built(cls: type[_Request], values: dict[str, Any]) -> _Request:
    request = object.__new__(cls)  # what LangChain's class inherits
    object.__setattr__(request, "__dict__", values)
    return request


class LockedToolCallRequest(LCToolCallRequest):
    """LangChain's ToolCallRequest whose fields cannot be reassigned after it is built."""

    __setattr__ = _set_once
    __delattr__ = refuse_edit
