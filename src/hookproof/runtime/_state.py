"""The state every agent has, as a TypedDict to extend (LangChain's ``AgentState``)."""

from __future__ import annotations

from typing import Annotated, Any, Generic, NotRequired, Required, TypedDict, TypeVar

from hookproof._engine import add_messages
from hookproof.messages import Message

__all__ = ["AgentState", "DefaultMiddlewareState"]

ResponseT = TypeVar("ResponseT")


class AgentState(TypedDict, Generic[ResponseT]):
    """The keys every agent has: ``messages`` (through ``add_messages``) and, once a model
    response carried one, ``structured_response``. Extend it to declare a middleware's own
    keys; a key's reducer goes in ``Annotated`` metadata. (``jump_to`` is not a key here: a
    node hook's ``{"jump_to": ...}`` is read by the loop and never stored.)"""

    messages: Required[Annotated[list[Message], add_messages]]
    structured_response: NotRequired[ResponseT]


class DefaultMiddlewareState(AgentState[Any]):
    """The state_schema of a middleware that declares none: nothing beyond AgentState."""
