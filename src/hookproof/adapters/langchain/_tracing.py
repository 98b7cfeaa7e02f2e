"""A LangChain run as a hookproof Trace: node hooks, model and tool calls from LangChain's
callbacks, and wrap hooks from instrumenting how LangChain composes them at build time."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from typing import Any

from langchain_core.messages import BaseMessage

from hookproof.adapters.langchain._convert import final_request, portable_kwargs
from hookproof.models import FinalRequest

__all__ = ["TRACER", "TraceHandler", "build_instrumented"]

_NODE_HOOKS = ("before_agent", "before_model", "after_model", "after_agent")


class TraceHandler:
    """A LangChain callback handler that records node hooks, model calls and tool calls as
    a hookproof Trace. Wrap hooks run inside LangChain's model node and leave no callbacks, so
    they are not in this trace (hook order is checked for node hooks only)."""

    def __init__(self, probe: Any = None) -> None:
        from hookproof.trace import TraceRecorder

        self.recorder = TraceRecorder()
        self.probe = probe  # check_isolation holds runs here, at node boundaries
        self.requests: list[FinalRequest] = []
        self.open: dict[Any, tuple[str, str, str | None, Any]] = {}

    def handler(self) -> Any:
        from langchain_core.callbacks import BaseCallbackHandler

        outer = self

        class _Handler(BaseCallbackHandler):
            def on_chain_start(
                self, serialized: Any, inputs: Any, *, run_id: Any, **kw: Any
            ) -> None:
                outer.started(str(kw.get("name") or ""), run_id)

            def on_chain_end(self, outputs: Any, *, run_id: Any, **kw: Any) -> None:
                outer.ended(run_id, "exit")

            def on_chain_error(self, error: BaseException, *, run_id: Any, **kw: Any) -> None:
                outer.ended(run_id, "error")

            def on_chat_model_start(
                self, serialized: Any, messages: Any, *, run_id: Any, **kw: Any
            ) -> None:
                outer.model_called(messages[0] if messages else [], kw)
                name = (kw.get("metadata") or {}).get("ls_model_name") or "model"
                outer.enter(run_id, "model", "model", None, {"model": str(name)})

            def on_llm_end(self, response: Any, *, run_id: Any, **kw: Any) -> None:
                outer.ended(run_id, "exit")

            def on_llm_error(self, error: BaseException, *, run_id: Any, **kw: Any) -> None:
                outer.ended(run_id, "error")

            def on_tool_start(
                self, serialized: Any, input_str: str, *, run_id: Any, **kw: Any
            ) -> None:
                name = (serialized or {}).get("name") or kw.get("name") or "tool"
                outer.enter(run_id, "tool", "tool", None, {"tool": str(name)})

            def on_tool_end(self, output: Any, *, run_id: Any, **kw: Any) -> None:
                outer.ended(run_id, "exit")

            def on_tool_error(self, error: BaseException, *, run_id: Any, **kw: Any) -> None:
                outer.ended(run_id, "error")

        return _Handler()

    def started(self, name: str, run_id: Any) -> None:
        owner, _, hook = name.rpartition(".")
        if self.probe is not None and ((hook in _NODE_HOOKS and owner) or name == "model"):
            self.probe.reached(name)
        if hook in _NODE_HOOKS and owner:
            self.enter(run_id, "hook", hook, owner, None)

    def model_called(self, messages: Sequence[BaseMessage], details: Mapping[str, Any]) -> None:
        """This run's own FinalRequest (a shared model's records mix concurrent runs)."""
        params = portable_kwargs(details.get("invocation_params") or {})
        name = (details.get("metadata") or {}).get("ls_model_name") or params.get("_type", "model")
        stop = params.pop("stop", None)
        params.pop("_type", None)
        self.requests.append(final_request(messages, params, model=str(name), stop=stop))

    def enter(self, run_id: Any, kind: str, hook: str, owner: str | None, data: Any) -> None:
        self.recorder.record(kind, hook, "enter", owner, data)  # type: ignore[arg-type]
        self.open[run_id] = (kind, hook, owner, data)

    def ended(self, run_id: Any, phase: str) -> None:
        opened = self.open.pop(run_id, None)
        if opened is not None:
            kind, hook, owner, data = opened
            self.recorder.record(kind, hook, phase, owner, data)  # type: ignore[arg-type]

    def trace(self) -> Any:
        return self.recorder.freeze()


# -- wrap-hook tracing: LangChain composes wrap hooks at build time, leaving no callbacks ---

TRACER: ContextVar[Any] = ContextVar("hookproof_langchain_tracer", default=None)  # per run


def _owner_name(handler: Any) -> str | None:
    bound = getattr(handler, "__wrapped__", handler)
    owner = getattr(bound, "__self__", None)
    if owner is None:
        return None
    return str(getattr(owner, "name", None) or type(owner).__name__)


def _traced(handler: Any, hook: str) -> Any:
    """The same wrap hook, recording its enter and exit in the run's trace."""
    name = _owner_name(handler)
    if name is None:  # not a middleware's bound hook: leave it exactly as it is
        return handler

    def traced(request: Any, inner: Any) -> Any:
        tracer = TRACER.get()
        if tracer is None:
            return handler(request, inner)
        if tracer.probe is not None:
            tracer.probe.reached(f"{name}.{hook}")
        tracer.recorder.record("layer", hook, "enter", name)
        try:
            result = handler(request, inner)
        except BaseException:
            tracer.recorder.record("layer", hook, "error", name)
            raise
        tracer.recorder.record("layer", hook, "exit", name)
        return result

    return traced


def _instrumented(compose: Any, hook: str) -> Any:
    def compose_traced(handlers: Sequence[Any]) -> Any:
        return compose([_traced(handler, hook) for handler in handlers])

    return compose_traced


_PATCH_LOCK = threading.Lock()  # one build at a time touches the factory's module globals


def build_instrumented(build: Any, argument: Any, tool_lists: list[list[str]] | None = None) -> Any:
    """Call the user's factory with LangChain's wrap-hook composition instrumented, so runs of
    the agent it builds record their wrap layers; with ``tool_lists``, the names of the
    tools each agent it builds registers (before LangChain keeps one per name) are appended
    there. Behaviour is unchanged; on a LangChain version without these internals, the agent
    is built as is (node hooks are still traced)."""
    from unittest import mock

    try:
        from langchain.agents import factory
    except ImportError:
        return build(argument)
    patches = [
        (name, hook)
        for name, hook in (
            ("_chain_model_call_handlers", "wrap_model_call"),
            ("_chain_tool_call_wrappers", "wrap_tool_call"),
        )
        if callable(getattr(factory, name, None))
    ]
    with _PATCH_LOCK, contextlib.ExitStack() as stack:
        for name, hook in patches:
            stack.enter_context(
                mock.patch.object(factory, name, _instrumented(getattr(factory, name), hook))
            )
        tool_node = getattr(factory, "ToolNode", None)  # LangChain's internal, where present
        if tool_lists is not None and isinstance(tool_node, type):
            recording = _recording_tool_node(tool_node, tool_lists)
            stack.enter_context(mock.patch.object(factory, "ToolNode", recording))
        return build(argument)


def _recording_tool_node(tool_node: type, tool_lists: list[list[str]]) -> Any:
    def recorded(*args: Any, **kwargs: Any) -> Any:
        tools = kwargs.get("tools", args[0] if args else ())
        tool_lists.append([str(getattr(item, "name", item)) for item in tools])
        return tool_node(*args, **kwargs)

    return recorded
