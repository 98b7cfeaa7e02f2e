"""Behaviour LangChain's own agent tests check, on LangChain's ``create_agent`` and on the
reference engine running the same LangChain middleware, tools and model through the bridge:
refusals with LangChain's exception type and words, invalid tool calls answered, a tool
parameter named ``runtime`` injected."""

from __future__ import annotations

import asyncio
import importlib.util
from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run these")

from langchain.agents import create_agent as langchain_create_agent
from langchain.agents.middleware import AgentMiddleware, ExtendedModelResponse
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore
from langgraph.types import Command
from pydantic import Field

from hookproof.adapters.langchain import ScriptedChatModel, on_reference_engine
from hookproof.errors import UnsupportedCommandError
from hookproof.models import call
from hookproof.runtime import create_agent

HELLO = {"messages": [HumanMessage("hello")]}


def _both(build: Any, **options: Any) -> tuple[Any, Any]:
    """The agent ``build(create_agent)`` makes on LangChain and on the reference engine."""
    return build(langchain_create_agent, **options), build(create_agent, **options)


def _error_of(agent: Any, *, ainvoke: bool = False) -> BaseException:
    def run() -> Any:
        return asyncio.run(agent.ainvoke(HELLO)) if ainvoke else agent.invoke(HELLO)

    with pytest.raises(Exception) as caught:  # noqa: PT011 - the type is what is compared
        run()
    return caught.value


# -- Commands a wrap_model_call cannot return --------------------------------------------


REFUSED_COMMANDS = {
    "goto-end": Command(goto="__end__"),
    "goto-tools": Command(goto="tools"),
    "resume": Command(resume="yes"),
    "graph": Command(graph=Command.PARENT, update={"messages": []}),
}


class Says(AgentMiddleware):  # type: ignore[misc]
    def __init__(self, command: Command[Any]) -> None:
        self.command = command

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return ExtendedModelResponse(model_response=handler(request), command=self.command)

    async def awrap_model_call(self, request: Any, handler: Any) -> Any:
        response = await handler(request)
        return ExtendedModelResponse(model_response=response, command=self.command)


@pytest.mark.parametrize("ainvoke", [False, True], ids=["invoke", "ainvoke"])
@pytest.mark.parametrize("name", sorted(REFUSED_COMMANDS))
def test_a_bridged_wrap_model_call_command_is_refused_with_langchains_words(
    name: str, ainvoke: bool
) -> None:
    """Command(goto="__end__") too: the bridge used to drop it, so the run went on."""

    def build(create: Any) -> Any:
        model = ScriptedChatModel(script=["answer"])
        return create(model, [], middleware=[Says(REFUSED_COMMANDS[name])])

    on_langchain, on_reference = _both(build)
    expected = _error_of(on_langchain, ainvoke=ainvoke)
    raised = _error_of(on_reference, ainvoke=ainvoke)
    assert type(expected) is NotImplementedError
    assert isinstance(raised, UnsupportedCommandError)
    assert isinstance(raised, NotImplementedError)
    langchains_sentence = str(expected).partition(".")[0] + "."
    assert langchains_sentence.startswith("Command ")
    assert str(raised).startswith(langchains_sentence)
    assert "Says.wrap_model_call returned a Command" in str(raised)


# -- a tool a middleware shows that nothing runs -------------------------------------------


@tool
def known(value: str) -> str:
    """A registered tool."""
    return value


@tool
def stranger(value: str) -> str:
    """A tool no one registered."""
    return value


class ShowsStranger(AgentMiddleware):  # type: ignore[misc]
    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return handler(request.override(tools=[*request.tools, stranger]))


def test_a_tool_a_middleware_shows_and_nothing_runs_is_refused_with_langchains_words() -> None:
    def build(create: Any) -> Any:
        model = ScriptedChatModel(script=[call("known", {"value": "x"}), "done"])
        return create(model, [known], middleware=[ShowsStranger()])

    on_langchain, on_reference = _both(build)
    expected, raised = _error_of(on_langchain), _error_of(on_reference)
    assert type(expected) is ValueError and isinstance(raised, ValueError)
    for error in (expected, raised):
        assert str(error).startswith("Middleware added tools")
        assert "Unknown tools: ['stranger']" in str(error)
        assert "Registered tools: ['known']" in str(error)


# -- a tool parameter named runtime ----------------------------------------------------------


@tool
def probe(x: int, runtime) -> str:  # type: ignore[no-untyped-def]
    """Says what it was given as runtime."""
    return f"{type(runtime).__name__} {runtime.tool_call_id} {x}"


def _tool_texts(result: Any) -> list[str]:
    messages = result["messages"] if isinstance(result, dict) else result.messages
    return [m.text for m in messages if getattr(m, "type", getattr(m, "role", "")) == "tool"]


@pytest.mark.parametrize("ainvoke", [False, True], ids=["invoke", "ainvoke"])
def test_a_tool_parameter_named_runtime_without_annotation_gets_the_tool_runtime(
    ainvoke: bool,
) -> None:
    def build(create: Any) -> Any:
        model = ScriptedChatModel(script=[call("probe", {"x": 1}, id="c1"), "done"])
        return create(model, [probe])

    texts = []
    for agent in _both(build):
        result = asyncio.run(agent.ainvoke(HELLO)) if ainvoke else agent.invoke(HELLO)
        texts.append(_tool_texts(result))
    assert texts[0] == ["ToolRuntime c1 1"]
    assert texts[1] == texts[0]


# -- tool calls the provider could not parse --------------------------------------------------


class Replies(GenericFakeChatModel):  # type: ignore[misc]
    """Answers with the given AIMessages in turn and keeps what it received last."""

    received: list[Any] = Field(default_factory=list)

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: list[Any], *args: Any, **kwargs: Any) -> Any:
        self.received = list(messages)
        return super()._generate(messages, *args, **kwargs)


def _unparsed(call_id: str | None) -> AIMessage:
    bad = {"name": "known", "args": '{"value":', "id": call_id, "error": "Invalid JSON"}
    return AIMessage(content="", invalid_tool_calls=[bad])


_TYPES = {"user": "human", "assistant": "ai", "tool": "tool", "system": "system"}


def _seen(messages: list[Any]) -> list[tuple[Any, ...]]:
    """What the model is shown of each message (LangChain's or hookproof's), ids left out."""
    return [
        (
            getattr(m, "type", None) or _TYPES[m.role],
            m.text,
            getattr(m, "tool_call_id", None),
            getattr(m, "status", None),
            m.name,
        )
        for m in messages
    ]


def _messages(result: Any) -> list[Any]:
    return list(result["messages"] if isinstance(result, dict) else result.messages)


def _two_turns(create: Any, *, ainvoke: bool) -> tuple[list[Any], list[Any]]:
    model = Replies(messages=iter([_unparsed("call_1"), AIMessage("fine")]))
    agent = create(model, [known], checkpointer=InMemorySaver())
    turns = ({"messages": [HumanMessage("weather?")]}, {"messages": [HumanMessage("again")]})
    for turn in turns:
        if create is langchain_create_agent:
            config = {"configurable": {"thread_id": "t"}}
            run = agent.ainvoke(turn, config) if ainvoke else None
            result = asyncio.run(run) if run else agent.invoke(turn, config)
        else:
            run = agent.ainvoke(turn, thread_id="t") if ainvoke else None
            result = asyncio.run(run) if run else agent.invoke(turn, thread_id="t")
        if turn is turns[0]:
            first = _messages(result)
    return first, model.received


@pytest.mark.parametrize("ainvoke", [False, True], ids=["invoke", "ainvoke"])
def test_an_invalid_tool_call_is_answered_on_the_next_turn_as_langchain_answers_it(
    ainvoke: bool,
) -> None:
    (lc_first, lc_received) = _two_turns(langchain_create_agent, ainvoke=ainvoke)
    (hp_first, hp_received) = _two_turns(create_agent, ainvoke=ainvoke)
    assert [m.type for m in lc_first] == ["human", "ai"]  # the turn itself ends unanswered
    assert _seen(hp_first) == _seen(lc_first)
    answer = lc_received[2]
    assert (answer.type, answer.status, answer.tool_call_id) == ("tool", "error", "call_1")
    assert "malformed or truncated" in answer.text
    assert _seen(hp_received) == _seen(lc_received)


@pytest.mark.parametrize(("call_id", "answered"), [("historical", True), ("", True), (None, False)])
def test_an_invalid_tool_call_left_in_history_is_answered_once(
    call_id: str | None, answered: bool
) -> None:
    seen = []
    for create in (langchain_create_agent, create_agent):
        model = Replies(messages=iter([AIMessage("fine")]))
        history = [HumanMessage("weather?"), _unparsed(call_id)]
        result = create(model, [known]).invoke({"messages": history})
        assert (model.received[-1].type == "tool") is answered
        seen.append((_seen(model.received), _seen(_messages(result))))
    assert seen[1] == seen[0]


def test_an_invalid_tool_call_answered_in_history_is_not_answered_again() -> None:
    seen = []
    for create in (langchain_create_agent, create_agent):
        model = Replies(messages=iter([AIMessage("fine")]))
        answer = ToolMessage("done already", tool_call_id="old", status="error")
        history = [HumanMessage("weather?"), _unparsed("old"), answer]
        result = create(model, [known]).invoke({"messages": history})
        assert [m.type for m in model.received] == ["human", "ai", "tool"]
        seen.append((_seen(model.received), _seen(_messages(result))))
    assert seen[1] == seen[0]


# -- a model given by name ----------------------------------------------------------------------


def _answer_text(result: Any) -> str:
    if isinstance(result, dict):
        return str(result["messages"][-1].text)
    return str(result.text)


def test_a_model_given_by_name_is_made_with_init_chat_model_as_langchain_makes_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from langchain.agents import factory

    asked: list[str] = []

    def made(name: str) -> Any:
        asked.append(name)
        return ScriptedChatModel(script=["by name"])

    monkeypatch.setattr(factory, "init_chat_model", made)

    def build() -> Any:
        return langchain_create_agent("openai:gpt-4o", [])

    on_langchain = build().invoke(HELLO)
    on_reference = on_reference_engine(build)().invoke(HELLO)
    assert asked == ["openai:gpt-4o", "openai:gpt-4o"]
    assert _answer_text(on_reference) == _answer_text(on_langchain) == "by name"


@pytest.mark.parametrize("name", ["mistralai:mistral-large-latest", "no-provider-knows-this"])
def test_a_model_name_langchain_cannot_make_fails_alike(name: str) -> None:
    if name.startswith("mistralai:") and importlib.util.find_spec("langchain_mistralai"):
        pytest.skip("the provider package is installed here")

    def build() -> Any:
        return langchain_create_agent(name, [])

    with pytest.raises(Exception) as on_langchain:  # noqa: PT011 - compared below
        build()
    with pytest.raises(type(on_langchain.value)) as on_reference:
        on_reference_engine(build)()
    assert str(on_reference.value) == str(on_langchain.value)


def test_the_chat_model_gets_the_callers_own_message_objects_as_on_langgraph() -> None:
    answer = ToolMessage("done already", tool_call_id="old", status="error")
    question = HumanMessage("weather?")
    received = []
    for create in (langchain_create_agent, None):
        model = Replies(messages=iter([AIMessage("fine")]))

        def build(model: Any = model) -> Any:
            return langchain_create_agent(model, [known])

        agent = build() if create else on_reference_engine(build)()
        agent.invoke({"messages": [question, _unparsed("old"), answer]})
        received.append(model.received)
    on_langchain, on_reference = received
    assert on_langchain[0] is question and on_langchain[2] is answer
    assert on_reference[0] is question and on_reference[2] is answer
    assert _seen(on_reference) == _seen(on_langchain)


# -- the store -----------------------------------------------------------------------------------


class CountsVisits(AgentMiddleware):  # type: ignore[misc]
    def before_model(self, state: Any, runtime: Any) -> None:
        seen = runtime.store.get(("visits",), "count")
        runtime.store.put(("visits",), "count", {"n": 1 + (seen.value["n"] if seen else 0)})

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        assert request.runtime.store is not None
        return handler(request)


def test_a_store_given_to_create_agent_reaches_the_hooks_of_every_run() -> None:
    counts = []
    for on_reference in (False, True):
        store = InMemoryStore()

        def build(store: Any = store) -> Any:
            model = ScriptedChatModel(script=["one", "two"])
            return langchain_create_agent(model, [], middleware=[CountsVisits()], store=store)

        agent = on_reference_engine(build)() if on_reference else build()
        agent.invoke(HELLO)
        agent.invoke(HELLO)
        counts.append(store.get(("visits",), "count").value)  # type: ignore[union-attr]
    assert counts == [{"n": 2}, {"n": 2}]
