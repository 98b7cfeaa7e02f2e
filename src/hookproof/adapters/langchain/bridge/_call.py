"""One LangChain-shaped call: what ``invoke(input, config, ...)`` of a compiled
``create_agent`` graph takes, made the engine's input, and the run made the graph's output.

Messages: LangGraph's ``add_messages`` keeps the caller's message objects and gives the ones
without an id an id (in place). Here each caller's message is given the id the reference
engine would give it (``m<n>`` by its place in the thread's history, so ids stay
deterministic) and comes back as the same object; the engine's other messages come back as
new LangChain messages.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import BaseMessage

from hookproof._support.frozen import thaw
from hookproof.adapters.langchain.bridge._graph_run import GraphRun
from hookproof.adapters.langchain.bridge._views import _fields, hp_message
from hookproof.errors import InvalidUpdateError, UsageError, safe_repr
from hookproof.messages import Message
from hookproof.requests import Command

__all__ = [
    "LangChainCall",
    "as_langgraph_error",
    "refuse_unsupported_options",
]

# Pregel.invoke's keywords the engine has no counterpart for, accepted at these values only.
_NEUTRAL_OPTIONS: dict[str, tuple[Any, ...]] = {
    "stream_mode": ("values",),
    "print_mode": ((), [], None),
    "interrupt_before": (None, (), []),
    "interrupt_after": (None, (), []),
    "control": (None,),
    "version": ("v1",),
    "debug": (None, False),
}
# Accepted whatever their value: they change how LangGraph stores or reports a run, not what
# the run does.
_IGNORED_OPTIONS = frozenset({"durability", "checkpoint_during", "subgraphs"})


def refuse_unsupported_options(options: Mapping[str, Any]) -> Sequence[str] | str | None:
    """``output_keys`` from a call's keyword options; an option the reference engine cannot
    honour (a stream mode, a breakpoint) is refused by name."""
    output_keys = options.get("output_keys")
    for key, value in options.items():
        if key == "output_keys" or key in _IGNORED_OPTIONS:
            continue
        allowed = _NEUTRAL_OPTIONS.get(key)
        if allowed is None:
            raise UsageError(
                f"hookproof: invoke() got {key}={safe_repr(value, 60)}, which a compiled "
                "LangGraph graph's invoke does not take, or the reference engine does not "
                "model. Remove it."
            )
        if not any(value == ok for ok in allowed):
            raise UsageError(
                f"hookproof: invoke() got {key}={safe_repr(value, 60)}; the reference engine "
                f"runs the agent as a whole and takes only {key}={allowed[0]!r} (LangGraph's "
                "breakpoints, stream modes and output versions need its graph). Remove it, or "
                "test this on LangChain's create_agent."
            )
    return output_keys


class LangChainCall:
    """One call's translation both ways (it holds the caller's messages to give them back)."""

    def __init__(
        self,
        keys: Any,
        config: dict[str, Any],
        checkpointer: Any,
        extras: dict[str, Any] | None = None,
        output_keys: Sequence[str] | str | None = None,
    ) -> None:
        self.keys = keys
        self.config = config
        self.thread_id = self.thread_of(config)
        self.graph_run = GraphRun(config=config, extras=extras or {})
        self.engine_input: Any = None
        self.input: Any = None  # what the caller passed
        self._checkpointer = checkpointer
        self._output_keys = output_keys
        self._callers: dict[int, tuple[Message, BaseMessage]] = self.graph_run.callers

    def context_for(self, context: Any) -> Any:
        """The run's context: the call's, or (none given) the enclosing node's."""
        from hookproof.adapters.langchain.bridge._inherit import inherited_context

        return inherited_context(self.config, context)

    @staticmethod
    def graph_error(error: Exception) -> Exception:
        return as_langgraph_error(error)

    @staticmethod
    def thread_of(config: Mapping[str, Any]) -> str | None:
        configurable = config.get("configurable") or {}
        found = configurable.get("thread_id") if isinstance(configurable, Mapping) else None
        return None if found is None else str(found)

    # -- input ---------------------------------------------------------------------------

    def prepare(self, input: Any) -> None:
        from langgraph.types import Command as LGCommand

        self.input = input
        if isinstance(input, LGCommand):
            self.engine_input = self._command(input)
        elif isinstance(input, Mapping):
            self.engine_input = self._state_input(input)
        else:
            raise UsageError(
                f"hookproof: invoke() takes the agent's input state, a dict with 'messages', "
                f"or Command(resume=...) to resume a paused thread; got {safe_repr(input, 80)}. "
                'Example: agent.invoke({"messages": [("user", "hello")]}).'
            )

    def _command(self, command: Any) -> Command:
        if command.update is not None or command.goto:
            raise UsageError(
                "hookproof: invoke() got a Command with update= or goto=; the reference engine "
                "takes a Command as input only to resume a paused thread: "
                "Command(resume=answer). Test this on LangChain's create_agent."
            )
        if self.thread_id is None:
            raise UsageError(
                "hookproof: invoke(Command(resume=...)) resumes a paused thread, so it needs "
                'the thread: pass config={"configurable": {"thread_id": ...}} (and build the '
                "agent with a checkpointer)."
            )
        return Command(resume=command.resume, graph=command.graph)

    def _state_input(self, input: Mapping[str, Any]) -> dict[str, Any]:
        keys = self.keys
        state = {
            key: value
            for key, value in input.items()
            if key not in keys.not_input and (key in keys.declared or key == "messages")
        }
        if "messages" in state:
            state["messages"] = self._messages_in(state["messages"])
        return state

    def _messages_in(self, messages: Any) -> Any:
        several = isinstance(messages, list | tuple)
        items = list(messages) if several else [messages]  # one message alone, as LangGraph
        converted = [
            hp_message(item, f"input['messages'][{i}]" if several else "input['messages']")
            for i, item in enumerate(items)
        ]
        history = self._history()
        used = {m.id for m in history} | {getattr(m, "id", None) for m in converted}
        number = len(history)
        for index, (item, message) in enumerate(zip(items, converted, strict=True)):
            if isinstance(message, Message) and message.id is None:
                number += 1
                while f"m{number}" in used:
                    number += 1
                used.add(f"m{number}")
                message = converted[index] = message.model_copy(update={"id": f"m{number}"})
                if isinstance(item, BaseMessage):
                    item.id = message.id  # as add_messages does to the caller's message
            if isinstance(item, BaseMessage) and isinstance(message, Message):
                self._callers[id(message)] = (message, item)
        return converted if several else converted[0]

    def _history(self) -> Sequence[Message]:
        if self._checkpointer is None or self.thread_id is None:
            return ()
        saved = self._checkpointer.get(self.thread_id)
        return () if saved is None else tuple(saved.values.get("messages", ()))

    # -- output --------------------------------------------------------------------------

    def output(self, result: Any) -> Any:
        values = self.output_values(result.state)
        if isinstance(self._output_keys, str):
            return values.get(self._output_keys)
        if self._output_keys is not None:
            values = {key: value for key, value in values.items() if key in self._output_keys}
        if result.interrupts:
            values["__interrupt__"] = self.interrupts(result.interrupts, self.thread_id)
        return values

    def output_values(self, state: Mapping[str, Any]) -> dict[str, Any]:
        shown = {key: value for key, value in state.items() if key not in self.keys.not_output}
        return self.langchain_values(shown)

    def langchain_values(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """``values`` (state keys the engine holds) as LangGraph holds them: messages as the
        caller's own or new LangChain messages, other values unlocked."""
        return {
            key: self._messages_out(value) if key == "messages" else thaw(value)
            for key, value in values.items()
        }

    def _messages_out(self, messages: Sequence[Message]) -> list[BaseMessage]:
        return [self._message_out(message) for message in messages]

    def _message_out(self, message: Message) -> BaseMessage:
        caller = self._callers.get(id(message))
        if caller is not None and caller[0] is message:
            return caller[1]
        cls, fields = _fields(message)
        return cls(**fields)

    @staticmethod
    def interrupts(pending: Sequence[Any], thread_id: str | None) -> list[Any]:
        """LangGraph's Interrupts for the engine's: the engine's ids (deterministic, so the
        same on every run; a resume map keyed by them answers each) and answer schemas."""
        from langgraph.types import Interrupt

        return [
            Interrupt(value=item.value, id=item.id, response_schema=item.response_schema)
            for item in pending
        ]


_TWICE = re.compile(r"state key '([^']+)' was written twice")


def as_langgraph_error(error: Exception) -> Exception:
    """``error`` with LangGraph's message first where a compiled graph says it differently
    (hookproof's InvalidUpdateError is LangGraph's type already); others as they are."""
    found = _TWICE.search(str(error)) if isinstance(error, InvalidUpdateError) else None
    if found is None:
        return error
    said = (
        f"At key '{found.group(1)}': Can receive only one value per step. Use an Annotated "
        "key to handle multiple values."
    )
    return InvalidUpdateError(f"{said} ({error})")
