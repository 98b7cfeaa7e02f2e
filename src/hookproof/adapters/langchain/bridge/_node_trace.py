"""A LangChain middleware's node hook as LangGraph traces it: one chain run named
``<middleware>.<hook>`` for the run's callbacks, its input shaped by the hook's trace policy.

LangGraph runs each node hook as a traced runnable: handlers passed in the run config's
``callbacks`` see a chain start and end per hook, and tracers see the input and output after
the middleware's ``TracePolicy`` (or the process-wide default) has processed them. Without
callbacks in the run's config nothing is traced and this costs one lookup.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from hookproof.adapters.langchain.bridge._graph_run import current_graph_run

__all__ = ["node_span"]


@contextlib.contextmanager
def node_span(middleware: Any, hook: str, state: Any) -> Iterator[list[Any]]:
    """Trace one node hook of ``middleware`` (``hook`` without its ``a`` prefix) over
    ``state``; put what the hook returned in the yielded list to trace it as the output."""
    run = current_graph_run()
    callbacks = None if run is None else run.config.get("callbacks")
    outcome: list[Any] = []
    if not callbacks or middleware is None:
        yield outcome
        return
    span = _Span(callbacks, run.config if run is not None else {}, middleware)
    span.start(f"{middleware.name}.{hook}", dict(state))
    try:
        yield outcome
    except BaseException as error:
        span.error(error)
        raise
    span.end(outcome[0] if outcome else None)


class _Span:
    def __init__(self, callbacks: Any, config: Any, middleware: Any) -> None:
        from langchain_core.callbacks.manager import CallbackManager

        self.manager = CallbackManager.configure(
            inheritable_callbacks=callbacks,
            inheritable_tags=config.get("tags"),
            inheritable_metadata=config.get("metadata"),
        )
        self.policy = _policy(middleware)
        self.runs: list[Any] = []

    def start(self, name: str, inputs: dict[str, Any]) -> None:
        recorded = _processed(self.policy, "process_inputs", inputs)
        real, tracers = _split(self.manager)
        if recorded is inputs or not tracers.handlers:
            self.runs = [self.manager.on_chain_start(None, inputs, name=name)]
            return
        first = real.on_chain_start(None, inputs, name=name)
        self.runs = [first, tracers.on_chain_start(None, recorded, name=name, run_id=first.run_id)]

    def end(self, output: Any) -> None:
        value = {} if output is None else output
        recorded = _processed(self.policy, "process_outputs", value)
        if len(self.runs) == 1:
            self.runs[0].on_chain_end(value if recorded is value else recorded)
            return
        self.runs[1].on_chain_end(recorded)
        self.runs[0].on_chain_end(value)

    def error(self, error: BaseException) -> None:
        for run in reversed(self.runs):
            run.on_chain_error(error)


def _split(manager: Any) -> tuple[Any, Any]:
    """The manager's handlers that are not tracers, and those that are (tracers record
    what the trace policy left of the input; other handlers get it as it is)."""
    from langchain_core.tracers.base import BaseTracer

    tracers = [h for h in manager.handlers if isinstance(h, BaseTracer)]
    others = [h for h in manager.handlers if not isinstance(h, BaseTracer)]
    real, traced = manager.copy(), manager.copy()
    real.handlers, traced.handlers = others, tracers
    real.inheritable_handlers = [h for h in real.inheritable_handlers if h in others]
    traced.inheritable_handlers = [h for h in traced.inheritable_handlers if h in tracers]
    return real, traced


def _policy(middleware: Any) -> Any:
    """The middleware's trace policy, else LangChain's process-wide default (read when the
    hook runs, as LangChain reads it)."""
    own = getattr(middleware, "trace_policy", None)
    if own is not None:
        return own
    from langchain.agents.middleware import _trace_policy

    return getattr(_trace_policy, "_DEFAULT_TRACE_POLICY", None)


def _processed(policy: Any, field: str, value: Any) -> Any:
    process = getattr(policy, field, None) if policy is not None else None
    return value if process is None else process(value)
