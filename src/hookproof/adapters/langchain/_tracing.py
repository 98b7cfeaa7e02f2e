"""A LangChain run as a hookproof Trace: node hooks, model and tool calls from LangChain's
callbacks, and wrap hooks from instrumenting how LangChain composes them at build time."""

from __future__ import annotations

import contextlib
import sys
import threading
import weakref
from collections.abc import Iterator, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any, TypeAlias

from langchain_core.messages import BaseMessage

from hookproof.adapters.langchain._convert import final_request, portable_kwargs, request_view
from hookproof.models import FinalRequest

__all__ = [
    "TRACER",
    "TraceHandler",
    "build_instrumented",
    "built_origins",
    "noted",
    "with_noted_provenance",
]

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


# -- wrap-hook tracing: LangChain composes wrap hooks at build time, leaving no callbacks ---

TRACER: ContextVar[Any] = ContextVar("hookproof_langchain_tracer", default=None)  # per run


def _owner(handler: Any) -> Any:
    return getattr(getattr(handler, "__wrapped__", handler), "__self__", None)


def _name_of(owner: Any) -> str:
    return str(getattr(owner, "name", None) or type(owner).__name__)


def _owner_name(handler: Any) -> str | None:
    owner = _owner(handler)
    return None if owner is None else _name_of(owner)


def _traced(handler: Any, hook: str, chain: _Chain, index: int) -> Any:
    """The same wrap hook, recording its enter and exit in the run's trace; a model layer
    also notes the request it passes on (``index``: its place among the chain's layers)."""
    name = _owner_name(handler)
    if name is None:  # not a middleware's bound hook: leave it exactly as it is
        return handler
    notes = hook == "wrap_model_call"

    def traced(request: Any, inner: Any) -> Any:
        token = _NOTED.set(_Notes(chain)) if notes and index == 0 else None
        passed_on = _noting(name, request, inner) if notes else inner
        try:
            tracer = TRACER.get()
            if tracer is None:
                return handler(request, passed_on)
            if tracer.probe is not None:
                tracer.probe.reached(f"{name}.{hook}")
            tracer.recorder.record("layer", hook, "enter", name)
            try:
                result = handler(request, passed_on)
            except BaseException:
                tracer.recorder.record("layer", hook, "error", name)
                raise
            tracer.recorder.record("layer", hook, "exit", name)
            return result
        finally:
            if token is not None:
                _NOTED.reset(token)

    return traced


def _atraced(handler: Any, hook: str, chain: _Chain, index: int) -> Any:
    """``_traced`` for an async wrap hook (``ainvoke`` composes the async ones)."""
    name = _owner_name(handler)
    if name is None:
        return handler
    notes = hook == "wrap_model_call"

    async def traced(request: Any, inner: Any) -> Any:
        token = _NOTED.set(_Notes(chain)) if notes and index == 0 else None
        passed_on = _anoting(name, request, inner) if notes else inner
        try:
            tracer = TRACER.get()
            if tracer is None:
                return await handler(request, passed_on)
            if tracer.probe is not None:
                await tracer.probe.areached(f"{name}.{hook}")
            tracer.recorder.record("layer", hook, "enter", name)
            try:
                result = await handler(request, passed_on)
            except BaseException:
                tracer.recorder.record("layer", hook, "error", name)
                raise
            tracer.recorder.record("layer", hook, "exit", name)
            return result
        finally:
            if token is not None:
                _NOTED.reset(token)

    return traced


def _instrumented(compose: Any, hook: str, origins: dict[str, str], wrap: Any) -> Any:
    def compose_traced(handlers: Sequence[Any]) -> Any:
        _add_origins(origins, handlers)
        owned = [handler for handler in handlers if _owner(handler) is not None]
        chain = _Chain(origins, len(owned))
        indexes = {id(handler): index for index, handler in enumerate(owned)}
        return compose([wrap(item, hook, chain, indexes.get(id(item), -1)) for item in handlers])

    return compose_traced


# -- provenance: which layer changed the request each model call received ----------------
#
# A model layer that hands its handler another ModelRequest than it received is noted as
# (middleware, received, passed on) while the inner call lasts, as the reference engine does.
# The notes live in a context variable, not in the run's tracer: a run's parallel tool calls
# (deepagents' subagents) call models at the same time, each under its own layers.

Edit = tuple[str, Any, Any]


@dataclass(frozen=True, slots=True, eq=False)
class _Chain:
    """One agent's composed model layers: who registered which tool, and how many layers."""

    origins: Mapping[str, str]
    layers: int


@dataclass(frozen=True, slots=True)
class _Notes:
    chain: _Chain
    edits: tuple[Edit, ...] = ()
    passed: int = 0  # layers of the chain now inside their handler


_NOTED: ContextVar[_Notes | None] = ContextVar("hookproof_langchain_model_edits", default=None)


def _passing(owner: str, received: Any, passed: Any) -> Any:
    """Note that ``owner`` passes ``passed`` on (an edit when it is not what it received);
    the token to reset, or None outside an instrumented chain."""
    current = _NOTED.get()
    if current is None:
        return None
    edits = current.edits if passed is received else (*current.edits, (owner, received, passed))
    return _NOTED.set(_Notes(current.chain, edits, current.passed + 1))


def _noting(owner: str, received: Any, inner: Any) -> Any:
    def handler(passed: Any) -> Any:
        token = _passing(owner, received, passed)
        try:
            return inner(passed)
        finally:
            if token is not None:
                _NOTED.reset(token)

    return handler


def _anoting(owner: str, received: Any, inner: Any) -> Any:
    async def handler(passed: Any) -> Any:
        token = _passing(owner, received, passed)
        try:
            return await inner(passed)
        finally:
            if token is not None:
                _NOTED.reset(token)

    return handler


def noted() -> Noted | None:
    """The notes for a model call made now: the model layers' edits, or, when no layer of
    an instrumented agent runs, the traced agent's tool origins; None when the agent was not
    built instrumented, or for a model a hook calls on its own (its provenance is unknown,
    not empty)."""
    current = _NOTED.get()
    if current is not None:
        if current.passed < current.chain.layers:
            return None  # a model a layer calls itself (a selection or summary model)
        return current.chain.origins, current.edits
    tracer = TRACER.get()
    origins = None if tracer is None else tracer.origins
    if origins is not None:
        return (origins, ()) if _in_model_node() else None  # else a node hook's own model
    unlayered = tuple(item for builds in _ACTIVE.values() for item in builds if not item.layered)
    if unlayered and _in_model_node():
        return _Unlayered(unlayered)
    return None


@dataclass(frozen=True, slots=True)
class _Build:
    """One ``create_agent`` call under ``instrumented_builds``: the tools it registered, who
    registered them, and whether it has model layers (whose calls note their own)."""

    tools: frozenset[str]
    origins: Mapping[str, str]
    layered: bool


@dataclass(frozen=True, slots=True)
class _Unlayered:
    """A model call in a graph's model node with no instrumented layer around it: an agent
    without model layers, one of ``builds`` if its tools say which (else unknown)."""

    builds: tuple[_Build, ...]

    def origins_for(self, final: FinalRequest) -> Mapping[str, str] | None:
        names = frozenset(final.tool_names)
        found = {tuple(sorted(b.origins.items())) for b in self.builds if b.tools == names}
        return dict(found.pop()) if len(found) == 1 else None


# (tool origins, edits from the outside in), or the builds an unlayered call may come from
Noted: TypeAlias = tuple[Mapping[str, str], tuple[Edit, ...]] | _Unlayered

_ACTIVE: dict[int, list[_Build]] = {}  # the builds of each instrumented_builds() in force


def _build_of(caller: Any, tools: Sequence[Any]) -> _Build | None:
    """The build ``create_agent`` (the ``caller`` frame) is making, or None elsewhere."""
    if caller is None or caller.f_code.co_name != "create_agent":
        return None
    own: dict[str, str] = {}
    _add_middleware_of(own, caller)
    names = frozenset(str(getattr(item, "name", item)) for item in tools)
    return _Build(names, own, _has_model_layers(caller.f_locals.get("middleware")))


def _has_model_layers(middleware: Any) -> bool:
    """Whether any middleware has a model-call wrap hook (as create_agent decides it)."""
    from langchain.agents.middleware import AgentMiddleware

    if not isinstance(middleware, Sequence):
        return True  # unknown: never guessed to have none
    return any(
        type(item).wrap_model_call is not AgentMiddleware.wrap_model_call
        or type(item).awrap_model_call is not AgentMiddleware.awrap_model_call
        for item in middleware
    )


def _in_model_node() -> bool:
    """Whether this runs in the graph's model node (``create_agent`` names it "model")."""
    from langgraph.config import get_config

    try:
        metadata = get_config().get("metadata") or {}
    except RuntimeError:  # outside any graph run
        return False
    return bool(metadata.get("langgraph_node") == "model")


def with_noted_provenance(final: FinalRequest, notes: Noted | None) -> FinalRequest:
    """``final`` carrying the provenance the notes give (computed when first read)."""
    if isinstance(notes, _Unlayered):
        origins = notes.origins_for(final)
        notes = None if origins is None else (origins, ())
    if notes is None:
        return final
    from hookproof.provenance import PendingProvenance

    origins, edits = notes
    if not edits:
        return final.with_provenance(PendingProvenance(final, (), final, origins, _read))
    from hookproof.provenance import AGENT

    innermost = edits[-1][2]
    bound = (AGENT, innermost, _Bound(innermost, final))  # what LangChain bound after the hooks
    steps = (*edits, bound)
    return final.with_provenance(PendingProvenance(edits[0][1], steps, final, origins, _read))


@dataclass(frozen=True, slots=True)
class _Bound:
    """The request the innermost layer passed on, with the tools LangChain binds itself after
    the wrap hooks (a ToolStrategy response format's), as the model received them."""

    request: Any
    final: FinalRequest


def _read(value: Any) -> Any:
    if not isinstance(value, _Bound):
        return request_view(value)
    view = request_view(value.request)
    known = {item.name for item in view.tools}
    added = tuple(item for item in value.final.tools if item.name not in known)
    return replace(view, tools=(*view.tools, *added))


def _add_origins(origins: dict[str, str], handlers: Sequence[Any]) -> None:
    for handler in handlers:
        owner = _owner(handler)
        if owner is not None:
            _add_tools_of(origins, owner)


def _add_tools_of(origins: dict[str, str], middleware: Any) -> None:
    """A middleware's own tools (its ``tools``), registered by it."""
    for item in getattr(middleware, "tools", None) or ():
        name = item.get("name") if isinstance(item, Mapping) else getattr(item, "name", None)
        if name is not None:
            origins.setdefault(str(name), _name_of(middleware))


def _add_middleware_of(origins: dict[str, str], caller: Any) -> None:
    """The tools of every middleware ``create_agent`` was given, read from its ``middleware``
    argument while it builds its tool node: a middleware with tools and no wrap hook composes
    nothing the patches see."""
    if caller is None or caller.f_code.co_name != "create_agent":
        return
    given = caller.f_locals.get("middleware")
    if isinstance(given, Sequence):
        for middleware in given:
            _add_tools_of(origins, middleware)


_BUILT: weakref.WeakKeyDictionary[Any, Mapping[str, str]] = weakref.WeakKeyDictionary()


def built_origins(agent: Any) -> Mapping[str, str] | None:
    """The tool origins found while building ``agent`` instrumented; None for another."""
    try:
        return _BUILT.get(agent)
    except TypeError:  # not weakly referenceable: never remembered
        return None


def _remember(agent: Any, origins: Mapping[str, str]) -> None:
    with contextlib.suppress(TypeError):
        _BUILT[agent] = origins


# Builds that patch the factory's module globals take turns; the lock is re-entrant so that a
# build_instrumented inside instrumented_builds() (a contract run in a plugin test) works.
_PATCH_LOCK = threading.RLock()


@contextlib.contextmanager
def instrumented_builds(
    tool_lists: list[list[str]] | None = None,
) -> Iterator[dict[str, str] | None]:
    """While it lasts, every LangChain ``create_agent`` builds its wrap hooks instrumented
    (see ``build_instrumented``); yields the tool origins found, or None on a LangChain
    version without the internals it patches (agents are then built as they are)."""
    from unittest import mock

    try:
        from langchain.agents import factory
    except ImportError:
        yield None
        return
    origins: dict[str, str] = {}  # every wrap hook owner's tools, for provenance
    patches = [
        (name, hook, wrap)
        for name, hook, wrap in (
            ("_chain_model_call_handlers", "wrap_model_call", _traced),
            ("_chain_async_model_call_handlers", "wrap_model_call", _atraced),
            ("_chain_tool_call_wrappers", "wrap_tool_call", _traced),
            ("_chain_async_tool_call_wrappers", "wrap_tool_call", _atraced),
        )
        if callable(getattr(factory, name, None))
    ]
    stack = contextlib.ExitStack()
    builds: list[_Build] = []
    with _PATCH_LOCK:
        for name, hook, wrap in patches:
            traced = _instrumented(getattr(factory, name), hook, origins, wrap)
            stack.enter_context(mock.patch.object(factory, name, traced))
        tool_node = getattr(factory, "ToolNode", None)  # LangChain's internal, where present
        if callable(tool_node):  # the class, or an enclosing instrumentation's recorder
            recording = _recording_tool_node(tool_node, tool_lists, origins, builds)
            stack.enter_context(mock.patch.object(factory, "ToolNode", recording))
    key = id(builds)
    _ACTIVE[key] = builds
    try:
        yield origins
    finally:
        del _ACTIVE[key]
        with _PATCH_LOCK:  # the patches are undone under the lock too
            stack.close()


def build_instrumented(build: Any, argument: Any, tool_lists: list[list[str]] | None = None) -> Any:
    """Call the user's factory with LangChain's wrap-hook composition instrumented, so runs of
    the agent it builds record their wrap layers; with ``tool_lists``, the names of the
    tools each agent it builds registers (before LangChain keeps one per name) are appended
    there. Its model calls' FinalRequests carry provenance (see ``noted``). Behaviour is
    unchanged; on a LangChain version without these internals, the agent is built as is
    (node hooks are still traced, and requests carry no provenance)."""
    with _PATCH_LOCK, instrumented_builds(tool_lists) as origins:
        agent = build(argument)
    if origins is not None:
        _remember(agent, origins)
    return agent


def _recording_tool_node(
    tool_node: Any,
    tool_lists: list[list[str]] | None,
    origins: dict[str, str],
    builds: list[_Build],
) -> Any:
    def recorded(*args: Any, **kwargs: Any) -> Any:
        tools = kwargs.get("tools", args[0] if args else ())
        if tool_lists is not None:
            tool_lists.append([str(getattr(item, "name", item)) for item in tools])
        caller = sys._getframe(1)
        _add_middleware_of(origins, caller)
        build = _build_of(caller, tools)
        if build is not None:
            builds.append(build)
        return tool_node(*args, **kwargs)

    return recorded
