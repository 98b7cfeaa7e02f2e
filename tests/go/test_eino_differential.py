"""hookproof.eino against real Eino: the same scenarios on both, the same handler trace and
the same FinalRequests (go/cmd/einoscenario runs them on Eino v0.9.5's ChatModelAgent).

Deliberate differences, normalised before comparing:
* message ids: Eino stamps each message with a random UUID in Extra["_eino_msg_id"];
  hookproof.eino numbers them (msg-1, msg-2, ...) so runs are deterministic;
* error texts: Eino wraps an error with its graph node path; only whether the run ended in an
  error is compared.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookproof.eino import BaseChatModelAgentMiddleware, ChatModelAgent
from hookproof.models import RecordingModel, ScriptedModel, call
from hookproof.snapshot import render
from hookproof.tools import Tool, ToolSchema
from tests.go.toolchain import GoProgram

pytestmark = pytest.mark.slow  # builds and runs a Go program

PARAMETERS = {
    "type": "object",
    "properties": {"q": {"type": "string", "description": "the query"}},
    "required": ["q"],
}
SCENARIO_EXAMPLES = 500
_MESSAGE_ID = re.compile(r'"_eino_msg_id": "[^"]*"')


def _echo(name: str, description: str, prefix: str) -> Tool:
    def run(q: str) -> str:
        return f"{prefix} {q}"

    return Tool(
        schema=ToolSchema(name=name, description=description, parameters=PARAMETERS), func=run
    )


TOOLS = (
    _echo("search", "Search the docs.", "found"),
    _echo("lookup", "Look a customer up.", "customer"),
)


class Probe(BaseChatModelAgentMiddleware):
    """Overrides every hook, so each is traced (the Go side traces every hook)."""

    def before_agent(self, ctx: Any, agent_ctx: Any) -> Any:
        return ctx, agent_ctx

    def after_agent(self, ctx: Any, state: Any) -> Any:
        return ctx

    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        return ctx, state

    def after_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        return ctx, state

    def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
        return model

    def wrap_invokable_tool_call(self, ctx: Any, endpoint: Any, tool_ctx: Any) -> Any:
        return endpoint


class Filter(Probe):
    tool = ""

    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        kept = [info for info in state.tool_infos if info.name != self.tool]
        return ctx, dataclasses.replace(state, tool_infos=kept)


class Failing(Probe):
    hook = ""

    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        if self.hook == "before_model_rewrite_state":
            raise RuntimeError("boom")
        return ctx, state

    def after_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        if self.hook == "after_model_rewrite_state":
            raise RuntimeError("boom")
        return ctx, state


def _handler(spec: dict[str, Any]) -> Any:
    base = {"probe": Probe, "filter": Filter, "fail": Failing}[spec["kind"]]
    cls = type(spec["name"], (base,), {"tool": spec.get("tool", ""), "hook": spec.get("hook", "")})
    return cls()


def _turn(turn: Any) -> Any:
    if isinstance(turn, str):
        return turn
    if isinstance(turn, list):
        return [call(item["call"], item.get("args") or {}) for item in turn]
    return call(turn["call"], turn.get("args") or {})


def run_python(scenario: dict[str, Any]) -> dict[str, Any]:
    names = {spec["name"] for spec in scenario["handlers"]}
    model = RecordingModel(ScriptedModel([_turn(turn) for turn in scenario["script"]]))
    agent = ChatModelAgent(
        model=model,
        tools=TOOLS,
        instruction="Be brief.",
        handlers=[_handler(spec) for spec in scenario["handlers"]],
        max_iterations=scenario.get("max_iterations") or 20,
        return_directly=scenario.get("return_directly") or None,
    )
    run = agent.run([("user", "hi")])
    labels = [
        event.label()
        for event in run.trace
        if (event.kind == "model" and event.phase != "update")
        or (event.kind in ("hook", "layer") and event.middleware in names)
    ]
    return {
        "labels": labels,
        "requests": [render(request) for request in model.requests],
        "failed": run.error is not None,
    }


class EinoScenarios(GoProgram):
    def run(self, scenario: dict[str, Any]) -> dict[str, Any]:
        answer = self.ask(scenario)
        return {
            "labels": answer["labels"],
            "requests": answer["requests"],
            "failed": bool(answer["error"]),
        }


@pytest.fixture(scope="module")
def eino(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EinoScenarios]:
    running = EinoScenarios.built("einoscenario", tmp_path_factory.mktemp("go"))
    yield running
    running.close()


def _comparable(result: dict[str, Any]) -> dict[str, Any]:
    requests = [_MESSAGE_ID.sub('"_eino_msg_id": "*"', text) for text in result["requests"]]
    return {**result, "requests": requests}


def assert_same(eino: EinoScenarios, scenario: dict[str, Any]) -> None:
    expected = _comparable(eino.run(scenario))
    actual = _comparable(run_python(scenario))
    assert actual == expected, json.dumps(scenario)


PROBES = [{"kind": "probe", "name": "outer"}, {"kind": "probe", "name": "inner"}]
SCENARIOS = {
    "final answer": {"script": ["done"], "handlers": PROBES},
    "one tool call": {
        "script": [{"call": "search", "args": {"q": "x"}}, "done"],
        "handlers": PROBES,
    },
    "two calls in one turn": {
        "script": [
            [{"call": "search", "args": {"q": "a"}}, {"call": "lookup", "args": {"q": "b"}}],
            "ok",
        ],
        "handlers": PROBES,
    },
    "tool filter": {
        "script": [{"call": "search", "args": {"q": "x"}}, "done"],
        "handlers": [PROBES[0], {"kind": "filter", "name": "drop", "tool": "lookup"}],
    },
    "max iterations": {
        "script": [{"call": "search", "args": {"q": "x"}}] * 3,
        "handlers": PROBES,
        "max_iterations": 2,
    },
    "return directly": {
        "script": [
            [{"call": "search", "args": {"q": "a"}}, {"call": "lookup", "args": {"q": "b"}}]
        ],
        "handlers": PROBES,
        "return_directly": ["lookup"],
    },
    "error before the model": {
        "script": ["done"],
        "handlers": [
            PROBES[0],
            {"kind": "fail", "name": "bad", "hook": "before_model_rewrite_state"},
        ],
    },
    "error after the model": {
        "script": ["done"],
        "handlers": [
            {"kind": "fail", "name": "bad", "hook": "after_model_rewrite_state"},
            PROBES[1],
        ],
    },
}


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_each_scenario_runs_alike_on_eino_and_hookproof(eino: EinoScenarios, name: str) -> None:
    assert_same(eino, SCENARIOS[name])


_CALL = st.fixed_dictionaries(
    {
        "call": st.sampled_from(("search", "lookup")),
        "args": st.fixed_dictionaries({"q": st.sampled_from(("a", "é", "x y"))}),
    }
)
_HANDLER = st.one_of(
    st.just({"kind": "probe"}),
    st.sampled_from(("search", "lookup")).map(lambda tool: {"kind": "filter", "tool": tool}),
)


@st.composite
def scenarios(draw: st.DrawFn) -> dict[str, Any]:
    turns = draw(st.lists(st.one_of(_CALL, st.lists(_CALL, min_size=1, max_size=2)), max_size=3))
    handlers = draw(st.lists(_HANDLER, min_size=1, max_size=3))
    return {
        "script": [*turns, "done"],
        "handlers": [{**spec, "name": f"h{index}"} for index, spec in enumerate(handlers)],
        "max_iterations": draw(st.sampled_from((0, 0, 2, 3))),
        "return_directly": draw(st.sampled_from(([], [], ["lookup"], ["search", "lookup"]))),
    }


@settings(max_examples=SCENARIO_EXAMPLES, deadline=None, database=None)
@given(scenario=scenarios())
def test_generated_scenarios_run_alike_on_eino_and_hookproof(
    eino: EinoScenarios, scenario: dict[str, Any]
) -> None:
    assert_same(eino, scenario)
