"""The state keys of a LangChain agent as its graph reads them: which keys exist, and which
``PrivateStateAttr``, ``OmitFromInput`` and ``OmitFromOutput`` leave out of its input or its
output."""

from __future__ import annotations

import typing
from collections.abc import Iterable
from typing import Any

from hookproof.adapters.langchain.bridge._shaped import StateKeys

__all__ = ["state_keys"]


def state_keys(schemas: Iterable[Any]) -> StateKeys:
    """The keys of LangChain's ``AgentState`` and of ``schemas`` (None entries skipped)."""
    from langchain.agents.middleware.types import AgentState

    declared: set[str] = set()
    not_input: set[str] = set()
    not_output: set[str] = set()
    for schema in (AgentState, *schemas):
        if schema is None:
            continue
        for key, hint in _hints(schema).items():
            declared.add(key)
            for mark in _omissions(hint):
                if mark.input:
                    not_input.add(key)
                if mark.output:
                    not_output.add(key)
    return StateKeys(frozenset(declared), frozenset(not_input), frozenset(not_output))


_HINTS: dict[Any, dict[str, Any]] = {}


def _hints(schema: Any) -> dict[str, Any]:
    """A schema's hints, read once per class (a deep agent reads the same schemas for every
    agent and subagent it builds)."""
    if not isinstance(schema, type):
        return _read_hints(schema)
    if schema not in _HINTS:
        if len(_HINTS) >= 1024:
            _HINTS.clear()
        _HINTS[schema] = _read_hints(schema)
    return _HINTS[schema]


def _read_hints(schema: Any) -> dict[str, Any]:
    try:
        return typing.get_type_hints(schema, include_extras=True)
    except (NameError, TypeError):  # the engine reads the schema too, and says what is wrong
        return dict(getattr(schema, "__annotations__", {}))


def _omissions(hint: Any) -> list[Any]:
    from langchain.agents.middleware.types import OmitFromSchema

    while typing.get_origin(hint) in (typing.Required, typing.NotRequired):
        hint = typing.get_args(hint)[0]
    return [item for item in getattr(hint, "__metadata__", ()) if isinstance(item, OmitFromSchema)]
