"""What the middleware checks share: one middleware's hooks called the way its framework
calls them (through the framework's HookSampler), and how a check reports a hook it could
not try, or a replay that builds the middleware again."""

from __future__ import annotations

import copy
import dataclasses
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from hookproof.contracts._report import CheckReport, Exercise
from hookproof.contracts._violation import violation
from hookproof.errors import ImmutableError
from hookproof.targets import hook_sampler
from hookproof.targets.sampler import NodeSamples

NODE_HOOKS = ("before_agent", "before_model", "after_model", "after_agent")
WRAP_HOOKS = ("wrap_model_call", "wrap_tool_call")


def hook_of(middleware: object, name: str) -> Callable[[Any, Callable[..., Any]], Any] | None:
    """The middleware's wrap hook as a plain call, the way its framework calls it."""
    return hook_sampler(middleware).wrap_hook(middleware, name)


def node_samples_of(middleware: object, state: Any = None, context: Any = None) -> NodeSamples:
    """The node samples of this middleware's framework, with the caller's state and runtime
    context when given."""
    samples = hook_sampler(middleware).node_samples(context)
    if state is not None:
        samples = replace(samples, state=lambda: copy.deepcopy(state))
    return samples


def name_of(middleware: object) -> str:
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


def context_arg(context: Any) -> str:
    return "" if context is None else f", context={context!r}"


def replay(check: str, middleware: object, extra: str = "") -> str:
    return f"{check}({_built(middleware)}{extra})"


def _present_hooks(middleware: object) -> list[str]:
    samples = node_samples_of(middleware)
    wraps = [hook for hook in ("wrap_model_call", "wrap_tool_call") if hook_of(middleware, hook)]
    return wraps + [hook for hook in NODE_HOOKS if samples.hook(middleware, hook)]


def nothing_to_check(middleware: object, exercise: Exercise, hooks: Sequence[str]) -> None:
    if not any(hook in _present_hooks(middleware) for hook in hooks):
        exercise.not_tried(
            f"nothing to check: middleware {name_of(middleware)!r} has none of the hooks this "
            f"check exercises ({', '.join(hooks)})"
        )


def run_node_hook(
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
        raised_on_sample(exercise, hook, error, "state", "state")
        return state, None, None
    exercise.hook(f"{name_of(middleware)}.{hook}")
    return state, outcome, None


def raised_on_sample(
    exercise: Exercise, hook: str, error: Exception, sample: str, param: str | None = None
) -> None:
    other = f" or {param}=... that it accepts" if param else ""
    exercise.not_tried(
        f"{hook} raised {type(error).__name__}: {error} on the sample {sample}, so it could not "
        f"be checked; pass context=... (the runtime context it reads){other}"
    )


def short_error(error: BaseException) -> str:
    return str(error).split(". ")[0].replace("hookproof: ", "")


@dataclass(frozen=True)
class Promise:
    """What a middleware check promises, told with its verdict either way."""

    invariant: str
    fix: str  # how to keep the promise, when it is broken
    to_exercise: str  # how to have the check exercise the middleware, when it passes


def verdict(
    exercise: Exercise,
    middleware: object,
    promise: Promise,
    found: list[str],
    counterexample: str,
    *,
    replay_args: str = "",
    passed: str | None = None,
) -> CheckReport:
    """The violation of ``promise`` when anything was ``found`` (``counterexample`` says what
    the middleware was run on; the replay rebuilds it with ``replay_args``), else the
    report, whose counterexample is ``passed`` (the middleware's name by default)."""
    __tracebackhide__ = True
    if found:
        raise exercise.failed(
            violation(
                exercise.check,
                invariant=promise.invariant,
                counterexample=counterexample,
                found=found,
                fix=promise.fix,
                replay=replay(exercise.check, middleware, replay_args),
            )
        )
    subject = f"middleware {name_of(middleware)!r}"
    return exercise.passed(counterexample=passed or subject, fix=promise.to_exercise)
