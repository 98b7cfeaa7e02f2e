"""Checks on a recorded trace and on a tool list."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from hookproof._support.untimed import untimed
from hookproof.contracts._report import CheckReport, Exercise, hook_labels
from hookproof.contracts._violation import violation
from hookproof.errors import UsageError
from hookproof.trace import Trace, TraceEvent

__all__ = ["check_hook_order", "check_unique_tool_names"]

_NESTED = ("agent", "hook", "layer", "model", "tool")


def _nesting_problems(trace: Trace) -> tuple[list[str], list[TraceEvent]]:
    stack: list[TraceEvent] = []
    found: list[str] = []
    for event in trace:
        if event.kind not in _NESTED or event.phase == "update":
            continue
        if event.phase == "enter":
            stack.append(event)
            continue
        top = stack.pop() if stack else None
        if top is None or (top.kind, top.hook, top.middleware) != (
            event.kind,
            event.hook,
            event.middleware,
        ):
            opened = top.label() if top else "nothing"
            found.append(f"event {event.seq} {event.label()} closes {opened}: layers do not nest")
    return found, stack


def _open_layers(trace: Trace, hook: str, inner: str) -> list[tuple[str | None, ...]]:
    """For each ``inner`` call (model or tool), the wrap layers open around it, outermost first."""
    open_: list[str | None] = []
    stacks = []
    for event in trace:
        if event.kind == "layer" and event.hook == hook:
            if event.phase == "enter":
                open_.append(event.middleware)
            elif open_:
                open_.pop()
        elif event.kind == inner and event.phase == "enter":
            stacks.append(tuple(open_))
    return stacks


def _groups(trace: Trace, hook: str) -> list[list[str | None]]:
    groups: list[list[str | None]] = []
    previous_was_hook = False
    for event in trace:
        if event.kind == "state" or (event.kind == "hook" and event.phase != "enter"):
            continue
        is_hook = event.kind == "hook" and event.hook == hook
        if is_hook and not previous_was_hook:
            groups.append([])
        if is_hook:
            groups[-1].append(event.middleware)
        previous_was_hook = is_hook
    return groups


# (wrap hook, inner call) whose onion must be the same for every call; (before, after,
# whether after runs in reverse): LangChain reverses the after hooks, Eino does not.
_ONIONS = (("wrap_model_call", "model"), ("wrap_tool_call", "tool"), ("wrap_model", "model"))
_PAIRS = (
    ("before_model", "after_model", True),
    ("before_agent", "after_agent", True),
    ("before_model_rewrite_state", "after_model_rewrite_state", False),
)


def _order_problems(trace: Trace) -> list[str]:
    found = []
    for hook, inner in _ONIONS:
        stacks = set(_open_layers(trace, hook, inner))
        if len(stacks) > 1:
            found.append(f"{inner} calls were wrapped by different {hook} onions: {sorted(stacks)}")
    eino = any(event.hook == "before_model_rewrite_state" for event in trace)
    for before, after, reverse in _PAIRS:
        found += _before_after(trace, before, after, reverse=reverse and not eino)
    return found


def _before_after(trace: Trace, before: str, after: str, *, reverse: bool) -> list[str]:
    found = []
    for hook in (before, after):
        orders = {tuple(group) for group in _groups(trace, hook)}
        if len(orders) > 1:
            found.append(f"{hook} hooks ran in different orders: {sorted(orders)}")
    befores, afters = _groups(trace, before), _groups(trace, after)
    if befores and afters:
        common = set(befores[0]) & set(afters[0])
        forward = [name for name in befores[0] if name in common]
        backward = [name for name in afters[0] if name in common]
        expected = forward[::-1] if reverse else forward
        if backward != expected:
            relation = "the reverse of" if reverse else "the same as"
            found.append(f"{after} order {backward} is not {relation} {before} order {forward}")
    counts = Counter(
        e.middleware for e in trace if e.kind == "hook" and e.hook == before and e.phase == "enter"
    )
    if len(set(counts.values())) > 1:
        found.append(f"{before} ran a different number of times per middleware: {dict(counts)}")
    return found


@untimed
def check_hook_order(trace: Trace, *, allow_untested: bool = False) -> CheckReport:
    """Layers nest as an onion, before_* run in one order and after_* in its reverse (in the
    same order on an Eino-dialect trace), every model call sits inside the same layers, and
    hooks run once per turn. A trace with no hook or wrap layer has no order to check."""
    __tracebackhide__ = True
    exercise = Exercise("check_hook_order", allow_untested=allow_untested)
    if not isinstance(trace, Trace):
        raise UsageError(
            f"hookproof: check_hook_order takes a hookproof Trace (result.trace), got "
            f"{type(trace).__name__}."
        )
    exercise.hook(*hook_labels(trace))
    if not exercise.hooks:
        exercise.not_tried(
            f"the trace ({len(trace)} events) shows no hook or wrap layer, so there is no "
            "order to check"
        )
    found, unclosed = _nesting_problems(trace)
    interrupted = any(e.kind == "agent" and e.hook == "interrupt" for e in trace)
    if unclosed and not interrupted:
        found.append(f"{[e.label() for e in unclosed]} never exited")
    found += _order_problems(trace)
    if found:
        raise exercise.failed(
            violation(
                "check_hook_order",
                invariant="wrap layers nest (first middleware outermost), before_* in list "
                "order, after_* reversed (Eino: in list order), once per model turn",
                counterexample="the trace below",
                found=found,
                fix="call handler(request) from inside the wrap hook (not after returning), and "
                "register each middleware once",
                trace=trace,
            )
        )
    return exercise.passed(
        counterexample=f"a trace of {len(trace)} events",
        fix="pass the trace of a run of an agent with middleware (result.trace)",
    )


def _names(tools: Iterable[Any]) -> list[str]:
    names = []
    for item in tools:
        name = item.get("name") if isinstance(item, dict) else getattr(item, "name", None)
        names.append(str(name))
    return names


@untimed
def check_unique_tool_names(
    tools: Sequence[Any] | Callable[[Any], Any],
    *,
    context: Any = None,
    tiers: Sequence[str] | None = None,
    allow_untested: bool = False,
) -> CheckReport:
    """No two tools share a name (the model would see one schema, another would run). Give
    the tools, or your factory ``build(model) -> agent``: then every tool the model is
    shown in a run for ``context`` counts, middleware and harness tools included, and a
    framework that refuses duplicates at build time is reported too. An empty list has
    nothing to check."""
    __tracebackhide__ = True
    exercise = Exercise("check_unique_tool_names", allow_untested=allow_untested)
    names = _names(tools) if not callable(tools) else _shown_names(tools, context, tiers, exercise)
    if not names:
        exercise.not_tried("the tool list is empty, so no name could be compared")
    counts = Counter(names)
    duplicates = sorted(name for name, count in counts.items() if count > 1)
    if duplicates:
        raise exercise.failed(
            violation(
                "check_unique_tool_names",
                invariant="tool names are unique",
                counterexample=f"tools named {names}",
                found=[f"{name!r} appears {counts[name]} times" for name in duplicates],
                fix="rename one of each pair, or register the tool once",
            )
        )
    return exercise.passed(
        counterexample="an empty tool list",
        fix="pass the tools the model is shown (e.g. recording_model.last.tools), or your factory",
    )


def _shown_names(
    build: Callable[[Any], Any], context: Any, tiers: Sequence[str] | None, exercise: Exercise
) -> list[str]:
    """Tool names the model is shown in each call of one run, duplicates kept; a build that
    refuses duplicates counts as showing them."""
    from hookproof.errors import DuplicateToolError
    from hookproof.targets import as_target

    try:
        target = as_target(build, tiers)
    except DuplicateToolError as error:
        return [str(error.tool_name)] * 2
    run = target.run(context=context)
    exercise.context(context)
    exercise.observe(run)
    if isinstance(run.error, DuplicateToolError):
        return [str(run.error.tool_name)] * 2
    registered = getattr(target, "registered_tool_names", None)
    for names in registered() if callable(registered) else ():
        if len(set(names)) < len(names):  # the framework kept one of each name: report it
            return list(names)
    first = run.final_requests[0] if run.final_requests else None
    return [tool.name for tool in first.tools] if first is not None else []
