"""Checks on one middleware's wrap hooks: request immutability, metadata, retry, tool errors."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from hookproof._frozen import FrozenDict, FrozenList, freeze
from hookproof.contracts._metadata import message_losses, system_losses
from hookproof.contracts._report import CheckReport, Exercise
from hookproof.contracts._violation import violation
from hookproof.errors import ImmutableError
from hookproof.messages import (
    AssistantMessage,
    ImageBlock,
    Message,
    RemoveMessage,
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
    "sample_messages",
    "sample_request",
    "sample_state",
    "sample_system_message",
]

NODE_HOOKS = ("before_agent", "before_model", "after_model", "after_agent")


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


def sample_messages() -> list[Message]:
    """Messages of every role with the metadata a careless rebuild loses."""
    return [
        UserMessage(
            content=[
                TextBlock(text="Find the refund policy.", cache_control={"type": "ephemeral"}),
                TextBlock(text="My card ends in 4242.", id="u1-b1"),
            ],
            id="u1",
            name="customer",
            additional_kwargs={"channel": "web"},
        ),
        AssistantMessage(
            content="",
            tool_calls=[ToolCall(name="sample_search", args={"query": "refund"}, id="c1")],
            id="a1",
            response_metadata={"model": "sample-model", "finish_reason": "tool_calls"},
        ),
        ToolMessage(
            content="results for refund",
            tool_call_id="c1",
            name="sample_search",
            id="t1",
            additional_kwargs={"source": "kb"},
        ),
    ]


def sample_request(model: Any = "sample-model", context: Any = None) -> ModelRequest:
    """A rich ModelRequest: messages of every role, tools, settings, state and runtime."""
    messages = sample_messages()
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


def sample_state() -> FrozenDict:
    """The state a node hook receives: the sample messages and one more key."""
    return FrozenDict({"messages": FrozenList(sample_messages()), "notes": freeze({"k": [1, 2]})})


def _reply(_request: Any) -> ModelResponse:
    return ModelResponse(result=(AssistantMessage(content="ok"),))


def _tool_request(context: Any = None) -> ToolCallRequest:
    tool_call = ToolCall(name="sample_search", args={"query": "refund"}, id="c9")
    state = FrozenDict({"messages": FrozenList()})
    runtime: ToolRuntime[Any] = ToolRuntime(
        context=context, state=state, tool_call_id="c9", tool_call=tool_call
    )
    return ToolCallRequest(tool_call=tool_call, tool=sample_search, state=state, runtime=runtime)


def _tool_reply(request: ToolCallRequest) -> ToolMessage:
    return ToolMessage(
        content="ok", tool_call_id=request.tool_call.id or "", name=request.tool_call.name
    )


def _hook(middleware: object, name: str) -> Callable[[Any, Callable[..., Any]], Any] | None:
    """The middleware's wrap hook as a plain call; an async-only hook runs on its own loop."""
    if _foreign(middleware):
        from hookproof.adapters.langchain import overridden

        return overridden(middleware, name)  # type: ignore[no-any-return]
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


def node_call(sync: Any, async_: Any) -> Callable[[Any, Any], Any] | None:
    """A node hook as a plain call ``(state, runtime)``; an async-only one runs on its loop."""
    if callable(sync):
        return sync  # type: ignore[no-any-return]
    if callable(async_):
        return lambda state, runtime: asyncio.run(async_(state, runtime))
    return None


@dataclass(frozen=True)
class _NodeSamples:
    """What node hooks are run on: the hook lookup, a sample state and runtime, and how to
    read the messages of a state update (hookproof's or LangChain's)."""

    hook: Callable[[object, str], Callable[[Any, Any], Any] | None]
    state: Callable[[], Any]
    runtime: Callable[[], Any]
    messages: Callable[[Sequence[Any]], list[Message]]
    replaces_all: Callable[[Sequence[Any]], bool]
    written: Callable[[Any, Any], list[Any] | None] = lambda outcome, _given: written_messages(
        outcome
    )
    state_messages: Callable[[Any], Sequence[Any]] = lambda state: state.get("messages", ())


def _native_node_hook(middleware: object, name: str) -> Callable[[Any, Any], Any] | None:
    return node_call(getattr(middleware, name, None), getattr(middleware, f"a{name}", None))


_NATIVE = _NodeSamples(
    hook=_native_node_hook,
    state=sample_state,
    runtime=lambda: Runtime(context=None),
    messages=lambda items: [item for item in items if isinstance(item, Message)],
    replaces_all=lambda items: any(
        isinstance(item, RemoveMessage) and item.id == RemoveMessage.ALL for item in items
    ),
)


def _samples(middleware: object, state: Any = None, context: Any = None) -> _NodeSamples:
    """The node samples for this middleware's dialect, with the caller's state and
    runtime context when given."""
    if _foreign(middleware):
        from hookproof.adapters.langchain import node_samples

        samples: _NodeSamples = node_samples(_NodeSamples, context)
    elif _eino(middleware):
        samples = _eino_samples(context)
    else:
        samples = replace(_NATIVE, runtime=lambda: Runtime(context=context))
    if state is not None:
        samples = replace(samples, state=lambda: copy.deepcopy(state))
    return samples


def _eino(middleware: object) -> bool:
    """Eino-dialect handlers (checked by module, importing nothing)."""
    return any(
        getattr(cls, "__module__", "").startswith("hookproof.eino")
        for cls in type(middleware).__mro__
    )


_EINO_HOOKS = {
    "before_model": "before_model_rewrite_state",
    "after_model": "after_model_rewrite_state",
}


def _eino_samples(context: Any) -> _NodeSamples:
    """An Eino handler's state rewrites, run as node hooks: the state is a
    ChatModelAgentState, the "runtime" the run's ctx, and a rewrite replaces the messages."""
    from hookproof.eino import (
        BaseChatModelAgentMiddleware,
        ChatModelAgentState,
        ModelContext,
        RunContext,
    )

    def hook(middleware: object, name: str) -> Callable[[Any, Any], Any] | None:
        own = _EINO_HOOKS.get(name)
        method = getattr(type(middleware), own, None) if own else None
        if method is None or method is getattr(BaseChatModelAgentMiddleware, own or "", None):
            return None
        bound = getattr(middleware, own or "")
        return lambda state, ctx: bound(ctx, state, ModelContext())[1]

    def ctx() -> Any:
        return context if isinstance(context, RunContext) else RunContext(dict(context or {}))

    def written(outcome: Any, given: Any) -> list[Any] | None:
        messages = getattr(outcome, "messages", None)
        return None if messages is None or messages == given.messages else list(messages)

    return _NodeSamples(
        hook=hook,
        state=lambda: ChatModelAgentState(messages=tuple(sample_messages())),
        runtime=ctx,
        messages=lambda items: [item for item in items if isinstance(item, Message)],
        replaces_all=lambda _items: True,
        written=written,
        state_messages=lambda state: state.messages,
    )


def _foreign(middleware: object) -> bool:
    """LangChain middleware get LangChain requests (checked by module, importing nothing)."""
    return any(
        getattr(cls, "__module__", "").startswith(("langchain", "langgraph", "deepagents"))
        for cls in type(middleware).__mro__
    )


def _name(middleware: object) -> str:
    return str(getattr(middleware, "name", type(middleware).__name__))


def _built(middleware: object) -> str:
    """Code that builds the middleware again, for a replay snippet: its repr when that is
    constructor-shaped (dataclasses), ``Name()`` when it takes no arguments, else ``Name(...)``
    with a note to fill in what the test passed."""
    cls = type(middleware)
    if dataclasses.is_dataclass(middleware):
        return repr(middleware)
    try:
        inspect.signature(cls).bind()
    except (TypeError, ValueError):
        return f"{cls.__name__}(...)  # your constructor arguments"
    return f"{cls.__name__}()"


def _ctx(context: Any) -> str:
    return "" if context is None else f", context={context!r}"


def _replay(check: str, middleware: object, extra: str = "") -> str:
    return f"{check}({_built(middleware)}{extra})"


def _present_hooks(middleware: object) -> list[str]:
    samples = _samples(middleware)
    wraps = [hook for hook in ("wrap_model_call", "wrap_tool_call") if _hook(middleware, hook)]
    return wraps + [hook for hook in NODE_HOOKS if samples.hook(middleware, hook)]


def _nothing_to_check(middleware: object, exercise: Exercise, hooks: Sequence[str]) -> None:
    if not any(hook in _present_hooks(middleware) for hook in hooks):
        exercise.not_tried(
            f"nothing to check: middleware {_name(middleware)!r} has none of the hooks this "
            f"check exercises ({', '.join(hooks)})"
        )


def _run_node_hook(
    middleware: object, hook: str, samples: _NodeSamples, exercise: Exercise
) -> tuple[Any, Any, BaseException | None]:
    """Run one node hook on a fresh sample state: (state, outcome, ImmutableError or None).
    Any other failure means the hook could not be checked on the sample."""
    method = samples.hook(middleware, hook)
    assert method is not None
    state = samples.state()
    try:
        outcome = method(state, samples.runtime())
    except ImmutableError as error:
        return state, None, error
    except Exception as error:  # noqa: BLE001 - reported as not tried, with the error
        _raised_on_sample(exercise, hook, error, "state", "state")
        return state, None, None
    exercise.hook(f"{_name(middleware)}.{hook}")
    return state, outcome, None


def _raised_on_sample(
    exercise: Exercise, hook: str, error: Exception, sample: str, param: str | None = None
) -> None:
    other = f" or {param}=... that it accepts" if param else ""
    exercise.not_tried(
        f"{hook} raised {type(error).__name__}: {error} on the sample {sample}, so it could not "
        f"be checked; pass context=... (the runtime context it reads){other}"
    )


def _short(error: BaseException) -> str:
    return str(error).split(". ")[0].replace("hookproof: ", "")


def _node_mutations(middleware: object, exercise: Exercise, samples: _NodeSamples) -> list[str]:
    found = []
    for hook in NODE_HOOKS:
        if samples.hook(middleware, hook) is None:
            continue
        before = copy.deepcopy(samples.state())
        given, _, refused = _run_node_hook(middleware, hook, samples, exercise)
        if refused is not None:
            found.append(f"{hook} tried to change the state in place ({_short(refused)})")
        elif given != before:
            found.append(f"{hook} changed the state it received in place")
    return found


def _mutation_found(
    middleware: object, hook: str, request: Any, handler: Callable[..., Any], exercise: Exercise
) -> list[str]:
    method = _hook(middleware, hook)
    if method is None:
        return []
    before = copy.deepcopy(request)
    exercise.hook(f"{_name(middleware)}.{hook}")
    try:
        method(request, handler)
    except ImmutableError as error:
        return [f"{hook} tried to change the request in place ({_short(error)})"]
    except Exception as error:  # noqa: BLE001 - reported as not tried, with the error
        _raised_on_sample(exercise, hook, error, "request", "request")
        return []
    if request != before:
        return [f"{hook} changed the request it received"]
    return []


def check_request_not_mutated(
    middleware: object,
    request: ModelRequest | None = None,
    *,
    state: Any = None,
    context: Any = None,
    allow_untested: bool = False,
) -> CheckReport:
    """The middleware's wrap hooks leave the request they receive exactly as it was, and its
    node hooks leave the state (and its messages) as it was. ``context`` is the runtime
    context the sample request and node hooks see. A middleware with none of these hooks has
    nothing to check, which fails unless ``allow_untested=True``."""
    __tracebackhide__ = True
    exercise = Exercise("check_request_not_mutated", allow_untested=allow_untested)
    _nothing_to_check(middleware, exercise, ("wrap_model_call", "wrap_tool_call", *NODE_HOOKS))
    if _foreign(middleware):
        found = _foreign_findings(middleware, exercise, "mutation_findings", request, context) or []
    else:
        sample = request if request is not None else sample_request(context=context)
        found = _mutation_found(middleware, "wrap_model_call", sample, _reply, exercise)
        found += _mutation_found(
            middleware, "wrap_tool_call", _tool_request(context), _tool_reply, exercise
        )
    found += _node_mutations(middleware, exercise, _samples(middleware, state, context))
    if found:
        raise exercise.failed(
            violation(
                "check_request_not_mutated",
                invariant="a hook never changes the request or state it was given; wrap hooks "
                "pass request.override(...) on, node hooks return their updates",
                counterexample=f"middleware {_name(middleware)!r} on a sample request and state",
                found=found,
                fix="build new lists (tools = [t for t in request.tools if ...]) and call "
                "handler(request.override(tools=tools)); in node hooks return "
                "{'messages': [...]} instead of editing state['messages']; never append, clear "
                "or assign in place",
                replay=_replay("check_request_not_mutated", middleware, _ctx(context)),
            )
        )
    return exercise.passed(
        counterexample=f"middleware {_name(middleware)!r}",
        fix="pass the middleware whose hooks you mean to check, or a request/state that its "
        "hooks accept",
    )


def _foreign_findings(
    middleware: object, exercise: Exercise, finder: str, sample: Any, context: Any
) -> list[str] | None:
    """Run a LangChain middleware's wrap hooks through the adapter's ``finder``."""
    from hookproof.adapters import langchain

    wraps = [hook for hook in ("wrap_model_call", "wrap_tool_call") if _hook(middleware, hook)]
    exercise.hook(*(f"{_name(middleware)}.{hook}" for hook in wraps))
    try:
        return getattr(langchain, finder)(middleware, sample, context)  # type: ignore[no-any-return]
    except Exception as error:  # noqa: BLE001 - reported as not tried, with the error
        _raised_on_sample(exercise, " / ".join(wraps), error, "request")
        return []


def _passed_on(middleware: object, request: ModelRequest) -> ModelRequest | None:
    seen: list[ModelRequest] = []

    def handler(changed: ModelRequest) -> ModelResponse:
        seen.append(changed)
        return _reply(changed)

    _hook(middleware, "wrap_model_call")(request, handler)  # type: ignore[misc]
    return seen[-1] if seen else None


def _wrap_metadata(
    middleware: object, system_message: SystemMessage | None, context: Any, exercise: Exercise
) -> list[str]:
    if _hook(middleware, "wrap_model_call") is None:
        return []
    if _foreign(middleware):
        found = _foreign_findings(
            middleware, exercise, "metadata_findings", system_message, context
        )
    else:
        exercise.hook(f"{_name(middleware)}.wrap_model_call")
        original = system_message if system_message is not None else sample_system_message()
        request = sample_request(context=context).override(system_message=original)
        try:
            passed = _passed_on(middleware, request)
        except Exception as error:  # noqa: BLE001 - reported as not tried, with the error
            _raised_on_sample(exercise, "wrap_model_call", error, "request")
            return []
        found = (
            None
            if passed is None
            else system_losses(original, passed.system_message)
            + message_losses(request.messages, passed.messages)
        )
    if found is None:
        exercise.not_tried(
            "wrap_model_call never called its handler on the sample request, so what it "
            "passes on could not be seen"
        )
        return []
    return found


def written_messages(outcome: Any) -> list[Any] | None:
    """The messages a node hook's outcome writes (a dict, a Command whose update is a dict
    or a list of (key, value) pairs; one message or a list), or None."""
    update = outcome if isinstance(outcome, Mapping) else getattr(outcome, "update", None)
    if isinstance(update, list | tuple):
        update = {pair[0]: pair[1] for pair in update if isinstance(pair, tuple) and len(pair) == 2}
    written = update.get("messages") if isinstance(update, Mapping) else None
    if written is None:
        return None
    return list(written) if isinstance(written, list | tuple) else [written]


def _node_metadata(
    middleware: object, exercise: Exercise, samples: _NodeSamples
) -> tuple[list[str], bool]:
    """What the node hooks lost of message metadata, and whether any of them wrote a
    message at all (a hook that writes none on the sample has shown no edit)."""
    found: list[str] = []
    wrote = False
    for hook in NODE_HOOKS:
        if samples.hook(middleware, hook) is None:
            continue
        given, outcome, refused = _run_node_hook(middleware, hook, samples, exercise)
        if refused is not None:
            found.append(f"{hook} tried to change the state in place ({_short(refused)})")
            continue
        written = samples.written(outcome, given)
        if not written:
            continue
        wrote = True
        before = samples.messages(samples.state_messages(given))
        losses = message_losses(
            before, samples.messages(written), replaced=samples.replaces_all(written)
        )
        found += [f"{hook}: {loss}" for loss in losses]
    return found, wrote


def check_metadata_preserved(
    middleware: object,
    system_message: SystemMessage | None = None,
    *,
    state: Any = None,
    context: Any = None,
    allow_untested: bool = False,
) -> CheckReport:
    """The middleware's edits keep metadata: the system message its wrap_model_call passes
    on keeps ids, names, additional_kwargs, response_metadata and every block; messages it
    passes on, and messages its node hooks write to the state, keep their id, name,
    additional_kwargs, response_metadata, tool_call_id and each block's id, cache_control and
    extras (the text may change; metadata may be added, not lost). ``context`` is the
    runtime context the sample request and node hooks see."""
    __tracebackhide__ = True
    exercise = Exercise("check_metadata_preserved", allow_untested=allow_untested)
    _nothing_to_check(middleware, exercise, ("wrap_model_call", *NODE_HOOKS))
    found = _wrap_metadata(middleware, system_message, context, exercise)
    node_found, wrote = _node_metadata(middleware, exercise, _samples(middleware, state, context))
    found += node_found
    if not wrote and not _hook(middleware, "wrap_model_call") and not exercise.untested:
        exercise.not_tried(
            "no hook wrote a message on the sample state, so no edit could be checked; pass "
            "state=... (and context=...) for which your middleware edits messages"
        )
    sample = "the given state" if state is not None else "the sample messages"
    counterexample = f"middleware {_name(middleware)!r} on {sample}" + (
        f" and {system_message!r:.200}" if system_message is not None else ""
    )
    if found:
        raise exercise.failed(
            violation(
                "check_metadata_preserved",
                invariant="editing a message keeps its metadata (and, for the system message, "
                "its existing blocks)",
                counterexample=counterexample,
                found=found,
                fix="edit with message.model_copy(update={'content': [...]}) (or "
                "system_message.model_copy(update={'content': [*old.content, block]})) instead "
                "of building a new message from text",
                replay=_replay("check_metadata_preserved", middleware, _ctx(context)),
            )
        )
    return exercise.passed(
        counterexample=counterexample,
        fix="pass the middleware whose edits you mean to check; its wrap_model_call must call "
        "its handler for the sample request (or pass state=... its node hooks accept)",
    )


class _Budget(BaseException):
    """Raised by the probe handler to stop a retry loop that does not stop by itself; a
    BaseException, so `except Exception` in the hook under test cannot swallow it."""


def _count_calls(
    middleware: object, sample: Any, error: BaseException, cap: int
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
        _hook(middleware, "wrap_model_call")(sample, handler)  # type: ignore[misc]
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
    context: Any = None,
    allow_untested: bool = False,
) -> CheckReport:
    """A wrap hook that re-calls its handler does so at most ``max_attempts`` times, only for
    retryable errors, and lets the last error through instead of inventing a success. A
    middleware without wrap_model_call, or one that never calls its handler, is not a pass."""
    __tracebackhide__ = True
    exercise = Exercise("check_bounded_retry", allow_untested=allow_untested)
    _nothing_to_check(middleware, exercise, ("wrap_model_call",))
    sample = _model_request_for(middleware, context)
    found = _retry_problems(middleware, exercise, sample, max_attempts, retryable, not_retryable)
    if found:
        raise exercise.failed(
            violation(
                "check_bounded_retry",
                invariant=f"retry only {[t.__name__ for t in retryable]}, at most "
                f"{max_attempts} attempts, then raise",
                counterexample=f"middleware {_name(middleware)!r} with a handler that always fails",
                found=found,
                fix="catch only the retryable exception types, count attempts, and re-raise the "
                "last error when the budget is spent",
                replay=_replay(
                    "check_bounded_retry",
                    middleware,
                    f", max_attempts={max_attempts}{_ctx(context)}",
                ),
            )
        )
    return exercise.passed(
        counterexample=f"middleware {_name(middleware)!r}",
        fix="pass the middleware that retries; its wrap_model_call must call its handler for "
        "the sample request",
    )


def _retry_problems(
    middleware: object,
    exercise: Exercise,
    sample: Any,
    max_attempts: int,
    retryable: tuple[type[BaseException], ...],
    not_retryable: tuple[BaseException, ...],
) -> list[str]:
    if _hook(middleware, "wrap_model_call") is None:
        return []
    exercise.hook(f"{_name(middleware)}.wrap_model_call")
    found: list[str] = []
    error = retryable[0]("transient failure")
    calls, outcome = _count_calls(middleware, sample, error, cap=max_attempts * 10)
    if calls == 0 and outcome is not None and not isinstance(outcome, type(error)):
        _raised_on_sample(exercise, "wrap_model_call", outcome, "request")  # type: ignore[arg-type]
        return found
    if calls == 0:
        exercise.not_tried(
            "wrap_model_call never called its handler on the sample request, so no retry "
            "could be observed"
        )
        return found
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
        calls, outcome = _count_calls(middleware, sample, permanent, cap=max_attempts * 10)
        if calls > 1:
            found.append(f"a {type(permanent).__name__} (not retryable) was tried {calls} times")
        if outcome is None:
            found.append(f"a {type(permanent).__name__} was swallowed: the hook returned a result")
    return found


def _surfaced(
    middleware: object, error: BaseException, exercise: Exercise, context: Any
) -> str | None:
    method = _hook(middleware, "wrap_tool_call")
    if method is None:
        return None
    exercise.hook(f"{_name(middleware)}.wrap_tool_call")
    called = []

    def handler(_request: Any) -> Any:
        called.append(True)
        raise error

    try:
        result = method(_tool_request_for(middleware, context), handler)
    except BaseException as raised:  # noqa: BLE001 - re-raising is the accepted outcome
        if not called and isinstance(raised, Exception):
            _raised_on_sample(exercise, "wrap_tool_call", raised, "tool call")
            return None
        return (
            None
            if raised is error or isinstance(raised, type(error))
            else (f"{type(error).__name__} came out as {type(raised).__name__}: {raised}")
        )
    if not called:
        exercise.not_tried(
            f"wrap_tool_call never called its handler on the sample call, so a "
            f"{type(error).__name__} from the tool could not be raised"
        )
        return None
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


def _model_request_for(middleware: object, context: Any = None) -> Any:
    if _foreign(middleware):
        from hookproof.adapters.langchain import sample_model_request

        return sample_model_request(context=context)
    return sample_request(context=context)


def _tool_request_for(middleware: object, context: Any = None) -> Any:
    if _foreign(middleware):
        from hookproof.adapters.langchain import sample_tool_call_request

        return sample_tool_call_request(context)
    return _tool_request(context)


def check_tool_errors_surface(
    middleware: object, *, context: Any = None, allow_untested: bool = False
) -> CheckReport:
    """Permission denials and programming errors in tools are re-raised, or become an
    error-status ToolMessage naming the error type; never a success. A middleware without
    wrap_tool_call, or one that never calls its handler, is not a pass."""
    __tracebackhide__ = True
    exercise = Exercise("check_tool_errors_surface", allow_untested=allow_untested)
    _nothing_to_check(middleware, exercise, ("wrap_tool_call",))
    errors = (
        PermissionError("role 'guest' may not call this tool"),
        KeyError("customer"),
        TypeError("bad call"),
    )
    found = [
        problem for error in errors if (problem := _surfaced(middleware, error, exercise, context))
    ]
    if found:
        raise exercise.failed(
            violation(
                "check_tool_errors_surface",
                invariant="tool failures stay visible: re-raised, or an error ToolMessage "
                "naming it",
                counterexample=f"middleware {_name(middleware)!r} around tools that raise",
                found=found,
                fix="catch only the errors you mean to translate, return "
                "ToolMessage(..., status='error') naming the error type, and let the rest "
                "propagate; never `except Exception: return 'failed'`",
                replay=_replay("check_tool_errors_surface", middleware, _ctx(context)),
            )
        )
    return exercise.passed(
        counterexample=f"middleware {_name(middleware)!r}",
        fix="pass the middleware that wraps tool calls; its wrap_tool_call must call its "
        "handler for the sample call",
    )
