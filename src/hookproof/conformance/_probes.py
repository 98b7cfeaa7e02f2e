"""The conformance probes, written once against a framework's ConformanceKit.

Each probe builds a tiny scripted agent in the target's framework and says what it observed
in a short line; the reference runtime's line is the baseline the other targets are judged by.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from hookproof.models import call
from hookproof.targets import ConformanceKit
from hookproof.targets.authoring import HarnessProfiles

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


def probes_of(kit: ConformanceKit) -> Probes:
    """The probes that apply to ``kit``'s framework: the core ones, and the harness ones when
    it is a deep-agent harness with profiles."""
    found = _Core(kit).probes()
    if kit.harness_profiles is not None:
        found.update(_harness(kit, kit.harness_profiles))
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


class _Core:
    """The core probes on one target; each says what it observed."""

    def __init__(self, t: ConformanceKit) -> None:
        self.t = t
        self.events: list[str] = []
        self.echo, self.boom = t.tool(echo), t.tool(boom)

    def probes(self) -> Probes:
        actions = (
            self.onion,
            self.reversed_after,
            lambda: _override_depth(self.t),
            self.schema_only,
            self.unknown_tool,
            self.tool_error,
            self.duplicates,
            self.sync_under_ainvoke,
        )
        return dict(zip(CORE_PROBES, actions, strict=True))

    def layer(self, name: str) -> Any:
        def wrap(request: Any, handler: Any) -> Any:
            self.events.append(f"{name}>")
            result = handler(request)
            self.events.append(f"<{name}")
            return result

        return self.t.wrap_model_layer(name, wrap)

    def after(self, name: str) -> Any:
        return self.t.after_model_hook(
            f"after_{name}", lambda _state, _runtime: self.events.append(name)
        )

    def agent(self, *turns: Any, tools: Sequence[Any] = (), middleware: Sequence[Any] = ()) -> Any:
        return self.t.create_agent(self.t.scripted_model(*turns), tools, middleware)

    def onion(self) -> str:
        self.events.clear()
        self.t.invoke(self.agent("ok", middleware=[self.layer("A"), self.layer("B")]), _HI)
        return " ".join(self.events)

    def reversed_after(self) -> str:
        self.events.clear()
        self.t.invoke(self.agent("ok", middleware=[self.after("A"), self.after("B")]), _HI)
        return ",".join(self.events)

    def schema_only(self) -> str:
        def adds_boom(request: Any, handler: Any) -> Any:
            return handler(request.override(tools=[*request.tools, self.boom]))

        adds = self.t.wrap_model_layer("adds_tool", adds_boom)
        return outcome(
            lambda: (
                self.t.invoke(self.agent("ok", tools=[self.echo], middleware=[adds]), _HI)
                and "runs without error"
            )
        )

    def unknown_tool(self) -> str:
        messages = self.t.invoke(self.agent(call("ghost"), "ok", tools=[self.echo]), _HI)
        return _tool_list_elided(next(m.text for m in messages if m.role == "tool"))

    def tool_error(self) -> str:
        calls_boom = self.agent(call("boom", {"text": "x"}), "ok", tools=[self.boom])
        return outcome(lambda: self.t.invoke(calls_boom, _HI) and "runs without error")

    def duplicates(self) -> str:
        return outcome(lambda: self.agent("ok", tools=[self.echo, self.echo]) and "builds")

    def sync_under_ainvoke(self) -> str:
        wrapped = self.agent("ok", middleware=[self.layer("S")])
        return outcome(lambda: asyncio.run(self.t.ainvoke(wrapped, _HI))[-1].text)


def _override_depth(t: ConformanceKit) -> str:
    """Whether ``request.override(...)`` copies deeply: an in-place change to the copy's
    messages must not reach the original."""
    request = t.model_request()
    size = len(request.messages)
    changed = request.override(tools=[])
    try:
        changed.messages.append(changed.messages[0])
    except AttributeError:
        return "deep (in-place change refused)"
    return "shallow (original changed)" if len(request.messages) != size else "deep"


def _harness(t: ConformanceKit, profiles: HarnessProfiles) -> Probes:
    lookup_tool = t.tool(lookup)

    def re_adds(model: Any = None) -> Any:
        def wrap(request: Any, handler: Any) -> Any:
            changed = request.override(tools=[*request.tools, lookup_tool])
            return handler(changed if model is None else changed.override(model=model))

        return t.wrap_model_layer("ReAdd", wrap)

    def exclusion() -> str:
        with profiles() as register:
            register(f"{_PROVIDER}:excluding", excluded_tools=frozenset({"lookup"}))
            model = t.scripted_model("ok", name="excluding", provider=_PROVIDER)
            t.invoke(t.create_agent(model, [lookup_tool], [re_adds()]), _HI)
        return "excluded" if "lookup" not in model.last.tool_names else "visible"

    def resolution() -> str:
        with profiles() as register:
            register(f"{_PROVIDER}:first", system_prompt_suffix="[FIRST]")
            register(f"{_PROVIDER}:second", system_prompt_suffix="[SECOND]")
            first = t.scripted_model(name="first", provider=_PROVIDER)
            second = t.scripted_model("ok", name="second", provider=_PROVIDER)
            t.invoke(t.create_agent(first, [lookup_tool], [re_adds(second)]), _HI)
        text = second.last.system_text
        kept = "[FIRST]" in text and "[SECOND]" not in text
        return "at build ([FIRST] kept)" if kept else "re-resolved"

    return dict(zip(HARNESS_PROBES, (exclusion, resolution), strict=True))
