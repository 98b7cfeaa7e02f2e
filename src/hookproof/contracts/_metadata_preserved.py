"""check_metadata_preserved: a middleware's edits keep message metadata."""

from __future__ import annotations

from typing import Any

from hookproof._support.untimed import untimed
from hookproof.contracts import _middleware_hooks as hooks
from hookproof.contracts._metadata import message_losses, system_losses
from hookproof.contracts._report import CheckReport, Exercise
from hookproof.errors import safe_repr
from hookproof.messages import SystemMessage
from hookproof.targets import hook_sampler
from hookproof.targets.sampler import NodeSamples

__all__ = ["check_metadata_preserved"]


def _wrap_metadata(
    middleware: object, system_message: SystemMessage | None, context: Any, exercise: Exercise
) -> list[str]:
    if hooks.hook_of(middleware, "wrap_model_call") is None:
        return []
    exercise.hook(f"{hooks.name_of(middleware)}.wrap_model_call")
    try:
        passed = hook_sampler(middleware).passed_on(middleware, system_message, context)
    except Exception as error:  # noqa: BLE001 - reported as not tried, with the error
        hooks.raised_on_sample(exercise, "wrap_model_call", error, "request")
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
    for hook in hooks.NODE_HOOKS:
        if samples.hook(middleware, hook) is None:
            continue
        given, outcome, refused = hooks.run_node_hook(middleware, hook, samples, exercise)
        if refused is not None:
            found.append(
                f"{hook} tried to change the state in place ({hooks.short_error(refused)})"
            )
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


_PROMISE = hooks.Promise(
    invariant="editing a message keeps its metadata (and, for the system message, its "
    "existing blocks)",
    fix="edit with message.model_copy(update={'content': [...]}) (or "
    "system_message.model_copy(update={'content': [*old.content, block]})) instead of "
    "building a new message from text",
    to_exercise="pass the middleware whose edits you mean to check; its wrap_model_call must "
    "call its handler for the sample request (or pass state=... its node hooks accept)",
)


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
    hooks.nothing_to_check(middleware, exercise, ("wrap_model_call", *hooks.NODE_HOOKS))
    found = _wrap_metadata(middleware, system_message, context, exercise)
    node_found, wrote = _node_metadata(
        middleware, exercise, hooks.node_samples_of(middleware, state, context)
    )
    found += node_found
    if not wrote and not hooks.hook_of(middleware, "wrap_model_call") and not exercise.untested:
        exercise.not_tried(
            "no hook wrote a message on the sample state, so no edit could be checked; pass "
            "state=... (and context=...) for which your middleware edits messages"
        )
    sample = "the given state" if state is not None else "the sample messages"
    counterexample = f"middleware {hooks.name_of(middleware)!r} on {sample}" + (
        f" and {safe_repr(system_message, 200)}" if system_message is not None else ""
    )
    return hooks.verdict(
        exercise,
        middleware,
        _PROMISE,
        found,
        counterexample,
        replay_args=hooks.context_arg(context),
        passed=counterexample,
    )
