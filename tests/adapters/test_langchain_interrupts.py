"""LangGraph's interrupt() and runnable context on the reference engine, run against
LangChain's create_agent: the same build paused and resumed the same way on both engines
gives the same interrupts (values, answer schemas, count) and the same messages. Interrupt
ids differ by engine (LangGraph's hash a uuid-based task id), so each engine is answered with
its own ids, in the same order."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run these")

from langchain.agents import create_agent as langchain_create_agent
from langchain.agents.middleware import (
    AgentMiddleware,
    HumanInTheLoopMiddleware,
    ToolRetryMiddleware,
)
from langchain_core.messages import BaseMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config
from langgraph.prebuilt.tool_node import ToolRuntime as LCToolRuntime
from langgraph.runtime import get_runtime
from langgraph.store.memory import InMemoryStore
from langgraph.types import Command as LCCommand
from langgraph.types import interrupt
from pydantic import ValidationError

from hookproof.adapters.langchain import ScriptedChatModel
from hookproof.adapters.langchain.bridge._graph_run import GraphRun, graph_run
from hookproof.errors import AmbiguousResumeError
from hookproof.messages import Message
from hookproof.models import call
from hookproof.runtime import Command, RunResult, create_agent

HI = {"messages": [("user", "hi")]}
Script = list[Any]


def _summary(message: BaseMessage | Message) -> tuple[Any, ...]:
    """What a message says, the same for a LangChain message and a hookproof one."""
    if isinstance(message, BaseMessage):
        role = {"human": "user", "ai": "assistant"}.get(message.type, message.type)
        calls = [(c["name"], c["args"]) for c in getattr(message, "tool_calls", [])]
        return role, message.text, calls, getattr(message, "tool_call_id", None)
    calls = [(c.name, dict(c.args)) for c in getattr(message, "tool_calls", ())]
    return message.role, message.text, calls, getattr(message, "tool_call_id", None)


class Both:
    """One build on LangChain's create_agent and on the reference engine, on one thread each;
    each step runs on both and returns both outcomes, summarized alike."""

    def __init__(self, build: Callable[[Any], Any]) -> None:
        self.langchain = build(langchain_create_agent)
        self.reference = build(create_agent)
        self.config: RunnableConfig = {"configurable": {"thread_id": "t"}}
        self.lc_pending: list[Any] = []
        self.hp_pending: list[Any] = []

    def start(self, given: Any = HI) -> tuple[Any, Any]:
        return self._compare(
            self.langchain.invoke(given, self.config), self.reference.invoke(given, thread_id="t")
        )

    def resume(self, answer: Any) -> tuple[Any, Any]:
        return self._compare(
            self.langchain.invoke(LCCommand(resume=answer), self.config),
            self.reference.invoke(Command(resume=answer), thread_id="t"),
        )

    def resume_each(self, answer_of: Callable[[Any], Any]) -> tuple[Any, Any]:
        """Answer each pending interrupt by id, ``answer_of(value)`` (each engine with its own
        ids: LangGraph's are random, and its order of parallel interrupts varies run to run)."""
        lc_map = {item.id: answer_of(item.value) for item in self.lc_pending}
        hp_map = {item.id: answer_of(item.value) for item in self.hp_pending}
        return self._compare(
            self.langchain.invoke(LCCommand(resume=lc_map), self.config),
            self.reference.invoke(Command(resume=hp_map), thread_id="t"),
        )

    def _compare(self, langchain: dict[str, Any], reference: RunResult) -> tuple[Any, Any]:
        self.lc_pending = list(langchain.get("__interrupt__", ()))
        self.hp_pending = list(reference.interrupts)
        hp_seen = [(i.value, i.response_schema) for i in self.hp_pending]
        lc_seen = [(i.value, i.response_schema) for i in self.lc_pending]
        assert sorted(map(repr, hp_seen)) == sorted(map(repr, lc_seen))
        lc_messages = [_summary(m) for m in langchain["messages"]]
        hp_messages = [_summary(m) for m in reference.messages]
        assert hp_messages == lc_messages
        return hp_messages, hp_seen


def _by_call(**answers: Any) -> Callable[[Any], Any]:
    """The answer for a per-call review, by the reviewed call's id."""
    return lambda value: answers[value["tool_call_id"]]


def _by_key(**answers: Any) -> Callable[[Any], Any]:
    """The answer for a tool's question, by the question's key."""
    return lambda value: answers[next(iter(value))]


@tool
def send(to: str) -> str:
    """Send an email."""
    return f"sent to {to}"


def _hitl(script: Script, **options: Any) -> Callable[[Any], Any]:
    def build(factory: Any) -> Any:
        review = HumanInTheLoopMiddleware(interrupt_on={"send": True}, **options)
        return factory(
            ScriptedChatModel(script), [send], middleware=[review], checkpointer=InMemorySaver()
        )

    return build


TWO_SENDS = [[call("send", {"to": "a"}, id="c1"), call("send", {"to": "b"}, id="c2")], "done"]

DECISIONS = {
    "approve": {"type": "approve"},
    "reject": {"type": "reject", "message": "not now"},
    "respond": {"type": "respond", "message": "done by hand"},
    "edit": {"type": "edit", "edited_action": {"name": "send", "args": {"to": "z"}}},
}


# -- HumanInTheLoopMiddleware ----------------------------------------------------------------


@pytest.mark.parametrize("decision", sorted(DECISIONS))
def test_batched_review_pauses_once_and_resumes_as_on_langgraph(decision: str) -> None:
    both = Both(_hitl([call("send", {"to": "a"}, id="c1"), "done"]))
    messages, pending = both.start()
    assert len(pending) == 1 and pending[0][0]["action_requests"][0]["args"] == {"to": "a"}
    assert [role for role, *_ in messages] == ["user", "assistant"]
    messages, pending = both.resume({"decisions": [DECISIONS[decision]]})
    assert pending == [] and messages[-1][:2] == ("assistant", "done")


@pytest.mark.parametrize("decision", sorted(DECISIONS))
def test_per_call_review_pauses_once_per_call_with_ids(decision: str) -> None:
    both = Both(_hitl(TWO_SENDS, interrupt_mode="per_call"))
    _messages, pending = both.start()
    assert [value["tool_call_id"] for value, _schema in pending] == ["c1", "c2"]
    assert all(schema is not None for _value, schema in pending)  # the answers it accepts
    messages, pending = both.resume_each(_by_call(c1=DECISIONS[decision], c2={"type": "approve"}))
    assert pending == []
    assert [m[3] for m in messages if m[0] == "tool"] == ["c1", "c2"]


def test_one_answer_for_several_interrupts_is_refused_as_on_langgraph() -> None:
    both = Both(_hitl(TWO_SENDS, interrupt_mode="per_call"))
    both.start()
    with pytest.raises(RuntimeError, match="multiple pending interrupts"):
        both.langchain.invoke(LCCommand(resume={"type": "approve"}), both.config)
    with pytest.raises(AmbiguousResumeError, match="multiple pending interrupts") as caught:
        both.reference.invoke(Command(resume={"type": "approve"}), thread_id="t")
    assert isinstance(caught.value, RuntimeError)
    both.resume_each(_by_call(c1={"type": "approve"}, c2={"type": "approve"}))  # answerable


def test_a_bad_answer_is_not_saved_and_the_interrupt_stays_answerable() -> None:
    both = Both(_hitl([call("send", {"to": "a"}, id="c1"), "done"], interrupt_mode="per_call"))
    both.start()
    bad = {"type": "dance"}
    for invoke in (
        lambda: both.langchain.invoke(LCCommand(resume={both.lc_pending[0].id: bad}), both.config),
        lambda: both.reference.invoke(Command(resume={both.hp_pending[0].id: bad}), thread_id="t"),
    ):
        with pytest.raises(ValidationError):
            invoke()
    messages, pending = both.resume_each(_by_call(c1={"type": "approve"}))
    assert pending == [] and ("tool", "sent to a", [], "c1") in messages


def test_per_call_review_under_ainvoke() -> None:
    agent = _hitl(TWO_SENDS, interrupt_mode="per_call")(create_agent)

    async def scenario() -> RunResult:
        paused = await agent.ainvoke(HI, thread_id="t")
        answers = {item.id: {"type": "approve"} for item in paused.interrupts}
        return await agent.ainvoke(Command(resume=answers), thread_id="t")

    result = asyncio.run(scenario())
    assert [m.text for m in result.messages if m.role == "tool"] == ["sent to a", "sent to b"]


# -- interrupt() in a tool ---------------------------------------------------------------------


@tool
def ask_twice(x: int) -> str:
    """Asks two questions."""
    first = interrupt({"first": x})
    second = interrupt({"second": x})
    return f"{first}/{second}"


@tool
def ask_once(x: int) -> str:
    """Asks one question."""
    return f"once:{interrupt({'once': x})}"


def _asking(factory: Any) -> Any:
    script = [[call("ask_twice", {"x": 1}, id="a"), call("ask_once", {"x": 2}, id="b")], "end"]
    return factory(ScriptedChatModel(script), [ask_twice, ask_once], checkpointer=InMemorySaver())


def test_parallel_tools_each_interrupt_and_are_answered_by_id() -> None:
    both = Both(_asking)
    _messages, pending = both.start()
    assert [value for value, _ in pending] == [{"first": 1}, {"once": 2}]  # in call order
    first_ids = [item.id for item in both.hp_pending]
    messages, pending = both.resume_each(_by_key(first="A1", once="B"))
    # the second tool finished (its answer shows); the first asks again, under a new id
    assert [value for value, _ in pending] == [{"second": 1}]
    assert messages[-1] == ("tool", "once:B", [], "b")
    assert both.hp_pending[0].id not in first_ids
    messages, pending = both.resume("A2")
    assert pending == []
    assert [m[1] for m in messages if m[0] == "tool"] == ["A1/A2", "once:B"]


def test_an_unanswered_interrupt_keeps_its_id_and_ids_repeat_run_to_run() -> None:
    both = Both(_asking)
    both.start()
    ids = [item.id for item in both.hp_pending]
    assert ids == [item.id for item in _asking(create_agent).invoke(HI, thread_id="t").interrupts]
    assert len(set(ids)) == 2
    both.lc_pending = [i for i in both.lc_pending if "first" in i.value]
    both.hp_pending = both.hp_pending[:1]
    _messages, pending = both.resume_each(_by_key(first="A1"))
    assert [value for value, _ in pending] == [{"second": 1}, {"once": 2}]
    assert both.hp_pending[1].id == ids[1]  # not answered: the same interrupt, the same id
    assert both.hp_pending[0].id not in ids


def test_a_retry_middleware_lets_a_tools_interrupt_through() -> None:
    ran: list[int] = []

    @tool
    def confirm(x: int) -> str:
        """Asks before acting."""
        ran.append(x)
        return f"ok:{interrupt({'confirm': x})}"

    def build(factory: Any) -> Any:
        script = [call("confirm", {"x": 1}, id="c"), "end"]
        retry = ToolRetryMiddleware(max_retries=2, initial_delay=0, jitter=False)
        return factory(
            ScriptedChatModel(script), [confirm], middleware=[retry], checkpointer=InMemorySaver()
        )

    both = Both(build)
    both.start()
    assert ran == [1, 1]  # once per engine: an interrupt is not a failure to retry
    messages, _ = both.resume("yes")
    assert ("tool", "ok:yes", [], "c") in messages


# -- LangGraph's runnable context ----------------------------------------------------------


def _seen_config(config: Any) -> dict[str, Any]:
    configurable = config["configurable"]
    return {
        "thread_id": configurable.get("thread_id"),
        "user": configurable.get("user"),
        "recursion_limit": config.get("recursion_limit"),
        "ls_integration": config["metadata"].get("ls_integration"),
        "tags": config.get("tags"),
        "node": config["metadata"].get("langgraph_node"),
        "namespace": configurable["checkpoint_ns"].split(":")[0],
    }


def _config_probe(seen: dict[str, list[Any]]) -> Callable[[Any], Any]:
    @tool
    def configured(x: int, runtime: LCToolRuntime) -> str:
        """Reads the run's config."""
        seen["tool"].append(_seen_config(get_config()))
        seen["tool_runtime"].append(_seen_config(runtime.config))
        return "read"

    class Reads(AgentMiddleware):
        def before_agent(self, state: Any, runtime: Any, config: RunnableConfig) -> None:
            seen["hook_param"].append(_seen_config(config))
            seen["hook_runtime"].append(get_runtime().context)

        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            seen["model"].append(_seen_config(get_config()))
            return handler(request)

    def build(factory: Any) -> Any:
        script = [call("configured", {"x": 1}, id="c"), "end"]
        return factory(
            ScriptedChatModel(script),
            [configured],
            middleware=[Reads()],
            checkpointer=InMemorySaver(),
            context_schema=dict,
        )

    return build


def _fresh_seen() -> dict[str, list[Any]]:
    return {key: [] for key in ("tool", "tool_runtime", "hook_param", "hook_runtime", "model")}


def test_hooks_and_tools_see_the_config_langgraph_gives_them() -> None:
    config: RunnableConfig = {
        "configurable": {"thread_id": "t7", "user": "ann"},
        "tags": ["mine"],
        "recursion_limit": 50,
    }
    on_langchain, on_reference = _fresh_seen(), _fresh_seen()
    _config_probe(on_langchain)(langchain_create_agent).invoke(HI, config, context={"k": 1})
    agent = _config_probe(on_reference)(create_agent)
    with graph_run(GraphRun(config=dict(config))):
        agent.invoke(HI, thread_id="t7", context={"k": 1})
    assert on_reference == on_langchain
    assert on_reference["tool"][0] == {
        "thread_id": "t7",
        "user": "ann",
        "recursion_limit": 50,
        "ls_integration": "langchain_create_agent",
        "tags": ["mine"],
        "node": "tools",
        "namespace": "tools",
    }
    assert on_reference["hook_runtime"] == [{"k": 1}]


def test_without_a_caller_config_the_engines_thread_and_langchains_defaults() -> None:
    seen = _fresh_seen()
    _config_probe(seen)(create_agent).invoke(HI, thread_id="t9")
    assert seen["tool_runtime"][0]["thread_id"] == "t9"
    assert seen["tool_runtime"][0]["recursion_limit"] == 9_999
    assert seen["hook_param"][0]["node"] == "Reads.before_agent"
    assert seen["model"][0]["node"] == "model"


def test_store_and_stream_writer_come_from_the_run() -> None:
    store, written = InMemoryStore(), []
    store.put(("prefs",), "ann", {"tone": "dry"})

    class Reads(AgentMiddleware):
        def before_model(self, state: Any, runtime: Any, store: Any, writer: Any) -> None:
            writer({"tone": store.get(("prefs",), "ann").value["tone"]})

    agent = create_agent(ScriptedChatModel(["hi"]), [], middleware=[Reads()])
    with graph_run(GraphRun(store=store, stream_writer=written.append)):
        agent.invoke(HI)
    assert written == [{"tone": "dry"}]
