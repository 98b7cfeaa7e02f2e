"""Shared pieces of the Eino dialect tests: a logging handler, tools of every kind, helpers."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from hookproof.eino import (
    BaseChatModelAgentMiddleware,
    ChatModelAgent,
    ModelWrapper,
    RunContext,
    ToolArgument,
    ToolInfo,
    ToolOutput,
    ToolResult,
)
from hookproof.messages import AssistantMessage, SystemMessage, text_message
from hookproof.models import RecordingModel, ScriptedModel
from hookproof.tools import tool
from hookproof.trace import Trace

PARAMS = {"type": "object", "properties": {"q": {"type": "string"}}}


@tool
def search(q: str) -> str:
    """Search the docs."""
    return f"found {q}"


@tool
def lookup(q: str) -> str:
    """Look a customer up."""
    return f"customer {q}"


class EveryHook(BaseChatModelAgentMiddleware):
    """Takes part in the agent, state and model hooks, passing everything through, and calls
    ``_at`` with the name of each hook as it runs: a subclass logs it, or raises."""

    def _at(self, hook: str) -> None:
        pass

    def before_agent(self, ctx: RunContext, agent_ctx: Any) -> Any:
        self._at("before_agent")
        return ctx, agent_ctx

    def after_agent(self, ctx: RunContext, state: Any) -> RunContext:
        self._at("after_agent")
        return ctx

    def before_model_rewrite_state(self, ctx: RunContext, state: Any, model_ctx: Any) -> Any:
        self._at("before_model_rewrite_state")
        return ctx, state

    def after_model_rewrite_state(self, ctx: RunContext, state: Any, model_ctx: Any) -> Any:
        self._at("after_model_rewrite_state")
        return ctx, state

    def wrap_model(self, ctx: RunContext, model: Any, model_ctx: Any) -> Any:
        self._at("wrap_model")
        return model


class Logger(EveryHook):
    """Logs every hook and wrapper it takes part in, as ``name.step`` (the state hooks as
    ``before_model`` and ``after_model``)."""

    def __init__(self, name: str, log: list[str]) -> None:
        self.name, self.log = name, log

    def _note(self, step: str) -> None:
        self.log.append(f"{self.name}.{step}")

    def _at(self, hook: str) -> None:
        self._note(hook.removesuffix("_rewrite_state"))

    def wrap_model(self, ctx: RunContext, model: Any, model_ctx: Any) -> Any:
        model = super().wrap_model(ctx, model, model_ctx)
        note = self._note

        class Wrapped(ModelWrapper):
            def generate(self, ctx: RunContext, messages: Sequence[Any], **options: Any) -> Any:
                note("generate>")
                result = self.inner.generate(ctx, messages, **options)
                note("generate<")
                return result

            def stream(self, ctx: RunContext, messages: Sequence[Any], **options: Any) -> Any:
                note("stream>")
                result = list(self.inner.stream(ctx, messages, **options))
                note("stream<")
                return iter(result)

        return Wrapped(model)

    def _around(self, kind: str, endpoint: Any) -> Any:
        def wrapped(ctx: RunContext, argument: Any) -> Any:
            self._note(f"{kind}>")
            result = endpoint(ctx, argument)
            self._note(f"{kind}<")
            return result

        return wrapped

    def wrap_invokable_tool_call(self, ctx: RunContext, endpoint: Any, tool_ctx: Any) -> Any:
        return self._around("invokable", endpoint)

    def wrap_streamable_tool_call(self, ctx: RunContext, endpoint: Any, tool_ctx: Any) -> Any:
        return self._around("streamable", endpoint)

    def wrap_enhanced_invokable_tool_call(
        self, ctx: RunContext, endpoint: Any, tool_ctx: Any
    ) -> Any:
        return self._around("enhanced_invokable", endpoint)

    def wrap_enhanced_streamable_tool_call(
        self, ctx: RunContext, endpoint: Any, tool_ctx: Any
    ) -> Any:
        return self._around("enhanced_streamable", endpoint)


def tool_layer(
    before: Callable[[Any], object], after: Callable[[], object] = lambda: None
) -> Callable[[Any], Any]:
    """A ToolMiddleware endpoint factory whose endpoint calls ``before(tool_input)``, the next
    endpoint, then ``after()``."""

    def factory(next_endpoint: Any) -> Any:
        def endpoint(ctx: Any, tool_input: Any) -> ToolOutput:
            before(tool_input)
            output: ToolOutput = next_endpoint(ctx, tool_input)
            after()
            return output

        return endpoint

    return factory


def wrapping_tools(hook: str, around: Callable[[Any, RunContext, Any], Any]) -> Any:
    """A handler whose tool wrapper ``hook`` (``wrap_invokable_tool_call``, ...) answers each
    call with ``around(endpoint, ctx, argument)``."""

    def wrap(self: Any, ctx: RunContext, endpoint: Any, tool_ctx: Any) -> Any:
        return lambda ctx, argument: around(endpoint, ctx, argument)

    return type("Wrapping", (BaseChatModelAgentMiddleware,), {hook: wrap})()


class _Info:
    name = "kind_tool"

    def info(self) -> ToolInfo:
        return ToolInfo(name=self.name, description="a tool of one kind", parameters=PARAMS)


class InvokableOnly(_Info):
    def invokable_run(self, ctx: RunContext, arguments: str) -> str:
        return "inv"


class StreamableOnly(_Info):
    def streamable_run(self, ctx: RunContext, arguments: str) -> Iterator[str]:
        yield from ("str", "eam")


class Both(InvokableOnly, StreamableOnly):
    pass


class EnhancedInvokableOnly(_Info):
    def enhanced_invokable_run(self, ctx: RunContext, argument: ToolArgument) -> ToolResult:
        return ToolResult.of_text("enh")


class EnhancedStreamableOnly(_Info):
    def enhanced_streamable_run(
        self, ctx: RunContext, argument: ToolArgument
    ) -> Iterator[ToolResult]:
        yield ToolResult.of_text("enh-")
        yield ToolResult.of_text("stream")


class Flaky:
    """Fails the first ``failures`` calls, then answers."""

    hookproof_offline = True

    def __init__(self, failures: int, answer: str = "ok", name: str = "flaky") -> None:
        self.failures, self.answer, self.name, self.calls = failures, answer, name, 0

    def invoke(self, request: Any) -> AssistantMessage:
        self.calls += 1
        if self.calls <= self.failures:
            raise ConnectionError(f"{self.name} down ({self.calls})")
        return text_message(AssistantMessage, self.answer)


def scripted(*turns: Any, name: str = "scripted") -> RecordingModel:
    return RecordingModel(ScriptedModel(list(turns), name=name))


def agent_with(model: Any, **kwargs: Any) -> ChatModelAgent:
    kwargs.setdefault("tools", [search])
    return ChatModelAgent(model=model, **kwargs)


def layer_owners(trace: Trace, kind: str = "layer") -> list[str]:
    """Owners of the layers entered, in order, up to the first model or tool call."""
    owners: list[str] = []
    target = "model" if kind == "model" else "tool"
    for event in trace:
        if event.kind == target and event.phase == "enter":
            return owners
        if event.kind == "layer" and event.phase == "enter":
            owners.append(str(event.middleware))
    return owners


def tool_layer_owners(trace: Trace) -> list[str]:
    """Layers entered from the first tools_node to the tool call."""
    started, owners = False, []
    for event in trace:
        if event.kind == "layer" and event.hook == "tools_node" and event.phase == "enter":
            started = True
        if not started:
            continue
        if event.kind == "tool" and event.phase == "enter":
            return owners
        if event.kind == "layer" and event.phase == "enter":
            owners.append(str(event.middleware))
    return owners


def hooks_entered(trace: Trace) -> list[str]:
    return [
        f"{event.middleware}.{event.hook}"
        for event in trace
        if event.kind == "hook" and event.phase == "enter"
    ]


class Upper(BaseChatModelAgentMiddleware):
    """Upper-cases the model's answer from inside wrap_model."""

    def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
        class Shout(ModelWrapper):
            def generate(self, ctx: Any, messages: Any, **options: Any) -> Any:
                message = self.inner.generate(ctx, messages, **options)
                return text_message(AssistantMessage, message.text.upper())

        return Shout(model)


class _Annotated(ModelWrapper):
    """Shows the model another system prompt: the model layers pass on a new model call."""

    def generate(self, ctx: Any, messages: Any, **options: Any) -> Any:
        system = text_message(SystemMessage, messages[0].text + "\n(wrapped)")
        return self.inner.generate(ctx, (system, *messages[1:]), **options)

    def stream(self, ctx: Any, messages: Any, **options: Any) -> Any:
        system = text_message(SystemMessage, messages[0].text + "\n(wrapped)")
        return self.inner.stream(ctx, (system, *messages[1:]), **options)


class Annotating(BaseChatModelAgentMiddleware):
    """Its wrap_model adds a line to the system prompt the model is shown."""

    def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
        return _Annotated(model)


class Briefing(BaseChatModelAgentMiddleware):
    """Adds a line to the state's system prompt before every model call (once)."""

    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        if state.messages[0].text.endswith("Be brief."):
            return ctx, state
        system = text_message(SystemMessage, state.messages[0].text + "\nBe brief.")
        return ctx, state.override(messages=(system, *state.messages[1:]))
