"""The conformance probes, written once against the Target's authoring methods.

Each probe builds a tiny scripted agent in the target's framework and says what it observed
in a short line; the reference runtime's line is the baseline the other targets are judged by.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from hookproof.models import call
from hookproof.targets import Target

__all__ = ["CORE_PROBES", "HARNESS_PROBES", "outcome", "probes_of"]

Probes = dict[str, Callable[[], str]]
CORE_PROBES = (
    "onion_order",
    "after_hooks_reversed",
    "override_depth",
    "schema_only_tool",
    "unknown_tool_message",
    "tool_exception",
    "duplicate_tool_names",
    "sync_wrap_under_ainvoke",
)
HARNESS_PROBES = ("profile_exclusion_after_user_middleware", "profile_resolved_at_build")
_HI: Any = {"messages": [("user", "hi")]}
_PROVIDER = "hookproof-conformance"  # profile keys of our own: deepagents' registry is global


def outcome(action: Callable[[], Any]) -> str:
    """What ``action`` returned, or the exception it raised (its first line, shortened)."""
    try:
        return str(action())
    except Exception as error:  # noqa: BLE001 - the exception is the observation
        first = str(error).split("\n")[0][:90]
        return f"raises {type(error).__name__}: {first}"


def probes_of(target: type[Target]) -> Probes:
    """The probes that apply to ``target``: the core ones, and the harness ones when it is a
    deep-agent harness with profiles."""
    found = _core(target)
    if target.has_harness_profiles:
        found.update(_harness(target))
    return found


def _tool_list_elided(text: str) -> str:
    """The message's wording, with the (target-specific) list of valid tools elided."""
    head, bracket, _ = text.partition("[")
    return f"{head}[...]" if bracket else text


def echo(text: str) -> str:
    """Echo."""
    return text


def boom(text: str) -> str:
    """Fail."""
    raise RuntimeError("tool bug")


def lookup(query: str) -> str:
    """Look up."""
    return query


def _core(t: type[Target]) -> Probes:
    events: list[str] = []
    echo_tool, boom_tool = t.tool(echo), t.tool(boom)

    def layer(name: str) -> Any:
        def wrap(request: Any, handler: Any) -> Any:
            events.append(f"{name}>")
            result = handler(request)
            events.append(f"<{name}")
            return result

        return t.wrap_model_layer(name, wrap)

    def after(name: str) -> Any:
        return t.after_model_hook(f"after_{name}", lambda _state, _runtime: events.append(name))

    def agent(*turns: Any, tools: list[Any] | None = None, middleware: Any = ()) -> Any:
        return t.create_agent(t.scripted_model(*turns), tools or [], middleware)

    def onion() -> str:
        events.clear()
        t.invoke(agent("ok", middleware=[layer("A"), layer("B")]), _HI)
        return " ".join(events)

    def reversed_after() -> str:
        events.clear()
        t.invoke(agent("ok", middleware=[after("A"), after("B")]), _HI)
        return ",".join(events)

    def adds_boom(request: Any, handler: Any) -> Any:
        return handler(request.override(tools=[*request.tools, boom_tool]))

    def schema_only() -> str:
        adds = t.wrap_model_layer("adds_tool", adds_boom)
        return outcome(
            lambda: (
                t.invoke(agent("ok", tools=[echo_tool], middleware=[adds]), _HI)
                and "runs without error"
            )
        )

    def unknown_tool() -> str:
        messages = t.invoke(agent(call("ghost"), "ok", tools=[echo_tool]), _HI)
        return _tool_list_elided(next(m.text for m in messages if m.role == "tool"))

    def tool_error() -> str:
        calls_boom = agent(call("boom", {"text": "x"}), "ok", tools=[boom_tool])
        return outcome(lambda: t.invoke(calls_boom, _HI) and "runs without error")

    def duplicates() -> str:
        return outcome(lambda: agent("ok", tools=[echo_tool, echo_tool]) and "builds")

    def sync_under_ainvoke() -> str:
        wrapped = agent("ok", middleware=[layer("S")])
        return outcome(lambda: asyncio.run(t.ainvoke(wrapped, _HI))[-1].text)

    return dict(
        zip(
            CORE_PROBES,
            (
                onion,
                reversed_after,
                lambda: _override_depth(t),
                schema_only,
                unknown_tool,
                tool_error,
                duplicates,
                sync_under_ainvoke,
            ),
            strict=True,
        )
    )


def _override_depth(t: type[Target]) -> str:
    """Whether ``request.override(...)`` copies deeply: an in-place change to the copy's
    messages must not reach the original."""
    request = t.sample_model_request()
    size = len(request.messages)
    changed = request.override(tools=[])
    try:
        changed.messages.append(changed.messages[0])
    except AttributeError:
        return "deep (in-place change refused)"
    return "shallow (original changed)" if len(request.messages) != size else "deep"


def _harness(t: type[Target]) -> Probes:
    lookup_tool = t.tool(lookup)

    def re_adds(model: Any = None) -> Any:
        def wrap(request: Any, handler: Any) -> Any:
            changed = request.override(tools=[*request.tools, lookup_tool])
            return handler(changed if model is None else changed.override(model=model))

        return t.wrap_model_layer("ReAdd", wrap)

    def exclusion() -> str:
        with t.harness_profiles() as register:
            register(f"{_PROVIDER}:excluding", excluded_tools=frozenset({"lookup"}))
            model = t.scripted_model("ok", name="excluding", provider=_PROVIDER)
            t.invoke(t.create_agent(model, [lookup_tool], [re_adds()]), _HI)
        return "excluded" if "lookup" not in model.last.tool_names else "visible"

    def resolution() -> str:
        with t.harness_profiles() as register:
            register(f"{_PROVIDER}:first", system_prompt_suffix="[FIRST]")
            register(f"{_PROVIDER}:second", system_prompt_suffix="[SECOND]")
            first = t.scripted_model(name="first", provider=_PROVIDER)
            second = t.scripted_model("ok", name="second", provider=_PROVIDER)
            t.invoke(t.create_agent(first, [lookup_tool], [re_adds(second)]), _HI)
        text = second.last.system_text
        kept = "[FIRST]" in text and "[SECOND]" not in text
        return "at build ([FIRST] kept)" if kept else "re-resolved"

    return dict(zip(HARNESS_PROBES, (exclusion, resolution), strict=True))
