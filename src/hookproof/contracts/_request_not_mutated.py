"""check_request_not_mutated: hooks leave the request and state they receive as they were."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from hookproof._support.untimed import untimed
from hookproof.contracts import _middleware_hooks as hooks
from hookproof.contracts._report import CheckReport, Exercise
from hookproof.errors import ImmutableError
from hookproof.messages import AssistantMessage, ToolMessage
from hookproof.runtime import ModelRequest, ModelResponse, ToolCallRequest
from hookproof.targets import HookSampler, hook_sampler
from hookproof.targets.sampler import NodeSamples

__all__ = ["check_request_not_mutated"]


def _reply(_request: Any) -> ModelResponse:
    return ModelResponse(result=(AssistantMessage(content="ok"),))


def _tool_reply(request: ToolCallRequest) -> ToolMessage:
    return ToolMessage(
        content="ok", tool_call_id=request.tool_call.id or "", name=request.tool_call.name
    )


def _node_mutations(middleware: object, exercise: Exercise, samples: NodeSamples) -> list[str]:
    found = []
    for hook in hooks.NODE_HOOKS:
        if samples.hook(middleware, hook) is None:
            continue
        before = copy.deepcopy(samples.state())
        given, _, refused = hooks.run_node_hook(middleware, hook, samples, exercise)
        if refused is not None:
            found.append(
                f"{hook} tried to change the state in place ({hooks.short_error(refused)})"
            )
        elif given != before:
            found.append(f"{hook} changed the state it received in place")
    return found


def _mutation_found(
    middleware: object, hook: str, request: Any, handler: Callable[..., Any], exercise: Exercise
) -> list[str]:
    method = hooks.hook_of(middleware, hook)
    if method is None:
        return []
    before = copy.deepcopy(request)
    exercise.hook(f"{hooks.name_of(middleware)}.{hook}")
    try:
        method(request, handler)
    except ImmutableError as error:
        return [f"{hook} tried to change the request in place ({hooks.short_error(error)})"]
    except Exception as error:  # noqa: BLE001 - reported as not tried, with the error
        hooks.raised_on_sample(exercise, hook, error, "request", "request")
        return []
    if request != before:
        return [f"{hook} changed the request it received"]
    return []


_PROMISE = hooks.Promise(
    invariant="a hook never changes the request or state it was given; wrap hooks pass "
    "request.override(...) on, node hooks return their updates",
    fix="build new lists (tools = [t for t in request.tools if ...]) and call "
    "handler(request.override(tools=tools)); in node hooks return {'messages': [...]} "
    "instead of editing state['messages']; never append, clear or assign in place",
    to_exercise="pass the middleware whose hooks you mean to check, or a request/state that "
    "its hooks accept",
)


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
    hooks.nothing_to_check(
        middleware, exercise, ("wrap_model_call", "wrap_tool_call", *hooks.NODE_HOOKS)
    )
    sampler = hook_sampler(middleware)
    found = _framework_mutations(middleware, sampler, exercise, request, context)
    if found is None:  # the framework leaves it to comparing deep copies
        sample = request if request is not None else sampler.sample_model_request(context=context)
        found = _mutation_found(middleware, "wrap_model_call", sample, _reply, exercise)
        tool_request = sampler.sample_tool_request(context=context)
        found += _mutation_found(middleware, "wrap_tool_call", tool_request, _tool_reply, exercise)
    found += _node_mutations(
        middleware, exercise, hooks.node_samples_of(middleware, state, context)
    )
    return hooks.verdict(
        exercise,
        middleware,
        _PROMISE,
        found,
        f"middleware {hooks.name_of(middleware)!r} on a sample request and state",
        replay_args=hooks.context_arg(context),
    )


def _framework_mutations(
    middleware: object, sampler: HookSampler, exercise: Exercise, sample: Any, context: Any
) -> list[str] | None:
    """The in-place changes the framework finds its own way, or None when it has no way
    of its own."""
    labels = [
        f"{hooks.name_of(middleware)}.{hook}"
        for hook in hooks.WRAP_HOOKS
        if hooks.hook_of(middleware, hook)
    ]
    try:
        found = sampler.mutation_findings(middleware, sample, context)
    except Exception as error:  # noqa: BLE001 - reported as not tried, with the error
        exercise.hook(*labels)
        hooks.raised_on_sample(
            exercise, " / ".join(label.split(".")[-1] for label in labels), error, "request"
        )
        return []
    if found is not None:
        exercise.hook(*labels)
    return found
