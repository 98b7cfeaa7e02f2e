"""Review of the LangChain bridge against LangChain: each case
runs the same middleware, tools and script on LangChain's ``create_agent`` and on
``hookproof.runtime.create_agent`` and compares hooks (in order), FinalRequests, messages and
errors. Message ids are left out (a documented difference).

Cases that agree are plain tests; the ones that do not are ``xfail(strict=True)`` with the
discrepancy in the reason, so fixing one turns its test into an unexpected pass.
"""

from __future__ import annotations

import asyncio
import operator
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated, Any, NotRequired

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run these")

from langchain.agents import create_agent as langchain_create_agent
from langchain.agents.middleware import (
    AgentMiddleware,
    AgentState,
    LLMToolSelectorMiddleware,
    ModelCallLimitMiddleware,
    ModelFallbackMiddleware,
    SummarizationMiddleware,
    ToolErrorMiddleware,
    hook_config,
)
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import InjectedToolCallId, ToolException, tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from hookproof import contracts
from hookproof.adapters.langchain import (
    RecordingChatModel,
    ScriptedChatModel,
    on_reference_engine,
)
from hookproof.adapters.langchain.target import LangChainTarget
from hookproof.errors import MaxIterationsExceeded
from hookproof.models import RecordingModel, ScriptedModel, call
from hookproof.requests import FinalRequest
from hookproof.runtime import Agent, InMemoryCheckpointer, create_agent
from hookproof.targets import TargetRun
from hookproof.targets.reference import ReferenceTarget
from tests.adapters.engines import (
    add,
    assert_same_run,
    comparable,
    hooks_of,
    run_on_both,
    without_ids,
)

# -- tools -------------------------------------------------------------------------------------


@tool(return_direct=True)
def finish(x: str) -> str:
    """Answer the user directly."""
    return f"final {x}"


@tool
def refuses(x: str) -> str:
    """A tool that reports a handled failure."""
    raise ToolException("tool said no")


@tool
def crashes(x: str) -> str:
    """A tool with a defect."""
    raise ValueError("bad value")


@tool
def strings(x: str) -> list[str]:
    """Returns a list of plain strings."""
    return ["a", "b"]


@tool
def ender(x: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command[Any]:
    """Answers and asks the graph to end."""
    return Command(
        update={"messages": [ToolMessage("ended", tool_call_id=tool_call_id)]}, goto="__end__"
    )


class Counted(AgentState):  # type: ignore[misc]
    hits: NotRequired[Annotated[int, operator.add]]
    note: NotRequired[str]


@tool
def hit(x: str, tool_call_id: Annotated[str, InjectedToolCallId]) -> Command[Any]:
    """Counts a hit and notes x."""
    update = {"messages": [ToolMessage("hit", tool_call_id=tool_call_id)], "hits": 1, "note": x}
    return Command(update=update)


# -- running both engines --------------------------------------------------------------------


def _run_both(
    middleware: Callable[[], list[Any]],
    script: list[Any],
    tools: list[Any],
    *,
    input: dict[str, Any] | None = None,
    **options: Any,
) -> tuple[TargetRun, TargetRun]:
    def langchain_build(model: Any) -> Any:
        return langchain_create_agent(
            model, tools, middleware=middleware(), checkpointer=InMemorySaver(), **options
        )

    def reference_build(model: Any) -> Any:
        return create_agent(model, tools, middleware=middleware(), **options)

    given: dict[str, Any] = {"script": script}
    if input is not None:
        given["input"] = input
    return run_on_both(langchain_build, reference_build, **given)


def _recorded(reference: TargetRun) -> list[FinalRequest]:
    """The requests the reference run's own recording models saw (the target's models): what
    LangChainTarget reports as final_requests."""
    return [comparable(r) for model in reference.models.values() for r in model.requests]


def _same_outcome(langchain: TargetRun, reference: TargetRun) -> None:
    """Same messages and the same requests at the target's models; traces not compared."""
    assert langchain.error is None, langchain.error
    assert reference.error is None, reference.error
    assert list(map(without_ids, reference.messages)) == list(map(without_ids, langchain.messages))
    assert _recorded(reference) == list(map(comparable, langchain.final_requests))


def _same_error(langchain: TargetRun, reference: TargetRun, kind: type[Exception]) -> None:
    assert isinstance(langchain.error, kind), langchain.error
    assert isinstance(reference.error, kind), reference.error
    assert str(reference.error) == str(langchain.error)


# -- cases that agree ------------------------------------------------------------------------


def _summarizing() -> list[Any]:
    summary = ScriptedChatModel(["SUMMARY"] * 3)
    return [SummarizationMiddleware(summary, trigger=("messages", 3), keep=("messages", 2))]


_SUMMARIZED = [call("add", {"a": 1, "b": 2}), call("add", {"a": 2, "b": 3}), "done"]


def test_summarization_with_a_scripted_summary_model() -> None:
    langchain, reference = _run_both(_summarizing, _SUMMARIZED, [add])
    _same_outcome(langchain, reference)
    assert "SUMMARY" in reference.final_requests[-1].messages[0].text


@pytest.mark.xfail(
    strict=True,
    reason="trace: a chat model a hook calls itself (the summary model inside "
    "SummarizationMiddleware.before_model) is a model enter/exit pair inside the hook on "
    "LangChain's trace and absent from the reference engine's",
)
def test_summarization_traces_the_same_hooks() -> None:
    assert_same_run(*_run_both(_summarizing, _SUMMARIZED, [add]))


def _falling_back() -> list[Any]:
    return [ModelFallbackMiddleware(ScriptedChatModel(["from the fallback"]))]


def test_model_fallback_after_the_primary_raises() -> None:
    langchain, reference = _run_both(_falling_back, [RuntimeError("primary down")], [add])
    _same_outcome(langchain, reference)
    assert hooks_of(reference) == hooks_of(langchain)
    assert reference.messages[-1].text == "from the fallback"


@pytest.mark.xfail(
    strict=True,
    reason="FinalRequests: ReferenceTarget's final_requests include the fallback model's "
    "request (the engine records every model call); LangChainTarget's hold only the calls "
    "its RecordingChatModels saw, so the same run has 2 FinalRequests on one engine, 1 on "
    "the other",
)
def test_model_fallback_has_the_same_final_requests() -> None:
    langchain, reference = _run_both(_falling_back, [RuntimeError("primary down")], [add])
    assert len(reference.final_requests) == len(langchain.final_requests)


def _selecting() -> list[Any]:
    selector = ScriptedChatModel(lambda request: call(request.tools[0].name, {"tools": ["add"]}))
    return [LLMToolSelectorMiddleware(model=selector, max_tools=1)]


def test_llm_tool_selector_with_structured_output() -> None:
    langchain, reference = _run_both(_selecting, ["ok"], [add, refuses, crashes])
    _same_outcome(langchain, reference)
    assert [t.name for t in reference.final_requests[0].tools] == ["add"]


@pytest.mark.xfail(
    strict=True,
    reason="trace: the selection model LLMToolSelectorMiddleware.wrap_model_call calls "
    "itself is a model enter/exit pair inside the layer on LangChain's trace and absent "
    "from the reference engine's (as for SummarizationMiddleware's summary model)",
)
def test_llm_tool_selector_traces_the_same_hooks() -> None:
    assert_same_run(*_run_both(_selecting, ["ok"], [add, refuses, crashes]))


def test_tool_error_middleware_turns_a_defect_into_an_answer() -> None:
    def middleware() -> list[Any]:
        return [ToolErrorMiddleware(lambda error, *_: f"caught {error}")]

    langchain, reference = _run_both(middleware, [call("crashes", {"x": "a"}), "ok"], [crashes])
    assert_same_run(langchain, reference)
    assert reference.messages[2].text == "caught bad value"


class CommandsAroundTheAgent(AgentMiddleware):
    def before_agent(self, state: Any, runtime: Any) -> Any:
        return Command(update={"messages": [HumanMessage("from a command")]})

    def after_agent(self, state: Any, runtime: Any) -> Any:
        return Command(update={"messages": [AIMessage("bye")]})


class JumpBackToModel(AgentMiddleware):
    @hook_config(can_jump_to=["model"])
    def after_model(self, state: Any, runtime: Any) -> Any:
        if len(state["messages"]) == 2:
            return {"messages": [HumanMessage("again")], "jump_to": "model"}
        return None


class JumpToTools(AgentMiddleware):
    @hook_config(can_jump_to=["tools"])
    def before_model(self, state: Any, runtime: Any) -> Any:
        if len(state["messages"]) == 1:
            calls = [{"name": "add", "args": {"a": 1, "b": 1}, "id": "x1"}]
            return {"messages": [AIMessage("", tool_calls=calls)], "jump_to": "tools"}
        return None


class WithoutRuntime(AgentMiddleware):
    def before_model(self, state: Any) -> Any:  # type: ignore[override]
        return {"messages": [HumanMessage("noted")]} if len(state["messages"]) == 1 else None


class ShortCircuit(AgentMiddleware):
    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        call_ = request.tool_call
        return ToolMessage("blocked", tool_call_id=call_["id"], name=call_["name"], status="error")


AGREE: dict[str, tuple[Callable[[], list[Any]], list[Any], list[Any]]] = {
    "Command from before_agent and after_agent": (
        lambda: [CommandsAroundTheAgent()],
        ["hello"],
        [add],
    ),
    "jump_to model from after_model": (lambda: [JumpBackToModel()], ["one", "two"], [add]),
    "jump_to tools from before_model": (lambda: [JumpToTools()], ["after tools"], [add]),
    "hook without runtime parameter": (lambda: [WithoutRuntime()], ["ok"], [add]),
    "wrap_tool_call answers with its own ToolMessage": (
        lambda: [ShortCircuit()],
        [call("add", {"a": 1, "b": 2}), "ok"],
        [add],
    ),
    "ToolException becomes an error ToolMessage (handle_tool_error unset: it raises)": (
        list,
        [call("refuses", {"x": "a"}), "ok"],
        [refuses],
    ),
    "return_direct alone ends the run": (list, [call("finish", {"x": "a"}), "never"], [finish]),
}


@pytest.mark.parametrize("name", list(AGREE))
def test_both_engines_agree(name: str) -> None:
    middleware, script, tools = AGREE[name]
    langchain, reference = _run_both(middleware, script, tools)
    if langchain.error is not None:
        _same_error(langchain, reference, type(langchain.error))
    else:
        assert_same_run(langchain, reference)


def test_a_tool_defect_propagates_with_its_type_on_both() -> None:
    langchain, reference = _run_both(list, [call("crashes", {"x": "a"}), "ok"], [crashes])
    _same_error(langchain, reference, ValueError)


class AsyncOnly(AgentMiddleware):
    async def abefore_model(self, state: Any, runtime: Any) -> Any:
        return {"messages": [HumanMessage("async note")]} if len(state["messages"]) == 1 else None

    async def awrap_model_call(self, request: Any, handler: Any) -> Any:
        return await handler(request.override(system_prompt="async system"))

    async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
        return await handler(request)


def _texts(messages: Any) -> list[str]:
    return [message.text for message in messages]


def test_async_only_middleware_under_ainvoke() -> None:
    script = [call("add", {"a": 1, "b": 2}), "ok"]
    chat = RecordingChatModel(ScriptedChatModel(list(script)))
    graph = langchain_create_agent(chat, [add], middleware=[AsyncOnly()])
    langchain = asyncio.run(graph.ainvoke({"messages": [("user", "hi")]}))
    model = RecordingModel(ScriptedModel(list(script)))
    agent = create_agent(model, [add], middleware=[AsyncOnly()])
    reference = asyncio.run(agent.ainvoke({"messages": [("user", "hi")]}))
    assert _texts(reference.messages) == [m.text for m in langchain["messages"]]
    assert list(map(comparable, model.requests)) == list(map(comparable, chat.requests))


def test_a_thread_kept_by_the_native_checkpointer_as_by_langgraphs() -> None:
    def middleware() -> list[Any]:
        return [ModelCallLimitMiddleware(thread_limit=1, exit_behavior="end")]

    graph = langchain_create_agent(
        ScriptedChatModel(["one", "two"]), [], middleware=middleware(), checkpointer=InMemorySaver()
    )
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke({"messages": [("user", "a")]}, config)
    langchain = graph.invoke({"messages": [("user", "b")]}, config)
    agent = create_agent(
        ScriptedModel(["one", "two"]),
        [],
        middleware=middleware(),
        checkpointer=InMemoryCheckpointer(),
    )
    agent.invoke({"messages": [("user", "a")]}, thread_id="t")
    reference = agent.invoke({"messages": [("user", "b")]}, thread_id="t")
    assert _texts(reference.messages) == [m.text for m in langchain["messages"]]
    assert reference.messages[-1].text.startswith("Model call limits exceeded: thread limit")


class PerUser(AgentMiddleware):
    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return handler(request.override(system_prompt=f"user {request.runtime.context['u']}"))


def test_one_agent_invoked_from_eight_threads_keeps_runs_apart() -> None:
    def turn(request: FinalRequest) -> Any:
        done = sum(1 for m in request.messages if m.role == "tool")
        system = request.system_message.text if request.system_message else ""
        return call("add", {"a": 1, "b": 2}) if done < 3 else f"done {system}"

    agent = create_agent(ScriptedModel(turn), [add], middleware=[PerUser()])

    def run(user: str) -> tuple[str, int]:
        result = agent.invoke({"messages": [("user", user)]}, context={"u": user})
        return result.messages[-1].text, len(result.messages)

    users = [f"u{i}" for i in range(40)]
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(run, users))
    assert results == [(f"done user {user}", 8) for user in users]


def test_reducer_keys_and_extra_keys_from_a_tool_command() -> None:
    seen: dict[str, list[Any]] = {"langchain": [], "reference": []}

    def reader(engine: str) -> AgentMiddleware:
        class Reader(AgentMiddleware):
            state_schema = Counted

            def before_model(self, state: Any, runtime: Any) -> Any:
                if len(state["messages"]) > 1:
                    seen[engine].append((state["hits"], state["note"]))
                return {"hits": 10}

        return Reader()

    script = [call("hit", {"x": "a"}), call("hit", {"x": "b"}), "ok"]
    graph = langchain_create_agent(
        ScriptedChatModel(list(script)), [hit], middleware=[reader("langchain")]
    )
    langchain = graph.invoke({"messages": [("user", "hi")]})
    agent = create_agent(ScriptedModel(list(script)), [hit], middleware=[reader("reference")])
    reference = agent.invoke({"messages": [("user", "hi")]})
    assert seen["reference"] == seen["langchain"] == [(11, "a"), (22, "b")]
    assert (reference.state["hits"], reference.state["note"]) == (langchain["hits"], "b")


def test_invalid_arguments_and_an_unknown_tool_give_the_same_messages() -> None:
    for script in ([call("add", {"a": "x"}), "ok"], [call("nope", {}), "ok"]):
        langchain, reference = _run_both(list, script, [add])
        _same_outcome(langchain, reference)
        assert list(map(comparable, reference.final_requests)) == _recorded(reference)


@pytest.mark.xfail(
    strict=True,
    reason="trace: for arguments that fail the tool's schema LangChain's trace has "
    "('tool', None, 'error') (the tool raised, the tool node answered); the reference "
    "engine's has ('tool', None, 'exit')",
)
def test_invalid_arguments_trace_the_same() -> None:
    assert_same_run(*_run_both(list, [call("add", {"a": "x"}), "ok"], [add]))


@pytest.mark.xfail(
    strict=True,
    reason="trace: a call to an unknown tool has no tool event on LangChain (no tool ran); "
    "the reference engine traces ('tool', None, 'enter') and 'exit' for it",
)
def test_an_unknown_tool_traces_the_same() -> None:
    assert_same_run(*_run_both(list, [call("nope", {}), "ok"], [add]))


# -- discrepancies in control flow -------------------------------------------------------


class EndByCommandFromWrapToolCall(AgentMiddleware):
    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        answer = ToolMessage("answered", tool_call_id=request.tool_call["id"])
        return Command(update={"messages": [answer]}, goto="__end__")


class EndByCommandFromBeforeModel(AgentMiddleware):
    def before_model(self, state: Any, runtime: Any) -> Any:
        if len(state["messages"]) == 1:
            return Command(update={"messages": [AIMessage("by command")]}, goto="__end__")
        return None


@pytest.mark.parametrize(
    ("middleware", "script", "tools"),
    [
        (list, [call("ender", {"x": "a"}), "after"], [ender]),
        (
            lambda: [EndByCommandFromWrapToolCall()],
            [call("add", {"a": 1, "b": 2}), "after"],
            [add],
        ),
        (lambda: [EndByCommandFromBeforeModel()], ["after"], [add]),
    ],
    ids=["tool", "wrap_tool_call", "before_model"],
)
def test_command_goto_end_is_not_an_end_in_langgraph(
    middleware: Callable[[], list[Any]], script: list[Any], tools: list[Any]
) -> None:
    langchain, reference = _run_both(middleware, script, tools)
    assert langchain.messages[-1].text == "after"
    _same_outcome(langchain, reference)


def test_return_direct_beside_an_ordinary_tool() -> None:
    script = [[call("finish", {"x": "a"}), call("add", {"a": 1, "b": 2})], "after"]
    langchain, reference = _run_both(list, script, [finish, add])
    assert langchain.messages[-1].text == "after"
    _same_outcome(langchain, reference)


class AlwaysToTools(AgentMiddleware):
    @hook_config(can_jump_to=["tools"])
    def after_model(self, state: Any, runtime: Any) -> Any:
        return {"jump_to": "tools"}


@pytest.mark.xfail(
    strict=True,
    reason="a declared jump_to 'tools' after a turn with no tool calls: LangChain goes "
    "tools -> model again (here until the script runs out: ScriptExhausted); the reference "
    "engine finds no pending calls and ends the run (_engine/loop.py _tools_step)",
)
def test_jump_to_tools_without_tool_calls() -> None:
    langchain, reference = _run_both(lambda: [AlwaysToTools()], ["one", "two"], [add])
    assert langchain.error is not None
    assert type(reference.error) is type(langchain.error)


def test_a_tool_returning_a_list_of_strings() -> None:
    langchain, reference = _run_both(list, [call("strings", {"x": "a"}), "ok"], [strings])
    assert langchain.messages[2].text == '["a", "b"]'
    _same_outcome(langchain, reference)


@pytest.mark.xfail(
    strict=True,
    raises=KeyError,
    reason="a reducer key no one has written yet: LangGraph's channel reads as the type's "
    "empty value (Annotated[int, operator.add] -> 0); on the reference engine the key is "
    "absent, so state['hits'] is a KeyError (_engine/state.py: the first write sets it)",
)
def test_an_unwritten_reducer_key_reads_as_its_empty_value() -> None:
    seen: list[Any] = []

    class Reader(AgentMiddleware):
        state_schema = Counted

        def before_model(self, state: Any, runtime: Any) -> Any:
            seen.append(state["hits"])

    graph = langchain_create_agent(ScriptedChatModel(["ok"]), [], middleware=[Reader()])
    graph.invoke({"messages": [("user", "hi")]})
    assert seen == [0]
    create_agent(ScriptedModel(["ok"]), [], middleware=[Reader()]).invoke(
        {"messages": [("user", "hi")]}
    )
    assert seen == [0, 0]


# -- discrepancies in what a LangChain factory may pass ------------------------------------


def test_a_langchain_system_message_as_the_system_prompt() -> None:
    prompt = SystemMessage(content=[{"type": "text", "text": "You help."}])
    langchain, reference = _run_both(list, ["ok"], [add], system_prompt=prompt)
    assert_same_run(langchain, reference)


def _app_with_a_langgraph_checkpointer(model: Any) -> Any:
    return langchain_create_agent(model, [add], checkpointer=InMemorySaver())


def test_a_factory_with_a_langgraph_checkpointer_keeps_threads_as_langgraph() -> None:
    graph = _app_with_a_langgraph_checkpointer(ScriptedChatModel(["one", "two", "three"]))
    agent = on_reference_engine(_app_with_a_langgraph_checkpointer)(
        ScriptedModel(["one", "two", "three"])
    )
    config = {"configurable": {"thread_id": "t"}}
    for text in ("a", "b"):
        langchain = graph.invoke({"messages": [("user", text)]}, config)
        reference = agent.invoke({"messages": [("user", text)]}, config)
    other_config = {"configurable": {"thread_id": "u"}}
    graph_other = graph.invoke({"messages": [("user", "c")]}, other_config)
    other = agent.invoke({"messages": [("user", "c")]}, other_config)
    assert [m.text for m in reference["messages"]] == [m.text for m in langchain["messages"]]
    assert [m.text for m in reference["messages"]] == ["a", "one", "b", "two"]
    assert [m.text for m in other["messages"]] == [m.text for m in graph_other["messages"]]
    assert [m.text for m in other["messages"]] == ["c", "three"]


def test_contracts_over_a_factory_with_a_langgraph_checkpointer() -> None:
    contracts.check_tool_closure(_app_with_a_langgraph_checkpointer)
    contracts.check_tool_closure(on_reference_engine(_app_with_a_langgraph_checkpointer))


def test_contracts_hold_alike_through_on_reference_engine() -> None:
    def app(model: Any) -> Any:
        return langchain_create_agent(model, [add], middleware=[PerUser()])

    for build in (app, on_reference_engine(app)):
        contracts.check_tool_closure(build, context={"u": "a"})
        contracts.check_isolation(build, [{"u": "a"}, {"u": "b"}])


def test_duplicate_middleware_raises_langchains_type() -> None:
    with pytest.raises(AssertionError):
        langchain_create_agent(ScriptedChatModel(["x"]), [], middleware=[AsyncOnly(), AsyncOnly()])
    with pytest.raises(AssertionError):
        create_agent(ScriptedModel(["x"]), [], middleware=[AsyncOnly(), AsyncOnly()])


class ToolsFromBeforeAgent(AgentMiddleware):
    @hook_config(can_jump_to=["tools"])
    def before_agent(self, state: Any, runtime: Any) -> Any:
        calls = [{"name": "add", "args": {"a": 1, "b": 1}, "id": "x1"}]
        return {"messages": [AIMessage("", tool_calls=calls)], "jump_to": "tools"}


class ModelFromAfterAgent(AgentMiddleware):
    def __init__(self) -> None:
        super().__init__()
        self.jumped = False

    @hook_config(can_jump_to=["model"])
    def after_agent(self, state: Any, runtime: Any) -> Any:
        if self.jumped:
            return None
        self.jumped = True
        return {"messages": [HumanMessage("one more")], "jump_to": "model"}


@pytest.mark.parametrize(
    "middleware", [ToolsFromBeforeAgent, ModelFromAfterAgent], ids=["before_agent", "after_agent"]
)
def test_declared_jumps_from_agent_hooks(middleware: Callable[[], AgentMiddleware]) -> None:
    assert_same_run(*_run_both(lambda: [middleware()], ["a", "b"], [add]))


_LONG_LOOP = [call("add", {"a": i, "b": 1}) for i in range(29)] + ["done"]


def _long_loop_app(model: Any) -> Any:
    return langchain_create_agent(model, [add], checkpointer=InMemorySaver())


def test_a_long_tool_loop_on_reference_engine_runs_to_langchains_end() -> None:
    """``on_reference_engine`` bounds a run as LangChain does (about 5,000 model calls), not
    by the runtime's default of 25: thirty calls end as they end on LangChain."""
    langchain = LangChainTarget(_long_loop_app).run(script=_LONG_LOOP)
    reference = ReferenceTarget(on_reference_engine(_long_loop_app)).run(script=_LONG_LOOP)
    _same_outcome(langchain, reference)


def test_the_runtimes_own_agent_stops_a_long_tool_loop_at_its_documented_bound() -> None:
    """The runtime's own ``create_agent`` bounds a run at ``max_iterations=25`` model calls
    (a deliberate difference, on the runtime page); raised, the bound gives LangChain's end."""
    bounded = ReferenceTarget(lambda model: create_agent(model, [add])).run(script=_LONG_LOOP)
    assert isinstance(bounded.error, MaxIterationsExceeded)
    assert "26th time, over max_iterations=25" in str(bounded.error)
    raised = ReferenceTarget(lambda model: create_agent(model, [add], max_iterations=30))
    langchain = LangChainTarget(_long_loop_app).run(script=_LONG_LOOP)
    _same_outcome(langchain, raised.run(script=_LONG_LOOP))


@pytest.mark.xfail(
    strict=True,
    reason="on_reference_engine swaps create_agent in langchain.agents' module dicts for the "
    "whole process while build runs (_on_reference.py _swapped; the lock orders swaps only): "
    "another thread calling LangChain's create_agent meanwhile gets a hookproof Agent",
)
def test_the_swap_does_not_leak_into_other_threads() -> None:
    import threading

    import langchain.agents

    building, built = threading.Event(), threading.Event()

    def slow_app(model: Any) -> Any:
        building.set()
        built.wait(5)
        return langchain_create_agent(model, [add])

    worker = threading.Thread(target=on_reference_engine(slow_app), args=(ScriptedModel(["x"]),))
    worker.start()
    building.wait(5)
    try:
        elsewhere = langchain.agents.create_agent(ScriptedChatModel(["x"]), [add])
    finally:
        built.set()
        worker.join()
    assert not isinstance(elsewhere, Agent), "LangChain's create_agent built a hookproof Agent"


def test_langchain_messages_as_input() -> None:
    content = [{"type": "text", "text": "look"}, {"type": "image", "url": "https://x.test/y.png"}]
    given = {"messages": [HumanMessage(content=content, name="ada")]}
    langchain, reference = _run_both(list, ["ok"], [add], input=given)
    assert_same_run(langchain, reference)


class SystemInMessages(AgentMiddleware):
    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        messages = [SystemMessage("inline system"), *request.messages]
        return handler(request.override(messages=messages))


@pytest.mark.xfail(
    strict=True,
    reason="FinalRequest of a request whose messages start with a SystemMessage (the model "
    "gets the same list on both): on LangChain the recorder folds it into "
    "system_message (_convert.final_request); the reference engine's FinalRequest keeps "
    "system_message=None and the SystemMessage in messages, so snapshots differ by engine",
)
def test_a_system_message_inside_the_messages() -> None:
    langchain, reference = _run_both(lambda: [SystemInMessages()], ["ok"], [add])
    assert _recorded(reference) == list(map(comparable, langchain.final_requests))


def test_the_built_agent_is_invoked_as_langchains() -> None:
    def app(model: Any) -> Any:
        return langchain_create_agent(model, [add], checkpointer=InMemorySaver())

    config = {"configurable": {"thread_id": "t"}}
    for agent in (app(ScriptedChatModel(["ok"])), on_reference_engine(app)(ScriptedModel(["ok"]))):
        result = agent.invoke({"messages": [("user", "hi")]}, config=config)
        assert result["messages"][-1].text == "ok"
