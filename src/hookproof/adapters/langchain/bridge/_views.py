"""LangChain views of hookproof values, and hookproof values back from what a LangChain hook
returns.

A view is made once per value and kept: the engine's messages, lists and states are
immutable, so the same hookproof value always has the same view. Views are locked as deeply
as hookproof's own values (an in-place edit raises ImmutableError with the fix), so a hook
that edits what it was given cannot change what other hooks see. Converting a view back
returns the original hookproof value, so an unchanged request crosses a LangChain layer
without a copy.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
)
from langchain_core.messages import RemoveMessage as LCRemoveMessage
from langchain_core.messages import SystemMessage as LCSystemMessage
from langchain_core.messages import ToolMessage as LCToolMessage
from langgraph.graph.message import REMOVE_ALL_MESSAGES

from hookproof._support.frozen import FrozenDict
from hookproof.adapters.langchain._blocks import lc_block
from hookproof.adapters.langchain._conversion_memo import forget_conversion, mark_unchanging
from hookproof.adapters.langchain._convert import INVALID_TOOL_CALLS, USAGE_METADATA, to_message
from hookproof.adapters.langchain.bridge._history_views import grown_view
from hookproof.adapters.langchain.bridge._kept import keep, kept_original, kept_view
from hookproof.adapters.langchain.bridge._locked import (
    LockedList,
    lock,
    refuse_edit,
    thaw_view,
)
from hookproof.adapters.langchain.bridge._quick_views import quick_view
from hookproof.messages import (
    AssistantMessage,
    Message,
    RemoveMessage,
    SystemMessage,
    TextBlock,
    ToolMessage,
    UserMessage,
    coerce_message,
)

__all__ = [
    "LockedList",
    "editable_messages",
    "hp_message",
    "hp_messages",
    "hp_state",
    "keep",
    "kept_original",
    "kept_view",
    "lc_message",
    "lc_messages",
    "lc_state",
    "lock",
    "refuse_edit",
    "unedited",
    "unreturned_edit",
]


# -- messages --------------------------------------------------------------------------------

_LOCKED_CLASSES: dict[type, type] = {}

# While a node hook runs: the message views it edited in place, with each field's old value.
_EDITS: contextvars.ContextVar[list[tuple[Any, str, Any]] | None] = contextvars.ContextVar(
    "hookproof_message_edits", default=None
)


def _set_in_node_or_refuse(self: Any, name: str, value: Any) -> None:
    edits = _EDITS.get()
    if edits is None or name not in type(self).model_fields:
        refuse_edit(self)
    edits.append((self, name, self.__dict__.get(name)))
    forget_conversion(self)
    self.__dict__[name] = value


def _edited(view: Any) -> bool:
    edits = _EDITS.get()
    return edits is not None and any(item is view for item, _, _ in edits)


@contextlib.contextmanager
def editable_messages() -> Iterator[list[tuple[Any, str, Any]]]:
    """Let a node hook edit the state's message views in place, as LangChain's own
    middleware does before returning the edited message (HumanInTheLoopMiddleware sets the
    last AIMessage's tool_calls): the edited view converts as edited while the hook's update
    is read, then every view is restored, so no other hook sees the edit. A view edited and
    not returned is refused by the caller (see ``unreturned_edit``)."""
    edits: list[tuple[Any, str, Any]] = []
    token = _EDITS.set(edits)
    try:
        yield edits
    finally:
        _EDITS.reset(token)
        for view, name, old in reversed(edits):
            view.__dict__[name] = old
            mark_unchanging(view)


def unreturned_edit(edits: list[tuple[Any, str, Any]], update: Any) -> None:
    """Refuse a hook's in-place edit of a message it did not return: on LangGraph the edit
    would silently reach later hooks; here it would silently vanish."""
    if not edits:
        return
    returned = update.get("messages") if isinstance(update, Mapping) else None
    if not isinstance(returned, list | tuple):
        returned = [] if returned is None else [returned]
    for view, _name, _old in edits:
        if not any(item is view for item in returned):
            refuse_edit(view)


def _unlocked_copy(self: BaseMessage) -> BaseMessage:
    """A copy is a new value, free to edit (langchain_core copies a message to change it for
    tracing, say): the unlocked LangChain class, sharing the still-locked field values."""
    copied = super(type(self), self).__copy__()
    object.__setattr__(copied, "__class__", type(self).__mro__[1])
    return copied


def _unlocked_deepcopy(self: BaseMessage, memo: dict[int, Any] | None = None) -> BaseMessage:
    copied = super(type(self), self).__deepcopy__(memo)
    object.__setattr__(copied, "__class__", type(self).__mro__[1])
    return copied


def _locked_class(cls: type[BaseMessage]) -> type[BaseMessage]:
    found = _LOCKED_CLASSES.get(cls)
    if found is None:
        namespace = {
            "__setattr__": _set_in_node_or_refuse,
            "__delattr__": refuse_edit,
            "__copy__": _unlocked_copy,
            "__deepcopy__": _unlocked_deepcopy,
            "__module__": __name__,
            "__qualname__": cls.__qualname__,
            "__doc__": f"A {cls.__name__} hookproof shares between hooks: edits raise.",
        }
        found = _LOCKED_CLASSES[cls] = type(cls.__name__, (cls,), namespace)
        # pydantic compares the classes of two models, or their generic origins: naming the
        # LangChain class as the origin makes a view equal to the message it shows.
        found.__pydantic_generic_metadata__ = {"origin": cls, "args": (), "parameters": ()}  # type: ignore[attr-defined]
    return found


def _content(blocks: Sequence[Any]) -> str | list[Any]:
    if not blocks:
        return ""
    if len(blocks) == 1 and _plain_text(blocks[0]):
        return str(blocks[0].text)
    return [lc_block(item) for item in blocks]


def _plain_text(block: Any) -> bool:
    return (
        isinstance(block, TextBlock)
        and block.id is None
        and block.cache_control is None
        and not block.extras
    )


def _fields(message: Message) -> tuple[type[BaseMessage], dict[str, Any]]:
    extra = thaw_view(message.additional_kwargs)
    fields: dict[str, Any] = {
        "content": _content(message.content),
        "id": message.id,
        "name": message.name,
        "response_metadata": thaw_view(message.response_metadata),
    }
    if isinstance(message, AssistantMessage):
        fields["invalid_tool_calls"] = extra.pop(INVALID_TOOL_CALLS, [])
        fields["usage_metadata"] = extra.pop(USAGE_METADATA, None)
        fields["tool_calls"] = [
            {"name": c.name, "args": thaw_view(c.args), "id": c.id, "type": "tool_call"}
            for c in message.tool_calls
        ]
        cls: type[BaseMessage] = AIMessage
    elif isinstance(message, ToolMessage):
        fields["tool_call_id"] = message.tool_call_id
        fields["status"] = message.status
        cls = LCToolMessage
    elif isinstance(message, SystemMessage):
        cls = LCSystemMessage
    else:
        cls = HumanMessage
    fields["additional_kwargs"] = extra
    return cls, fields


_LOCKED_FIELDS = (
    "content",
    "additional_kwargs",
    "response_metadata",
    "tool_calls",
    "invalid_tool_calls",
    "usage_metadata",
)


def lc_message(message: Message) -> BaseMessage:
    """The locked LangChain view of a hookproof message."""
    view = kept_view(message)
    if view is not None:
        return view  # type: ignore[no-any-return]
    view = quick_view(message, _locked_class)
    if view is None:
        view = validated_view(message)
    mark_unchanging(view)
    return keep(message, view)  # type: ignore[no-any-return]


def validated_view(message: Message) -> BaseMessage:
    """A locked view of ``message`` made through LangChain's constructor (every shape)."""
    cls, fields = _fields(message)
    view = _locked_class(cls)(**fields)
    stored = view.__dict__
    for key in _LOCKED_FIELDS:
        if key in stored:
            stored[key] = lock(stored[key])
    return view


def lc_messages(messages: Sequence[Message]) -> LockedList:
    view = kept_view(messages)
    if view is None:
        grown = grown_view(messages, lc_message, LockedList)
        made = LockedList(map(lc_message, messages)) if grown is None else grown
        view = keep(messages, made)
    return view  # type: ignore[no-any-return]


def hp_message(value: Any, where: str = "a message") -> Message | RemoveMessage:
    """The hookproof message for what a LangChain hook returned: its original when it is a
    view, else a converted copy (LangChain messages, RemoveMessage, str, tuples, dicts)."""
    original = kept_original(value)
    if original is not None and not _edited(value):
        return original  # type: ignore[no-any-return]
    if isinstance(value, LCRemoveMessage):
        key = RemoveMessage.ALL if value.id == REMOVE_ALL_MESSAGES else str(value.id)
        return RemoveMessage(id=key)
    if isinstance(value, BaseMessage):
        return to_message(value)
    if isinstance(value, str):
        return UserMessage(content=value)
    return coerce_message(value, where=where)


def hp_messages(values: Any, where: str = "messages") -> Any:
    """A list of hookproof messages (a single message stays single, as reducers accept)."""
    original = kept_original(values)
    if original is not None and not any(map(_edited, values)):
        return original
    if isinstance(values, list | tuple):
        return [hp_message(item, f"{where}[{index}]") for index, item in enumerate(values)]
    return hp_message(values, where)


# -- states ----------------------------------------------------------------------------------


def lc_state(state: Mapping[str, Any]) -> FrozenDict:
    """The LangChain view of a state: messages as LangChain messages, lists as lists."""
    # Not kept: the engine makes a new state mapping per hook, and a request's crossing
    # knows its own state view.
    return FrozenDict(
        {
            key: lc_messages(value) if key == "messages" else lock(value)
            for key, value in state.items()
        }
    )


def hp_state(value: Any) -> Any:
    if not isinstance(value, Mapping):
        return value
    return {
        key: hp_messages(item, "state['messages']") if key == "messages" else item
        for key, item in value.items()
    }


def hp_update(update: Mapping[str, Any], where: str) -> dict[str, Any]:
    """A hook's state update with its messages as hookproof messages."""
    return {
        key: hp_messages(value, f"{where}['messages']") if key == "messages" else value
        for key, value in update.items()
    }


def unedited(views: Any) -> bool:
    """Whether none of ``views`` is being edited by the node hook running now."""
    return _EDITS.get() is None or not any(map(_edited, views))
