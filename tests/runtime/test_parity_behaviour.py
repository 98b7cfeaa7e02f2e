"""Behaviour beside LangChain's create_agent: each test runs the same middleware and script
on LangChain (the oracle, with a scripted LangChain chat model) and on hookproof's runtime,
and compares what happens: the exception types, the state, the refusals."""

from __future__ import annotations

import asyncio
import operator
import re
import typing
from collections.abc import Callable
from typing import Annotated, Any, NotRequired

import pytest

from hookproof.errors import (
    InvalidInputError,
    InvalidUpdateError,
    MissingAsyncHookError,
    UnexecutableToolError,
    UnsupportedCommandError,
)
from hookproof.models import ScriptedModel, call
from hookproof.runtime import (
    AgentMiddleware,
    AgentState,
    AssistantMessage,
    Command,
    ExtendedModelResponse,
    ModelResponse,
    ToolMessage,
    ToolRuntime,
    add_messages,
    before_model,
    create_agent,
    tool,
)
from tests.helpers import ALL_HOOKS, WRAP_HOOKS

lc = pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run this")
lc_middleware = pytest.importorskip(
    "langchain.agents.middleware", reason="install hookproof[langchain] to run this"
)
lc_tools = pytest.importorskip(
    "langchain_core.tools", reason="install hookproof[langchain] to run this"
)
lc_types = pytest.importorskip("langgraph.types", reason="install hookproof[langchain] to run this")
lc_messages = pytest.importorskip(
    "langchain_core.messages", reason="install hookproof[langchain] to run this"
)

HI = {"messages": [("user", "hi")]}


def build_on(
    engine: str, middleware: list[Any], script: list[Any], tools: list[Any] | None = None
) -> Any:
    """The agent of the middleware and script on LangChain's create_agent (engine
    "langchain", with a scripted LangChain chat model) or on hookproof's ("hookproof")."""
    if engine == "langchain":
        from hookproof.adapters.langchain import ScriptedChatModel

        model = ScriptedChatModel(script=script)
        return lc.create_agent(model, tools or [], middleware=middleware)
    return create_agent(ScriptedModel(script), tools or [], middleware=middleware)


def _invoke(agent: Any, ainvoke: bool) -> Any:
    return asyncio.run(agent.ainvoke(HI)) if ainvoke else agent.invoke(HI)


def run_on(
    engine: str,
    middleware: list[Any],
    script: list[Any],
    tools: list[Any] | None = None,
    *,
    ainvoke: bool = False,
) -> Any:
    """Runs the middleware and script on ``engine`` (see build_on)."""
    return _invoke(build_on(engine, middleware, script, tools), ainvoke)


def error_on(
    engine: str,
    middleware: list[Any],
    script: list[Any],
    tools: list[Any] | None = None,
    *,
    ainvoke: bool = False,
) -> BaseException:
    """What running the middleware and script on ``engine`` raises. hookproof's agent is
    built outside ``pytest.raises``, so an error that moved from the run to the build fails
    the test (LangChain's agent is built inside it, as the comparison always did)."""
    if engine == "hookproof":
        agent = build_on(engine, middleware, script, tools)
        with pytest.raises(Exception) as caught:  # noqa: PT011 - the type is what is compared
            _invoke(agent, ainvoke)
        return caught.value
    with pytest.raises(Exception) as caught:  # noqa: PT011 - the type is what is compared
        run_on(engine, middleware, script, tools, ainvoke=ainvoke)
    return caught.value


def middleware_pair(name: str = "Probe", **hooks: Callable[..., Any]) -> tuple[Any, Any]:
    """The same hooks on a LangChain middleware and on a hookproof one."""
    return (
        type(name, (lc_middleware.AgentMiddleware,), dict(hooks))(),
        type(name, (AgentMiddleware,), dict(hooks))(),
    )


def wrap_pair(name: str, on_langchain: Any, on_hookproof: Any) -> tuple[Any, Any]:
    """A LangChain and a hookproof middleware named ``name`` whose wrap_model_call hooks are
    the two given (each built from its framework's types)."""
    return (
        middleware_pair(name, wrap_model_call=on_langchain)[0],
        middleware_pair(name, wrap_model_call=on_hookproof)[1],
    )


@lc_tools.tool("echo")
def lc_echo(text: str) -> str:
    """Echo the text."""
    return text


@tool("echo")
def hp_echo(text: str) -> str:
    """Echo the text."""
    return text


# -- an async-only hook under invoke() ----------------------------------------------------


async def _async_node(self: Any, state: Any, runtime: Any) -> None:
    return None


async def _async_wrap(self: Any, request: Any, handler: Any) -> Any:
    return await handler(request)


@pytest.mark.parametrize("hook", ALL_HOOKS)
def test_an_async_only_hook_under_invoke_raises_what_langchain_raises(hook: str) -> None:
    function = _async_wrap if hook in WRAP_HOOKS else _async_node
    on_langchain, on_hookproof = middleware_pair(**{f"a{hook}": function})
    expected = error_on(
        "langchain", [on_langchain], [call("echo", {"text": "x"}), "done"], [lc_echo]
    )
    raised = error_on("hookproof", [on_hookproof], [call("echo", {"text": "x"}), "done"], [hp_echo])
    assert isinstance(raised, MissingAsyncHookError)
    assert isinstance(raised, type(expected)), (type(expected), type(raised))
    assert f"defines only a{hook}" in str(raised)


# -- a tool nothing can execute -----------------------------------------------------------


def test_a_tool_nothing_can_execute_raises_what_langchain_raises() -> None:
    @lc_tools.tool
    def ghost(text: str) -> str:
        """Nobody runs me."""
        return text

    @tool("ghost")
    def hp_ghost(text: str) -> str:
        """Nobody runs me."""
        return text

    def show(ghost_tool: Any) -> Callable[..., Any]:
        def wrap_model_call(self: Any, request: Any, handler: Any) -> Any:
            return handler(request.override(tools=[*request.tools, ghost_tool]))

        return wrap_model_call

    on_langchain, on_hookproof = wrap_pair("Probe", show(ghost), show(hp_ghost))
    expected = error_on("langchain", [on_langchain], ["answer"], [lc_echo])
    raised = error_on("hookproof", [on_hookproof], ["answer"], [hp_echo])
    assert isinstance(raised, UnexecutableToolError)
    assert isinstance(raised, type(expected)) and isinstance(raised, ValueError)
    assert "['ghost']" in str(expected) and "['ghost']" in str(raised)
    said_by_langchain = r"(?s)Middleware added tools.*Unknown tools:.*ghost"
    assert re.search(said_by_langchain, str(expected))
    assert re.search(said_by_langchain, str(raised))


# -- Commands a wrap_model_call cannot return ---------------------------------------------


def _returning(command: Any, extended: Any) -> Callable[..., Any]:
    def wrap_model_call(self: Any, request: Any, handler: Any) -> Any:
        return extended(model_response=handler(request), command=command)

    return wrap_model_call


def _catching(self: Any, request: Any, handler: Any) -> Any:
    """An outer layer that would swallow an error of its handler."""
    try:
        return handler(request)
    except Exception:  # noqa: BLE001 - the point: an error here would be hidden
        return {"never": "reached"}


UNSUPPORTED = {
    "goto": ({"goto": "end"}, "goto='end'"),
    "resume": ({"resume": "yes"}, "resume=..."),
}


@pytest.mark.parametrize("field", sorted(UNSUPPORTED))
@pytest.mark.parametrize("outer", [False, True], ids=["alone", "inside-a-catching-layer"])
def test_a_wrap_model_call_command_langchain_refuses_is_refused_alike(
    field: str, outer: bool
) -> None:
    """Refused once the outermost layer returned, as on LangChain: a layer around it never
    sees the refusal as its handler's error."""
    values, shown = UNSUPPORTED[field]
    lc_hook = _returning(lc_types.Command(**values), lc_middleware.ExtendedModelResponse)
    hp_hook = _returning(Command(**values), ExtendedModelResponse)
    stacks = [wrap_pair("Probe", lc_hook, hp_hook)]
    if outer:
        stacks.insert(0, middleware_pair("Outer", wrap_model_call=_catching))
    expected = error_on("langchain", [lc_side for lc_side, _ in stacks], ["answer"])
    raised = error_on("hookproof", [hp_side for _, hp_side in stacks], ["answer"])
    assert isinstance(raised, UnsupportedCommandError)
    assert isinstance(raised, type(expected)) and isinstance(raised, NotImplementedError)
    assert f"Probe.wrap_model_call returned a Command with {shown}" in str(raised)
    assert str(raised).startswith(_first_sentence(expected))


def _first_sentence(error: BaseException) -> str:
    first = str(error).split(". ")[0]
    assert first.startswith("Command "), error  # LangChain's "Command <field> is not yet ..."
    return first


@pytest.mark.parametrize("resume", [None, 0, ""])
def test_a_falsy_resume_passes_as_on_langchain(resume: Any) -> None:
    lc_hook = _returning(lc_types.Command(resume=resume), lc_middleware.ExtendedModelResponse)
    hp_hook = _returning(Command(resume=resume), ExtendedModelResponse)
    on_langchain, on_hookproof = wrap_pair("Probe", lc_hook, hp_hook)
    expected = [m.content for m in run_on("langchain", [on_langchain], ["answer"])["messages"]]
    result = create_agent(ScriptedModel(["answer"]), middleware=[on_hookproof]).invoke(HI)
    assert [m.text for m in result.messages] == expected == ["hi", "answer"]


# -- structured_response ------------------------------------------------------------------


def _structured(value: Any, response_type: Any) -> Callable[..., Any]:
    """A wrap_model_call that attaches ``value`` as the structured response on the first
    model call only."""

    def wrap_model_call(self: Any, request: Any, handler: Any) -> Any:
        response = handler(request)
        first = len(request.messages) == 1
        return response_type(result=response.result, structured_response=value if first else None)

    return wrap_model_call


def _structured_pair(name: str, value: Any) -> tuple[Any, Any]:
    return wrap_pair(
        name,
        _structured(value, lc_middleware.ModelResponse),
        _structured(value, ModelResponse),
    )


@pytest.mark.parametrize("value", [{"city": "Paris"}, None], ids=["given", "none"])
def test_a_structured_response_reaches_state_as_on_langchain(value: Any) -> None:
    """Written when not None; a later response without one leaves it as it was."""
    script = [call("echo", {"text": "x"}), "done"]
    on_langchain, on_hookproof = _structured_pair("Probe", value)
    expected = run_on("langchain", [on_langchain], list(script), [lc_echo])
    result = create_agent(ScriptedModel(script), [hp_echo], middleware=[on_hookproof]).invoke(HI)
    assert ("structured_response" in result.state) is ("structured_response" in expected)
    assert result.state.get("structured_response") == expected.get("structured_response")


def test_a_model_s_structured_response_reaches_state() -> None:
    class Structured:
        hookproof_offline = True
        name = "structured"

        def invoke(self, request: Any) -> ModelResponse:
            return ModelResponse(result=(AssistantMessage("ok"),), structured_response=[1, 2])

    result = create_agent(Structured()).invoke(HI)
    assert result.state["structured_response"] == [1, 2]
    assert result.text == "ok"


# -- a key without reducer written twice in one step --------------------------------------


class LCNotes(lc_middleware.AgentState):
    note: NotRequired[str]
    count: NotRequired[Annotated[int, operator.add]]


class HPNotes(AgentState):
    note: NotRequired[str]
    count: NotRequired[Annotated[int, operator.add]]


def _writing_tools(key: str) -> tuple[Any, Any]:
    @lc_tools.tool("write")
    def lc_write(value: Any, tool_call_id: Annotated[str, lc_tools.InjectedToolCallId]) -> Any:
        """Write the value."""
        reply = lc_messages.ToolMessage("ok", tool_call_id=tool_call_id)
        return lc_types.Command(update={key: value, "messages": [reply]})

    @tool("write")
    def hp_write(value: Any, runtime: ToolRuntime[Any]) -> Any:
        """Write the value."""
        reply = ToolMessage("ok", tool_call_id=runtime.tool_call_id or "")
        return Command(update={key: value, "messages": [reply]})

    return lc_write, hp_write


def _with_schema(pair: tuple[Any, Any]) -> tuple[Any, Any]:
    pair[0].state_schema, pair[1].state_schema = LCNotes, HPNotes
    return pair


def _assert_refused_alike(expected: BaseException, raised: BaseException, key: str) -> None:
    assert isinstance(raised, InvalidUpdateError)
    assert isinstance(raised, type(expected))  # LangGraph's own type catches it
    assert type(raised).__name__ == type(expected).__name__ == "InvalidUpdateError"
    assert all(isinstance(raised, base) for base in type(expected).__mro__[1:])
    assert f"state key {key!r} was written twice in one step" in str(raised)


@pytest.mark.parametrize("ainvoke", [False, True], ids=["invoke", "ainvoke"])
def test_two_tool_calls_writing_a_key_without_reducer_are_refused_alike(ainvoke: bool) -> None:
    lc_write, hp_write = _writing_tools("note")
    script = [[call("write", {"value": "a"}), call("write", {"value": "b"})], "done"]
    on_langchain, on_hookproof = _with_schema(middleware_pair("Notes"))
    expected = error_on("langchain", [on_langchain], list(script), [lc_write], ainvoke=ainvoke)
    raised = error_on("hookproof", [on_hookproof], list(script), [hp_write], ainvoke=ainvoke)
    _assert_refused_alike(expected, raised, "note")
    assert "by tool 'write' (call 'call_0') and by tool 'write' (call 'call_1')" in str(raised)


def test_a_key_with_a_reducer_takes_every_write_of_a_step_alike() -> None:
    lc_write, hp_write = _writing_tools("count")
    script = [[call("write", {"value": 2}), call("write", {"value": 3})], "done"]
    on_langchain, on_hookproof = _with_schema(middleware_pair("Notes"))
    expected = run_on("langchain", [on_langchain], list(script), [lc_write])
    agent = create_agent(ScriptedModel(script), [hp_write], middleware=[on_hookproof])
    assert agent.invoke(HI).state["count"] == expected["count"] == 5


def _commanding(update: dict[str, Any], extended: Any, command: Any) -> Callable[..., Any]:
    def wrap_model_call(self: Any, request: Any, handler: Any) -> Any:
        return extended(model_response=handler(request), command=command(update=update))

    return wrap_model_call


def _command_pair(name: str, update: dict[str, Any]) -> tuple[Any, Any]:
    lc_hook = _commanding(update, lc_middleware.ExtendedModelResponse, lc_types.Command)
    hp_hook = _commanding(update, ExtendedModelResponse, Command)
    return wrap_pair(name, lc_hook, hp_hook)


def test_two_model_call_commands_writing_one_key_are_refused_alike() -> None:
    """LangChain documents that an outer command overwrites an inner one; LangGraph refuses
    both in one step, and that is what runs."""
    outer = _with_schema(_command_pair("Outer", {"note": "outer"}))
    inner = _command_pair("Inner", {"note": "inner"})
    expected = error_on("langchain", [outer[0], inner[0]], ["answer"])
    raised = error_on("hookproof", [outer[1], inner[1]], ["answer"])
    _assert_refused_alike(expected, raised, "note")
    assert "by Inner.wrap_model_call and by Outer.wrap_model_call" in str(raised)


def test_a_command_and_the_model_s_structured_response_are_refused_alike() -> None:
    outer = _structured_pair("Outer", {"a": 1})
    inner = _command_pair("Inner", {"structured_response": {"b": 2}})
    expected = error_on("langchain", [outer[0], inner[0]], ["answer"])
    raised = error_on("hookproof", [outer[1], inner[1]], ["answer"])
    _assert_refused_alike(expected, raised, "structured_response")
    assert "by the model's response and by Inner.wrap_model_call" in str(raised)


def test_one_write_per_step_passes_alike() -> None:
    """A tool writes the key, then the next model step's command writes it again."""
    lc_write, hp_write = _writing_tools("note")
    script = [call("write", {"value": "tool"}), "done"]
    later = _with_schema(_command_pair("Later", {"note": "model"}))
    expected = run_on("langchain", [later[0]], list(script), [lc_write])
    agent = create_agent(ScriptedModel(script), [hp_write], middleware=[later[1]])
    assert agent.invoke(HI).state["note"] == expected["note"] == "model"


# -- AgentState and the state_schema of middleware ----------------------------------------


def _keys(schema: type) -> set[str]:
    return set(typing.get_type_hints(schema))


def test_agent_state_has_langchain_s_keys_but_the_loop_s_own() -> None:
    assert _keys(AgentState) == _keys(lc_middleware.AgentState) - {"jump_to"}
    messages = typing.get_type_hints(AgentState, include_extras=True)["messages"]
    assert typing.get_args(typing.get_args(messages)[0])[1] is add_messages  # Required[...]
    assert AgentState[int] is not None  # generic in the structured response, as LangChain's


_NODE_HOOKS = ("before_agent", "before_model", "after_model", "after_agent")


def _decorated(module: Any) -> dict[str, Any]:
    def node(state: Any, runtime: Any) -> None:
        return None

    def wrap(request: Any, handler: Any) -> Any:
        return handler(request)

    made = {hook: getattr(module, hook)(node) for hook in _NODE_HOOKS}
    made |= {hook: getattr(module, hook)(wrap) for hook in ("wrap_model_call", "wrap_tool_call")}
    made["dynamic_prompt"] = module.dynamic_prompt(lambda request: "prompt")
    return made


def test_decorated_and_dynamic_prompt_middleware_have_langchain_s_state_schema() -> None:
    import hookproof.runtime as hp_runtime

    langchain, hookproof = _decorated(lc_middleware), _decorated(hp_runtime)
    assert langchain.keys() == hookproof.keys()
    for kind, made in hookproof.items():
        assert langchain[kind].state_schema is lc_middleware.AgentState, kind
        assert made.state_schema is AgentState, kind
    given = hp_runtime.before_model(state_schema=HPNotes)(lambda state, runtime: None)
    assert given.state_schema is HPNotes


def test_an_undecorated_middleware_has_langchain_s_default_schema() -> None:
    """A subclass of AgentState that declares nothing more, as LangChain's default."""
    on_langchain, on_hookproof = middleware_pair("Plain")
    for schema, base in (
        (on_langchain.state_schema, lc_middleware.AgentState),
        (on_hookproof.state_schema, AgentState),
    ):
        assert schema is not base and issubclass(schema, dict)
        assert _keys(schema) == _keys(base)


def test_default_schemas_leave_the_agent_open_to_new_keys() -> None:
    """hookproof keeps a key no schema declares while only default schemas are given (LangChain
    drops it), and refuses it once a schema declares keys of its own."""

    @before_model
    def extra(state: Any, runtime: Any) -> Any:
        return {"extra": 1}

    plain = type("Plain", (AgentMiddleware,), {})()
    agent = create_agent(ScriptedModel(["x"]), middleware=[extra, plain], state_schema=AgentState)
    assert agent.invoke(HI).state["extra"] == 1
    strict = create_agent(ScriptedModel(["x"]), middleware=[extra], state_schema=HPNotes)
    with pytest.raises(InvalidInputError, match=r"'extra'.*also has \['structured_response'\]"):
        strict.invoke(HI)


def test_a_strict_agent_takes_a_structured_response_as_langchain() -> None:
    on_langchain, on_hookproof = _with_schema(_structured_pair("Probe", {"a": 1}))
    expected = run_on("langchain", [on_langchain], ["answer"])
    result = create_agent(ScriptedModel(["answer"]), middleware=[on_hookproof]).invoke(HI)
    assert result.state["structured_response"] == expected["structured_response"] == {"a": 1}


def test_each_state_schema_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every middleware has a schema now, so building an agent reads each class only once."""

    class Fresh(AgentState):
        note: NotRequired[str]

    read: list[object] = []
    real = typing.get_type_hints

    def counting(schema: Any, *args: Any, **kwargs: Any) -> Any:
        read.append(schema)
        return real(schema, *args, **kwargs)

    monkeypatch.setattr(typing, "get_type_hints", counting)
    for _ in range(3):
        create_agent(ScriptedModel(["x"]), state_schema=Fresh)
    assert read.count(Fresh) == 1
