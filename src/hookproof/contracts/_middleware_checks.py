"""Checks on one middleware's wrap hooks: request immutability, metadata, retry, tool errors."""

from __future__ import annotations

import copy
import dataclasses
import inspect
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from hookproof._untimed import untimed
from hookproof.contracts._metadata import message_losses, system_losses
from hookproof.contracts._report import CheckReport, Exercise
from hookproof.contracts._violation import violation
from hookproof.errors import ImmutableError, safe_repr
from hookproof.messages import AssistantMessage, SystemMessage, ToolMessage
from hookproof.runtime import ModelRequest, ModelResponse, ToolCallRequest
from hookproof.targets import Target, middleware_target
from hookproof.targets.samples import (
    NodeSamples,
    sample_messages,
    sample_request,
    sample_state,
    sample_system_message,
)

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
WRAP_HOOKS = ("wrap_model_call", "wrap_tool_call")


def _reply(_request: Any) -> ModelResponse:
    return ModelResponse(result=(AssistantMessage(content="ok"),))


def _tool_reply(request: ToolCallRequest) -> ToolMessage:
    return ToolMessage(
        content="ok", tool_call_id=request.tool_call.id or "", name=request.tool_call.name
    )


def _hook(middleware: object, name: str) -> Callable[[Any, Callable[..., Any]], Any] | None:
    """The middleware's wrap hook as a plain call, the way its framework calls it."""
    return middleware_target(middleware).wrap_hook(middleware, name)


def _samples(middleware: object, state: Any = None, context: Any = None) -> NodeSamples:
    """The node samples of this middleware's framework, with the caller's state and runtime
    context when given."""
    samples = middleware_target(middleware).node_samples(context)
    if state is not None:
        samples = replace(samples, state=lambda: copy.deepcopy(state))
    return samples


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
    middleware: object, hook: str, samples: NodeSamples, exercise: Exercise
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


def _node_mutations(middleware: object, exercise: Exercise, samples: NodeSamples) -> list[str]:
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


@untimed
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
    target = middleware_target(middleware)
    found = _framework_mutations(middleware, target, exercise, request, context)
    if found is None:  # the framework leaves it to comparing deep copies
        sample = request if request is not None else target.sample_model_request(context)
        found = _mutation_found(middleware, "wrap_model_call", sample, _reply, exercise)
        found += _mutation_found(
            middleware, "wrap_tool_call", target.sample_tool_request(context), _tool_reply, exercise
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


def _framework_mutations(
    middleware: object, target: type[Target], exercise: Exercise, sample: Any, context: Any
) -> list[str] | None:
    """The in-place changes the framework finds its own way, or None when it has no way
    of its own."""
    labels = [f"{_name(middleware)}.{hook}" for hook in WRAP_HOOKS if _hook(middleware, hook)]
    try:
        found = target.mutation_findings(middleware, sample, context)
    except Exception as error:  # noqa: BLE001 - reported as not tried, with the error
        exercise.hook(*labels)
        _raised_on_sample(
            exercise, " / ".join(label.split(".")[-1] for label in labels), error, "request"
        )
        return []
    if found is not None:
        exercise.hook(*labels)
    return found


def _wrap_metadata(
    middleware: object, system_message: SystemMessage | None, context: Any, exercise: Exercise
) -> list[str]:
    if _hook(middleware, "wrap_model_call") is None:
        return []
    exercise.hook(f"{_name(middleware)}.wrap_model_call")
    try:
        passed = middleware_target(middleware).passed_on(middleware, system_message, context)
    except Exception as error:  # noqa: BLE001 - reported as not tried, with the error
        _raised_on_sample(exercise, "wrap_model_call", error, "request")
        return []
    found = (
        None
        if passed is None
        else system_losses(passed.system_before, passed.system_after)
        + message_losses(passed.messages_before, passed.messages_after)
    )
    if found is None:
        exercise.not_tried(
            "wrap_model_call never called its handler on the sample request, so what it "
            "passes on could not be seen"
        )
        return []
    return found


def _node_metadata(
    middleware: object, exercise: Exercise, samples: NodeSamples
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


@untimed
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
        f" and {safe_repr(system_message, 200)}" if system_message is not None else ""
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


@untimed
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
        return f"{type(error).__name__} became a success ToolMessage {safe_repr(text, 80)}"
    if type(error).__name__ not in text:
        kind = type(error).__name__
        return f"{kind} became an error ToolMessage that does not name it: {safe_repr(text, 80)}"
    return None


def _message_text(message: Any) -> str:
    """Text of a hookproof or LangChain ToolMessage."""
    if isinstance(message, ToolMessage):
        return message.text
    content = getattr(message, "content", "")
    return content if isinstance(content, str) else str(content)


def _model_request_for(middleware: object, context: Any = None) -> Any:
    return middleware_target(middleware).sample_model_request(context)


def _tool_request_for(middleware: object, context: Any = None) -> Any:
    return middleware_target(middleware).sample_tool_request(context)


@untimed
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
