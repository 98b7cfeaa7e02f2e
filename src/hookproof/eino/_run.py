"""One Eino run: the per-run object the compiled hooks and layers share, and AgentRun."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hookproof._engine import RunResult
from hookproof._support.frozen import FrozenDict, FrozenList
from hookproof._support.plain import plain_setting
from hookproof.eino._context import RunContext
from hookproof.eino._exec import RUN_LOCAL_KEY, RunExec
from hookproof.eino._records import (
    AgentAction,
    AgentEvent,
    ChatModelAgentState,
    ModelContext,
    ToolInfo,
)
from hookproof.eino._settings import AgentSettings
from hookproof.errors import safe_repr
from hookproof.messages import AssistantMessage, Message, ToolMessage

if TYPE_CHECKING:
    from hookproof.eino._tools import EndpointKind, ToolIndex

__all__ = [
    "NO_SETTINGS",
    "AgentRun",
    "EinoRun",
    "ReplaceMessages",
    "appended_messages",
    "eino_messages",
]

NO_SETTINGS = FrozenDict()  # a model call's settings when its options have none but tools
_ABSENT: Any = object()
_NO_INFOS: FrozenList[Any] = FrozenList()
_NO_OPTIONS: tuple[None, FrozenDict] = (None, FrozenDict())  # nothing known yet
_NO_REQUEST_TOOLS: tuple[None, FrozenList[Any]] = (None, _NO_INFOS)
MSG_SEQ_KEY = "_eino_msg_seq"
HELD_KEY = "_eino_return_directly_event"
MODEL_CTX_KEY = "_eino_model_ctx"  # what the current model call's hooks added to the ctx
AFTER_CTX_KEY = "_eino_after_ctx"  # what the after_agent chain added


@dataclass(frozen=True)
class ReplaceMessages:
    """A state update that replaces the whole message list (a rewrite hook's result)."""

    messages: tuple[Message, ...]


def eino_messages(current: Sequence[Message] | None, new: Any) -> FrozenList[Message]:
    """Eino's messages: a hook's state replaces them; a model or tool result is appended."""
    if isinstance(new, ReplaceMessages):
        return FrozenList(new.messages)
    return appended_messages(current, new if isinstance(new, list | tuple) else [new])


def appended_messages(current: Sequence[Message] | None, items: Sequence[Any]) -> FrozenList[Any]:
    """``eino_messages`` for a list of new messages (the engine appends a model's or a tool's
    result with it, one call)."""
    return FrozenList([*(current or ()), *items])


class EinoRun:
    """Everything one run (or resume) of a ChatModelAgent keeps outside the engine's state:
    the run's ctx, its configuration after before_agent, and its event stream."""

    def __init__(
        self,
        agent: AgentSettings,
        ctx: RunContext,
        *,
        streaming: bool,
        input_messages: tuple[Message, ...] | None,
        invokable_model: Any = None,
    ) -> None:
        self.agent = agent
        self.exec = RunExec(agent.name)
        self.ctx = ctx._bound(self.exec)  # the run's ctx: before_agent's result from then on
        self.model_ctx = self.ctx  # chained by the model hooks of the current iteration
        self.after_ctx = self.ctx
        self.streaming = streaming
        self.input_messages = input_messages
        self.agent_ctx = agent.run_config
        self.tools: dict[str, Any] = {}
        self.tool_kinds: dict[str, frozenset[EndpointKind]] = {}
        self.tool_infos: tuple[ToolInfo, ...] = ()
        self.frozen_tool_infos: FrozenList[ToolInfo] = _NO_INFOS
        self.tool_msg_ids: dict[int, str] = {}  # by call position (Eino: state.ToolMsgIDs)
        self.sent_tool_messages: dict[int, tuple[Any, ToolMessage]] = {}  # result, message
        self.message_seq = 0  # set from the state when the run starts (see next_message_id)
        self.last_success_model: Any = None
        self.persisted_input: tuple[Message, ...] | None = None  # set by a persisting retry
        self.model_chunks: tuple[Any, ...] = ()  # an Eino-style model's streamed chunks
        # the tools shown to the model: the same values while the infos stay the same, so
        # that the engine names them once
        self._model_options: tuple[tuple[Any, Any, Any] | None, FrozenDict] = _NO_OPTIONS
        self._request_tools: tuple[Any, FrozenList[Any]] = _NO_REQUEST_TOOLS
        self._model_context: ModelContext | None = None
        self._context_sources: tuple[Any, Any] = (_ABSENT, _ABSENT)  # tuples it matches
        self.options_without_settings: Any = None
        self.invokable_model = invokable_model  # the last model found to have invoke()
        # provenance (see eino._provenance): who changed tools and instruction, and how
        self.agent_changers: list[str] = []
        self.provenance_base: Any = None
        self.provenance_edits: list[tuple[str, Any, Any]] = []

    @property
    def resuming(self) -> bool:
        return self.input_messages is None

    def bind(self, ctx: RunContext) -> RunContext:
        return ctx._bound(self.exec)

    def state(self, values: FrozenDict) -> ChatModelAgentState:
        messages = tuple(values.get("messages", ()))
        tool_infos, deferred = values.get("tool_infos"), values.get("deferred_tool_infos")
        if tool_infos is self.frozen_tool_infos:
            tool_infos = self.tool_infos  # the same infos as the agent's one tuple
        elif tool_infos is not None:
            tool_infos = tuple(tool_infos)
        if deferred is not None:
            deferred = tuple(deferred)
        for item in messages:  # all() over a generator costs a frame per item
            if not isinstance(item, Message):  # a retry persisted its own input: check it
                return ChatModelAgentState(
                    messages=messages, tool_infos=tool_infos, deferred_tool_infos=deferred
                )
        # infos in the state come from checked records or the tools' own info()
        return ChatModelAgentState.trusted(
            messages=messages, tool_infos=tool_infos, deferred_tool_infos=deferred
        )

    def public_state(self) -> dict[str, Any]:
        """The state a @tool's ToolRuntime shows: messages and tool infos."""
        handle = self.exec.handle
        values = handle.state if handle is not None else FrozenDict()
        keys = ("messages", "tool_infos", "deferred_tool_infos")
        return {key: values[key] for key in keys if key in values}

    def use_tools(self, index: ToolIndex) -> None:
        """The run's tools (after before_agent). With the agent's own, the hooks are shown
        the agent's ModelContext for both lists a run passes them (the state's and the
        model call's), and the model call's options: what model_context and model_options
        would find on their first calls."""
        self.tools, self.tool_infos, self.tool_kinds = index.by_name, index.infos, index.kinds
        self.frozen_tool_infos = index.frozen_infos
        if index is self.agent.tool_index:
            self._model_context = self.agent.model_context
            self._context_sources = (index.frozen_infos, index.infos)
            # what model_options makes of the agent's own tools, with no deferred tools and
            # no tool-search tool (as an agent-wide constant: the same value in every run)
            self._model_options = self.agent.model_options
            self.options_without_settings = self.agent.model_options[1]

    def model_context(self, values: Mapping[str, Any]) -> ModelContext:
        """From the state (hooks) or a model call's options (wrap_model): the tools shown."""
        source = values.get("tool_infos", _ABSENT)
        if source is _ABSENT:
            source = values.get("tools")
        known = self._context_sources  # set with the context, never matching before it is
        if source is known[0] or source is known[1]:
            # an immutable list it was built from, or found equal to, before
            return self._model_context  # type: ignore[return-value]
        last = self._model_context
        tools = tuple(source or ())
        if last is None or last.tools != tools:
            self._model_context = last = self._context_for(tools)
            known = (_ABSENT, _ABSENT)
        # the state's list and the options' tuple: the two a run alternates between
        self._context_sources = (known[1], source) if isinstance(source, tuple) else known
        return last

    def _context_for(self, tools: tuple[Any, ...]) -> ModelContext:
        if tools == self.agent.model_context.tools:
            return self.agent.model_context  # the agent's own tools: built with the agent
        build = (
            ModelContext.trusted
            if all(isinstance(info, ToolInfo) for info in tools)
            else ModelContext  # a wrapper passed its own tools: check them
        )
        return build(
            tools=tools,
            model_retry_config=self.agent.model_retry_config,
            model_failover_config=self.agent.model_failover_config,
        )

    def model_options(self, state: FrozenDict) -> FrozenDict:
        """The model call's options from the state: ``tools`` (state.tool_infos), the
        deferred tools and the tool-search tool when there are some. The same value while
        its parts stay the same objects, so that later steps read it once."""
        infos, deferred = state.get("tool_infos"), state.get("deferred_tool_infos")
        search = self.agent_ctx.tool_search_tool
        parts, options = self._model_options
        if parts is not None and parts[0] is infos and parts[1] is deferred and parts[2] is search:
            return options
        # the run's own tools as the agent's one tuple, so that later steps know them
        tools = self.tool_infos if infos is self.frozen_tool_infos else tuple(infos or ())
        found: dict[str, Any] = {"tools": tools}
        if deferred is not None:
            found["deferred_tools"] = tuple(deferred)
        if search is not None:
            found["tool_search_tool"] = search
        options = FrozenDict(found)
        if len(found) == 1:
            self.options_without_settings = options
        self._model_options = ((infos, deferred, search), options)
        return options

    def request_tools(self, tools: Sequence[Any]) -> FrozenList[Any]:
        """A model call's ``tools`` option as the ModelRequest's tools."""
        if tools is self.tool_infos:
            return self.frozen_tool_infos  # one list per agent: the engine names it once
        if tools is not self._request_tools[0]:
            self._request_tools = (tools, FrozenList(tools))
        return self._request_tools[1]

    def invokable(self, model: Any) -> bool:
        """Whether ``model`` has invoke(FinalRequest) (else it is written Eino's way)."""
        if model is not self.invokable_model:
            if not callable(getattr(model, "invoke", None)):
                return False
            self.invokable_model = model
        return True

    def request_settings(self, options: FrozenDict) -> FrozenDict:
        """A model call's options other than ``tools`` as the ModelRequest's settings (new
        each call: they hold lists; the empty one is shared)."""
        if options is self.options_without_settings:
            return NO_SETTINGS
        settings = {
            key: plain_setting(value)
            for key, value in options.items()
            if value is not None and key != "tools"
        }
        if not settings:
            self.options_without_settings = options
        return FrozenDict(settings) if settings else NO_SETTINGS

    def next_message_id(self) -> str:
        """Deterministic message ids (Eino uses UUIDs): msg-1, msg-2, ... per run. The count
        lives in the state (a resume continues it); ``message_seq`` mirrors it."""
        handle = self.exec.handle
        assert handle is not None
        self.message_seq += 1
        handle.set_value(MSG_SEQ_KEY, self.message_seq, source="message_id")
        return f"msg-{self.message_seq}"

    def initial_state(self, system: Message | None) -> dict[str, Any]:
        messages = ([system] if system is not None else []) + list(self.input_messages or ())
        return {
            "messages": ReplaceMessages(tuple(messages)),
            "tool_infos": None,
            "deferred_tool_infos": None,
            RUN_LOCAL_KEY: FrozenDict(),  # as the state keeps it (no freezing to do)
            MSG_SEQ_KEY: 0,
            HELD_KEY: None,
        }

    def emit_interrupts(self, result: RunResult) -> None:
        """One event for the pause, with every interrupt (Eino's InterruptContexts)."""
        if result.interrupts:
            action = AgentAction(interrupted=result.interrupts[0], interrupts=result.interrupts)
            self.exec.emit(AgentEvent(action=action))


class AgentRun:
    """The events of one run or resume, in order, plus what the run left behind.

    ``for event in run`` yields every event, each time it is iterated; ``run.events`` is
    the tuple. ``next(run)`` (or ``run.next()``, which returns ``(event, ok)`` like Eino's
    ``iterator.Next()``) steps through them once. ``result`` holds the final messages, the
    Trace and the FinalRequests; ``error`` is the error that ended the run (None on
    success); ``interrupted`` says the run paused (resume it with
    ``agent.resume(checkpoint_id, ...)``).
    """

    def __init__(
        self,
        events: Sequence[AgentEvent],
        result: RunResult,
        *,
        checkpoint_id: str | None,
    ) -> None:
        self.events = tuple(events)
        self.result = result
        self.checkpoint_id = checkpoint_id
        self._position = 0

    def __next__(self) -> AgentEvent:
        if self._position >= len(self.events):
            raise StopIteration
        self._position += 1
        return self.events[self._position - 1]

    def next(self) -> tuple[AgentEvent | None, bool]:
        """The next event and True, or (None, False) at the end (Eino's Next())."""
        try:
            return next(self), True
        except StopIteration:
            return None, False

    def __iter__(self) -> Iterator[AgentEvent]:
        return iter(self.events)

    def __len__(self) -> int:
        return len(self.events)

    @property
    def error(self) -> BaseException | None:
        errors = [event.error for event in self.events if event.error is not None]
        return errors[-1] if errors else None

    @property
    def interrupted(self) -> bool:
        return any(event.kind == "interrupt" for event in self.events)

    @property
    def output(self) -> Message | None:
        """The run's final output: the message of the last message event (the answer, or the
        return-directly tool's result) whose stream did not end in an error; None when no
        message was sent."""
        found = [
            e.message
            for e in self.events
            if isinstance(e.message, AssistantMessage | ToolMessage) and e.stream_error is None
        ]
        return found[-1] if found else None

    @property
    def text(self) -> str:
        return self.output.text if self.output is not None else ""

    @property
    def trace(self) -> Any:
        return self.result.trace

    @property
    def final_requests(self) -> tuple[Any, ...]:
        return self.result.final_requests

    @property
    def messages(self) -> tuple[Message, ...]:
        return self.result.messages

    def kinds(self) -> list[str]:
        return [event.kind for event in self.events]

    def __repr__(self) -> str:
        return f"AgentRun(events={self.kinds()}, error={safe_repr(self.error, 80)})"
