"""LangChain middleware state schemas as the reference runtime's: the same keys, with
LangChain's reducers as the engine calls them."""

from __future__ import annotations

import typing
from typing import Any

from langgraph.channels.delta import DeltaChannel

from hookproof._engine import UntrackedValue, is_untracked
from hookproof._engine.state import annotations_of
from hookproof._support.frozen import thaw

__all__ = ["state_schema_of"]

_ENGINE_KEYS = frozenset({"messages", "jump_to"})


def state_schema_of(middleware: Any) -> type | None:
    """The runtime's state schema for a LangChain middleware's: the same keys, with the
    reducers given as functions in ``Annotated`` metadata (markers like LangGraph's
    EphemeralValue are not reducers; UntrackedValue keeps its key out of checkpoints);
    messages and jump_to are the engine's own. One per LangChain schema, so the runtime's
    per-schema caches stay small."""
    schema = getattr(middleware, "state_schema", None)
    if schema is None:
        return None
    found = _SCHEMAS.get(schema)
    if found is None:
        found = _SCHEMAS[schema] = _translated_schema(schema, middleware)
    return found


_SCHEMAS: dict[Any, type] = {}


def _translated_schema(schema: Any, middleware: Any) -> type:
    hints = annotations_of(
        schema,
        f"the state schema {schema!r} of middleware {getattr(middleware, 'name', middleware)!r}",
        "Define it at module level.",
    )
    annotations: dict[str, Any] = {}
    for key, hint in hints.items():
        if key in _ENGINE_KEYS:
            continue
        metadata = getattr(_required_removed(hint), "__metadata__", ())
        reducers = [_reducer_of(item) for item in metadata if _is_reducer(item)]
        scope = [UntrackedValue] if any(map(is_untracked, metadata)) else []
        kept = [*reducers[:1], *scope]
        annotations[key] = typing.Annotated[(Any, *kept)] if kept else Any
    return type(f"{getattr(schema, '__name__', 'State')}", (), {"__annotations__": annotations})


def _required_removed(hint: Any) -> Any:
    """``NotRequired[Annotated[...]]`` is the ``Annotated[...]`` inside."""
    while typing.get_origin(hint) in (typing.Required, typing.NotRequired):
        hint = typing.get_args(hint)[0]
    return hint


def _is_reducer(value: Any) -> bool:
    if isinstance(value, DeltaChannel):
        return True
    return callable(value) and not isinstance(value, type)


def _reducer_of(value: Any) -> Any:
    """A reducer as the engine calls it, (current, written) -> new, given plain lists and
    dicts as LangGraph's channel holds them (``operator.add`` adds a list to a list). A
    DeltaChannel (deepagents' files) holds a batch reducer, (current, [written]) -> new."""
    if isinstance(value, DeltaChannel):
        batch = value.reducer

        def reduce_batch(current: Any, written: Any) -> Any:
            return batch(thaw(current), [written])

        return reduce_batch

    def reduce_one(current: Any, written: Any) -> Any:
        return value(thaw(current), written)

    return reduce_one
