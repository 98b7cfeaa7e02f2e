"""wrap_model_call and wrap_tool_call hooks as engine layers, with LangChain v1's contract
checked at each hook's boundary: what it passes to its handler and what it returns."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from operator import itemgetter
from typing import Any, NamedTuple

from hookproof._engine import Layer, LayerContract
from hookproof.errors import UnsupportedCommandError, UsageError
from hookproof.messages import AssistantMessage, ToolMessage
from hookproof.requests import (
    NO_RESUME,
    Command,
    ExtendedModelResponse,
    ModelRequest,
    ModelResponse,
    ToolCallRequest,
)

__all__ = ["Answer", "Said", "check_commands", "model_layer", "tool_layer"]


class Said(NamedTuple):
    """A Command a layer's ExtendedModelResponse carried, and the middleware that said it."""

    command: Command
    owner: str


class Answer(NamedTuple):
    """A model call's answer between layers: the response, and the Commands that the
    layers' ExtendedModelResponses carried (innermost first)."""

    response: ModelResponse
    commands: tuple[Said, ...]


def model_layer(owner: str, sync: Any, async_: Any) -> Layer:
    hook = "wrap_model_call"

    def checked(request: ModelRequest, inner: Callable[[Any], Answer]) -> Answer:
        said: list[tuple[Said, ...]] = [()]

        def handler(changed: Any) -> ModelResponse:
            if type(changed) is not ModelRequest:  # a subclass is checked by isinstance
                _check_request(changed, ModelRequest, owner, hook)
            said[0] = ()  # a retry discards what inner layers said during the failed attempt
            answer = inner(changed)
            said[0] = answer.commands
            return answer.response

        return _answer(sync(request, handler), said[0], owner)

    async def achecked(request: ModelRequest, inner: Callable[[Any], Awaitable[Answer]]) -> Answer:
        said: list[tuple[Said, ...]] = [()]

        async def handler(changed: Any) -> ModelResponse:
            _check_request(changed, ModelRequest, owner, hook)
            said[0] = ()
            answer = await inner(changed)
            said[0] = answer.commands
            return answer.response

        return _answer(await async_(request, handler), said[0], owner)

    def check(changed: Any) -> None:
        _check_request(changed, ModelRequest, owner, hook)

    def result(outcome: Any, last: Answer | None) -> Answer:
        commands = () if last is None else last[1]
        if type(outcome) is ModelResponse:  # _answer's common case, inline
            return _tuple_new(Answer, (outcome, commands))
        return _answer(outcome, commands, owner)

    contract = None if not sync else LayerContract(sync, ModelRequest, check, _response, result)
    return Layer(
        owner, hook, checked if sync else None, achecked if async_ else None, contract=contract
    )


_response = itemgetter(0)  # an Answer's response, read in C


def tool_layer(owner: str, sync: Any, async_: Any) -> Layer:
    hook = "wrap_tool_call"

    def checked(request: ToolCallRequest, inner: Callable[[Any], Any]) -> Any:
        def handler(changed: Any) -> Any:
            if type(changed) is not ToolCallRequest:  # a subclass is checked by isinstance
                _check_request(changed, ToolCallRequest, owner, hook)
            return inner(changed)

        return _tool_result(sync(request, handler), owner)

    async def achecked(request: ToolCallRequest, inner: Callable[[Any], Awaitable[Any]]) -> Any:
        async def handler(changed: Any) -> Any:
            _check_request(changed, ToolCallRequest, owner, hook)
            return await inner(changed)

        return _tool_result(await async_(request, handler), owner)

    def check(changed: Any) -> None:
        _check_request(changed, ToolCallRequest, owner, hook)

    def result(outcome: Any, _last: Any) -> ToolMessage | Command:
        return outcome if type(outcome) is ToolMessage else _tool_result(outcome, owner)

    contract = None if not sync else LayerContract(sync, ToolCallRequest, check, None, result)
    return Layer(
        owner, hook, checked if sync else None, achecked if async_ else None, contract=contract
    )


def _check_request(request: Any, expected: type, owner: str, hook: str) -> None:
    if not isinstance(request, expected):
        raise UsageError(
            f"hookproof: {owner}.{hook} called its handler with a {type(request).__name__}; "
            f"pass the {expected.__name__} it received (or request.override(...))."
        )


# An Answer built as the tuple it is: NamedTuple's __new__ is a Python function.
_tuple_new = tuple.__new__


def _answer(outcome: Any, inner_commands: tuple[Said, ...], owner: str) -> Answer:
    if isinstance(outcome, ModelResponse):
        return _tuple_new(Answer, (outcome, inner_commands))
    if isinstance(outcome, AssistantMessage):
        return Answer(ModelResponse(result=(outcome,)), inner_commands)
    if isinstance(outcome, ExtendedModelResponse):
        command = outcome.command
        if command is None:
            return Answer(outcome.model_response, inner_commands)
        # Checked once the outermost layer has returned (check_commands), as LangChain does:
        # an outer layer never sees the refusal as an error of its handler.
        return Answer(outcome.model_response, (*inner_commands, Said(command, owner)))
    raise UsageError(
        f"hookproof: {owner}.wrap_model_call returned {type(outcome).__name__}; it must return "
        "a ModelResponse, an AssistantMessage or an ExtendedModelResponse (usually what "
        "handler(request) returned)."
    )


def _tool_result(outcome: Any, owner: str) -> ToolMessage | Command:
    if isinstance(outcome, ToolMessage | Command):
        return outcome
    raise UsageError(
        f"hookproof: {owner}.wrap_tool_call returned {type(outcome).__name__}; it must return "
        "a ToolMessage or a Command (usually what handler(request) returned)."
    )


def check_commands(commands: tuple[Said, ...]) -> None:
    """Refuse what a model step cannot do with a wrap_model_call's Command, innermost first
    (LangChain raises NotImplementedError for the same: a jump, a resume or another graph)."""
    for command, owner in commands:
        if command.goto:
            why = "a wrap hook can update state but not jump"
            raise _unsupported(owner, "goto", f"goto={command.goto!r}", why)
        resume = command.resume
        if resume is not NO_RESUME and resume:  # LangChain lets a falsy resume through too
            raise _unsupported(owner, "resume", "resume=...", "only invoke() input resumes a run")
        if getattr(command, "graph", None):
            raise _unsupported(owner, "graph", "graph=...", "a model step has no parent graph")


def _unsupported(owner: str, name: str, field: str, why: str) -> UnsupportedCommandError:
    # LangChain's own sentence first: tests written for create_agent match on it.
    return UnsupportedCommandError(
        f"Command {name} is not yet supported in wrap_model_call middleware. hookproof: "
        f"{owner}.wrap_model_call returned a Command with {field} in its "
        f"ExtendedModelResponse; {why}, and LangChain's create_agent refuses it too. Return "
        "Command(update=...) only, and jump with {'jump_to': ...} from a before_model or "
        "after_model hook declared with can_jump_to."
    )
