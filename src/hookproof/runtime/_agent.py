"""create_agent: assemble tools, middleware and a model into an Agent on the one engine."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Coroutine, Mapping, Sequence
from typing import Any, Self

from pydantic import ValidationError

from hookproof._engine import UNLISTENED, Engine, RunResult, StateSpec, StepListener
from hookproof._support.untimed import untimed
from hookproof.errors import (
    DuplicateToolError,
    InvalidInputError,
    InvalidUpdateError,
    UsageError,
    safe_repr,
)
from hookproof.messages import SystemMessage, coerce_messages
from hookproof.provenance import AGENT
from hookproof.requests import NO_RESUME, Command, as_system_message
from hookproof.runtime._dialect import LangChainDialect
from hookproof.runtime._foreign import (
    identified_messages,
    native_checkpointer,
    native_message,
    native_middleware,
    native_structured_output,
    native_tool,
)
from hookproof.runtime._middleware import _name_of, compile_middleware
from hookproof.runtime._state import AgentState
from hookproof.tools import Tool, as_tool

__all__ = ["DEFAULT_RUNTIME_MAX_ITERATIONS", "Agent", "create_agent"]

# create_agent's bound: a run may call the model this many times; the next call raises
# MaxIterationsExceeded, and max_iterations below 1 is refused.
DEFAULT_RUNTIME_MAX_ITERATIONS = 25


class Agent:
    """A built agent. ``run`` and ``arun`` return a RunResult (so do ``invoke`` and
    ``ainvoke`` on an agent from ``create_agent``); the agent keeps no per-run data, so one
    agent can serve concurrent runs."""

    def __init__(
        self,
        engine: Engine[LangChainDialect],
        *,
        middleware: tuple[object, ...],
        context_schema: Any,
    ):
        self._engine = engine
        self._dialect = engine.dialect
        self.middleware = middleware
        self.context_schema = context_schema

    @property
    def name(self) -> str:
        return self._dialect.name

    @property
    def model(self) -> Any:
        return self._dialect.model

    @property
    def tools(self) -> tuple[Tool, ...]:
        """Every executable tool: middleware tools first, then ``tools=``."""
        return self._dialect.tools

    @property
    def system_message(self) -> SystemMessage | None:
        return self._dialect.system_message

    @property
    def checkpointer(self) -> Any:
        return self._engine.checkpointer

    def with_checkpointer(self, checkpointer: Any) -> Self:
        """The same agent saving its threads in ``checkpointer`` (so a run that pauses at an
        interrupt can be resumed); this agent is left as it is."""
        return self._with_engine(self._engine.with_checkpointer(native_checkpointer(checkpointer)))

    def with_system_origins(self, origins: Sequence[str]) -> Self:
        """The same agent whose FinalRequests' provenance names ``origins[i]`` as the author
        of line ``i`` of its system prompt (a harness that builds the prompt from parts names
        each part's author); this agent is left as it is."""
        observe = self._dialect.provenance_observer(tuple(origins))
        return self._with_engine(
            Engine(self._dialect, checkpointer=self.checkpointer, observe=observe)
        )

    def with_message_name(self, name: str | None) -> Self:
        """The same agent naming each assistant message its model answers with ``name``, as
        LangChain's ``create_agent(name=...)`` names them (None: left as the model gives
        them); this agent is left as it is."""
        return self._with_dialect(message_name=name)

    def with_max_iterations(self, max_iterations: int) -> Self:
        """The same agent bounded at ``max_iterations`` model calls per run (as
        ``create_agent(max_iterations=...)``); this agent is left as it is."""
        return self._with_dialect(max_iterations=_checked_bound(max_iterations))

    def _with_dialect(self, **settings: Any) -> Self:
        dialect = copy.copy(self._dialect)
        for key, value in settings.items():
            setattr(dialect, key, value)
        engine = Engine(dialect, checkpointer=self.checkpointer, observe=self._engine.observe)
        return self._with_engine(engine)

    def _with_engine(self, engine: Engine[LangChainDialect]) -> Self:
        """A copy of this agent (of its own class, with its settings) on ``engine``."""
        clone = copy.copy(self)
        clone._engine, clone._dialect = engine, engine.dialect
        return clone

    def run(
        self,
        input: Mapping[str, Any] | Command,
        *,
        context: Any = None,
        thread_id: str | None = None,
    ) -> RunResult:
        """Run to completion (or to an interrupt) synchronously.

        ``input`` is ``{"messages": [...], ...}``, or ``Command(resume=answer)`` to resume a
        paused thread. With a checkpointer, ``thread_id`` keeps the conversation between calls.
        """
        return self._engine.run_sync(
            _arguments(input, thread_id)[0],
            _coerced(self.context_schema, context),
            thread_id=thread_id,
            resume=_resume_of(input),
        )

    def invoke(
        self,
        input: Mapping[str, Any] | Command,
        *,
        context: Any = None,
        thread_id: str | None = None,
    ) -> RunResult:
        """The same as ``run`` (an agent of a framework's shape answers in that shape)."""
        return self.run(input, context=context, thread_id=thread_id)

    async def arun(
        self,
        input: Mapping[str, Any] | Command,
        *,
        context: Any = None,
        thread_id: str | None = None,
    ) -> RunResult:
        """Like run, on the running event loop."""
        return await self._start_run(input, context=context, thread_id=thread_id, sync=False)

    def _start_run(
        self,
        input: Mapping[str, Any] | Command,
        *,
        context: Any,
        thread_id: str | None,
        sync: bool,
        listener: StepListener = UNLISTENED,
    ) -> Coroutine[Any, Any, RunResult]:
        """The run's coroutine (for a subclass that streams it step by step: ``listener``
        hears its steps)."""
        initial = _arguments(input, thread_id)[0]
        return self._engine.run(
            initial,
            _coerced(self.context_schema, context),
            sync=sync,
            thread_id=thread_id,
            resume=_resume_of(input),
            listener=listener,
        )

    async def ainvoke(
        self,
        input: Mapping[str, Any] | Command,
        *,
        context: Any = None,
        thread_id: str | None = None,
    ) -> RunResult:
        """The same as ``arun``."""
        return await self.arun(input, context=context, thread_id=thread_id)

    def __repr__(self) -> str:
        names = [_name_of(item) for item in self.middleware]
        tools = [t.name for t in self.tools]
        return f"{type(self).__name__}(name={self.name!r}, tools={tools}, middleware={names})"


def _checked_bound(max_iterations: object) -> int:
    if isinstance(max_iterations, bool) or not isinstance(max_iterations, int):
        raise UsageError(f"hookproof: max_iterations must be an int, got {max_iterations!r}.")
    if max_iterations < 1:
        raise InvalidInputError(
            f"hookproof: max_iterations={max_iterations} would forbid every model call; "
            "use 1 or more."
        )
    return max_iterations


def _coerced(schema: Any, context: Any) -> Any:
    """A dict context made an instance of a dataclass or pydantic ``context_schema``, as
    LangGraph makes it: so a context_schema turns any dict into a context of the trusted
    type, and check_fail_closed sees what the application really does with one."""
    if not isinstance(context, dict) or not isinstance(schema, type):
        return context
    if not (dataclasses.is_dataclass(schema) or hasattr(schema, "model_validate")):
        return context
    try:
        return schema(**context)
    except ValidationError as error:
        raise InvalidInputError(
            f"hookproof: the context {safe_repr(context, 80)} is a dict, so it is made a "
            f"{schema.__name__} (context_schema), as LangGraph makes it, and it is not a "
            f"valid one: {error.error_count()} error(s), first: "
            f"{error.errors(include_url=False)[0]['msg']}. Pass a {schema.__name__} instance."
        ) from error
    except TypeError as error:
        raise UsageError(
            f"hookproof: the context {safe_repr(context, 80)} is a dict, so it is made a "
            f"{schema.__name__} (context_schema), as LangGraph makes it, and that failed: "
            f"{error}. Pass a {schema.__name__} instance, or a dict of its fields."
        ) from error


def _resume_of(input: object) -> Any:
    return input.resume if isinstance(input, Command) else NO_RESUME


def _arguments(input: object, thread_id: str | None) -> tuple[dict[str, Any] | None]:
    if isinstance(input, Command):
        if input.graph is not None:
            raise InvalidUpdateError(
                f"hookproof: invoke() got Command(graph={input.graph!r}), but an agent run "
                "by hookproof has no parent graph to send it to (LangGraph refuses it with "
                "InvalidUpdateError too). Resume with Command(resume=answer) alone."
            )
        if input.resume is NO_RESUME or thread_id is None:
            raise UsageError(
                "hookproof: invoke() takes a Command only to resume a paused thread: "
                "agent.invoke(Command(resume=answer), thread_id=...)."
            )
        return (None,)
    return (_initial_state(input),)


# What users write by hand, which no framework's bridge takes: not looked up.
_PLAIN = frozenset({tuple, dict, str})


def _initial_state(input: object) -> dict[str, Any]:
    # ``type(...) is dict`` first: a dict then skips the Mapping ABC's Python-level check.
    if not (type(input) is dict or isinstance(input, Mapping)) or "messages" not in input:
        raise UsageError(
            f"hookproof: invoke() takes a dict with a 'messages' list, got {safe_repr(input, 80)}. "
            'Example: agent.invoke({"messages": [("user", "hello")]}).'
        )
    state = dict(input)
    messages = input["messages"]
    if isinstance(messages, list | tuple):  # LangChain messages are taken as they come
        messages = [item if type(item) in _PLAIN else native_message(item) for item in messages]
    state["messages"] = coerce_messages(messages, where="input['messages']")
    return state


def _collect_tools(tools: Sequence[object], middleware: Sequence[object]) -> list[tuple[Tool, str]]:
    """Every tool with who registered it (a middleware's name, or AGENT for ``tools=``)."""
    collected: list[tuple[Tool, str]] = []
    origins: list[str] = []
    for item in middleware:
        owner = f"middleware {_name_of(item)!r}"
        found = [(_tool(value, owner), owner) for value in getattr(item, "tools", ())]
        collected += found
        origins += [_name_of(item)] * len(found)
    collected += [(_tool(value, f"tools=[{i}]"), f"tools=[{i}]") for i, value in enumerate(tools)]
    origins += [AGENT] * len(tools)
    _check_unique(collected)
    return [(tool, origin) for (tool, _), origin in zip(collected, origins, strict=True)]


def _tool(value: object, source: str) -> Tool:
    """A hookproof Tool, or a framework's tool (a LangChain tool, say) through its bridge."""
    return as_tool(native_tool(value, source), source=source)


def _state_spec(schemas: list[Any], *, bridged: bool) -> StateSpec:
    if bridged:  # LangChain middleware finds messages by id: give every message one
        return StateSpec(schemas, messages_reducer=identified_messages, base=AgentState)
    return StateSpec(schemas, base=AgentState)


def _check_unique(tools: list[tuple[Tool, str]]) -> None:
    seen: dict[str, str] = {}
    for item, source in tools:
        if item.name in seen:
            raise DuplicateToolError(
                f"hookproof: two tools are named {item.name!r}: one from {seen[item.name]}, one "
                f"from {source}. The model would see one schema while the runtime "
                "executes the other. Rename one, or register it once.",
                tool_name=item.name,
            )
        seen[item.name] = source


def _check_model(model: object) -> None:
    if model is None:
        raise UsageError(
            "hookproof: create_agent() got model=None. Pass a model, e.g. "
            "RecordingModel(ScriptedModel([...])) from hookproof.models."
        )
    if not callable(getattr(model, "invoke", None)) and not callable(
        getattr(model, "ainvoke", None)
    ):
        raise UsageError(
            f"hookproof: model {safe_repr(model, 60)} has no invoke() method. "
            "The reference runtime "
            "calls model.invoke(final_request); use hookproof.models.ScriptedModel, or the "
            "LangChain adapters to run a LangChain model."
        )


def _structured_output(response_format: Any, model: Any) -> Any:
    if response_format is None:
        return None
    structured = native_structured_output(response_format, response_format, model)
    if structured is None:
        raise UsageError(
            f"hookproof: response_format={safe_repr(response_format, 60)} needs the rules of "
            "a framework the reference runtime bridges, and neither it nor the model is one's. "
            "Pass LangChain's ToolStrategy(schema) or ProviderStrategy(schema) (from "
            "langchain.agents.structured_output), or give a schema with a LangChain chat model."
        )
    return structured


@untimed
def create_agent(
    model: Any,
    tools: Sequence[object] | None = None,
    *,
    system_prompt: str | SystemMessage | None = None,
    middleware: Sequence[object] = (),
    context_schema: Any = None,
    state_schema: type | None = None,
    max_iterations: int = DEFAULT_RUNTIME_MAX_ITERATIONS,
    name: str | None = None,
    checkpointer: Any = None,
    response_format: Any = None,
) -> Agent:
    """Build an agent on the reference runtime (LangChain v1 semantics; see the docs).

    ``response_format`` takes LangChain's structured-output strategies (or a bare schema
    with a LangChain chat model); the answer is the state's ``structured_response``."""
    _check_model(model)
    _checked_bound(max_iterations)
    middleware = tuple(middleware)
    native = tuple(native_middleware(item) for item in middleware)
    stack = compile_middleware(native)
    schemas = [state_schema, *(getattr(item, "state_schema", None) for item in native)]
    collected = _collect_tools(tools or (), native)
    dialect = LangChainDialect(
        name=name or "agent",
        model=model,
        stack=stack,
        state=_state_spec(schemas, bridged=native != middleware),
        tools=tuple(tool for tool, _ in collected),
        system_message=as_system_message(native_message(system_prompt), "system_prompt"),
        max_iterations=max_iterations,
        tool_origins={tool.name: owner for tool, owner in collected if owner != AGENT},
        structured=_structured_output(response_format, model),
    )
    engine = Engine(
        dialect,
        checkpointer=native_checkpointer(checkpointer),
        observe=dialect.provenance_observer(),
    )
    return Agent(engine, middleware=middleware, context_schema=context_schema)
