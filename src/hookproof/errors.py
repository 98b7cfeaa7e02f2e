"""hookproof's exceptions: one base class, usage errors that are also builtin errors.

Every message follows one shape: what happened (with values), why it matters, how to fix it.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing itself costs `import hookproof` several ms; mypy sees True
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "CassetteError",
    "CassetteFormatError",
    "ConnectionBlocked",
    "ContractViolation",
    "DuplicateMiddlewareError",
    "DuplicateToolError",
    "EinoError",
    "ExceedMaxIterationsError",
    "ExceedMaxRetriesError",
    "FileAccessError",
    "GoToolchainError",
    "HandlerError",
    "HookproofError",
    "ImmutableError",
    "InjectedStateError",
    "InterruptRaised",
    "InvalidInputError",
    "InvalidUpdateError",
    "MaxIterationsExceeded",
    "MissingAsyncHookError",
    "MissingExchangeError",
    "NeedsGraphError",
    "NothingBlocked",
    "ParentCommandError",
    "RealModelBlocked",
    "RetryExhaustedError",
    "RunContextError",
    "ScriptExhausted",
    "SerializationError",
    "SnapshotFormatError",
    "StaleCassetteError",
    "TemplateError",
    "TemplateRenderError",
    "TemplateSecurityError",
    "TemplateSyntaxError",
    "TemplateVariableError",
    "ToolCallError",
    "ToolError",
    "ToolNotFoundError",
    "UnexecutableToolError",
    "UnsafePathError",
    "UnsupportedCommandError",
    "UnsupportedHypothesisError",
    "UnsupportedTemplateConstruct",
    "UntestedError",
    "UsageError",
]


class HookproofError(Exception):
    """Base class of every error hookproof raises on its own behalf.

    The message is redacted (``hookproof.redaction``) when the error is made: messages show
    requests, contexts and settings, and reach pytest's output, JUnit XML and CI logs."""

    def __init__(self, *args: object) -> None:
        super().__init__(*_redacted(args))


def _redacted(args: tuple[object, ...]) -> tuple[object, ...]:
    return tuple(_redact(item) if isinstance(item, str) else item for item in args)


def _redact(text: str) -> str:
    from hookproof.redaction import redact_text  # redaction imports this module

    return redact_text(text)


def safe_repr(value: object, limit: int) -> str:
    """``repr(value)``, redacted, then cut to ``limit`` characters (``f"{value!r:.60}"``
    made safe): redacting first matters, as a secret cut in half no longer looks like one."""
    return _redact(repr(value))[:limit]


class UsageError(HookproofError, TypeError):
    """hookproof was called with arguments of the wrong kind."""


class InvalidInputError(HookproofError, ValueError):
    """A value handed to hookproof has the right type but cannot be used."""


class ImmutableError(HookproofError, AttributeError):
    """Something tried to change an immutable hookproof value in place."""


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


class InterruptRaised(HookproofError):
    """Raised by ``interrupt`` to stop the run; the engine turns it into a checkpoint."""

    def __init__(self, value: Any) -> None:
        super().__init__(
            "hookproof: interrupt() was called outside an agent run, or the run has no "
            "checkpointer and thread_id to save its place. Build the agent with "
            "checkpointer=InMemoryCheckpointer() and invoke it with thread_id=..."
        )
        self.value = value


# -- snapshots ------------------------------------------------------------------------------


class SnapshotFormatError(InvalidInputError):
    """A snapshot file is not in the format this hookproof reads.

    ``problem`` is the reason alone (e.g. ``its first line is 'x'``), for reports that list
    several files.
    """

    def __init__(self, message: str, problem: str) -> None:
        super().__init__(message)
        self.problem = problem


# -- files hookproof reads and writes (hookproof._safe_files) -------------------------------


class FileAccessError(InvalidInputError):
    """A file hookproof was to read or write is not a regular file, is too large, is not
    UTF-8 text or JSON it can take, or cannot be opened. ``problem`` is the reason alone
    (e.g. ``is a named pipe (FIFO), not a regular file``), for messages that name the file
    in their own words."""

    def __init__(self, message: str, *, problem: str) -> None:
        super().__init__(message)
        self.problem = problem


class UnsafePathError(FileAccessError):
    """A path hookproof was to read or write leaves the project's root directory, by
    ``..``, an absolute path or a symbolic link at any level."""


# -- cassettes (hookproof.recording) ---------------------------------------------------------


class CassetteError(HookproofError):
    """A recorded model exchange cannot be replayed or recorded."""


class CassetteFormatError(CassetteError, InvalidInputError):
    """A cassette file is not in the format this hookproof reads (another version, edited
    by hand into invalid JSON, ...)."""


class MissingExchangeError(CassetteError, LookupError):
    """A model call has no recorded exchange, and the record mode does not let it record."""


class StaleCassetteError(MissingExchangeError, AssertionError):
    """A model call's request differs from the one recorded at its place: ``diff`` (a
    ``hookproof.snapshot.SnapshotDiff``) classifies what changed."""

    def __init__(self, message: str, *, diff: Any) -> None:
        super().__init__(message)
        self.diff = diff


# -- contracts ------------------------------------------------------------------------------


class ContractViolation(HookproofError, AssertionError):
    """A contract does not hold. The message gives the invariant, the counterexample, a trace
    excerpt, how to fix it, and a snippet that replays the case."""

    def __init__(self, message: str, *, check: str, counterexample: str) -> None:
        super().__init__(message)
        self.check = check
        self.counterexample = _redact(counterexample)


class UntestedError(ContractViolation):
    """A check could not exercise what it promises, so it fails instead of passing.
    ``report`` (a hookproof.contracts.CheckReport) is what it did exercise;
    ``report.untested`` what it could not."""

    # ``report`` is typed Any so this module, which every part imports, imports no contracts.
    def __init__(self, message: str, *, check: str, counterexample: str, report: Any):
        super().__init__(message, check=check, counterexample=counterexample)
        self.report = report


class UnsupportedHypothesisError(HookproofError, RuntimeError):
    """A check ran inside a hypothesis example with a deadline, but the installed hypothesis
    gives hookproof no way to keep the check's run time out of that deadline."""


# -- templates ------------------------------------------------------------------------------


class TemplateError(HookproofError):
    """A template could not be rendered."""

    def __init__(self, template: str, problem: str, *, variable: str | None = None) -> None:
        self.template = template
        self.variable = variable
        super().__init__(f"hookproof: template {template}: {problem}")


class TemplateVariableError(TemplateError, KeyError):
    """A variable is missing, or has a type the template cannot use."""

    def __str__(self) -> str:
        return str(self.args[0])


class TemplateSyntaxError(TemplateError, InvalidInputError):
    """The template text itself is malformed."""


class UnsupportedTemplateConstruct(TemplateSyntaxError):
    """The template uses a construct outside the supported subset."""


class TemplateRenderError(TemplateError, InvalidInputError):
    """Rendering raised: an expression of the template failed (``1/0``, ``'a' + 1``, a format
    call missing arguments) or a variable could not be turned into text."""


class TemplateSecurityError(TemplateError):
    """A template reached beyond data (the Jinja2 sandbox, the Go subset's field access) or
    beyond its TemplateBudget (output, loop iterations, integer size, nesting depth)."""


# -- the Eino dialect -----------------------------------------------------------------------


class EinoError(HookproofError):
    """Base of the errors the Eino dialect reports in its event stream."""


class ExceedMaxIterationsError(EinoError):
    """The model was about to be called more than max_iterations times (Eino:
    ErrExceedMaxIterations)."""


class HandlerError(EinoError):
    """A handler's before_agent or after_agent failed; ``index`` and ``handler`` name it."""

    def __init__(self, message: str, *, index: int, handler: object) -> None:
        super().__init__(message)
        self.index = index
        self.handler = handler


class ToolCallError(EinoError):
    """A tool call failed inside the tool-call chain; the cause is ``__cause__``."""

    def __init__(self, message: str, *, name: str, call_id: str) -> None:
        super().__init__(message)
        self.name = name
        self.call_id = call_id


class ToolNotFoundError(EinoError):
    """The model called a tool this run does not have, and no unknown_tools_handler is set."""


class RunContextError(EinoError, UsageError):
    """A run-only function was called outside a run (or where the run's state is missing)."""


class SerializationError(EinoError, InvalidInputError):
    """A value cannot be saved in a checkpoint."""


class GoToolchainError(HookproofError):
    """A Go program hookproof needs (e.g. the real-Eino runner of ``hookproof conformance
    --target eino``) could not be built or run: Go is missing, or the build failed."""


class ExceedMaxRetriesError(EinoError):
    """Every retry was used (Eino: ErrExceedMaxRetries); see RetryExhaustedError."""


class RetryExhaustedError(ExceedMaxRetriesError):
    """All attempts failed: ``last_error`` is the last one, ``total_retries`` the budget."""

    def __init__(self, last_error: BaseException | None, total_retries: int) -> None:
        text = "exceeds max retries"
        super().__init__(f"{text}: last error: {last_error}" if last_error else text)
        self.last_error = last_error
        self.total_retries = total_retries

    @property
    def last_err(self) -> BaseException | None:
        """Eino's name for ``last_error``."""
        return self.last_error


def ordinal(number: int) -> str:
    """1st, 2nd, 3rd, 4th, ..., 11th, 12th, 13th, 21st, ..."""
    if 10 <= number % 100 <= 20:
        return f"{number}th"
    return f"{number}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(number % 10, 'th') }"


def did_you_mean(name: str, known: list[str] | tuple[str, ...]) -> str:
    """`` Did you mean 'x'?`` for the closest known name, or an empty string."""
    import difflib  # only on the error path: it costs `import hookproof` several ms

    hint = difflib.get_close_matches(name, list(known), n=1)
    return f" Did you mean {hint[0]!r}?" if hint else ""
