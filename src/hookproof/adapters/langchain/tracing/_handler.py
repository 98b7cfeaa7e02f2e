"""TraceHandler: a LangChain run's callbacks (node hooks, model calls, tool calls) as a
hookproof Trace, and each model call's own FinalRequest."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import BaseMessage

from hookproof.adapters.langchain._convert import final_request, portable_kwargs
from hookproof.adapters.langchain._notes import noted, with_noted_provenance
from hookproof.models import FinalRequest

__all__ = ["TraceHandler"]

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
        # Who registered which tool, for an agent built instrumented (see built_origins):
        # the provenance of model calls no wrap_model_call layer saw.
        self.origins: Mapping[str, str] | None = None
        self.open: dict[Any, tuple[str, str, str | None, Any]] = {}

    def handler(self) -> Any:
        from langchain_core.callbacks import BaseCallbackHandler

        outer = self

        class _Handler(BaseCallbackHandler):
            def on_chain_start(
                self, serialized: Any, inputs: Any, *, run_id: Any, **kw: Any
            ) -> None:
                outer.started(str(kw.get("name") or ""), run_id)

            def on_chat_model_start(
                self, serialized: Any, messages: Any, *, run_id: Any, **kw: Any
            ) -> None:
                outer.model_called(messages[0] if messages else [], kw)
                name = (kw.get("metadata") or {}).get("ls_model_name") or "model"
                outer.enter(run_id, "model", "model", None, {"model": str(name)})

            def on_tool_start(
                self, serialized: Any, input_str: str, *, run_id: Any, **kw: Any
            ) -> None:
                name = (serialized or {}).get("name") or kw.get("name") or "tool"
                outer.enter(run_id, "tool", "tool", None, {"tool": str(name)})

            # A chain, a model call and a tool call end alike: as an exit, or as an error.
            def exited(self, *_: Any, run_id: Any, **kw: Any) -> None:
                outer.ended(run_id, "exit")

            def failed(self, *_: Any, run_id: Any, **kw: Any) -> None:
                outer.ended(run_id, "error")

            on_chain_end = on_llm_end = on_tool_end = exited
            on_chain_error = on_llm_error = on_tool_error = failed

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
        final = final_request(messages, params, model=str(name), stop=stop)
        self.requests.append(with_noted_provenance(final, noted()))

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
