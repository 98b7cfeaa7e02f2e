"""LangGraph's runnable context around the LangChain code the reference engine runs.

Inside a LangGraph node, ``get_config()`` returns the node's config: the caller's config
(tags, metadata, ``configurable`` with ``thread_id`` and the caller's keys), the compiled
agent's defaults (``recursion_limit``, ``ls_integration``) and LangGraph's internal keys, which
``interrupt()``, ``get_runtime()``, ``get_store()`` and ``get_stream_writer()`` read. While the
engine runs a bridged hook or a LangChain tool, ``langgraph_node(...)`` sets such a config, built
from the run's ``GraphRun`` (the caller's config) and the engine's task (its answers to
interrupts, and what names the task).

LangGraph's ``interrupt()`` then runs unchanged: it counts its calls and reads its answers from
a scratchpad backed by the engine's answers for the running task, and raises LangGraph's
``GraphInterrupt``. The engine pauses on its own ``InterruptRaised``: ``to_engine`` and
``to_langchain`` turn one into the other where the exception crosses between LangChain code
and the engine, so LangChain's middleware (retries, fallbacks) let an interrupt through as
they do on LangGraph.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from langchain_core.runnables.config import var_child_runnable_config
from langgraph._internal._constants import (
    CONFIG_KEY_CHECKPOINT_NS,
    CONFIG_KEY_RUNTIME,
    CONFIG_KEY_SCRATCHPAD,
    CONFIG_KEY_TASK_ID,
)
from langgraph._internal._scratchpad import PregelScratchpad
from langgraph.errors import GraphInterrupt
from langgraph.runtime import Runtime as LCRuntime
from langgraph.types import Interrupt as LCInterrupt

from hookproof._engine.checkpoint import Answers, current_answers, task_hash
from hookproof.adapters.langchain.bridge._channels import channel_functions
from hookproof.adapters.langchain.bridge._graph_run import GraphRun, current_graph_run
from hookproof.errors import InterruptRaised

__all__ = [
    "AGENT_DEFAULTS",
    "MODEL_NODE",
    "TOOLS_NODE",
    "engine_interrupt",
    "enter_node_config",
    "graph_runtime",
    "langchain_interrupt",
    "langgraph_node",
    "leave_node_config",
    "node_config",
    "run_config",
    "to_engine",
    "to_langchain",
]

MODEL_NODE = "model"
TOOLS_NODE = "tools"

# What LangChain's create_agent sets on the graph it compiles; a caller's config overrides it.
AGENT_DEFAULTS: dict[str, Any] = {
    "recursion_limit": 9_999,
    "metadata": {"ls_integration": "langchain_create_agent"},
}


def _no_null_resume(_consume: bool = False) -> Any:
    """A resume with no task to go to does not exist here: the engine gives each task its own."""
    return None


def _counter() -> Callable[[], int]:
    return itertools.count().__next__


def _scratchpad(answers: Answers) -> PregelScratchpad:
    slot = answers.current()

    def next_interrupt() -> int:
        slot.used += 1
        return slot.used - 1

    return PregelScratchpad(
        step=0,
        stop=AGENT_DEFAULTS["recursion_limit"],
        call_counter=_counter(),
        interrupt_counter=next_interrupt,
        get_null_resume=_no_null_resume,
        resume=slot.values,
        subgraph_counter=_counter(),
    )


def _task_id(answers: Answers) -> str:
    """A uuid-shaped, deterministic id for the running task (LangGraph's are uuid-shaped)."""
    key = f"{answers.thread_id}|{answers.scope}|{answers.task}"
    found = _TASK_IDS.get(key)
    if found is None:
        digest = task_hash(key)
        found = f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:]}"
        if len(_TASK_IDS) >= _TASK_IDS_MAX:
            _TASK_IDS.clear()
        _TASK_IDS[key] = found
    return found


# The ids of the tasks seen lately: a function of the task's name alone, and every run of a
# property test's agent names the same few tasks, so the hash is worked out once per name.
_TASK_IDS: dict[str, str] = {}
_TASK_IDS_MAX = 1024


def graph_runtime(runtime: LCRuntime[Any], run: GraphRun | None) -> LCRuntime[Any]:
    """The LangGraph runtime of a node: the bridge's, with the run's store and writer."""
    if run is None:
        return runtime
    store = runtime.store if run.store is None else run.store
    return runtime.override(store=store, stream_writer=run.stream_writer)


def node_config(node: str, runtime: LCRuntime[Any], answers: Answers) -> dict[str, Any]:
    """The config LangGraph gives node ``node`` of a run: the caller's, with the node's keys."""
    run = current_graph_run()
    task_id = _task_id(answers)
    task_keys = {
        CONFIG_KEY_RUNTIME: graph_runtime(runtime, run),
        CONFIG_KEY_TASK_ID: task_id,
        **channel_functions(),
        CONFIG_KEY_SCRATCHPAD: _scratchpad(answers),
    }
    if run is None:
        return _outside_run(node, task_id, task_keys, answers.thread_id or None)
    if run.node_config is not None:
        return _within_stream(run.node_config, task_keys)
    caller = dict(run.config)
    thread_id = run.thread_id
    namespace = f"{node}:{task_id}"
    configurable = dict(run.configurable)
    if thread_id is not None:
        configurable.setdefault("thread_id", thread_id)
    configurable.update({**task_keys, CONFIG_KEY_CHECKPOINT_NS: namespace})
    metadata = {**AGENT_DEFAULTS["metadata"], **(caller.get("metadata") or {})}
    if thread_id is not None:
        metadata["thread_id"] = thread_id
    metadata.update({"langgraph_node": node, "langgraph_checkpoint_ns": namespace})
    return _config(caller, metadata, configurable)


def _outside_run(
    node: str, task_id: str, task_keys: dict[str, Any], thread_id: str | None
) -> dict[str, Any]:
    """``node_config`` of an agent run without a LangChain-shaped run around it (an engine
    agent with LangChain middleware): no caller config, the agent's defaults."""
    namespace = f"{node}:{task_id}"
    configurable: dict[str, Any] = {} if thread_id is None else {"thread_id": thread_id}
    configurable.update(task_keys)
    configurable[CONFIG_KEY_CHECKPOINT_NS] = namespace
    metadata: dict[str, Any] = {**AGENT_DEFAULTS["metadata"]}
    if thread_id is not None:
        metadata["thread_id"] = thread_id
    metadata["langgraph_node"] = node
    metadata["langgraph_checkpoint_ns"] = namespace
    return _config({}, metadata, configurable)


def _config(
    caller: Mapping[str, Any], metadata: dict[str, Any], configurable: dict[str, Any]
) -> dict[str, Any]:
    return {
        "tags": [],
        "callbacks": None,
        "recursion_limit": AGENT_DEFAULTS["recursion_limit"],
        **caller,
        "metadata": metadata,
        "configurable": configurable,
    }


def _within_stream(streamed: Mapping[str, Any], task_keys: dict[str, Any]) -> dict[str, Any]:
    """A node's config while a stream runs the run: the stream's task config (its callbacks
    carry LangGraph's stream handlers, its metadata and checkpoint namespace name the task),
    with the keys interrupts, the runtime and channels need."""
    configurable = {**(streamed.get("configurable") or {}), **task_keys}
    return {**streamed, "configurable": configurable}


@contextlib.contextmanager
def langgraph_node(node: str, runtime: LCRuntime[Any]) -> Iterator[dict[str, Any] | None]:
    """Run the enclosed LangChain code as LangGraph runs node ``node``: ``get_config()`` and
    ``interrupt()`` work, and an interrupt leaves as the engine's. Outside an engine run
    nothing is set (LangGraph's own "outside of a runnable context" error stands)."""
    entered = enter_node_config(node, runtime)
    if entered is None:
        yield None
        return
    config, token = entered
    try:
        with to_engine():
            yield config
    finally:
        var_child_runnable_config.reset(token)


def enter_node_config(node: str, runtime: LCRuntime[Any]) -> tuple[dict[str, Any], Any] | None:
    """``langgraph_node`` entered: the node's config and the token that resets it (None
    outside an engine run, where nothing is set)."""
    answers = current_answers()
    if answers is None:
        return None
    config = node_config(node, runtime, answers)
    return config, var_child_runnable_config.set(config)  # type: ignore[arg-type]


def leave_node_config(token: Any) -> None:
    var_child_runnable_config.reset(token)


@contextlib.contextmanager
def to_engine() -> Iterator[None]:
    """LangGraph's GraphInterrupt leaving LangChain code, as the engine's InterruptRaised."""
    try:
        yield
    except GraphInterrupt as raised:
        raise engine_interrupt(raised) from None


def engine_interrupt(raised: GraphInterrupt) -> InterruptRaised:
    """The engine's InterruptRaised for LangGraph's GraphInterrupt."""
    interrupts = raised.args[0] if raised.args else ()
    first = interrupts[0] if interrupts else LCInterrupt(value=None)
    return InterruptRaised(first.value, response_schema=first.response_schema)


@contextlib.contextmanager
def to_langchain() -> Iterator[None]:
    """The engine's InterruptRaised entering LangChain code (a wrap hook's handler), as
    LangGraph's GraphInterrupt, which LangChain's middleware let through untouched."""
    try:
        yield
    except InterruptRaised as raised:
        raise langchain_interrupt(raised) from None


def langchain_interrupt(raised: InterruptRaised) -> GraphInterrupt:
    """LangGraph's GraphInterrupt for the engine's InterruptRaised."""
    pending = LCInterrupt(value=raised.value, response_schema=raised.response_schema)
    return GraphInterrupt((pending,))


def run_config() -> dict[str, Any] | None:
    """The config of the node running now (None outside one)."""
    found = var_child_runnable_config.get()
    return dict(found) if found else None
