"""The provenance of go/record_test.go's traced run (a BeforeAgent changing the instruction
and the tools, a state filter, a system-prompt rewrite, a WrapModel wrapper changing what
the model is shown) on hookproof.eino: the same section the Go test expects of real Eino,
read from the same file. The Eino differential has no handler whose WrapModel changes the
request; this covers that case."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hookproof.eino import BaseChatModelAgentMiddleware, ChatModelAgent, ModelWrapper
from hookproof.messages import SystemMessage, text_message
from hookproof.models import RecordingModel, ScriptedModel, call
from hookproof.snapshot import render
from hookproof.tools import Tool, ToolSchema
from tests.go.vectors import RENDER

EXPECTED = RENDER / "eino_handlers_provenance.txt"
EXPECTED_TRACE = RENDER / "eino_handlers_trace.txt"
HANDLERS = frozenset({"Rules", "Filter", "Prompt", "Describer"})


def _tool(name: str) -> Tool:
    return Tool(schema=ToolSchema(name=name, description=f"The {name} tool."), func=lambda: "")


class Rules(BaseChatModelAgentMiddleware):
    def before_agent(self, ctx: Any, agent_ctx: Any) -> Any:
        tools = [item for item in agent_ctx.tools if item.info().name != "lookup"]
        instruction = agent_ctx.instruction + "\nBe brief."
        return ctx, agent_ctx.override(instruction=instruction, tools=tools)


class Filter(BaseChatModelAgentMiddleware):
    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        kept = [info for info in state.tool_infos if info.name != "fetch"]
        return ctx, state.override(tool_infos=kept)


class Prompt(BaseChatModelAgentMiddleware):
    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        lines = state.messages[0].text.split("\n")
        if "Cite sources." in lines:
            return ctx, state
        system = text_message(SystemMessage, "\n".join([lines[0], "Cite sources.", *lines[1:]]))
        return ctx, state.override(messages=(system, *state.messages[1:]))


class _Described(ModelWrapper):
    @staticmethod
    def _changed(messages: Any, options: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        tools = [
            item.model_copy(update={"description": "Search, described by the wrapper."})
            if item.name == "search"
            else item
            for item in options["tools"]
        ]
        tools.append(ToolSchema(name="extra", description="Added by the wrapper."))
        system = text_message(SystemMessage, messages[0].text + "\n(wrapped)")
        return (system, *messages[1:]), {**options, "tools": tools}

    def generate(self, ctx: Any, messages: Any, **options: Any) -> Any:
        messages, options = self._changed(messages, options)
        return self.inner.generate(ctx, messages, **options)

    def stream(self, ctx: Any, messages: Any, **options: Any) -> Iterator[Any]:
        messages, options = self._changed(messages, options)
        return self.inner.stream(ctx, messages, **options)


class Describer(BaseChatModelAgentMiddleware):
    def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
        return _Described(model)


def _run(model: RecordingModel) -> Any:
    agent = ChatModelAgent(
        model=model,
        tools=[_tool("search"), _tool("lookup"), _tool("fetch")],
        instruction="You help.",
        handlers=[Rules(), Filter(), Prompt(), Describer()],
    )
    return agent.run([("user", "hi")])


def test_hookproof_eino_gives_the_provenance_the_go_side_records_on_real_eino() -> None:
    model = RecordingModel(ScriptedModel([call("search", {}), "done"]))
    _run(model)
    expected = EXPECTED.read_text("utf-8")
    assert len(model.requests) == 2
    for request in model.requests:
        text = render(request)
        assert text.startswith("hookproof final request, format 2\n")
        assert text[text.index("\nprovenance:\n") + 1 :] == expected


def test_the_handlers_trace_shows_the_hooks_they_define_as_the_go_trace_does() -> None:
    """go/record_test.go's TestTracedHandlersShowOnlyTheHooksTheyDefine reads the same file:
    each handler defines one hook (Go: the rest come from the embedded base), and both
    traces show those hooks and the model calls (Python's also shows the state updates and
    Eino's own layers, which Go cannot see from a handler)."""
    run = _run(RecordingModel(ScriptedModel([call("search", {}), "done"])))
    lines = [
        event.describe().strip()
        for event in run.trace
        if (event.kind == "model" and event.phase != "update")
        or (event.kind in ("hook", "layer") and event.middleware in HANDLERS)
    ]
    assert "\n".join(lines) + "\n" == EXPECTED_TRACE.read_text("utf-8")
