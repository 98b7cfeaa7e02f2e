"""Errors of an agent run: bad agents and hooks, the loop, commands, state, tools, the
real-model guard and scripted models."""

from __future__ import annotations

from hookproof.errors._base import HookproofError, InvalidInputError, UsageError

TYPE_CHECKING = False  # typing itself costs `import hookproof` several ms; mypy sees True
if TYPE_CHECKING:
    from typing import Any


class DuplicateToolError(InvalidInputError):
    """Two tools with the same name were registered on one agent; ``tool_name`` is it."""

    def __init__(self, message: str, *, tool_name: str | None = None) -> None:
        super().__init__(message)
        self.tool_name = tool_name


class DuplicateMiddlewareError(InvalidInputError, AssertionError):
    """Two middleware with the same name were given to one agent. Also an AssertionError,
    the type LangChain's create_agent raises for duplicate middleware instances."""


class UnexecutableToolError(HookproofError, ValueError):
    """A model request shows the model a tool that nothing can execute.

    Also a ValueError, the type LangChain's create_agent raises for the same request."""


class MaxIterationsExceeded(HookproofError):
    """The agent loop called the model more often than max_iterations allows."""


class MissingAsyncHookError(UsageError, NotImplementedError):
    """A hook exists only in its async form but the agent was run synchronously.

    A TypeError and a NotImplementedError: LangChain's create_agent raises the first for a
    node hook and the second for a wrap hook, so code catching either keeps working."""


class NeedsGraphError(UsageError, RuntimeError):
    """A LangChain hook or tool on the reference runtime used what only a LangGraph graph
    provides (``interrupt()``, ``get_config()``); a RuntimeError, as LangGraph raises."""


class UnsupportedCommandError(UsageError, NotImplementedError):
    """A hook returned a Command with a field its place cannot honour (``goto`` or
    ``resume`` through a wrap_model_call's ExtendedModelResponse). Also a
    NotImplementedError, as LangChain's create_agent raises."""


class InvalidUpdateError(HookproofError):
    """One step wrote a state key that has no reducer more than once, so which value wins
    would depend on order; LangGraph refuses it with an exception of the same name."""


class InjectedStateError(HookproofError, KeyError):
    """A tool parameter annotated ``InjectedState("key")``, without a default, ran where the
    state has no such key. A KeyError, as LangGraph's tool node raises."""

    def __str__(self) -> str:
        return str(self.args[0])


class ParentCommandError(HookproofError):
    """A hook or tool returned ``Command(graph=Command.PARENT)``, but the agent is not a
    subgraph: there is no parent graph to send it to. LangGraph raises ParentCommand there;
    once ``langgraph`` is loaded, the error raised is also a ``langgraph.errors.ParentCommand``
    (code that catches that type has imported it), without hookproof importing LangGraph.
    ``command`` is the Command that was returned."""

    def __new__(cls, *args: Any, **kwargs: Any) -> ParentCommandError:
        if cls is ParentCommandError:
            cls = _also_langgraphs(cls)
        return super().__new__(cls, *args)

    def __init__(self, message: str, *, command: Any = None) -> None:
        super().__init__(message)
        self.command = command

    @classmethod
    def returned(cls, where: str, command: Any) -> ParentCommandError:
        """The error for ``where`` (a hook or tool) returning ``command``."""
        return cls(
            f"hookproof: {where} returned Command(graph={command.graph!r}), which sends its "
            "update to the graph above this agent; this agent runs at the top level, so "
            "there is none, and applying the update here would change the wrong graph "
            "(LangGraph raises ParentCommand for the same). Return Command(update=...) "
            "without graph= to update this agent's own state.",
            command=command,
        )

    def __reduce__(self) -> tuple[Any, ...]:  # the twin is not importable by its name
        return (ParentCommandError, self.args, self.__dict__)


_LANGGRAPH_TWINS: dict[type, type] = {}


def _also_langgraphs(cls: type[ParentCommandError]) -> type[ParentCommandError]:
    import sys  # only when raising: a look at what is loaded, never an import of LangGraph

    base = getattr(sys.modules.get("langgraph.errors"), "ParentCommand", None)
    if not isinstance(base, type) or not issubclass(base, Exception):
        return cls
    twin = _LANGGRAPH_TWINS.get(base)
    if twin is None:
        namespace = {"__module__": cls.__module__, "__doc__": cls.__doc__}
        twin = _LANGGRAPH_TWINS[base] = type(cls.__name__, (cls, base), namespace)
    return twin


class RealModelBlocked(HookproofError):
    """A test reached for a real model provider while hookproof's guard was on: it called a
    model not declared offline, or opened a connection to a host that is not loopback."""


class ConnectionBlocked(RealModelBlocked, ConnectionError):
    """The guard refused a socket connection to a host that is not loopback.

    Also a ConnectionError, so client libraries treat it as a failed connection: they close
    the socket, and report it in their own connection error (the message stays visible).
    """


class NothingBlocked(HookproofError, AssertionError):
    """A test's ``hookproof_guard.expect_blocked()`` block ended without any refusal, so it
    did not prove the guard refuses what it holds. An AssertionError: the test fails."""


class ScriptExhausted(HookproofError):
    """A ScriptedModel was called after its last scripted turn."""


class ToolError(HookproofError):
    """Raise from a tool to report a failure the model should see and may correct.

    The runtime turns it into a ToolMessage with status "error". Any other exception raised
    by a tool propagates out of invoke(), because it is a defect, not an answer. Its message
    is the tool's answer, so it is kept as written (snapshots of the request redact it).
    """

    def __init__(self, *args: object) -> None:
        Exception.__init__(self, *args)


class AmbiguousResumeError(InvalidInputError, RuntimeError):
    """A paused run waits on several interrupts and was resumed with one answer, not with
    answers by interrupt id. Also a RuntimeError, the type LangGraph raises for it."""


class InterruptRaised(HookproofError):
    """Raised by ``interrupt`` to stop the run; the engine turns it into a checkpoint."""

    def __init__(self, value: Any, *, response_schema: Any = None) -> None:
        super().__init__(
            "hookproof: interrupt() was called outside an agent run, or the run has no "
            "checkpointer and thread_id to save its place. Build the agent with "
            "checkpointer=InMemoryCheckpointer() and invoke it with thread_id=..."
        )
        self.value = value
        self.response_schema = response_schema
