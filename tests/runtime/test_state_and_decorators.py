"""State reducers, Command, jumps, decorators, dynamic_prompt and middleware tools."""

from __future__ import annotations

import asyncio
import contextlib
import operator
from typing import Annotated, Any, TypedDict

import pytest

from hookproof.errors import InvalidInputError, UsageError
from hookproof.messages import RemoveMessage, UserMessage
from hookproof.models import RecordingModel, ScriptedModel, call
from hookproof.runtime import (
    AgentMiddleware,
    Command,
    ExtendedModelResponse,
    ModelResponse,
    ToolMessage,
    ToolRuntime,
    after_agent,
    after_model,
    before_agent,
    before_model,
    create_agent,
    dynamic_prompt,
    hook_config,
    tool,
    wrap_model_call,
    wrap_tool_call,
)
from tests.helpers import lookup

HI = {"messages": [("user", "hi")]}


class CountingState(TypedDict):
    messages: list[Any]
    model_calls: Annotated[int, operator.add]


def test_custom_reducer_and_command_updates() -> None:
    @before_model(state_schema=CountingState)
    def count(state: Any, runtime: Any) -> Any:
        return Command(update={"model_calls": 1})

    model = ScriptedModel([call("lookup", {"query": "x"}), "done"])
    result = create_agent(model, [lookup], middleware=[count]).invoke({**HI, "model_calls": 10})
    assert result.state["model_calls"] == 12


def test_state_is_read_only_inside_hooks() -> None:
    @before_agent
    def scribble(state: Any, runtime: Any) -> None:
        state["messages"] = []

    with pytest.raises(AttributeError, match="immutable"):
        create_agent(ScriptedModel(["x"]), middleware=[scribble]).invoke(HI)


def test_messages_reducer_replaces_by_id_and_removes() -> None:
    @before_agent
    def rewrite(state: Any, runtime: Any) -> Any:
        return {"messages": [UserMessage("edited", id="u1"), RemoveMessage(id="u2")]}

    model = RecordingModel(ScriptedModel(["x"]))
    messages = [UserMessage("hi", id="u1"), UserMessage("drop me", id="u2")]
    create_agent(model, middleware=[rewrite]).invoke({"messages": messages})
    assert [m.text for m in model.last.messages] == ["edited"]


def _ending_with(answer: str) -> Any:
    """A before_model hook that answers and jumps to the end, so the model is never called."""

    @before_model(can_jump_to=["end"])
    def stop(state: Any, runtime: Any) -> Any:
        return {"jump_to": "end", "messages": [("assistant", answer)]}

    return stop


def test_jump_to_end_from_before_model_skips_the_model_but_runs_after_agent() -> None:
    stop = _ending_with("blocked")

    @after_agent
    def finish(state: Any, runtime: Any) -> None:
        return None

    model = RecordingModel(ScriptedModel([]))
    result = create_agent(model, middleware=[stop, finish]).invoke(HI)
    assert result.text == "blocked" and model.requests == ()
    assert result.trace.count("after_agent", "finish") == 1


def test_after_model_jump_to_model_calls_the_model_again() -> None:
    @after_model(can_jump_to=["model"])
    def again_once(state: Any, runtime: Any) -> Any:
        return {"jump_to": "model"} if len(state["messages"]) == 2 else None

    model = RecordingModel(ScriptedModel(["first", "second"]))
    result = create_agent(model, middleware=[again_once]).invoke(HI)
    assert result.text == "second" and len(model.requests) == 2


def test_tool_returning_command_updates_state() -> None:
    @tool
    def remember(note: str, runtime: ToolRuntime[Any]) -> Command:
        """Remember a note."""
        reply = ToolMessage("saved", tool_call_id=runtime.tool_call_id or "")
        return Command(update={"messages": [reply], "note": note})

    model = ScriptedModel([call("remember", {"note": "n1"}), "done"])
    result = create_agent(model, [remember]).invoke(HI)
    assert result.state["note"] == "n1"
    assert result.messages[2].text == "saved"


def test_wrap_model_call_can_update_state_through_an_extended_response() -> None:
    @wrap_model_call
    def tag(request: Any, handler: Any) -> Any:
        response = handler(request)
        return ExtendedModelResponse(response, Command(update={"route": "fast"}))

    @wrap_model_call
    def outer(request: Any, handler: Any) -> Any:
        response = handler(request)
        assert isinstance(response, ModelResponse)
        return response

    result = create_agent(ScriptedModel(["x"]), middleware=[outer, tag]).invoke(HI)
    assert result.state["route"] == "fast"


def test_dynamic_prompt_replaces_the_system_message() -> None:
    @dynamic_prompt
    def by_context(request: Any) -> str:
        return f"You help a {request.runtime.context}."

    model = RecordingModel(ScriptedModel(["x"]))
    create_agent(model, system_prompt="static", middleware=[by_context]).invoke(HI, context="guest")
    assert model.last.system_text == "You help a guest."


def test_async_decorated_hooks_and_async_tools_under_ainvoke() -> None:
    @tool
    async def fetch(url: str) -> str:
        """Fetch a page."""
        await asyncio.sleep(0)
        return f"page:{url}"

    @wrap_tool_call
    async def audit(request: Any, handler: Any) -> Any:
        return await handler(request)

    @dynamic_prompt
    async def prompt(request: Any) -> str:
        return "async prompt"

    model = RecordingModel(ScriptedModel([call("fetch", {"url": "u"}), "done"]))
    agent = create_agent(model, [fetch], middleware=[audit, prompt])
    result = asyncio.run(agent.ainvoke(HI))
    assert result.messages[2].text == "page:u"
    assert model.last.system_text == "async prompt"
    assert result.trace.count("wrap_tool_call", "audit") == 1


def test_async_tool_under_sync_invoke() -> None:
    @tool
    async def fetch(url: str) -> str:
        """Fetch a page."""
        return f"page:{url}"

    model = ScriptedModel([call("fetch", {"url": "u"}), "done"])
    assert create_agent(model, [fetch]).invoke(HI).messages[2].text == "page:u"


def test_middleware_tools_are_registered_first() -> None:
    @tool
    def write_todos(todos: list[str]) -> str:
        """Write the todo list."""
        return "ok"

    class Todo(AgentMiddleware):
        tools = (write_todos,)

    agent = create_agent(ScriptedModel(["x"]), [lookup], middleware=[Todo()])
    assert [t.name for t in agent.tools] == ["write_todos", "lookup"]


def test_one_agent_serves_concurrent_runs_without_sharing_state() -> None:
    @tool
    def whoami(runtime: ToolRuntime[str]) -> str:
        """Tell the caller's role."""
        return str(runtime.context)

    def respond(request: Any) -> Any:
        return call("whoami") if len(request.messages) == 1 else request.messages[-1].text

    agent = create_agent(ScriptedModel(respond), [whoami])

    async def both() -> list[str]:
        runs = [agent.ainvoke(HI, context=role) for role in ("guest", "admin", "analyst")]
        return [result.text for result in await asyncio.gather(*runs)]

    assert asyncio.run(both()) == ["guest", "admin", "analyst"]


def test_a_jump_leaves_the_phase_before_later_hooks() -> None:
    first = _ending_with("stopped")

    @before_model
    def second(state: Any, runtime: Any) -> Any:
        raise AssertionError("must not run after a jump")

    model = RecordingModel(ScriptedModel([]))
    result = create_agent(model, middleware=[first, second]).invoke(HI)
    assert result.text == "stopped"
    assert result.trace.count("before_model", "second") == 0


def test_a_retry_discards_state_updates_of_the_failed_attempt() -> None:
    @wrap_model_call
    def retry(request: Any, handler: Any) -> Any:
        try:
            return handler(request)
        except ConnectionError:
            return handler(request)

    @wrap_model_call
    def note(request: Any, handler: Any) -> Any:
        response = handler(request)
        return ExtendedModelResponse(response, Command(update={"messages": [("user", "note")]}))

    turns: list[Any] = [ConnectionError("503"), "ok"]

    @wrap_model_call
    def flaky(request: Any, handler: Any) -> Any:
        response = handler(request)
        if turns and isinstance(turns[0], ConnectionError):
            turns.pop(0)
            raise ConnectionError("503")
        return response

    result = create_agent(ScriptedModel(["a", "b"]), middleware=[retry, flaky, note]).invoke(HI)
    assert [m.text for m in result.messages].count("note") == 1


def test_a_second_attempt_that_fails_forgets_what_the_first_one_said() -> None:
    """A hook that calls its handler again and swallows that attempt's failure returns the
    first response alone: the inner layers' Command of the first attempt is not kept (the
    attempt it came with was retried), under invoke() and under ainvoke() alike."""

    @wrap_model_call
    def second_opinion(request: Any, handler: Any) -> Any:
        first = handler(request)
        with contextlib.suppress(ConnectionError):
            handler(request)
        return first

    @wrap_model_call
    def note(request: Any, handler: Any) -> Any:
        response = handler(request)
        return ExtendedModelResponse(response, Command(update={"messages": [("user", "note")]}))

    def build() -> Any:
        model = ScriptedModel(["a", ConnectionError("503")])
        return create_agent(model, middleware=[second_opinion, note])

    for result in (build().invoke(HI), asyncio.run(build().ainvoke(HI))):
        assert [m.text for m in result.messages] == ["hi", "a"]


def test_goto_from_a_wrap_model_call_command_is_refused() -> None:
    @wrap_model_call
    def jumpy(request: Any, handler: Any) -> Any:
        return ExtendedModelResponse(handler(request), Command(goto="end"))

    with pytest.raises(UsageError, match="can update state but not jump"):
        create_agent(ScriptedModel(["x"]), middleware=[jumpy]).invoke(HI)


def test_a_tool_command_must_answer_its_call() -> None:
    @tool
    def flag(runtime: ToolRuntime[Any]) -> Command:
        """Set a flag."""
        return Command(update={"flag": True})

    with pytest.raises(InvalidInputError, match="without a ToolMessage for its call 'call_0'"):
        create_agent(ScriptedModel([call("flag"), "done"]), [flag]).invoke(HI)


# -- jumps a hook did not declare (LangChain ignores them) ---------------------------------


def _jumping_to_the_end(base: type, config: Any) -> tuple[type, type, type]:
    """Middleware whose before_model jumps to the end: without declaring it, declaring it
    with ``config`` (a framework's hook_config), and declaring it on the async hook."""

    class Undeclared(base):  # type: ignore[misc, valid-type]
        def before_model(self, state: Any, runtime: Any) -> Any:
            return {"jump_to": "end"}

    class Declared(base):  # type: ignore[misc, valid-type]
        @config(can_jump_to=["end"])
        def before_model(self, state: Any, runtime: Any) -> Any:
            return {"jump_to": "end"}

    class AsyncDeclared(base):  # type: ignore[misc, valid-type]
        @config(can_jump_to=["end"])
        async def abefore_model(self, state: Any, runtime: Any) -> Any:
            return {"jump_to": "end"}

    return Undeclared, Declared, AsyncDeclared


_Undeclared, _Declared, _AsyncDeclared = _jumping_to_the_end(AgentMiddleware, hook_config)


@pytest.mark.parametrize(
    ("middleware", "answered"),
    [(_Undeclared(), True), (_Declared(), False), (_AsyncDeclared(), False)],
    ids=["undeclared", "declared", "declared-async"],
)
def test_only_a_declared_jump_is_followed(middleware: AgentMiddleware, answered: bool) -> None:
    model = RecordingModel(ScriptedModel(["answer"]))
    result = asyncio.run(create_agent(model, middleware=[middleware]).ainvoke(HI))
    assert (len(model.requests) == 1) is answered
    ignored = [e for e in result.trace.events if e.hook == "jump_ignored"]
    assert [e.data for e in ignored] == ([{"jump_to": "end", "declared": ()}] if answered else [])


def test_an_undeclared_jump_to_model_no_longer_loops() -> None:
    @after_model
    def again(state: Any, runtime: Any) -> Any:
        return {"jump_to": "model"}

    model = RecordingModel(ScriptedModel(["once"]))
    result = create_agent(model, middleware=[again]).invoke(HI)
    assert result.text == "once" and len(model.requests) == 1


def test_the_decorators_and_hook_config_refuse_unknown_targets() -> None:
    with pytest.raises(UsageError, match="jump targets"):
        hook_config(can_jump_to=["the moon"])
    with pytest.raises(UsageError, match="jump targets"):
        before_model(can_jump_to="end")(lambda state, runtime: None)  # type: ignore[arg-type]


def test_the_same_jumps_follow_langchain() -> None:
    pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run this")
    from langchain.agents import create_agent as lc_create_agent
    from langchain.agents.middleware import AgentMiddleware as LCMiddleware
    from langchain.agents.middleware import hook_config as lc_hook_config

    from hookproof.adapters.langchain import ScriptedChatModel

    Undeclared, Declared, _ = _jumping_to_the_end(LCMiddleware, lc_hook_config)

    def langchain_texts(middleware: Any) -> list[str]:
        agent = lc_create_agent(ScriptedChatModel(script=["answer"]), [], middleware=[middleware])
        return [m.content for m in agent.invoke({"messages": [("user", "hi")]})["messages"]]

    def hookproof_texts(middleware: Any) -> list[str]:
        agent = create_agent(ScriptedModel(["answer"]), middleware=[middleware])
        return [m.text for m in agent.invoke(HI).messages]

    assert langchain_texts(Undeclared()) == hookproof_texts(_Undeclared()) == ["hi", "answer"]
    assert langchain_texts(Declared()) == hookproof_texts(_Declared()) == ["hi"]
