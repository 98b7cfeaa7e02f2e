"""LangChain middleware, tools and chat models on the reference runtime, unchanged.

``hookproof.runtime.create_agent`` hands each LangChain object it meets to ``BRIDGE`` (found
through the target registry). A LangChain middleware becomes an object with
hookproof-shaped hooks: each one gives the LangChain hook LangChain's types (views of the
engine's values, see ``_views``) and turns what the hook returns back into hookproof values.
The engine, its order of hooks, its checks and its trace stay the same for both kinds.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from itertools import compress
from operator import attrgetter, is_not
from typing import Any
from weakref import WeakKeyDictionary

from langchain.agents.middleware import AgentMiddleware as LCAgentMiddleware
from langgraph.runtime import Runtime as LCRuntime

from hookproof._support.signatures import takes_positional
from hookproof.adapters.langchain.bridge._channels import (
    joined_result,
    joined_update,
    node_channels,
)
from hookproof.adapters.langchain.bridge._hook_scope import HookScope
from hookproof.adapters.langchain.bridge._langgraph_context import (
    MODEL_NODE,
    TOOLS_NODE,
    langchain_interrupt,
    langgraph_node,
)
from hookproof.adapters.langchain.bridge._model import ChatModelCaller
from hookproof.adapters.langchain.bridge._node_trace import node_span
from hookproof.adapters.langchain.bridge._requests import (
    Crossing,
    hp_command,
    lc_runtime,
    model_request_crossing,
    tool_request_crossing,
)
from hookproof.adapters.langchain.bridge._state_schema import state_schema_of
from hookproof.adapters.langchain.bridge._tools import explained, hp_tool
from hookproof.adapters.langchain.bridge._views import (
    editable_messages,
    hp_message,
    hp_update,
    keep,
    kept_view,
    lc_state,
    unreturned_edit,
)
from hookproof.errors import InterruptRaised, UsageError
from hookproof.tools import Tool

__all__ = ["BRIDGE", "LangChainBridge"]

_NODE_HOOKS = ("before_agent", "before_model", "after_model", "after_agent")
_JUMPS = "__can_jump_to__"


class TranslatedMiddleware:
    """A LangChain middleware as the reference runtime compiles it (hooks set per instance)."""

    def __init__(self, original: Any, tools: tuple[Tool, ...], state_schema: Any) -> None:
        self.name: str = str(original.name)
        self.original = original
        self.tools = tools
        self.state_schema = state_schema

    def __repr__(self) -> str:
        return f"<LangChain middleware {self.name!r} on the reference runtime>"


def _class_hooks(cls: type) -> tuple[str, ...]:
    """The hooks ``cls`` defines (LangChain's own test: not the base class's), in the order
    the bridge sets them; read on every build, as LangChain's ``create_agent`` reads them, so
    a hook set on or removed from the class later (``monkeypatch``) is seen."""
    if _READ_HOOKS is None:  # a LangChain without one of the hooks on its base class
        return tuple(
            hook for hook, base in _BASE_HOOKS.items() if getattr(cls, hook, None) is not base
        )
    return tuple(compress(_BASE_HOOKS, map(is_not, _READ_HOOKS(cls), _BASE_HOOKS.values())))


_BASE_HOOKS = {
    hook: getattr(LCAgentMiddleware, hook, None)
    for name in (*_NODE_HOOKS, "wrap_model_call", "wrap_tool_call")
    for hook in (name, f"a{name}")
}
# Every hook of a class read in one call (each is on the base class, so on every subclass).
_READ_HOOKS = None if None in _BASE_HOOKS.values() else attrgetter(*_BASE_HOOKS)


# What LangGraph passes a node function by keyword when it declares a parameter so named.
_INJECTED = ("config", "writer", "store", "runtime")


def _parameters(method: Callable[..., Any]) -> tuple[frozenset[str], bool]:
    """The injected keywords ``method`` declares, and whether a second positional parameter
    gets the runtime; read once per function (weakly kept), the same for every instance."""
    function = getattr(method, "__func__", None)
    if function is None:
        return _read_parameters(method)
    found = _PARAMETERS.get(function)
    if found is None:
        found = _PARAMETERS[function] = _read_parameters(method)
    return found


_PARAMETERS: WeakKeyDictionary[Any, tuple[frozenset[str], bool]] = WeakKeyDictionary()


def _read_parameters(method: Callable[..., Any]) -> tuple[frozenset[str], bool]:
    names = _keyword_params(method)
    return names, "runtime" not in names and takes_positional(method, 2) is not False


def _keyword_params(method: Callable[..., Any]) -> frozenset[str]:
    try:
        parameters = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):
        return frozenset()
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return frozenset(p.name for p in parameters if p.kind in kinds and p.name in _INJECTED)


def _node_call(method: Callable[..., Any]) -> Callable[[Any, Any, Any], Any]:
    """Calls a node hook as LangGraph calls a node: the state, then ``runtime``, ``config``,
    ``writer`` and ``store`` by keyword where the hook declares them (a second positional
    parameter under another name gets the runtime)."""
    names, positional_runtime = _parameters(method)

    def call(view: Any, runtime: Any, config: Any) -> Any:
        kwargs: dict[str, Any] = {}
        if "runtime" in names:
            kwargs["runtime"] = runtime
        if "config" in names:
            kwargs["config"] = config if config is not None else {}
        if "writer" in names:
            kwargs["writer"] = runtime.stream_writer
        if "store" in names:
            kwargs["store"] = runtime.store
        if positional_runtime:
            return method(view, runtime, **kwargs)
        return method(view, **kwargs)

    return call


def _graph_runtime(config: Any, fallback: Any) -> Any:
    """The runtime LangGraph gives the node (the one ``get_runtime()`` returns)."""
    if config is None:
        return fallback
    return config["configurable"].get("__pregel_runtime", fallback)


def _declare_jumps(target: Any, method: Any) -> Any:
    jumps = getattr(method, _JUMPS, None)
    if jumps:
        setattr(target, _JUMPS, list(jumps))
    return target


def _node_result(outcome: Any, where: str) -> Any:
    if outcome is None:
        return None
    if isinstance(outcome, dict):
        return hp_update(outcome, where)
    if hasattr(outcome, "goto") and hasattr(outcome, "update"):
        return hp_command(outcome, where)
    return outcome  # the engine refuses it with its own message


def _sync_node(name: str, hook: str, method: Any) -> Callable[..., Any]:
    call, where = _node_call(method), f"{name}.{hook}"

    def run(state: Any, runtime: Any) -> Any:
        view, lc_rt = lc_state(state), lc_runtime(runtime)
        traced_by = node_span(getattr(method, "__self__", None), hook, view)
        with editable_messages() as edits, node_channels(state) as channels:
            with explained(where), traced_by as traced, langgraph_node(where, lc_rt) as config:
                outcome = call(view, _graph_runtime(config, lc_rt), config)
                traced.append(outcome)
            unreturned_edit(edits, outcome)
            return joined_update(_node_result(outcome, where), channels)

    return _declare_jumps(run, method)  # type: ignore[no-any-return]


def _async_node(name: str, hook: str, method: Any) -> Callable[..., Any]:
    call, where = _node_call(method), f"{name}.{hook}"

    async def run(state: Any, runtime: Any) -> Any:
        view, lc_rt = lc_state(state), lc_runtime(runtime)
        traced_by = node_span(getattr(method, "__self__", None), hook, view)
        with editable_messages() as edits, node_channels(state) as channels:
            with explained(where), traced_by as traced, langgraph_node(where, lc_rt) as config:
                outcome = await call(view, _graph_runtime(config, lc_rt), config)
                traced.append(outcome)
            unreturned_edit(edits, outcome)
            return joined_update(_node_result(outcome, where), channels)

    return _declare_jumps(run, method)  # type: ignore[no-any-return]


def _sync_wrap(crossing_of: Callable[[Any, Any], Crossing], method: Any, where: str) -> Any:
    node = _NODES[where.rsplit(".", 1)[-1]]

    def run(request: Any, handler: Callable[[Any], Any]) -> Any:
        runtime = _runtime_view(request)
        scope_runtime = LCRuntime() if runtime is None else runtime
        with HookScope(request.state, where, node, scope_runtime) as channels:
            crossing = crossing_of(request, runtime)

            def lc_handler(changed: Any) -> Any:
                try:
                    return crossing.outward(handler(crossing.inward(changed)))
                except InterruptRaised as raised:
                    raise langchain_interrupt(raised) from None

            result = crossing.result(method(crossing.view, lc_handler))
        return joined_result(result, channels)

    return run


def _async_wrap(crossing_of: Callable[[Any, Any], Crossing], method: Any, where: str) -> Any:
    node = _NODES[where.rsplit(".", 1)[-1]]

    async def run(request: Any, handler: Callable[[Any], Any]) -> Any:
        runtime = _runtime_view(request)
        scope_runtime = LCRuntime() if runtime is None else runtime
        with HookScope(request.state, where, node, scope_runtime) as channels:
            crossing = crossing_of(request, runtime)

            async def lc_handler(changed: Any) -> Any:
                try:
                    return crossing.outward(await handler(crossing.inward(changed)))
                except InterruptRaised as raised:
                    raise langchain_interrupt(raised) from None

            result = crossing.result(await method(crossing.view, lc_handler))
        return joined_result(result, channels)

    return run


def _runtime_view(request: Any) -> Any:
    """The LangChain view of the request's runtime (None for a request without one)."""
    runtime = getattr(request, "runtime", None)
    return None if runtime is None else lc_runtime(runtime)


# The LangGraph node a wrap hook runs in: LangChain's model node, or its tool node.
_NODES = {
    "wrap_model_call": MODEL_NODE,
    "awrap_model_call": MODEL_NODE,
    "wrap_tool_call": TOOLS_NODE,
    "awrap_tool_call": TOOLS_NODE,
}


_CROSSINGS: dict[str, Callable[[Any, Any], Crossing]] = {
    "wrap_model_call": model_request_crossing,
    "wrap_tool_call": tool_request_crossing,
}


def _translations() -> dict[str, Callable[[str, Any], Any]]:
    """How each hook a LangChain middleware defines becomes the runtime's, by hook name."""
    made: dict[str, Callable[[str, Any], Any]] = {}
    for hook in _NODE_HOOKS:
        made[hook] = functools.partial(_named_node, _sync_node, hook)
        made[f"a{hook}"] = functools.partial(_named_node, _async_node, hook)
    for hook, crossing_of in _CROSSINGS.items():
        made[hook] = functools.partial(_named_wrap, _sync_wrap, crossing_of, hook)
        made[f"a{hook}"] = functools.partial(_named_wrap, _async_wrap, crossing_of, f"a{hook}")
    return made


def _named_node(make: Callable[..., Any], hook: str, name: str, method: Any) -> Any:
    return make(name, hook, method)


def _named_wrap(
    make: Callable[..., Any], crossing_of: Any, hook: str, name: str, method: Any
) -> Any:
    return make(crossing_of, method, f"{name}.{hook}")


_TRANSLATIONS = _translations()


def translate_middleware(middleware: Any) -> TranslatedMiddleware:
    name = str(middleware.name)
    tools = tuple(
        hp_tool(item, f"middleware {name!r}") for item in getattr(middleware, "tools", ()) or ()
    )
    translated = TranslatedMiddleware(middleware, tools, state_schema_of(middleware))
    for hook in _class_hooks(type(middleware)):
        method = getattr(middleware, hook, None)
        if callable(method):
            setattr(translated, hook, _TRANSLATIONS[hook](name, method))
    return translated


class LangChainBridge:
    """What ``hookproof.runtime`` calls for LangChain objects (see runtime._foreign)."""

    def middleware(self, middleware: object) -> object:
        if not isinstance(middleware, LCAgentMiddleware):
            return middleware  # another LangChain object: the runtime's own checks answer
        return translate_middleware(middleware)

    def tool(self, tool: object, source: str) -> Tool:
        return hp_tool(tool, source)

    def model(self, model: object) -> Any:
        return ChatModelCaller.of(model)

    def message(self, message: object) -> Any:
        return hp_message(message, "a LangChain message")

    def checkpointer(self, checkpointer: object) -> Any:
        return runtime_checkpointer(checkpointer)

    def structured_output(self, response_format: object) -> Any:
        from hookproof.adapters.langchain.bridge._structured import LangChainStructuredOutput

        return LangChainStructuredOutput(response_format)


def runtime_checkpointer(checkpointer: Any) -> Any:
    """LangGraph's in-memory saver stands as the runtime's in-memory checkpointer (one per
    saver, so agents sharing a saver share threads); another saver cannot be read here."""
    from langgraph.checkpoint.memory import InMemorySaver

    from hookproof.runtime import InMemoryCheckpointer

    if not isinstance(checkpointer, InMemorySaver):
        raise UsageError(
            f"hookproof: the reference runtime cannot keep threads in LangGraph's "
            f"{type(checkpointer).__name__}: it keeps them in its own checkpointers. Pass "
            "hookproof.runtime.InMemoryCheckpointer() (or LangGraph's InMemorySaver(), which "
            "stands for one), or test this agent on LangChain's create_agent."
        )
    known = kept_view(checkpointer)
    return known if known is not None else keep(checkpointer, InMemoryCheckpointer())


BRIDGE = LangChainBridge()
