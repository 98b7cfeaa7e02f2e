"""What LangChain middleware, tools and chat models see and may do on the reference engine:
LangChain's types, locked as deeply as hookproof's own values; tools injected as LangChain's
tool node injects them; async hooks; a LangChain chat model as the model; clear errors."""

from __future__ import annotations

import asyncio
import operator
import subprocess
import sys
from typing import Annotated, Any, NotRequired

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run these")

from langchain.agents import create_agent as langchain_create_agent
from langchain.agents.middleware import (
    AgentMiddleware,
    AgentState,
    HumanInTheLoopMiddleware,
    ModelRequest,
    ModelResponse,
    before_model,
    wrap_model_call,
)
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.tools import InjectedToolCallId, tool
from langgraph.prebuilt import InjectedState
from langgraph.prebuilt.tool_node import ToolCallRequest

from hookproof.adapters.langchain import ScriptedChatModel
from hookproof.errors import ImmutableError, InterruptRaised
from hookproof.messages import UserMessage
from hookproof.models import RecordingModel, ScriptedModel, call
from hookproof.runtime import AgentMiddleware as NativeMiddleware
from hookproof.runtime import ToolRuntime, create_agent

HI = {"messages": [("user", "hi")]}


@tool
def lookup(query: str) -> str:
    """Look something up."""
    return f"found {query}"


def _run(middleware: list[Any], script: list[Any] | None = None, **options: Any) -> Any:
    model = RecordingModel(ScriptedModel(script or [call("lookup", {"query": "a"}), "done"]))
    agent = create_agent(model, [lookup], middleware=middleware, **options)
    return agent.invoke(HI), model


# -- what hooks see ----------------------------------------------------------------------------


def test_hooks_see_langchain_types() -> None:
    seen: dict[str, Any] = {}

    class Inspect(AgentMiddleware):
        def before_model(self, state: Any, runtime: Any) -> None:
            seen["state"] = state["messages"]

        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            seen["request"] = request
            seen["response"] = response = handler(request)
            return response

        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            seen["tool_request"] = request
            return handler(request)

    _run([Inspect()])
    assert all(isinstance(m, BaseMessage) for m in seen["state"])
    assert isinstance(seen["request"], ModelRequest)
    assert isinstance(seen["request"].messages[0], HumanMessage)
    assert [t.name for t in seen["request"].tools] == ["lookup"]
    assert seen["request"].tools[0] is lookup  # the LangChain tool itself
    assert isinstance(seen["response"], ModelResponse)
    assert isinstance(seen["response"].result[0], AIMessage)
    assert isinstance(seen["tool_request"], ToolCallRequest)
    assert seen["tool_request"].tool_call == {
        "name": "lookup",
        "args": {"query": "a"},
        "id": "call_0",
        "type": "tool_call",
    }


@pytest.mark.parametrize(
    "edit",
    [
        lambda request: request.messages.append(HumanMessage("x")),
        lambda request: setattr(request, "system_prompt", "x"),
        lambda request: setattr(request, "tools", []),
        lambda request: request.tools.clear(),
        lambda request: setattr(request.messages[0], "content", "x"),
        lambda request: request.state["messages"].pop(),
        lambda request: request.model_settings.update(temperature=1),
    ],
    ids=["append", "system_prompt", "tools", "clear tools", "message", "state", "settings"],
)
def test_in_place_edits_of_a_request_raise_with_the_fix(edit: Any) -> None:
    class Editor(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            edit(request)
            return handler(request)

    with pytest.raises(ImmutableError, match="override"):
        _run([Editor()])


def test_in_place_edits_of_state_and_tool_calls_raise() -> None:
    @before_model
    def scribble(state: Any, runtime: Any) -> None:
        state["messages"][0].content = "changed"

    with pytest.raises(ImmutableError):
        _run([scribble])

    class ArgsEditor(AgentMiddleware):
        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            request.tool_call["args"]["query"] = "other"
            return handler(request)

    with pytest.raises(ImmutableError):
        _run([ArgsEditor()])


def test_an_override_reaches_the_model_and_the_original_stays() -> None:
    before: list[Any] = []

    class Prompt(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            before.append(list(request.messages))
            changed = request.override(
                system_message=SystemMessage("be brief"),
                messages=[*request.messages, HumanMessage("(from middleware)")],
            )
            response = handler(changed)
            assert [m.content for m in request.messages] == [m.content for m in before[-1]]
            return response

    _result, model = _run([Prompt()])
    final = model.requests[0]
    assert final.system_text == "be brief"
    assert [m.text for m in final.messages] == ["hi", "(from middleware)"]


def test_an_unchanged_request_crosses_without_a_copy() -> None:
    seen: list[Any] = []

    class Pass(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            return handler(request)

    class Native(NativeMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            seen.append(request)
            return handler(request)

    class Outer(NativeMiddleware):
        name = "Outer"

        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            seen.append(request)
            return handler(request)

    _run([Outer(), Pass(), Native()], script=["done"])
    assert seen[0] is seen[1]  # the LangChain layer handed the same request on


def test_mixed_native_and_langchain_middleware_keep_list_order() -> None:
    order: list[str] = []

    class LangChainLayer(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            order.append("langchain")
            return handler(request)

    class NativeLayer(NativeMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            order.append("native")
            return handler(request)

    _run([NativeLayer(), LangChainLayer()], script=["done"])
    assert order == ["native", "langchain"]


# -- tools -------------------------------------------------------------------------------------


@tool
def whoami(
    x: int,
    state: Annotated[dict, InjectedState],
    team: Annotated[str, InjectedState("team")],
    call_id: Annotated[str, InjectedToolCallId],
) -> str:
    """Say who calls."""
    return f"{x} {len(state['messages'])} {team} {call_id}"


class TeamState(AgentState):  # type: ignore[misc]
    team: str


class DeclaresTeam(AgentMiddleware):
    state_schema = TeamState


def test_injected_arguments_match_langchains_tool_node() -> None:
    script = [call("whoami", {"x": 7}), "done"]
    given = {"messages": [("user", "hi")], "team": "blue"}

    theirs = langchain_create_agent(
        ScriptedChatModel(script), [whoami], middleware=[DeclaresTeam()]
    ).invoke(given)
    ours = create_agent(ScriptedModel(script), [whoami], middleware=[DeclaresTeam()]).invoke(given)
    assert ours.messages[2].text == theirs["messages"][2].content == "7 2 blue call_0"


def test_invalid_arguments_give_langchains_error_message() -> None:
    script = [call("lookup", {"quarry": "typo"}), "done"]
    theirs = langchain_create_agent(ScriptedChatModel(script), [lookup]).invoke(HI)
    ours = create_agent(ScriptedModel(script), [lookup], middleware=[_Marker()]).invoke(HI)
    assert ours.messages[2].status == theirs["messages"][2].status == "error"
    assert ours.messages[2].text == theirs["messages"][2].content


class _Marker(AgentMiddleware):
    """A LangChain middleware with no hooks (puts the agent on the bridge)."""


# -- async, models, errors -----------------------------------------------------------------------


def test_async_only_langchain_hooks_run_under_ainvoke_as_on_langchain() -> None:
    class AsyncPrompt(AgentMiddleware):
        async def awrap_model_call(self, request: Any, handler: Any) -> Any:
            return await handler(request.override(system_message=SystemMessage("async")))

    @before_model
    async def note(state: Any, runtime: Any) -> None:
        return None

    script = ["done"]
    theirs = asyncio.run(
        langchain_create_agent(
            ScriptedChatModel(script), [lookup], middleware=[AsyncPrompt(), note]
        ).ainvoke(HI)
    )
    model = RecordingModel(ScriptedModel(script))
    ours = asyncio.run(create_agent(model, [lookup], middleware=[AsyncPrompt(), note]).ainvoke(HI))
    assert ours.text == theirs["messages"][-1].content == "done"
    assert model.requests[0].system_text == "async"


def test_a_langchain_chat_model_is_the_model() -> None:
    @wrap_model_call
    def settings(request: Any, handler: Any) -> Any:
        return handler(request.override(model_settings={"temperature": 0}))

    script = [call("lookup", {"query": "a"}), "done"]
    model = ScriptedChatModel(script, model_name="chat")
    result = create_agent(model, [lookup], middleware=[settings]).invoke(HI)
    assert result.text == "done"
    assert [r.model for r in result.final_requests] == ["chat", "chat"]
    assert result.final_requests[0].model_settings == {"temperature": 0}
    assert result.final_requests[0].tool_names == ["lookup"]


def test_langgraph_interrupt_without_a_checkpointer_is_a_clear_error() -> None:
    middleware = HumanInTheLoopMiddleware(interrupt_on={"lookup": True})
    with pytest.raises(InterruptRaised, match="checkpointer=InMemoryCheckpointer") as caught:
        _run([middleware])
    assert caught.value.value["action_requests"][0]["name"] == "lookup"


def test_a_tool_run_outside_an_agent_run_gets_no_run_config() -> None:
    from langgraph.config import get_config

    @tool
    def configured(query: str) -> str:
        """Reads the run's config."""
        return repr(get_config()["configurable"].get("thread_id"))

    converted = create_agent(ScriptedModel(["x"]), [configured]).tools[0]
    # as LangChain's own tool.invoke outside a graph: its own config, no thread
    answer = converted.run({"query": "q"}, ToolRuntime(state={}, tool_call_id="c1"))
    assert answer.text == "None"


def test_messages_replaced_by_id_as_langchain_middleware_expects() -> None:
    @before_model
    def redact(state: Any, runtime: Any) -> Any:
        first = state["messages"][0]
        return {"messages": [HumanMessage("[redacted]", id=first.id)]}

    result, _model = _run([redact], script=["done"])
    assert [m.text for m in result.messages] == ["[redacted]", "done"]
    assert isinstance(result.messages[0], UserMessage)
    assert [m.id for m in result.messages] == ["m1", "m2"]  # deterministic, no uuid4


def test_native_agents_do_not_import_langchain() -> None:
    code = (
        "import sys\n"
        "from hookproof.runtime import create_agent\n"
        "from hookproof.models import ScriptedModel\n"
        "create_agent(ScriptedModel(['hi'])).invoke({'messages': [('user', 'x')]})\n"
        "assert not [m for m in sys.modules if m.startswith(('langchain', 'langgraph'))]\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_real_langchain_model_is_still_blocked_by_the_guard() -> None:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.outputs import ChatGeneration, ChatResult

    from hookproof.errors import RealModelBlocked
    from hookproof.guard import block_real_models

    class Provider(BaseChatModel):
        """Stands for a provider's model: neither a LangChain fake nor declared offline."""

        @property
        def _llm_type(self) -> str:
            return "provider"

        def _generate(self, messages: Any, stop: Any = None, **kwargs: Any) -> ChatResult:
            return ChatResult(generations=[ChatGeneration(message=AIMessage("reached"))])

    # The guard in a block of the test's own: the plugin fails a test that catches a refusal.
    with block_real_models(), pytest.raises(RealModelBlocked, match=r"\(Provider\)"):
        create_agent(Provider()).invoke(HI)


class Counted(AgentState):  # type: ignore[misc]
    calls: NotRequired[Annotated[int, operator.add]]


def test_reducers_of_a_langchain_state_schema_apply_as_in_langgraph() -> None:
    class Count(AgentMiddleware):
        state_schema = Counted

        def after_model(self, state: Any, runtime: Any) -> Any:
            return {"calls": 1}

    class CountToo(Count):
        pass

    script = [call("lookup", {"query": "a"}), "done"]
    given = {**HI, "calls": 10}
    middleware = [Count(), CountToo()]
    theirs = langchain_create_agent(ScriptedChatModel(script), [lookup], middleware=middleware)
    ours = create_agent(ScriptedModel(script), [lookup], middleware=[Count(), CountToo()])
    assert ours.invoke(given).state["calls"] == theirs.invoke(given)["calls"] == 14
