"""A reference-engine run streamed as LangGraph streams a ``create_agent`` graph.

The engine tells a ``StepListener`` of each step (a middleware hook, the model call, each
tool call) as it happens. ``GraphStepListener`` turns those steps into what LangGraph emits:

* ``values`` after each step that wrote a key of the output state (and once for the input),
* ``updates`` per node, named as LangChain names its nodes (``model``, ``tools``,
  ``<Middleware>.before_model``...),
* ``messages``, ``tools``: LangGraph's own callback handlers, fed by the callbacks the chat
  model and the tools fire inside a node whose run config (metadata, callbacks, namespace)
  is set as LangGraph sets a task's,
* ``custom``: what ``get_stream_writer()`` / ``runtime.stream_writer`` are given.

Chunks are ``(namespace, mode, payload)`` triples; ``_format`` shapes them as ``stream``'s
``stream_mode``, ``subgraphs`` and ``version`` ask.
"""

from __future__ import annotations

import uuid
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from langchain_core.callbacks import BaseCallbackHandler, CallbackManager
from langchain_core.messages import BaseMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.runnables.config import (
    ensure_config,
    get_callback_manager_for_config,
    var_child_runnable_config,
)
from langgraph._internal._constants import (
    CONFIG_KEY_CHECKPOINT_NS,
    CONFIG_KEY_RUNTIME,
    CONFIG_KEY_STREAM_MESSAGES_V2,
)
from langgraph.pregel._messages import StreamMessagesHandler, StreamMessagesHandlerV2
from langgraph.pregel._tools import StreamToolCallHandler
from langgraph.runtime import Runtime as LGRuntime

from hookproof._support.frozen import thaw
from hookproof.adapters.langchain.bridge._graph_run import GraphRun
from hookproof.adapters.langchain.bridge._locked import thaw_view
from hookproof.adapters.langchain.bridge._stream_scope import Enclosing, enter_node, leave_node
from hookproof.adapters.langchain.bridge._views import lc_message
from hookproof.messages import Message
from hookproof.requests import Command

__all__ = [
    "MODES",
    "Chunk",
    "GraphStepListener",
    "StreamRequest",
    "format_chunk",
]

Chunk = tuple[tuple[str, ...], str, Any]
MODES = frozenset({"values", "updates", "messages", "custom", "tools", "tasks"})
_PUSH, _PULL = "__pregel_push", "__pregel_pull"
INTERRUPT = "__interrupt__"
_views_module = lc_message.__module__


@dataclass
class StreamRequest:
    """What one ``stream`` call asked for, and where its chunks wait to be read."""

    modes: frozenset[str]
    subgraphs: bool
    messages_v2: bool = False
    base: tuple[str, ...] = ()  # the namespace of the streamed agent (a nested one's node)
    chunks: deque[Chunk] = field(default_factory=deque)
    wake: Callable[[], None] = lambda: None  # an async reader waits for each step's end

    def put(self, chunk: Chunk) -> None:
        """Keep a chunk of this agent or (with ``subgraphs``) of the agents it runs, with its
        namespace relative to this agent's."""
        namespace, mode, payload = chunk
        if mode not in self.modes or namespace[: len(self.base)] != self.base:
            return
        relative = namespace[len(self.base) :]
        if self.subgraphs or not relative:
            self.chunks.append((relative, mode, payload))

    def drain(self) -> Iterator[Chunk]:
        while self.chunks:
            yield self.chunks.popleft()


def _handlers(request: StreamRequest) -> list[BaseCallbackHandler]:
    found: list[BaseCallbackHandler] = []
    if "messages" in request.modes:
        kind = StreamMessagesHandlerV2 if request.messages_v2 else StreamMessagesHandler
        found.append(kind(request.put, request.subgraphs, parent_ns=request.base))
    if "tools" in request.modes:
        found.append(StreamToolCallHandler(request.put, request.subgraphs, parent_ns=request.base))
    return found


class GraphStepListener:
    """Hears one reference-engine run and streams it as LangGraph streams the same graph.

    A nested agent (one a tool of a streamed agent runs) streams in the namespace of that
    tool's node, to its own reader and to the enclosing stream; LangGraph's message and tool
    handlers of the enclosing stream reach it through the callbacks of the run config.
    """

    def __init__(
        self,
        request: StreamRequest,
        graph_run: GraphRun,
        *,
        output_keys: Callable[[Mapping[str, Any]], Mapping[str, Any]],
        metadata: Mapping[str, Any],
        enclosing: Enclosing | None = None,
        suspend: bool = False,
        resuming: bool = False,
    ) -> None:
        self.request, self.graph_run = request, graph_run
        self.output = output_keys
        self.namespace = () if enclosing is None else enclosing.namespace
        self.enclosing = None if enclosing is None else enclosing.request
        self.suspend = suspend
        self.manager = _manager(graph_run.config, metadata, _handlers(request))
        self.step = 0
        self.state: Callable[[], Mapping[str, Any]] = dict
        self.node: _Node | None = None
        self.open_tools: list[_Node] = []
        self.tools_seen = 0
        self.written = resuming  # a resumed run first shows the state it resumes from
        graph_run.stream_writer = self._custom

    # -- the engine's events -------------------------------------------------------------------

    def run_started(self, state: Callable[[], Mapping[str, Any]]) -> None:
        self.state = state

    def state_updated(self, update: Mapping[str, Any], source: str) -> None:
        # only the keys matter: the values stand in, so no message is converted here
        self.written = self.written or bool(self.output(dict.fromkeys(update, ())))
        if source == "input":
            self._values()
        elif self.node is not None and self.node.name != "tools":
            self.node.updates.append(update)

    def step_started(self, step: str) -> None:
        self._values()
        self.step += 1
        if step == "tools":
            self.node = _Node("tools", None, None)
        else:
            self.node = self._enter(step, (_PULL, step), (f"branch:to:{step}",))

    def tool_started(self, call: Any) -> None:
        path = (_PUSH, self.tools_seen, False)
        node = self._enter("tools", path, (_PUSH,), key=call.id, task_input=_tool_input(call))
        self.tools_seen += 1
        self.open_tools.append(node)

    def tool_finished(self, call: Any, result: Any) -> None:
        update = _lc_update(_update_of(result))
        self.open_tools.pop().leave(update)
        self._put("updates", {"tools": update})

    def step_finished(self, step: str) -> bool:
        node, self.node = self.node, None
        self.tools_seen = 0
        if node is not None and step != "tools":
            merged = _merged(node.updates)
            output = None if merged is None else _lc_update(merged)
            node.leave(output)
            self._put("updates", {step: output})
        self._values()
        self.request.wake()
        return self.suspend

    def finished(self, interrupts: Sequence[Any]) -> None:
        """The run returned; paused at ``interrupts`` (LangGraph's), LangGraph shows them as
        an update and with the state."""
        if not interrupts:
            return
        self._put("updates", {INTERRUPT: tuple(interrupts)})
        self._put("values", {**self.output(self.state()), INTERRUPT: tuple(interrupts)})

    def failed(self, error: BaseException) -> None:
        """The run raised: the nodes still open fail as LangGraph's tasks do."""
        for node in [*reversed(self.open_tools), *([self.node] if self.node else [])]:
            node.fail(error)
        self.open_tools.clear()
        self.node = None

    def _values(self) -> None:
        if self.written:
            self._put("values", _lc_update(self.output(self.state())))
        self.written = False

    # -- LangGraph's side of a node ------------------------------------------------------------

    def _enter(
        self,
        name: str,
        path: tuple[Any, ...],
        triggers: tuple[str, ...],
        key: Any = None,
        task_input: Any = None,
    ) -> _Node:
        task = str(uuid.uuid5(uuid.NAMESPACE_OID, f"{self.namespace}|{self.step}|{name}|{key}"))
        checkpoint_ns = "|".join([*self.namespace, f"{name}:{task}"])
        metadata = {
            "langgraph_step": self.step,
            "langgraph_node": name,
            "langgraph_triggers": triggers,
            "langgraph_path": path,
            "langgraph_checkpoint_ns": checkpoint_ns,
        }
        manager = self.manager.copy()
        manager.add_metadata(metadata)
        inputs = _lc_update(self.output(self.state()))
        run_manager = manager.on_chain_start(None, inputs, name=name)
        shown = {"id": task, "name": name, "input": task_input or inputs, "triggers": triggers}
        self._put("tasks", {**shown, "metadata": dict(self.manager.inheritable_metadata)})
        config = _node_config(self.graph_run, run_manager.get_child(), checkpoint_ns)
        namespace = tuple(checkpoint_ns.split("|"))
        tokens = (
            var_child_runnable_config.set(config),
            enter_node(Enclosing(self.request, namespace)),
            self.graph_run.node_config,
        )
        self.graph_run.node_config = config
        return _Node(name, run_manager, tokens, task, self._put, self.graph_run)

    def _custom(self, chunk: Any) -> None:
        self._put("custom", chunk)

    def _put(self, mode: str, payload: Any) -> None:
        chunk = (self.namespace, mode, payload)
        self.request.put(chunk)
        if self.enclosing is not None:
            self.enclosing.put(chunk)


@dataclass
class _Node:
    """One task of LangGraph's graph as the engine runs it: its callbacks' run and the run
    config it set (restored when it ends)."""

    name: str
    run_manager: Any
    tokens: Any
    task: str = ""
    put: Callable[[str, Any], None] = lambda _mode, _payload: None
    graph_run: GraphRun | None = None
    updates: list[Mapping[str, Any]] = field(default_factory=list)

    def leave(self, output: Any) -> None:
        self._reset()
        if self.run_manager is not None:
            self.run_manager.on_chain_end(output)
            self._result(None, output)

    def fail(self, error: BaseException) -> None:
        self._reset()
        if self.run_manager is not None:
            self.run_manager.on_chain_error(error)
            self._result(f"{type(error).__name__}({error})", None)

    def _result(self, error: str | None, output: Any) -> None:
        result: dict[str, Any] = {"id": self.task, "name": self.name, "error": error}
        self.put("tasks", {**result, "interrupts": [], "result": output or {}})

    def _reset(self) -> None:
        if self.tokens is not None:
            config_token, enclosing_token, outer_config = self.tokens
            self.tokens = None
            leave_node(enclosing_token)
            var_child_runnable_config.reset(config_token)
            if self.graph_run is not None:
                self.graph_run.node_config = outer_config


def _manager(
    config: Mapping[str, Any], metadata: Mapping[str, Any], handlers: list[BaseCallbackHandler]
) -> CallbackManager:
    manager = get_callback_manager_for_config(ensure_config(dict(config)))  # type: ignore[arg-type]
    for handler in handlers:
        manager.add_handler(handler, inherit=True)
    manager.add_metadata(dict(metadata))
    configurable = config.get("configurable") or {}
    shown = {key: value for key, value in configurable.items() if _shown_in_metadata(key, value)}
    manager.add_metadata(shown)
    return manager


def _shown_in_metadata(key: str, value: Any) -> bool:
    """Run-config keys LangChain copies into a run's metadata (thread_id, say)."""
    plain = isinstance(value, str | int | float | bool) and not isinstance(value, type)
    return plain and not key.startswith("__") and key not in ("checkpoint_ns",)


def _node_config(run: GraphRun, callbacks: Any, checkpoint_ns: str) -> RunnableConfig:
    runtime = LGRuntime(context=run.extras.get("context"), store=run.store)
    runtime = runtime.override(stream_writer=run.stream_writer)
    configurable = {
        **run.configurable,
        CONFIG_KEY_CHECKPOINT_NS: checkpoint_ns,
        CONFIG_KEY_RUNTIME: runtime,
    }
    configurable.pop(CONFIG_KEY_STREAM_MESSAGES_V2, None)
    return cast(
        "RunnableConfig", {**run.config, "callbacks": callbacks, "configurable": configurable}
    )


def _tool_input(call: Any) -> dict[str, Any]:
    shown = {"name": call.name, "args": thaw(call.args), "id": call.id, "type": "tool_call"}
    return {"__type": "tool_call_with_context", "tool_call": shown}


def _update_of(result: Any) -> Any:
    if isinstance(result, Command):
        return dict(result.update or {})
    return {"messages": [result]}


def _merged(updates: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    if not updates:
        return None
    merged: dict[str, Any] = {}
    for update in updates:
        merged.update(update)
    return merged


def _lc_update(update: Mapping[str, Any]) -> dict[str, Any]:
    return {key: _lc_value(value) for key, value in update.items()}


def _lc_value(value: Any) -> Any:
    if isinstance(value, Message):
        return _plain(value)
    if isinstance(value, list | tuple) and any(isinstance(item, Message) for item in value):
        return [_plain(item) if isinstance(item, Message) else item for item in value]
    return thaw(value)


def _plain(message: Message) -> BaseMessage:
    """A LangChain message of its own for the reader (the bridge's views are shared and
    locked; LangGraph's handlers and readers may set a missing id)."""
    view = lc_message(message)
    kind = next(cls for cls in type(view).__mro__ if cls.__module__ != _views_module)
    return cast("type[BaseMessage]", kind).model_construct(**thaw_view(dict(view.__dict__)))


def format_chunk(
    chunk: Chunk, stream_mode: str | Sequence[str], subgraphs: bool, version: str
) -> Any:
    """One chunk as ``stream`` yields it for these arguments (LangGraph's shapes)."""
    namespace, mode, payload = chunk
    if version == "v2":
        if mode != "values":
            return {"type": mode, "ns": namespace, "data": payload}
        data = {key: value for key, value in payload.items() if key != INTERRUPT}
        shown = payload.get(INTERRUPT, ())
        return {"type": mode, "ns": namespace, "data": data, "interrupts": shown}
    several = not isinstance(stream_mode, str)
    if subgraphs and several:
        return (namespace, mode, payload)
    if several:
        return (mode, payload)
    if subgraphs:
        return (namespace, payload)
    return payload
