"""Checks on one middleware's wrap hooks: request immutability, metadata, retry, tool errors."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from typing import Any

from hookproof._frozen import FrozenDict, FrozenList
from hookproof.contracts._violation import violation
from hookproof.errors import ImmutableError
from hookproof.messages import (
    AssistantMessage,
    ImageBlock,
    SystemMessage,
    TextBlock,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from hookproof.runtime import ModelRequest, ModelResponse, Runtime, ToolCallRequest, ToolRuntime
from hookproof.tools import tool

__all__ = [
    "check_bounded_retry",
    "check_metadata_preserved",
    "check_request_not_mutated",
    "check_tool_errors_surface",
    "sample_request",
    "sample_system_message",
]


@tool
def sample_search(query: str, limit: int = 5) -> str:
    """Search the sample knowledge base."""
    return f"results for {query}"


@tool
def sample_export(customer_id: str) -> str:
    """Export a sample report."""
    return f"report {customer_id}"


def sample_system_message() -> SystemMessage:
    """A system message with every kind of metadata a careless edit can lose."""
    return SystemMessage(
        content=[
            TextBlock(
                text="You are a careful assistant.", id="b0", cache_control={"type": "ephemeral"}
            ),
            ImageBlock(url="https://example.invalid/logo.png", mime_type="image/png", id="b1"),
            TextBlock(text="Cite your sources.", extras={"origin": "policy"}),
        ],
        id="system-1",
        name="base-prompt",
        additional_kwargs={"tenant": "t-1", "tags": ["a", "b"]},
        response_metadata={"revision": 7},
    )


def sample_request(model: Any = "sample-model", context: Any = None) -> ModelRequest:
    """A rich ModelRequest: messages of every role, tools, settings, state and runtime."""
    messages = [
        UserMessage(content="Find the refund policy.", id="u1"),
        AssistantMessage(
            content="",
            tool_calls=[ToolCall(name="sample_search", args={"query": "refund"}, id="c1")],
        ),
        ToolMessage(content="results for refund", tool_call_id="c1", name="sample_search"),
    ]
    return ModelRequest.create(
        model=model,
        messages=messages,
        system_message=sample_system_message(),
        tools=[sample_search, sample_export],
        tool_choice="auto",
        state={"messages": messages, "notes": {"k": [1, 2]}},
        runtime=Runtime(context=context),
        model_settings={"temperature": 0.2, "stop": ["END"]},
    )


def _reply(_request: Any) -> ModelResponse:
    return ModelResponse(result=(AssistantMessage(content="ok"),))


def _tool_request() -> ToolCallRequest:
    tool_call = ToolCall(name="sample_search", args={"query": "refund"}, id="c9")
    state = FrozenDict({"messages": FrozenList()})
    runtime: ToolRuntime[Any] = ToolRuntime(state=state, tool_call_id="c9", tool_call=tool_call)
    return ToolCallRequest(tool_call=tool_call, tool=sample_search, state=state, runtime=runtime)


def _tool_reply(request: ToolCallRequest) -> ToolMessage:
    return ToolMessage(
        content="ok", tool_call_id=request.tool_call.id or "", name=request.tool_call.name
    )


def _hook(middleware: object, name: str) -> Callable[[Any, Callable[..., Any]], Any] | None:
    """The middleware's wrap hook as a plain call; an async-only hook runs on its own loop."""
    sync = getattr(middleware, name, None)
    if callable(sync):
        return sync  # type: ignore[no-any-return]
    async_ = getattr(middleware, f"a{name}", None)
    return sync_call(async_) if callable(async_) else None


def sync_call(async_hook: Callable[..., Any]) -> Callable[[Any, Callable[..., Any]], Any]:
    """An async wrap hook as a plain call: it runs on its own loop with a sync handler."""

    def run(request: Any, handler: Callable[..., Any]) -> Any:
        async def async_handler(changed: Any) -> Any:
            return handler(changed)

        return asyncio.run(async_hook(request, async_handler))

    return run


def _foreign(middleware: object) -> bool:
    """LangChain middleware get LangChain requests (checked by module, importing nothing)."""
    return any(
        getattr(cls, "__module__", "").startswith(("langchain", "langgraph", "deepagents"))
        for cls in type(middleware).__mro__
    )


def _name(middleware: object) -> str:
    return str(getattr(middleware, "name", type(middleware).__name__))


def _mutation_found(
    middleware: object, hook: str, request: Any, handler: Callable[..., Any]
) -> list[str]:
    method = getattr(middleware, hook, None)
    if method is None:
        return []
    before = copy.deepcopy(request)
    try:
        method(request, handler)
    except ImmutableError as error:
        first = str(error).split(". ")[0].replace("hookproof: ", "")
        return [f"{hook} tried to change the request in place ({first})"]
    if request != before:
        return [f"{hook} changed the request it received"]
    return []


def check_request_not_mutated(middleware: object, request: ModelRequest | None = None) -> None:
    """The middleware's wrap hooks leave the request they receive exactly as it was."""
    __tracebackhide__ = True
    if _foreign(middleware):
        from hookproof.adapters.langchain import mutation_findings

        found = mutation_findings(middleware, request)
    else:
        sample = request if request is not None else sample_request()
        found = _mutation_found(middleware, "wrap_model_call", sample, _reply)
        found += _mutation_found(middleware, "wrap_tool_call", _tool_request(), _tool_reply)
    if found:
        raise violation(
            "check_request_not_mutated",
            invariant="a wrap hook never changes the request it was given; it passes "
            "request.override(...) on instead",
            counterexample=f"middleware {_name(middleware)!r} on a sample request",
            found=found,
            fix="build new lists (tools = [t for t in request.tools if ...]) and call "
            "handler(request.override(tools=tools)); never append, clear or assign in place",
            replay=f"check_request_not_mutated({_name(middleware)})",
        )


def _passed_on(middleware: object, request: ModelRequest) -> ModelRequest | None:
    seen: list[ModelRequest] = []

    def handler(changed: ModelRequest) -> ModelResponse:
        seen.append(changed)
        return _reply(changed)

    _hook(middleware, "wrap_model_call")(request, handler)  # type: ignore[misc]
    return seen[-1] if seen else None


def _metadata_losses(before: SystemMessage, after: SystemMessage | None) -> list[str]:
    if after is None:
        return ["the system message was removed"]
    found = [
        f"{field} {getattr(before, field)!r} became {getattr(after, field)!r}"
        for field in ("id", "name", "additional_kwargs", "response_metadata")
        if getattr(before, field) != getattr(after, field)
    ]
    kept = list(after.content)
    for index, block in enumerate(before.content):
        if block not in kept:
            found.append(f"block {index} ({block.type}) was lost or altered: {block!r:.120}")
    return found


def check_metadata_preserved(
    middleware: object, system_message: SystemMessage | None = None
) -> None:
    """The middleware's system-message edit keeps ids, names, additional_kwargs,
    response_metadata, block cache_control and every other block."""
    __tracebackhide__ = True
    if _foreign(middleware):
        from hookproof.adapters.langchain import metadata_findings

        found = metadata_findings(middleware, system_message)
        original: Any = system_message
    else:
        original = system_message if system_message is not None else sample_system_message()
        if _hook(middleware, "wrap_model_call") is None:
            return
        request = sample_request().override(system_message=original)
        passed = _passed_on(middleware, request)
        found = (
            ["wrap_model_call never called its handler, so the edit cannot be checked"]
            if passed is None
            else _metadata_losses(original, passed.system_message)
        )
    if found:
        raise violation(
            "check_metadata_preserved",
            invariant="editing the system message keeps its metadata and existing blocks",
            counterexample=f"middleware {_name(middleware)!r} on {original!r:.200}",
            found=found,
            fix="edit with system_message.model_copy(update={'content': [*old.content, block]}) "
            "instead of building SystemMessage(content=...) from text",
            replay=f"check_metadata_preserved({_name(middleware)})",
        )


class _Budget(BaseException):
    """Raised by the probe handler to stop a retry loop that does not stop by itself; a
    BaseException, so `except Exception` in the hook under test cannot swallow it."""


def _count_calls(
    middleware: object, error: BaseException, cap: int
) -> tuple[int, BaseException | None]:
    calls = 0

    def handler(_request: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls > cap:
            raise _Budget()
        raise error

    outcome: BaseException | None = None
    try:
        _hook(middleware, "wrap_model_call")(_model_request_for(middleware), handler)  # type: ignore[misc]
    except _Budget:
        outcome = _Budget()
    except Exception as raised:  # noqa: BLE001 - whatever escapes is what we judge
        outcome = raised
    return calls, outcome


def check_bounded_retry(
    middleware: object,
    *,
    max_attempts: int = 5,
    retryable: tuple[type[BaseException], ...] = (ConnectionError, TimeoutError),
    not_retryable: tuple[BaseException, ...] = (
        PermissionError("denied"),
        ValueError("bad schema"),
    ),
) -> None:
    """A wrap hook that re-calls its handler does so at most ``max_attempts`` times, only for
    retryable errors, and lets the last error through instead of inventing a success."""
    __tracebackhide__ = True
    if _hook(middleware, "wrap_model_call") is None:
        return
    found: list[str] = []
    error = retryable[0]("transient failure")
    calls, outcome = _count_calls(middleware, error, cap=max_attempts * 10)
    if isinstance(outcome, _Budget):
        found.append(
            f"a {type(error).__name__} was retried more than {max_attempts * 10} times (no bound)"
        )
    elif calls > max_attempts:
        found.append(f"a {type(error).__name__} was retried {calls} times (bound {max_attempts})")
    elif outcome is None:
        found.append(
            f"after {calls} failing attempt(s) the hook returned a result instead of raising"
        )
    for permanent in not_retryable:
        calls, outcome = _count_calls(middleware, permanent, cap=max_attempts * 10)
        if calls > 1:
            found.append(f"a {type(permanent).__name__} (not retryable) was tried {calls} times")
        if outcome is None:
            found.append(f"a {type(permanent).__name__} was swallowed: the hook returned a result")
    if found:
        raise violation(
            "check_bounded_retry",
            invariant=f"retry only {[t.__name__ for t in retryable]}, at most {max_attempts} "
            "attempts, then raise",
            counterexample=f"middleware {_name(middleware)!r} with a handler that always fails",
            found=found,
            fix="catch only the retryable exception types, count attempts, and re-raise the "
            "last error when the budget is spent",
            replay=f"check_bounded_retry({_name(middleware)}, max_attempts={max_attempts})",
        )


def _surfaced(middleware: object, error: BaseException) -> str | None:
    method = _hook(middleware, "wrap_tool_call")
    if method is None:
        return None

    def handler(_request: Any) -> Any:
        raise error

    try:
        result = method(_tool_request_for(middleware), handler)
    except BaseException as raised:  # noqa: BLE001 - re-raising is the accepted outcome
        return (
            None
            if raised is error or isinstance(raised, type(error))
            else (f"{type(error).__name__} came out as {type(raised).__name__}: {raised}")
        )
    status = getattr(result, "status", None)
    text = _message_text(result)
    if status is None:
        return f"{type(error).__name__} became a {type(result).__name__}"
    if status != "error":
        return f"{type(error).__name__} became a success ToolMessage {text!r:.80}"
    if type(error).__name__ not in text:
        kind = type(error).__name__
        return f"{kind} became an error ToolMessage that does not name it: {text!r:.80}"
    return None


def _message_text(message: Any) -> str:
    """Text of a hookproof or LangChain ToolMessage."""
    if isinstance(message, ToolMessage):
        return message.text
    content = getattr(message, "content", "")
    return content if isinstance(content, str) else str(content)


def _model_request_for(middleware: object) -> Any:
    if _foreign(middleware):
        from hookproof.adapters.langchain import sample_model_request

        return sample_model_request()
    return sample_request()


def _tool_request_for(middleware: object) -> Any:
    if _foreign(middleware):
        from hookproof.adapters.langchain import sample_tool_call_request

        return sample_tool_call_request()
    return _tool_request()


def check_tool_errors_surface(middleware: object) -> None:
    """Permission denials and programming errors in tools are re-raised, or become an
    error-status ToolMessage naming the error type; never a success."""
    __tracebackhide__ = True
    errors = (
        PermissionError("role 'guest' may not call this tool"),
        KeyError("customer"),
        TypeError("bad call"),
    )
    found = [problem for error in errors if (problem := _surfaced(middleware, error))]
    if found:
        raise violation(
            "check_tool_errors_surface",
            invariant="tool failures stay visible: re-raised, or an error ToolMessage naming it",
            counterexample=f"middleware {_name(middleware)!r} around tools that raise",
            found=found,
            fix="catch only the errors you mean to translate, return "
            "ToolMessage(..., status='error') naming the error type, and let the rest propagate; "
            "never `except Exception: return 'failed'`",
            replay=f"check_tool_errors_surface({_name(middleware)})",
        )
