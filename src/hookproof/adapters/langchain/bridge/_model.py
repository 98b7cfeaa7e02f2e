"""A LangChain chat model as the reference runtime's innermost model.

The runtime hands the innermost model a FinalRequest; this caller sends it to the LangChain
model the way LangChain's create_agent does (tools bound with ``bind_tools``, the model
settings as bound keywords, the system message first) and returns the answer as a hookproof
message.
"""

from __future__ import annotations

from typing import Any, ClassVar

from langchain_core.messages import BaseMessage

from hookproof._support.frozen import thaw
from hookproof.adapters.langchain._convert import to_message
from hookproof.adapters.langchain.bridge._bound import bind_form
from hookproof.adapters.langchain.bridge._graph_run import current_graph_run
from hookproof.adapters.langchain.bridge._views import keep, kept_view, lc_message, lc_messages
from hookproof.errors import UsageError
from hookproof.messages import AssistantMessage
from hookproof.requests import FinalRequest

__all__ = ["ChatModelCaller", "chat_model_by_name", "chat_model_name"]


def chat_model_name(model: Any) -> str:
    """A LangChain model's name as hookproof's LangChain recorders name it."""
    name = getattr(model, "model_name", None) or getattr(model, "model", None)
    return str(name) if isinstance(name, str) and name else type(model).__name__


def chat_model_by_name(model: Any) -> Any:
    """A model given by name ("openai:gpt-4o") made as LangChain's create_agent makes it:
    with ``init_chat_model``, looked up where create_agent looks it up, so a test's patch of
    it applies and a missing provider package raises LangChain's own ImportError."""
    if not isinstance(model, str):
        return model
    from langchain.agents import factory

    return factory.init_chat_model(model)  # type: ignore[attr-defined]


class ChatModelCaller:
    """Calls one LangChain chat model with FinalRequests (one caller per model)."""

    # The caller never leaves the process; the LangChain model it calls meets hookproof's
    # guard in front of every LangChain chat model, which judges that model itself.
    hookproof_offline: ClassVar[bool] = True

    def __init__(self, model: Any) -> None:
        self.model = model
        self.name = chat_model_name(model)

    @classmethod
    def of(cls, model: Any) -> ChatModelCaller:
        known = kept_view(model)
        if isinstance(known, cls):
            return known
        return keep(model, cls(model))  # type: ignore[no-any-return]

    def invoke(self, request: FinalRequest) -> AssistantMessage:
        bound, messages = self._prepared(request)
        return self._answer(bound.invoke(messages))

    async def ainvoke(self, request: FinalRequest) -> AssistantMessage:
        bound, messages = self._prepared(request)
        return self._answer(await bound.ainvoke(messages))

    def _prepared(self, request: FinalRequest) -> tuple[Any, list[BaseMessage]]:
        _count_step()
        messages = _sent(request)
        settings = thaw(request.model_settings)
        tools = [bind_form(item) for item in request.tools]
        if request.response_format is not None:  # native structured output, bound as LangChain
            native = {"response_format": thaw(request.response_format), **settings}
            return self.model.bind_tools(tools, **native), messages
        if tools:
            if request.tool_choice is not None:
                settings["tool_choice"] = thaw(request.tool_choice)
            return self.model.bind_tools(tools, **settings), messages
        return (self.model.bind(**settings) if settings else self.model), messages

    def _answer(self, reply: Any) -> AssistantMessage:
        message = to_message(reply) if isinstance(reply, BaseMessage) else reply
        if not isinstance(message, AssistantMessage):
            raise UsageError(
                f"hookproof: LangChain model {self.name!r} answered with "
                f"{type(reply).__name__}; a chat model must answer with an AIMessage."
            )
        return message

    def __repr__(self) -> str:
        return f"<LangChain model {self.name!r} on the reference runtime>"


def _count_step() -> None:
    """A run's config may bound its steps (LangGraph's ``recursion_limit``). Every model call
    is at least one step of LangChain's graph, so a run that calls the model more often would
    have stopped there: stop it here too, with LangGraph's error (a model asked again until it
    answers in a structured-output loop would otherwise run on)."""
    run = current_graph_run()
    limit = None if run is None else run.config.get("recursion_limit")
    if run is None or isinstance(limit, bool) or not isinstance(limit, int):
        return
    calls = run.extras["model_calls"] = run.extras.get("model_calls", 0) + 1
    if calls > limit:
        from langgraph.errors import GraphRecursionError

        raise GraphRecursionError(
            f"Recursion limit of {limit} reached without hitting a stop condition. You can "
            "increase the limit by setting the `recursion_limit` config key. (hookproof: the "
            f"reference engine counts model calls against it; this run made {calls}.)"
        )


def _sent(request: FinalRequest) -> list[BaseMessage]:
    """The messages the model is sent: the system message first, then the history's (a
    history's view is kept, and grown from the last one: see ``lc_messages``)."""
    system = request.system_message
    run = current_graph_run()
    callers = None if run is None else run.callers
    if callers:
        every = (*([] if system is None else [system]), *request.messages)
        return [_as_sent(item, callers) for item in every]
    history = lc_messages(request.messages)
    return [*history] if system is None else [lc_message(system), *history]


def _as_sent(message: Any, callers: dict[int, tuple[Any, Any]]) -> BaseMessage:
    """The caller's own LangChain message where the engine's is the one made from it (the
    model gets the very objects, as on LangGraph), else the locked view."""
    caller = callers.get(id(message))
    if caller is not None and caller[0] is message:
        return caller[1]  # type: ignore[no-any-return]
    return lc_message(message)
