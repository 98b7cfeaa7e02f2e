"""Checks that build and run the user's agent: fail closed, exclusion, tool closure,
injected model."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from hookproof.contracts._args import example_args
from hookproof.contracts._target import Build, Target, TargetRun, as_target, call_once_then_done
from hookproof.contracts._violation import violation
from hookproof.messages import ToolMessage
from hookproof.models import RecordingModel, ScriptedModel, call

__all__ = [
    "check_exclusion_holds",
    "check_fail_closed",
    "check_injected_model_used",
    "check_tool_closure",
]


def _tiers_arg(tiers: Sequence[str] | None) -> str:
    return f", tiers={tuple(tiers)!r}" if tiers else ""


def _crash(run: TargetRun) -> str:
    error = run.error
    return f"{type(error).__name__}: {error}" if error is not None else ""


def check_fail_closed(
    build: Build | Target,
    context: Any,
    *,
    least_privileged_context: Any,
    tiers: Sequence[str] | None = None,
    script: Any = None,
) -> None:
    """An untrusted, unknown, malformed or missing context never gets more tools, or another
    model, than the least-privileged trusted context; a crash is a violation too."""
    __tracebackhide__ = True
    target = as_target(build, tiers)
    baseline = _baseline(build, target, least_privileged_context, tiers, script)
    if baseline.error is not None:
        raise violation(
            "check_fail_closed",
            invariant="the least-privileged trusted context runs without error",
            counterexample=f"least_privileged_context={least_privileged_context!r}",
            found=[f"the baseline run raised {_crash(baseline)}"],
            fix="make the agent run for its least-privileged context first",
        )
    run = target.run(context=context, script=script)
    found = _privilege_gain(baseline, run)
    if found:
        raise violation(
            "check_fail_closed",
            invariant="an untrusted or missing context degrades to least privilege: no extra "
            "tool, no other model, no crash",
            counterexample=f"context={context!r}",
            found=found,
            fix="resolve identity only from a trusted context type, fall back to the least "
            "privileged role and model for anything else, and handle runtime/context None",
            trace=run.trace,
            replay=(
                f"check_fail_closed(build, {context!r}, least_privileged_context="
                f"{least_privileged_context!r}{_tiers_arg(tiers)})"
            ),
        )


_BASELINES: dict[tuple[Any, ...], tuple[Any, TargetRun]] = {}


def _baseline(
    build: Any, target: Target, context: Any, tiers: Sequence[str] | None, script: Any
) -> TargetRun:
    """The least-privileged run, computed once per (factory, context, tiers, script): a
    property test calls the check hundreds of times with the same baseline."""
    key = (id(build), repr(context), tuple(tiers or ()), repr(script))
    cached = _BASELINES.get(key)
    if cached is not None and cached[0] is build:
        return cached[1]
    run = target.run(context=context, script=script)
    if len(_BASELINES) >= 64:
        _BASELINES.clear()
    _BASELINES[key] = (build, run)
    return run


def _privilege_gain(baseline: TargetRun, run: TargetRun) -> list[str]:
    if run.error is not None:
        return [f"the run crashed instead of degrading: {_crash(run)}"]
    found = []
    extra_tools = sorted(run.visible_tools - baseline.visible_tools)
    if extra_tools:
        found.append(f"tools beyond the least-privileged set: {extra_tools}")
    other_models = sorted(set(run.called) - set(baseline.called))
    if other_models:
        found.append(f"model(s) {other_models} instead of {sorted(baseline.called)}")
    return found


def _scripted_calls(target: Target, names: Collection[str]) -> list[Any]:
    schemas = target.tool_schemas()
    calls = [call(name, example_args(schemas.get(name, {}))) for name in sorted(names)]
    return [*calls, "done"]


def check_exclusion_holds(
    build: Build | Target,
    excluded: Collection[str],
    *,
    context: Any = None,
    tiers: Sequence[str] | None = None,
) -> None:
    """Excluded tools never reach a FinalRequest, and a scripted call to one never executes,
    whatever the user's middleware does (re-adding included)."""
    __tracebackhide__ = True
    target = as_target(build, tiers)
    run = target.run(context=context, script=_scripted_calls(target, excluded))
    found = []
    for index, request in enumerate(run.final_requests):
        shown = sorted(set(request.tool_names) & set(excluded))
        if shown:
            found.append(f"model call {index} was shown excluded tool(s) {shown}")
    executed = _executed_tools(run) & set(excluded)
    if executed:
        found.append(f"excluded tool(s) {sorted(executed)} executed when the model called them")
    if run.error is not None and not found:
        found.append(f"the run raised {_crash(run)} (an excluded tool may have run)")
    if found:
        raise violation(
            "check_exclusion_holds",
            invariant="excluded tools are never shown to the model and never executed",
            counterexample=f"excluded={sorted(excluded)!r}, context={context!r}",
            found=found,
            fix="apply the exclusion after every middleware that can add tools (last in the "
            "stack) and refuse calls to excluded tools in wrap_tool_call",
            trace=run.trace,
            replay=f"check_exclusion_holds(build, {sorted(excluded)!r}, context={context!r}"
            f"{_tiers_arg(tiers)})",
        )


def _executed_tools(run: TargetRun) -> set[str]:
    if run.trace is None:  # foreign frameworks: read successful tool answers instead
        return {
            str(message.name)
            for message in run.messages
            if isinstance(message, ToolMessage) and message.status == "success"
        }
    return {
        str(event.data.get("tool"))
        for event in run.trace
        if event.kind == "tool"
        and event.phase in ("exit", "error")
        and not _unknown_tool_answer(run, event.data.get("call_id"))
    }


def _unknown_tool_answer(run: TargetRun, call_id: object) -> bool:
    return any(
        message.role == "tool"
        and getattr(message, "tool_call_id", None) == call_id
        and " is not a valid tool" in message.text
        for message in run.messages
    )


def check_tool_closure(
    build: Build | Target, *, context: Any = None, tiers: Sequence[str] | None = None
) -> None:
    """Every tool visible in a FinalRequest has an executor: a scripted call to it executes."""
    __tracebackhide__ = True
    target = as_target(build, tiers)
    first = target.run(context=context)
    if first.error is not None:
        raise violation(
            "check_tool_closure",
            invariant="the agent runs",
            counterexample=f"context={context!r}",
            found=[f"the run raised {_crash(first)}"],
            fix="make the agent run with a one-turn script first",
        )
    schemas = {
        r.tool(n).name: r.tool(n).parameters for r in first.final_requests for n in r.tool_names
    }
    found = [
        problem
        for name in sorted(schemas)
        if (problem := _closure(target, name, schemas[name], context))
    ]
    if found:
        raise violation(
            "check_tool_closure",
            invariant="every tool shown to the model can be executed",
            counterexample=f"context={context!r}",
            found=found,
            fix="a tool added in wrap_model_call needs a matching wrap_tool_call that sets "
            "request.tool (or register it in tools=)",
            replay=f"check_tool_closure(build, context={context!r}{_tiers_arg(tiers)})",
        )


_UNKNOWN = ("not a valid tool", "not found in toolsNode indexes")  # runtime, Eino


def _closure(target: Target, name: str, schema: Any, context: Any) -> str | None:
    script = call_once_then_done(call(name, example_args(schema)))
    run = target.run(context=context, script=script)
    unknown = run.error is not None and any(text in str(run.error) for text in _UNKNOWN)
    if run.error is not None and not unknown:
        return None  # the tool ran and raised: it has an executor
    if run.error is not None:
        return f"{name}: calling it failed with {_crash(run)}"
    answers = [
        m for m in run.messages if m.role == "tool" and getattr(m, "name", None) in (name, None)
    ]
    if any(" is not a valid tool" in m.text for m in answers):
        return f"{name}: shown to the model but no executor ran it ({answers[0].text})"
    return None


class _FalsyModel(RecordingModel):
    """A valid model whose truth value is False, as a careless `model or default` trips on."""

    def __bool__(self) -> bool:
        return False


def check_injected_model_used(build: Build, *, tiers: Sequence[str] | None = None) -> None:
    """A falsy but valid injected model is still the one called."""
    __tracebackhide__ = True
    names = tuple(tiers) if tiers else ("model",)
    models: dict[str, Any] = {
        name: _FalsyModel(ScriptedModel(["done"], name=name)) for name in names
    }
    target = as_target(build, tiers)
    if type(target).__name__ == "LangChainTarget":
        from hookproof.adapters.langchain import FalsyRecordingChatModel, ScriptedChatModel

        models = {
            n: FalsyRecordingChatModel(inner=ScriptedChatModel(script=["done"], model_name=n))
            for n in names
        }
    run = target.run(models=models)  # type: ignore[call-arg]
    if run.called:
        return
    raise violation(
        "check_injected_model_used",
        invariant="the injected model is used even when it is falsy",
        counterexample="an injected model whose __bool__ returns False",
        found=[
            "none of the injected models received a request"
            + (f"; the run raised {_crash(run)}" if run.error else "")
        ],
        fix="test injected dependencies with `is not None`, never with `or` or `if model:`",
        trace=run.trace,
        replay=f"check_injected_model_used(build{_tiers_arg(tiers)})",
    )
