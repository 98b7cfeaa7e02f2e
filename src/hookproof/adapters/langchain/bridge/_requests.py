"""Requests, responses and Commands crossing between the engine and a LangChain hook.

A crossing gives the hook a locked LangChain view of the engine's request and turns the
request the hook passes on back into a hookproof request: fields the hook left alone keep the
engine's values as they were (same objects), changed fields are converted once.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress
from operator import is_not
from typing import Any, ClassVar

from langchain.agents.middleware import ExtendedModelResponse as LCExtendedModelResponse
from langchain.agents.middleware import ModelRequest as LCModelRequest
from langchain.agents.middleware import ModelResponse as LCModelResponse
from langchain_core.messages import BaseMessage
from langgraph.prebuilt.tool_node import ToolCallRequest as LCToolCallRequest
from langgraph.runtime import Runtime as LCRuntime
from langgraph.types import Command as LCCommand

from hookproof._support.frozen import FrozenDict
from hookproof.adapters.langchain.bridge._commands import hp_command, hp_model_command, lc_command
from hookproof.adapters.langchain.bridge._graph_run import current_graph_run, write_to_stream
from hookproof.adapters.langchain.bridge._request_views import (
    LockedModelRequest,
    LockedToolCallRequest,
    deferred_of,
    locked_model_request,
)
from hookproof.adapters.langchain.bridge._tools import (
    hp_tool_or_schema,
    lc_tool,
    lc_tool_runtime,
)
from hookproof.adapters.langchain.bridge._views import (
    LockedList,
    hp_message,
    hp_messages,
    hp_state,
    keep,
    kept_view,
    lc_message,
    lc_messages,
    lc_state,
    lock,
    unedited,
)
from hookproof.messages import Message, ToolCall
from hookproof.requests import (
    Command,
    ExtendedModelResponse,
    ModelRequest,
    ModelResponse,
    ToolCallRequest,
)

__all__ = [
    "Crossing",
    "hp_command",
    "hp_model_result",
    "hp_tool_result",
    "lc_command",
    "lc_runtime",
    "lc_tool_result",
    "model_request_crossing",
    "tool_request_crossing",
]


def lc_runtime(runtime: Any) -> LCRuntime[Any]:
    """The LangChain runtime a node hook or a model request sees: the run's context and
    store."""
    view = kept_view(runtime)
    if view is None:
        context = getattr(runtime, "context", None)
        run = current_graph_run()
        store = None if run is None else run.store
        made = LCRuntime(context=context, stream_writer=write_to_stream, store=store)
        view = keep(runtime, made)
    return view  # type: ignore[no-any-return]


# -- model requests --------------------------------------------------------------------------


class Crossing:
    """One request crossing into a LangChain wrap hook and back: the hook sees ``view``;
    ``inward`` gives the hookproof request for what it passes its handler, ``outward`` the
    handler's answer as LangChain's, ``result`` what the hook returns as the engine's."""

    __slots__ = ("original", "view")
    lc_request: ClassVar[type]

    def __init__(self, original: Any, view: Any) -> None:
        self.original, self.view = original, view

    def inward(self, changed: Any) -> Any:
        if changed is self.view:
            return self.original
        if not isinstance(changed, self.lc_request):
            return changed
        changes = self.changes(changed)
        return self.original.override(**changes) if changes else self.original

    def changes(self, changed: Any) -> dict[str, Any]:
        """The hookproof values of the fields the hook changed."""
        raise NotImplementedError

    def outward(self, answer: Any) -> Any:
        raise NotImplementedError

    def result(self, outcome: Any) -> Any:
        raise NotImplementedError


class ModelCrossing(Crossing):
    __slots__ = ("sent",)
    lc_request: ClassVar[type] = LCModelRequest

    def __init__(self, original: Any, view: Any) -> None:
        self.original, self.view = original, view
        # The last response handed to the hook: (LangChain's, its messages, the engine's).
        self.sent: tuple[Any, Any, ModelResponse] | None = None

    def changes(self, changed: Any) -> dict[str, Any]:
        if type(changed) not in _PLAIN_REQUESTS:  # a subclass may compute a field
            return {
                name: convert(getattr(changed, name))
                for name, convert in _MODEL_FIELDS.items()
                if getattr(changed, name) is not getattr(self.view, name)
            }
        view = self.view
        shared = deferred_of(changed)
        if shared is not None and shared is deferred_of(view):
            # Made from this view: a deferred field neither made is the view's own, and one
            # made is made once for both (a field the request holds alone was given to it).
            held = {**shared.made, **view.__dict__}
            return _changed_fields({**held, **changed.__dict__}, held)
        return _changed_fields(_every_field(changed), _every_field(view))

    def outward(self, answer: Any) -> Any:
        if not isinstance(answer, ModelResponse):
            return answer
        messages = LockedList(map(lc_message, answer.result))
        sent = LCModelResponse(result=messages, structured_response=answer.structured_response)
        if type(answer) is ModelResponse:
            self.sent = (sent, messages, answer)
        return sent

    def result(self, outcome: Any) -> Any:
        sent = self.sent
        if sent is not None and outcome is sent[0] and _untouched(outcome, sent):
            return sent[2]  # the handler's response, handed back as it came
        return hp_model_result(outcome)


def _untouched(response: Any, sent: tuple[Any, Any, ModelResponse]) -> bool:
    """Whether the LangChain response made of the engine's still holds what it was made of
    (a hook may reassign its fields, and a node hook's edits reach the messages)."""
    _, messages, answer = sent
    return (
        response.result is messages
        and response.structured_response is answer.structured_response
        and unedited(messages)
    )


# Requests whose fields are plain instance attributes (the view, what override() makes of it,
# LangChain's own): their changes are read from the instance's dict.
_PLAIN_REQUESTS = frozenset({LockedModelRequest, LCModelRequest})


def _same(value: Any) -> Any:
    return value


def _system(value: Any) -> Any:
    return None if value is None else hp_message(value, "request.system_message")


_MODEL_FIELDS = {
    "model": _same,
    "messages": lambda value: hp_messages(value, "request.messages"),
    "system_message": _system,
    "tool_choice": _same,
    "tools": lambda values: [hp_tool_or_schema(item) for item in values],
    "response_format": _same,
    "state": hp_state,
    "model_settings": _same,
}
_ABSENT: Any = object()
_ABSENTS = (_ABSENT,) * len(_MODEL_FIELDS)


def _changed_fields(given: dict[str, Any], held: dict[str, Any]) -> dict[str, Any]:
    """The hookproof values of the fields whose value in ``given`` is not the one in
    ``held`` (a field in neither is unchanged), in the fields' order."""
    new = tuple(map(given.get, _MODEL_FIELDS, _ABSENTS))
    differs = map(is_not, new, map(held.get, _MODEL_FIELDS, _ABSENTS))
    fields = compress(zip(_MODEL_FIELDS, _MODEL_FIELDS.values(), new, strict=True), differs)
    return {name: convert(value) for name, convert, value in fields}


def _every_field(request: Any) -> dict[str, Any]:
    """A request's fields, each made if it was deferred."""
    held = request.__dict__
    if _MODEL_FIELDS.keys() <= held.keys():
        return held  # type: ignore[no-any-return]
    return {name: getattr(request, name) for name in _MODEL_FIELDS}


def model_request_crossing(request: ModelRequest, runtime: LCRuntime[Any] | None) -> ModelCrossing:
    """The crossing of ``request``, whose runtime's view is ``runtime``."""
    values = {
        "model": request.model,
        "tool_choice": request.tool_choice,
        "response_format": request.response_format,
        "runtime": runtime,
        "model_settings": lock(request.model_settings),
    }
    return ModelCrossing(request, locked_model_request(values, request, _DEFERRED_VIEWS))


def _system_view(request: ModelRequest) -> Any:
    system = request.system_message
    return None if system is None else lc_message(system)


# How each deferred field of a request's view is made, when a hook first reads it.
_DEFERRED_VIEWS: dict[str, Callable[[ModelRequest], Any]] = {
    "messages": lambda request: lc_messages(request.messages),
    "system_message": _system_view,
    "tools": lambda request: _lc_tools(request.tools),
    "state": lambda request: lc_state(request.state),
}


def _lc_tools(tools: Any) -> LockedList:
    view = kept_view(tools)
    if view is None:
        view = keep(tools, LockedList(map(lc_tool, tools)))
    return view  # type: ignore[no-any-return]


def hp_model_result(outcome: Any) -> Any:
    """What a LangChain wrap_model_call returned, as the runtime's layers expect it."""
    if isinstance(outcome, LCModelResponse):
        return _hp_response(outcome)
    if isinstance(outcome, BaseMessage):
        return hp_message(outcome, "the wrap_model_call result")
    if isinstance(outcome, LCExtendedModelResponse):
        command = None if outcome.command is None else hp_model_command(outcome.command)
        return ExtendedModelResponse(_hp_response(outcome.model_response), command)
    return outcome  # the runtime refuses it with its own message


def _hp_response(response: Any) -> Any:
    if not isinstance(response, LCModelResponse):
        return response
    result = tuple(hp_message(item, "response.result") for item in response.result)
    return ModelResponse(result=result, structured_response=response.structured_response)  # type: ignore[arg-type]


# -- tool requests ---------------------------------------------------------------------------


class ToolCrossing(Crossing):
    __slots__ = ()
    lc_request: ClassVar[type] = LCToolCallRequest

    def changes(self, changed: Any) -> dict[str, Any]:
        changes: dict[str, Any] = {}
        if changed.tool_call is not self.view.tool_call:
            call = changed.tool_call
            changes["tool_call"] = ToolCall(
                name=call["name"], args=dict(call.get("args") or {}), id=call.get("id")
            )
        if changed.tool is not self.view.tool:
            changes["tool"] = None if changed.tool is None else hp_tool_or_schema(changed.tool)
        if changed.state is not self.view.state:
            changes["state"] = hp_state(changed.state)
        return changes

    def outward(self, answer: Any) -> Any:
        return lc_tool_result(answer)

    def result(self, outcome: Any) -> Any:
        return hp_tool_result(outcome)


def _lc_call(call: ToolCall) -> FrozenDict:
    return FrozenDict(
        {"name": call.name, "args": lock(call.args), "id": call.id, "type": "tool_call"}
    )


def tool_request_crossing(request: ToolCallRequest, _runtime: Any) -> ToolCrossing:
    """The crossing of ``request`` (its tool runtime is made from its own fields)."""
    state = lc_state(request.state)
    runtime = request.runtime
    view = LockedToolCallRequest(
        tool_call=_lc_call(request.tool_call),  # type: ignore[arg-type]
        tool=None if request.tool is None else lc_tool(request.tool),
        state=state,
        runtime=lc_tool_runtime(
            state, None if runtime is None else runtime.context, request.tool_call.id
        ),
    )
    return ToolCrossing(request, view)


def lc_tool_result(result: Any) -> Any:
    if isinstance(result, Message):
        return lc_message(result)
    if isinstance(result, Command):
        return lc_command(result)
    return result


def hp_tool_result(outcome: Any) -> Any:
    if isinstance(outcome, BaseMessage):
        return hp_message(outcome, "the wrap_tool_call result")
    if isinstance(outcome, LCCommand):
        return hp_command(outcome, "the wrap_tool_call Command")
    return outcome
