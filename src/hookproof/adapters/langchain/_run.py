"""Running a LangChain or deepagents graph: one traced invoke, or a check's run that answers
every interrupt."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hookproof.adapters.langchain._convert import to_message
from hookproof.adapters.langchain._notes import TRACER, built_origins
from hookproof.adapters.langchain.models import RecordingChatModel
from hookproof.adapters.langchain.tracing import TraceHandler
from hookproof.errors import UsageError
from hookproof.models import FinalRequest
from hookproof.runtime import Interrupt
from hookproof.targets import TargetRun
from hookproof.targets.interrupts import resume_loop, resume_value, thread_id

__all__ = ["run", "run_agent", "run_config"]


def run_agent(
    agent: Any,
    models: Mapping[str, RecordingChatModel],
    context: Any,
    input: Mapping[str, Any],
    probe: Any = None,
    on_interrupt: Any = "approve",
    config: Mapping[str, Any] | None = None,
) -> TargetRun:
    """Run a LangChain / deepagents graph and report it as a contracts TargetRun. A run that
    pauses at an interrupt is resumed with ``on_interrupt``'s answer (the graph gets a
    checkpointer of its own when it has none, so it can be resumed). ``config`` is merged
    into the run's config (its callbacks kept; a fresh thread unless it names one)."""

    def requests() -> tuple[FinalRequest, ...]:
        return tuple(r for m in models.values() for r in m.requests)

    def called() -> tuple[str, ...]:
        return tuple(name for name, model in models.items() if model.requests)

    tracer = TraceHandler(probe)
    tracer.origins = built_origins(agent)
    token = TRACER.set(tracer)
    parts: list[Any] = []
    try:
        paused = resume_loop(
            *_graph_steps(agent, context, input, tracer, on_interrupt, config), on_interrupt, parts
        )
    except Exception as error:  # noqa: BLE001 - a crash is an observation the check judges
        return TargetRun(
            final_requests=requests(),
            called=called(),
            error=error,
            trace=tracer.trace(),
            interrupts_resumed=len(parts),
        )
    finally:
        TRACER.reset(token)
    messages = tuple(to_message(m) for m in parts[-1].get("messages", ()))
    own = tuple(tracer.requests) if probe is not None else requests()  # runs share models
    return TargetRun(
        messages=messages,
        final_requests=own,
        called=() if probe is not None else called(),
        trace=tracer.trace(),
        interrupts_resumed=len(parts) - 1,
        paused=paused,
    )


def run(
    agent: Any,
    input: Any,
    *,
    context: Any = None,
    config: Mapping[str, Any] | None = None,
) -> Any:
    """Invoke a compiled LangChain or deepagents agent once and return hookproof's
    ``RunResult``: ``.messages`` (hookproof messages), ``.state`` (the graph's output, frozen),
    ``.trace`` (node hooks, model calls and tool calls, from LangChain's callbacks),
    ``.final_requests`` (what each model call received, whatever the chat model) and
    ``.text``; ``.interrupts`` when the run paused. ``input`` is what ``agent.invoke`` takes
    (a dict with "messages", or a LangGraph ``Command(resume=...)``); ``config`` is merged into
    the run config (its callbacks kept; a fresh thread id unless it names one)."""
    from hookproof._support.frozen import FrozenDict, freeze
    from hookproof.runtime import RunResult

    if not callable(getattr(agent, "invoke", None)):
        raise UsageError(
            f"hookproof: run() takes a compiled LangChain or deepagents agent (something with "
            f"invoke()), got {type(agent).__name__}. Build it with create_agent(...) or "
            "create_deep_agent(...)."
        )
    tracer = TraceHandler()
    tracer.origins = built_origins(agent)
    merged = run_config(config, tracer)
    token = TRACER.set(tracer)
    try:
        output = agent.invoke(input, context=context, config=merged)
    finally:
        TRACER.reset(token)
    values = dict(output) if isinstance(output, Mapping) else {"output": output}
    pending = values.pop("__interrupt__", None) or ()
    messages = tuple(to_message(item) for item in values.get("messages", ()))
    return RunResult(
        messages=messages,
        state=FrozenDict(freeze({**values, "messages": list(messages)})),
        trace=tracer.recorder,
        final_requests=tuple(tracer.requests),
        interrupts=tuple(Interrupt(value=item.value, source="langgraph") for item in pending),
        thread_id=merged["configurable"]["thread_id"],
    )


def run_config(config: Mapping[str, Any] | None, tracer: TraceHandler) -> dict[str, Any]:
    """The user's run config with hookproof's tracer added to its callbacks and a thread id
    (the one it names, else a fresh one)."""
    merged = dict(config or {})
    callbacks = merged.get("callbacks")
    if callbacks is not None and not isinstance(callbacks, list | tuple):
        callbacks.add_handler(tracer.handler(), inherit=True)  # a callback manager
    else:
        merged["callbacks"] = [*(callbacks or ()), tracer.handler()]
    configurable = dict(merged.get("configurable") or {})
    configurable["thread_id"] = thread_id(config)
    merged["configurable"] = configurable
    return merged


def _graph_steps(
    agent: Any,
    context: Any,
    input: Mapping[str, Any],
    tracer: TraceHandler,
    on_interrupt: Any,
    user_config: Mapping[str, Any] | None,
) -> tuple[Any, Any, Any]:
    """The first invoke, the resume step and the pending-interrupt reader of one run."""
    from langgraph.types import Command

    graph = _with_checkpointer(agent)
    config = run_config(user_config, tracer)

    def step(last: Any) -> Any:
        pending = _interrupts(last)
        answers = {item.id: resume_value(item.value, on_interrupt) for item in pending}
        answer = next(iter(answers.values())) if len(answers) == 1 else answers
        return graph.invoke(Command(resume=answer), context=context, config=config)

    def values(last: Any) -> list[Any]:
        return [item.value for item in _interrupts(last)]

    return (lambda: graph.invoke(dict(input), context=context, config=config)), step, values


def _interrupts(result: Any) -> list[Any]:
    return list(result.get("__interrupt__", ()) or ()) if isinstance(result, Mapping) else []


def _with_checkpointer(agent: Any) -> Any:
    """The graph with an in-memory checkpointer when it has none (a graph without one cannot
    be resumed after an interrupt); other runnables are used as they are."""
    if getattr(agent, "checkpointer", True) is not None or not callable(
        getattr(agent, "copy", None)
    ):
        return agent
    from langgraph.checkpoint.memory import InMemorySaver

    return agent.copy(update={"checkpointer": InMemorySaver()})
