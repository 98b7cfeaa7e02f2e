"""The scenarios on hookproof.eino: handlers of each catalogue kind, the same tools and
scripted model as the Go runner, and the run's outcome in the form both runners report."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from hookproof.conformance._eino_handlers import handler
from hookproof.conformance._eino_scenarios import Scenario
from hookproof.eino import (
    AgentEvent,
    ChatModelAgent,
    InMemoryCheckpointer,
    ManualClock,
    ModelFailoverConfig,
    ModelRetryConfig,
    RetryContext,
    RetryDecision,
    ToolInfo,
    interrupt,
)
from hookproof.messages import AssistantMessage, ToolMessage
from hookproof.models import RecordingModel, ScriptedModel, call
from hookproof.snapshot import render
from hookproof.tools import Tool, ToolSchema

__all__ = ["Outcome", "event_line", "model_label", "run_on_hookproof"]

CHECKPOINT_ID = "scenario"
_PARAMETERS = {
    "type": "object",
    "properties": {"q": {"type": "string", "description": "the query"}},
    "required": ["q"],
}


@dataclass(frozen=True)
class Outcome:
    """What a run showed: the handler trace's labels, the rendered FinalRequests, the
    events (one line each, see ``event_line``) and whether it ended in an error."""

    labels: tuple[str, ...]
    requests: tuple[str, ...]
    events: tuple[str, ...]
    failed: bool


def event_line(
    role: str, tool: str, streaming: bool, text: str, calls: Sequence[str], custom: str
) -> str:
    """One event as both runners print it."""
    if custom:
        return f"custom: {custom}"
    head = role + (f" {tool}" if tool else "") + (" (stream)" if streaming else "")
    return f"{head}: {text}" + (f" [calls {','.join(calls)}]" if calls else "")


def _echo(name: str, description: str, prefix: str, interrupting: bool) -> Tool:
    def run(q: str) -> str:
        if interrupting:
            return f"{prefix} {q} ({interrupt('approve?')})"
        return f"{prefix} {q}"

    schema = ToolSchema(name=name, description=description, parameters=_PARAMETERS)
    return Tool(schema=schema, func=run)


class _StreamEcho:
    """The echo tool as a streamable-only Eino tool: it streams ``prefix``, `` q``."""

    def __init__(self, echo: Tool, prefix: str) -> None:
        self.schema, self.prefix = echo.schema, prefix

    def info(self) -> ToolInfo:
        return self.schema

    def streamable_run(self, ctx: Any, arguments: str) -> Iterator[str]:
        yield from (self.prefix, " " + json.loads(arguments)["q"])


def _tools(scenario: Scenario) -> tuple[Any, ...]:
    search = _echo("search", "Search the docs.", "found", scenario.interrupt == "search")
    lookup = _echo("lookup", "Look a customer up.", "customer", scenario.interrupt == "lookup")
    if scenario.streamable_tools:
        return (_StreamEcho(search, "found"), _StreamEcho(lookup, "customer"))
    return (search, lookup)


def _turn(turn: Any) -> Any:
    if isinstance(turn, str):
        return turn
    if isinstance(turn, list):
        return [_call(item) for item in turn]
    if "error" in turn:
        return RuntimeError(turn["error"])
    return _call(turn)


def _call(item: Any) -> Any:
    return call(item["call"], item.get("args") or {}, id=item.get("id"))


def _model(script: Sequence[Any], name: str) -> RecordingModel:
    return RecordingModel(ScriptedModel([_turn(turn) for turn in script], name=name))


def _failover(scenario: Scenario, fallback: RecordingModel | None) -> Any:
    if fallback is None:
        return None
    return ModelFailoverConfig(
        max_retries=scenario.failover_retries,
        should_failover=lambda _ctx, _output, error: error is not None,
        get_failover_model=lambda _ctx, _failover_ctx: fallback,
    )


def _retry(scenario: Scenario) -> ModelRetryConfig | None:
    if scenario.retries < 0:
        return None

    def rejects(_ctx: Any, attempt: RetryContext) -> RetryDecision | None:
        output = attempt.output_message
        rejected = output is not None and output.text == scenario.reject
        return RetryDecision(retry=True) if attempt.error is not None or rejected else None

    return ModelRetryConfig(
        max_retries=scenario.retries,
        should_retry=rejects if scenario.reject else None,
        backoff_func=lambda _ctx, _n: 0.0,
    )


def model_label(label: str, model: str, names: Sequence[str]) -> str:
    """A model event's label with the model's name and the tools it was shown (enter) or
    called (exit), as both runners print it."""
    return f"{label} {model} [{','.join(names)}]"


def _label(event: Any) -> str:
    if event.kind != "model" or "model" not in event.data:
        return str(event.label())
    names = event.data.get("tools", event.data.get("tool_calls", ()))
    return model_label(event.label(), event.data["model"], names)


def _labels(run: Any, names: frozenset[str]) -> list[str]:
    return [
        _label(event)
        for event in run.trace
        if (event.kind == "model" and event.phase != "update")
        or (event.kind in ("hook", "layer") and event.middleware in names)
    ]


def _event(event: AgentEvent) -> str:
    if event.kind in ("error", "interrupt"):
        return event.kind
    message = event.message
    if message is None:
        return event_line("", "", False, "", (), str(event.custom))
    role = "tool" if isinstance(message, ToolMessage) else "assistant"
    if event.stream_error is not None:  # the Go runner cannot concatenate such a stream
        return event_line(role, event.tool_name or "", event.is_streaming, "stream error", (), "")
    calls = [item.name for item in getattr(message, "tool_calls", ())]
    assert isinstance(message, AssistantMessage | ToolMessage)
    return event_line(role, event.tool_name or "", event.is_streaming, message.text, calls, "")


def run_on_hookproof(scenario: Scenario) -> Outcome:
    """Run ``scenario`` on hookproof.eino (resuming once if it interrupts)."""
    model = _model(scenario.script, "scripted")
    fallback = None if scenario.fallback is None else _model(scenario.fallback, "fallback")
    agent = ChatModelAgent(
        model=model,
        tools=_tools(scenario),
        instruction="Be brief.",
        handlers=[handler(spec) for spec in scenario.handlers],
        max_iterations=scenario.max_iterations,
        return_directly=scenario.return_directly or None,
        model_retry_config=_retry(scenario),
        model_failover_config=_failover(scenario, fallback),
        checkpointer=InMemoryCheckpointer() if scenario.interrupt else None,
        clock=ManualClock(),
    )
    checkpoint = CHECKPOINT_ID if scenario.interrupt else None
    runs = [
        agent.run([("user", "hi")], enable_streaming=scenario.streaming, checkpoint_id=checkpoint)
    ]
    if runs[0].interrupted:
        runs.append(
            agent.resume(CHECKPOINT_ID, scenario.resume, enable_streaming=scenario.streaming)
        )
    recorded = [*model.requests, *(fallback.requests if fallback is not None else ())]
    return Outcome(
        labels=tuple(label for run in runs for label in _labels(run, scenario.handler_names)),
        requests=tuple(render(request, provenance=_traced(scenario)) for request in recorded),
        events=tuple(_event(event) for run in runs for event in run),
        failed=runs[-1].error is not None,
    )


def _traced(scenario: Scenario) -> bool:
    """Whether requests are compared with their provenance: the Go runner notes it through
    its traced handlers, so a scenario without handlers has none there."""
    return bool(scenario.handlers)
