"""The runtime's vocabulary speaks LangChain v1's API: each behaviour is checked beside
LangChain's own (langchain.agents.middleware), which is the oracle where it is installed."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import pickle
from collections.abc import Callable, Mapping
from typing import Annotated, Any, get_args, get_origin

import pytest

from hookproof._support.frozen import freeze
from hookproof.errors import (
    HookproofError,
    ImmutableError,
    InjectedStateError,
    InvalidUpdateError,
    ParentCommandError,
    UnsupportedCommandError,
)
from hookproof.messages import SystemMessage, ToolCall, ToolMessage
from hookproof.models import RecordingModel, ScriptedModel, call
from hookproof.runtime import (
    AgentMiddleware,
    AgentState,
    Command,
    ExtendedModelResponse,
    InjectedState,
    InjectedToolCallId,
    InMemoryCheckpointer,
    ModelRequest,
    ModelResponse,
    ToolCallRequest,
    ToolRuntime,
    create_agent,
    tool,
)
from tests.helpers import lookup

try:  # LangChain's markers: tool annotations are resolved in this module's namespace
    from langchain_core.tools import InjectedToolCallId as LCInjectedToolCallId
    from langgraph.prebuilt import InjectedState as LCInjectedState
except ImportError:  # the tests that need them skip
    pass

HI = {"messages": [("user", "hi")]}


def _langchain() -> Any:
    return pytest.importorskip(
        "langchain.agents.middleware", reason="install hookproof[langchain] to run this"
    )


# -- 1. ModelRequest.system_prompt ----------------------------------------------------------


def test_system_prompt_on_construction_becomes_the_system_message() -> None:
    lc = _langchain()
    for build in (ModelRequest, ModelRequest.create):
        request = build(model="m", system_prompt="be brief")
        assert request.system_message == SystemMessage("be brief")
        assert request.system_prompt == "be brief"
    assert lc.ModelRequest(model="m", messages=[], system_prompt="be brief").system_prompt == (
        "be brief"
    )


def test_system_prompt_none_keeps_the_system_message_on_construction() -> None:
    lc = _langchain()
    given = SystemMessage("kept")
    assert ModelRequest(model="m", system_prompt=None, system_message=given).system_message == (
        given
    )
    kept = lc.ModelRequest(model="m", messages=[], system_prompt=None, system_message=_lc_system())
    assert kept.system_prompt == "kept"


def test_system_prompt_override_replaces_and_none_clears() -> None:
    lc = _langchain()
    request = ModelRequest(model="m", system_prompt="old")
    assert request.override(system_prompt="new").system_message == SystemMessage("new")
    assert request.override(system_prompt=None).system_message is None
    assert request.system_prompt == "old"
    lc_request = lc.ModelRequest(model="m", messages=[], system_prompt="old")
    assert lc_request.override(system_prompt="new").system_prompt == "new"
    assert lc_request.override(system_prompt=None).system_message is None


def _lc_system(text: str = "kept") -> Any:
    from langchain_core.messages import SystemMessage as LCSystemMessage

    return LCSystemMessage(content=text)


def test_system_prompt_with_system_message_is_a_value_error_as_in_langchain() -> None:
    lc = _langchain()
    with pytest.raises(HookproofError, match="both system_prompt and system_message") as built:
        ModelRequest(model="m", system_prompt="a", system_message=SystemMessage("b"))
    with pytest.raises(HookproofError, match="both system_prompt and system_message") as changed:
        ModelRequest(model="m").override(system_prompt="a", system_message=None)
    assert isinstance(built.value, ValueError) and isinstance(changed.value, ValueError)
    with pytest.raises(ValueError, match="system_prompt and system_message"):
        lc.ModelRequest(model="m", messages=[], system_prompt="a", system_message=_lc_system())
    with pytest.raises(ValueError, match="system_prompt and system_message"):
        lc.ModelRequest(model="m", messages=[]).override(system_prompt="a", system_message=None)


def test_system_prompt_of_the_wrong_type_is_a_usage_error() -> None:
    with pytest.raises(TypeError, match="system_prompt must be a str"):
        ModelRequest(model="m", system_prompt=3)  # type: ignore[arg-type]


def test_a_layer_setting_system_prompt_reaches_the_model() -> None:
    class Prompted(AgentMiddleware):
        def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
            return handler(request.override(system_prompt=f"{request.system_prompt}!"))

    model = RecordingModel(ScriptedModel(["done"]))
    create_agent(model, system_prompt="base", middleware=[Prompted()]).invoke(HI)
    assert model.requests[0].system_text == "base!"


def test_a_misspelt_system_prompt_in_override_suggests_it() -> None:
    with pytest.raises(TypeError, match="Did you mean 'system_prompt'"):
        ModelRequest(model="m").override(system_promt="x")


# -- 2. ToolCall is a Mapping ---------------------------------------------------------------


def test_a_tool_call_reads_like_langchains_tool_call_dict() -> None:
    pytest.importorskip("langchain_core", reason="install hookproof[langchain] to run this")
    from langchain_core.messages.tool import tool_call as lc_tool_call

    ours = ToolCall(name="lookup", args={"query": "x"}, id="c1")
    theirs = lc_tool_call(name="lookup", args={"query": "x"}, id="c1")
    assert isinstance(ours, Mapping)
    assert list(ours) == list(ours.keys()) == list(theirs)
    assert {**ours} == dict(ours.items()) == theirs
    assert list(ours.values()) == list(theirs.values())
    assert (len(ours), "type" in ours, "nope" in ours) == (len(theirs), True, False)
    assert (ours["type"], ours.get("id"), ours.get("nope", 0)) == ("tool_call", "c1", 0)
    with pytest.raises(KeyError):
        ours["nope"]


def test_a_tool_call_keeps_its_attributes_dump_and_immutability() -> None:
    ours = ToolCall(name="lookup", args={"query": "x"}, id="c1")
    assert (ours.name, ours.args, ours.id, ours.type) == (
        "lookup",
        {"query": "x"},
        "c1",
        "tool_call",
    )
    assert ours.model_dump() == {"name": "lookup", "args": {"query": "x"}, "id": "c1"}
    assert repr(ours) == "ToolCall(name='lookup', args={'query': 'x'}, id='c1')"
    assert ours != {**ours} and hash(ours) == hash(ToolCall.model_validate({**ours}))
    with pytest.raises(TypeError):
        ours["name"] = "other"  # type: ignore[index]
    with pytest.raises(ValueError, match="frozen"):
        ours.name = "other"  # type: ignore[misc]
    with pytest.raises(ValueError, match="tool_call"):
        ToolCall(name="lookup", type="function")  # type: ignore[arg-type]


def test_freezing_keeps_a_tool_call_a_tool_call() -> None:
    ours = ToolCall(name="lookup")
    assert freeze({"pending": [ours]})["pending"][0] is ours


def test_a_spread_tool_call_overrides_a_tool_call_request() -> None:
    request = ToolCallRequest(tool_call=ToolCall(name="lookup", id="c1"), tool=lookup)
    changed = request.override(tool_call={**request.tool_call, "args": {"query": "new"}})
    assert changed.tool_call == ToolCall(name="lookup", args={"query": "new"}, id="c1")
    same = request.override(tool_call=request.tool_call)
    assert same.tool_call is request.tool_call
    with pytest.raises(ImmutableError):
        request.tool_call = changed.tool_call  # type: ignore[misc]


def test_a_layer_rewriting_args_with_a_spread_runs_the_tool_with_them() -> None:
    class Rewrite(AgentMiddleware):
        def wrap_tool_call(self, request: ToolCallRequest, handler: Any) -> Any:
            args = {**request.tool_call["args"], "query": "rewritten"}
            return handler(request.override(tool_call={**request.tool_call, "args": args}))

    model = ScriptedModel([call("lookup", {"query": "x"}), "done"])
    result = create_agent(model, [lookup], middleware=[Rewrite()]).invoke(HI)
    assert [m.text for m in result.messages][2] == "found:rewritten"


# -- 3. Command.PARENT ----------------------------------------------------------------------


def _langgraph_command() -> Any:
    return pytest.importorskip(
        "langgraph.types", reason="install hookproof[langchain] to run this"
    ).Command


def test_command_parent_and_graph_are_langgraphs() -> None:
    lg_command = _langgraph_command()
    assert Command.PARENT == lg_command.PARENT
    assert Command(graph=Command.PARENT).graph == lg_command(graph=lg_command.PARENT).graph
    assert Command().graph is None


def _parent_from_before_model(base: type, command: Any) -> Any:
    def before_model(self: Any, state: Any, runtime: Any) -> Any:
        return command(graph=command.PARENT, update={"messages": []})

    return type("Up", (base,), {"before_model": before_model})()


def _parent_from_wrap_tool_call(base: type, command: Any) -> Any:
    def wrap_tool_call(self: Any, request: Any, handler: Any) -> Any:
        return command(graph=command.PARENT, update={"messages": []})

    return type("Up", (base,), {"wrap_tool_call": wrap_tool_call})()


def _langchain_error(middleware: Any, script: list[Any]) -> Exception:
    from langchain.agents import create_agent as lc_create_agent
    from langchain_core.tools import tool as lc_tool

    from hookproof.adapters.langchain import ScriptedChatModel

    @lc_tool
    def hop() -> str:
        """Hop."""
        return "hopped"

    agent = lc_create_agent(ScriptedChatModel(script=script), [hop], middleware=[middleware])
    try:
        agent.invoke(HI)
    except Exception as error:  # noqa: BLE001  # the oracle's type is what is compared
        return error
    raise AssertionError("LangChain's create_agent accepted the parent command")


@tool
def hop() -> str:
    """Hop."""
    return "hopped"


@pytest.mark.parametrize(
    ("make", "script"),
    [
        pytest.param(_parent_from_before_model, ["done"], id="before_model"),
        pytest.param(_parent_from_wrap_tool_call, [call("hop", {}), "done"], id="wrap_tool"),
    ],
)
def test_a_parent_command_at_the_top_level_raises_as_langgraph_does(
    make: Any, script: list[Any]
) -> None:
    lc = _langchain()
    from langgraph.errors import ParentCommand

    langchain_error = _langchain_error(make(lc.AgentMiddleware, _langgraph_command()), script)
    assert type(langchain_error) is ParentCommand
    agent = create_agent(ScriptedModel(script), [hop], middleware=[make(AgentMiddleware, Command)])
    with pytest.raises(ParentCommandError, match="above this agent") as caught:
        agent.invoke(HI)
    assert isinstance(caught.value, ParentCommand) and isinstance(caught.value, HookproofError)
    assert caught.value.command.graph == Command.PARENT
    langchain_middleware = make(lc.AgentMiddleware, _langgraph_command())
    bridged = create_agent(ScriptedModel(script), [hop], middleware=[langchain_middleware])
    with pytest.raises(ParentCommandError, match="above this agent"):
        bridged.invoke(HI)


def test_a_tool_returning_a_parent_command_is_refused_before_its_update_applies() -> None:
    @tool
    def escape(runtime: ToolRuntime) -> Command:
        """Escape to the parent."""
        answer = ToolMessage("up", tool_call_id=runtime.tool_call_id or "")
        return Command(graph=Command.PARENT, update={"messages": [answer]})

    agent = create_agent(ScriptedModel([call("escape", {}), "done"]), [escape])
    with pytest.raises(ParentCommandError, match="tool 'escape'"):
        agent.invoke(HI)


def test_a_parent_command_from_wrap_model_call_is_not_implemented_as_in_langchain() -> None:
    class Up(AgentMiddleware):
        def wrap_model_call(self, request: ModelRequest, handler: Any) -> Any:
            command = Command(graph=Command.PARENT, update={"n": 1})
            return ExtendedModelResponse(model_response=handler(request), command=command)

    agent = create_agent(ScriptedModel(["done"]), middleware=[Up()])
    with pytest.raises(UnsupportedCommandError, match="graph=") as caught:
        agent.invoke(HI)
    assert isinstance(caught.value, NotImplementedError)


def test_a_parent_command_as_invoke_input_is_an_invalid_update_as_in_langgraph() -> None:
    agent = create_agent(ScriptedModel(["done"]), checkpointer=InMemoryCheckpointer())
    with pytest.raises(InvalidUpdateError, match="no parent graph"):
        agent.invoke(Command(graph=Command.PARENT, resume=1), thread_id="t")


def test_a_parent_command_error_survives_pickling() -> None:
    assert copy.deepcopy(Command()).resume is pickle.loads(pickle.dumps(Command())).resume
    error = ParentCommandError("why", command=Command(graph=Command.PARENT))
    copied = pickle.loads(pickle.dumps(error))
    assert (str(copied), copied.command, type(copied).__mro__[1:]) == (
        "why",
        error.command,
        type(error).__mro__[1:],
    )


# -- 4. InjectedState and InjectedToolCallId ------------------------------------------------


def _peek_tool(decorate: Callable[[Any], Any], injected_state: Any, injected_call_id: Any) -> Any:
    """The same peeking tool under either framework's decorator and injection markers."""

    def peek(q: str, state: Any, messages: Any, call_id: str) -> str:
        """Peek at the state."""
        return f"{q}|{sorted(state)}|{len(messages)}|{call_id}"

    peek.__annotations__ = {
        "q": str,
        "state": Annotated[dict[str, Any], injected_state],
        "messages": Annotated[list[Any], injected_state("messages")],
        "call_id": Annotated[str, injected_call_id],
        "return": str,
    }
    return decorate(peek)


def _hookproof_peek() -> Any:
    return _peek_tool(tool, InjectedState, InjectedToolCallId)


def _langchain_texts(tools: list[Any], script: list[Any], middleware: Any = ()) -> list[str]:
    from langchain.agents import create_agent as lc_create_agent

    from hookproof.adapters.langchain import ScriptedChatModel

    model = ScriptedChatModel(script=script)
    agent = lc_create_agent(model, tools, middleware=list(middleware))
    return [m.content for m in agent.invoke(HI)["messages"]]


def _texts(tools: list[Any], script: list[Any], middleware: Any = ()) -> list[str]:
    agent = create_agent(ScriptedModel(script), tools, middleware=list(middleware))
    return [m.text for m in agent.invoke(HI).messages]


def test_injected_state_and_call_id_reach_the_tool_as_on_langchain() -> None:
    _langchain()
    from langchain_core.tools import tool as lc_tool

    peek = _peek_tool(lc_tool, LCInjectedState, LCInjectedToolCallId)
    script = [call("peek", {"q": "x"}), "done"]
    ours = _hookproof_peek()
    assert _texts([ours], script) == _langchain_texts([peek], script)
    assert _texts([ours], script)[2] == "x|['messages']|2|call_0"
    assert dict(ours.parameters) == {
        key: value
        for key, value in peek.tool_call_schema.model_json_schema().items()
        if key not in ("title", "description")
    }


def test_an_async_tool_gets_its_injections_under_ainvoke() -> None:
    @tool
    async def peek(q: str, call_id: Annotated[str, InjectedToolCallId]) -> str:
        """Peek."""
        return f"{q}:{call_id}"

    agent = create_agent(ScriptedModel([call("peek", {"q": "x"}), "done"]), [peek])
    assert asyncio.run(agent.ainvoke(HI)).messages[2].text == "x:call_0"


def test_langgraphs_markers_work_on_a_hookproof_tool() -> None:
    _langchain()

    peek = _peek_tool(tool, LCInjectedState, LCInjectedToolCallId)
    assert list(peek.parameters["properties"]) == ["q"]
    assert _texts([peek], [call("peek", {"q": "x"}), "done"])[2] == "x|['messages']|2|call_0"


def test_a_missing_state_key_is_a_key_error_and_a_default_is_kept_as_on_langchain() -> None:
    _langchain()
    from langchain_core.tools import tool as lc_tool

    @lc_tool
    def needs(q: str, value: Annotated[str, LCInjectedState("nope")]) -> str:
        """Needs a key."""
        return value

    @lc_tool
    def falls_back(q: str, value: Annotated[str, LCInjectedState("nope")] = "default") -> str:
        """Falls back."""
        return value

    @tool("needs")
    def our_needs(q: str, value: Annotated[str, InjectedState("nope")]) -> str:
        """Needs a key."""
        return value

    @tool("falls_back")
    def our_falls_back(q: str, value: Annotated[str, InjectedState("nope")] = "default") -> str:
        """Falls back."""
        return value

    script = [call("needs", {"q": "x"}), "done"]
    with pytest.raises(KeyError):
        _langchain_texts([needs], script)
    with pytest.raises(InjectedStateError, match="InjectedState\\('nope'\\)") as caught:
        _texts([our_needs], script)
    assert isinstance(caught.value, KeyError)
    script = [call("falls_back", {"q": "x"}), "done"]
    assert _texts([our_falls_back], script) == _langchain_texts([falls_back], script)


def test_a_state_override_in_wrap_tool_call_is_what_the_tool_sees_as_on_langchain() -> None:
    lc = _langchain()
    from langchain_core.tools import tool as lc_tool

    def wrap_tool_call(self: Any, request: Any, handler: Any) -> Any:
        return handler(request.override(state={**request.state, "note": "set by a layer"}))

    def layer(base: type) -> Any:
        return type("Note", (base,), {"wrap_tool_call": wrap_tool_call})()

    @lc_tool
    def read(q: str, note: Annotated[str, LCInjectedState("note")]) -> str:
        """Read the note."""
        return note

    @tool
    def our_read(q: str, note: Annotated[str, InjectedState("note")], runtime: ToolRuntime) -> str:
        """Read the note."""
        return f"{note}/{runtime.state['note']}"

    script = [call("read", {"q": "x"}), "done"]
    assert _langchain_texts([read], script, [layer(lc.AgentMiddleware)])[2] == "set by a layer"
    our_script = [call("our_read", {"q": "x"}), "done"]
    assert _texts([our_read], our_script, [layer(AgentMiddleware)])[2] == (
        "set by a layer/set by a layer"
    )


def test_a_state_override_carries_every_other_field_of_the_tool_runtime() -> None:
    values = {item.name: f"value of {item.name}" for item in dataclasses.fields(ToolRuntime)}
    runtime = ToolRuntime(**values)
    request = ToolCallRequest(tool_call=ToolCall(name="lookup"), tool=lookup, runtime=runtime)
    changed = request.override(state={"note": "new"})
    assert changed.runtime == dataclasses.replace(runtime, state={"note": "new"})
    assert changed.state == {"note": "new"} and request.runtime is runtime


# -- 5. Type parameters ---------------------------------------------------------------------


class _State(AgentState[Any]):
    visits: int


@dataclasses.dataclass
class _Context:
    user: str


def test_the_generic_types_take_langchains_type_parameters() -> None:
    lc = _langchain()
    pairs = [
        (AgentMiddleware, lc.AgentMiddleware),
        (ModelRequest, lc.ModelRequest),
        (ModelResponse, lc.ModelResponse),
        (ExtendedModelResponse, lc.ExtendedModelResponse),
    ]
    for ours, theirs in pairs:
        assert len(ours.__parameters__) == len(theirs.__parameters__), ours
    for arguments in ((_State,), (_State, _Context), (_State, _Context, int)):
        assert get_args(AgentMiddleware[arguments])[: len(arguments)] == arguments
        assert len(get_args(AgentMiddleware[arguments])) == 3
        assert get_origin(AgentMiddleware[arguments]) is AgentMiddleware
    assert get_args(ModelRequest[_Context]) == (_Context,)
    assert get_args(ModelResponse[int]) == get_args(ExtendedModelResponse[int]) == (int,)


def test_tool_call_request_takes_no_type_parameter_as_in_langgraph() -> None:
    _langchain()
    from langgraph.prebuilt.tool_node import ToolCallRequest as LCToolCallRequest

    for cls in (ToolCallRequest, LCToolCallRequest):
        with pytest.raises(TypeError):
            cls[int]  # type: ignore[misc]


def test_parameterised_types_build_the_same_values() -> None:
    request = ModelRequest[_Context](model="m", system_prompt="s")
    assert type(request) is ModelRequest and request == ModelRequest(model="m", system_prompt="s")
    response = ModelResponse[int](result=(), structured_response=3)
    assert type(response) is ModelResponse and response.structured_response == 3
    extended = ExtendedModelResponse[int](model_response=response)
    assert extended.model_response is response
    with pytest.raises(dataclasses.FrozenInstanceError):
        response.structured_response = 4  # type: ignore[misc]


def test_a_parameterised_middleware_runs_like_any_other() -> None:
    class Counting(AgentMiddleware[_State, _Context]):
        state_schema = _State

        def before_model(self, state: _State, runtime: Any) -> dict[str, Any]:
            return {"visits": state.get("visits", 0) + 1}

    result = create_agent(ScriptedModel(["done"]), middleware=[Counting()]).invoke(HI)
    assert Counting.name == "Counting" and result.state["visits"] == 1


TYPED_SNIPPET = """
from dataclasses import dataclass
from typing import Any, Callable

from hookproof.runtime import (
    AgentMiddleware, AgentState, ExtendedModelResponse, ModelRequest, ModelResponse,
    create_agent,
)
from hookproof.models import ScriptedModel


class MyState(AgentState[Any]):
    visits: int


@dataclass
class MyContext:
    user: str


class Typed(AgentMiddleware[MyState, MyContext]):
    state_schema = MyState

    def wrap_model_call(
        self,
        request: ModelRequest[MyContext],
        handler: Callable[[ModelRequest[MyContext]], ModelResponse[str]],
    ) -> ExtendedModelResponse[str]:
        context = request.runtime.context if request.runtime else None
        user: str = context.user if context else "guest"
        response = handler(request.override(system_prompt=user))
        output: str | None = response.structured_response
        return ExtendedModelResponse(model_response=response)


class StateOnly(AgentMiddleware[MyState]):
    pass


create_agent(ScriptedModel(["x"]), middleware=[Typed(), StateOnly(), AgentMiddleware()])
"""


@pytest.mark.slow
def test_the_type_parameters_type_check_under_mypy_strict(tmp_path: Any) -> None:
    api = pytest.importorskip("mypy.api", reason="install hookproof[dev] to run this")
    snippet = tmp_path / "typed_snippet.py"
    snippet.write_text(TYPED_SNIPPET)
    out, err, status = api.run(["--strict", "--no-incremental", str(snippet)])
    assert status == 0, out + err
