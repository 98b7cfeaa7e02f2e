"""The handler kinds of the Eino differential on hookproof.eino (``_eino_scenarios``
describes each; go/cmd/einoscenario implements the same kinds on real Eino)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hookproof.conformance._eino_scenarios import HandlerSpec
from hookproof.eino import (
    AgentEvent,
    BaseChatModelAgentMiddleware,
    ChatModelAgentState,
    ModelWrapper,
    get_run_local_value,
    send_event,
    set_run_local_value,
)
from hookproof.messages import AssistantMessage, UserMessage, text_message

__all__ = ["handler"]

_COUNT_KEY = "calls"


class _Handler(BaseChatModelAgentMiddleware):
    """A scenario's handler: each kind overrides the hooks its Go twin defines (both traces
    show only those)."""

    spec = HandlerSpec("probe", "")


class _Probe(_Handler):
    """Overrides every hook, so each is traced."""

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

    def wrap_streamable_tool_call(self, ctx: Any, endpoint: Any, tool_ctx: Any) -> Any:
        return endpoint


class _AgentContext(_Handler):
    """before_agent: a line naming the handler joins the instruction; ``tool`` is dropped."""

    def before_agent(self, ctx: Any, agent_ctx: Any) -> Any:
        tools = [item for item in agent_ctx.tools if item.info().name != self.spec.tool]
        instruction = f"{agent_ctx.instruction}\n\nfrom {self.spec.name}"
        return ctx, agent_ctx.override(instruction=instruction, tools=tools)


class _Answer(_Handler):
    """after_model_rewrite_state: a message of tool calls becomes a text answer."""

    def after_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        last = state.messages[-1]
        if not getattr(last, "tool_calls", ()):
            return ctx, state
        answer = text_message(AssistantMessage, f"answered by {self.spec.name}")
        return ctx, state.override(messages=(*state.messages[:-1], answer))


class _Filter(_Handler):
    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        kept = [info for info in state.tool_infos or () if info.name != self.spec.tool]
        # the Go filter's list is nil when it keeps nothing, and a nil list is refilled
        return ctx, state.override(tool_infos=kept or None)


class _Rewrite(_Handler):
    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        note = text_message(UserMessage, f"note from {self.spec.name}")
        return ctx, state.override(messages=(*state.messages, note))


def _boom(hook: str) -> RuntimeError:
    return RuntimeError(f"boom in {hook}")


class _FailingModel(ModelWrapper):
    def generate(self, ctx: Any, messages: Any, **options: Any) -> Any:
        raise _boom("wrap_model_call")

    def stream(self, ctx: Any, messages: Any, **options: Any) -> Any:
        raise _boom("wrap_model_call")


class _Failing(_Handler):
    def _check(self, hook: str) -> None:
        if self.spec.hook == hook:
            raise _boom(hook)

    def before_agent(self, ctx: Any, agent_ctx: Any) -> Any:
        self._check("before_agent")
        return ctx, agent_ctx

    def after_agent(self, ctx: Any, state: Any) -> Any:
        self._check("after_agent")
        return ctx

    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        self._check("before_model_rewrite_state")
        return ctx, state

    def after_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        self._check("after_model_rewrite_state")
        return ctx, state

    def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
        self._check("wrap_model")
        return _FailingModel(model) if self.spec.hook == "wrap_model_call" else model

    def wrap_invokable_tool_call(self, ctx: Any, endpoint: Any, tool_ctx: Any) -> Any:
        self._check("tool_wrapper")
        return self._failing if self.spec.hook == "tool_wrapper_call" else endpoint

    def wrap_streamable_tool_call(self, ctx: Any, endpoint: Any, tool_ctx: Any) -> Any:
        return self.wrap_invokable_tool_call(ctx, endpoint, tool_ctx)

    @staticmethod
    def _failing(_ctx: Any, _arguments: str) -> str:
        raise _boom("tool_wrapper_call")


class _RunLocal(_Handler):
    """Counts model calls in a run-local value; tool results and after_agent show it."""

    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        count, _ = get_run_local_value(ctx, _COUNT_KEY)
        set_run_local_value(ctx, _COUNT_KEY, (count or 0) + 1)
        return ctx, state

    def wrap_invokable_tool_call(self, ctx: Any, endpoint: Any, tool_ctx: Any) -> Any:
        def counted(call_ctx: Any, arguments: str) -> str:
            result = endpoint(call_ctx, arguments)
            count, _ = get_run_local_value(call_ctx, _COUNT_KEY)
            return f"{result} (calls={count})"

        return counted

    def wrap_streamable_tool_call(self, ctx: Any, endpoint: Any, tool_ctx: Any) -> Any:
        def counted(call_ctx: Any, arguments: str) -> Iterator[str]:
            chunks = list(endpoint(call_ctx, arguments))
            count, _ = get_run_local_value(call_ctx, _COUNT_KEY)
            return iter([*chunks, f" (calls={count})"])

        return counted

    def after_agent(self, ctx: Any, state: Any) -> Any:
        count, _ = get_run_local_value(ctx, _COUNT_KEY)
        send_event(ctx, AgentEvent(custom=f"calls={count}"))
        return ctx


class _Optionless(ModelWrapper):
    def generate(self, ctx: Any, messages: Any, **options: Any) -> Any:
        return self.inner.generate(ctx, messages)

    def stream(self, ctx: Any, messages: Any, **options: Any) -> Any:
        return self.inner.stream(ctx, messages)


class _DropOptions(_Handler):
    """wrap_model: the model is called without the options the wrapper receives."""

    def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
        return _Optionless(model)


class _CrossWired(ModelWrapper):
    def generate(self, ctx: Any, messages: Any, **options: Any) -> Any:
        chunks = list(self.inner.stream(ctx, messages, **options))
        return chunks[0].override(content="".join(chunk.text for chunk in chunks))

    def stream(self, ctx: Any, messages: Any, **options: Any) -> Any:
        return iter([self.inner.generate(ctx, messages, **options)])


class _CrossWire(_Handler):
    """wrap_model: generate calls the inner stream, and stream the inner generate."""

    def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
        return _CrossWired(model)


class _SignedModel(ModelWrapper):
    def __init__(self, inner: Any, name: str) -> None:
        super().__init__(inner)
        self.suffix = f" (signed by {name})"

    def generate(self, ctx: Any, messages: Any, **options: Any) -> Any:
        message = self.inner.generate(ctx, messages, **options)
        return message.override(content=message.text + self.suffix)

    def stream(self, ctx: Any, messages: Any, **options: Any) -> Any:
        chunks = list(self.inner.stream(ctx, messages, **options))
        return iter([*chunks, text_message(AssistantMessage, self.suffix)])


class _Sign(_Handler):
    """wrap_model: the answer gets " (signed by <name>)" (one more chunk when streaming)."""

    def wrap_model(self, ctx: Any, model: Any, model_ctx: Any) -> Any:
        return _SignedModel(model, self.spec.name)


class _Fresh(_Handler):
    """before_model_rewrite_state, before the first model call: a new state with the
    messages only (its tool infos None)."""

    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        if any(isinstance(message, AssistantMessage) for message in state.messages):
            return ctx, state
        return ctx, ChatModelAgentState(messages=state.messages)


class _Shrink(_Handler):
    """before_model_rewrite_state drops the first of the tool infos it sees."""

    def before_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        if state.tool_infos:
            return ctx, state.override(tool_infos=state.tool_infos[1:])
        return ctx, state


class _NoIds(_Handler):
    """after_model_rewrite_state blanks the ids of the answer's tool calls."""

    def after_model_rewrite_state(self, ctx: Any, state: Any, model_ctx: Any) -> Any:
        last = state.messages[-1]
        calls = getattr(last, "tool_calls", ())
        if not calls:
            return ctx, state
        blanked = last.override(tool_calls=[call.override(id="") for call in calls])
        return ctx, state.override(messages=(*state.messages[:-1], blanked))


_KINDS: dict[str, type[_Handler]] = {
    "noids": _NoIds,
    "dropopts": _DropOptions,
    "crosswired": _CrossWire,
    "signed": _Sign,
    "fresh": _Fresh,
    "shrink": _Shrink,
    "probe": _Probe,
    "filter": _Filter,
    "rewrite": _Rewrite,
    "fail": _Failing,
    "runlocal": _RunLocal,
    "agentctx": _AgentContext,
    "answer": _Answer,
}


def handler(spec: HandlerSpec) -> BaseChatModelAgentMiddleware:
    # the class is named as the handler: hookproof.eino traces a handler by its class name
    cls: type[_Handler] = type(spec.name, (_KINDS[spec.kind],), {"spec": spec})
    return cls()
