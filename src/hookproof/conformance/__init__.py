"""``hookproof conformance``: which framework semantics hold on each installed target.

Each probe runs a tiny scripted agent and reports what it observed. The reference runtime's
observation is the baseline; another target "holds" when it observes the same, "differs"
otherwise (a difference is information, not a failure), and "n/a" when the probe does not
apply or the framework is not installed. Reports are data, rendered as text or JSON.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["PROBES", "ProbeResult", "format_json", "format_text", "run_conformance", "targets"]

NOT_APPLICABLE = "n/a"


@dataclass(frozen=True)
class ProbeResult:
    probe: str
    target: str
    status: str  # baseline | holds | differs | n/a
    observed: str


def _tool_list_elided(text: str) -> str:
    """The message's wording, with the (target-specific) list of valid tools elided."""
    head, bracket, _ = text.partition("[")
    return f"{head}[...]" if bracket else text


def _outcome(action: Callable[[], Any]) -> str:
    try:
        return str(action())
    except Exception as error:  # noqa: BLE001 - the exception is the observation
        first = str(error).split("\n")[0][:90]
        return f"raises {type(error).__name__}: {first}"


# -- the reference runtime ------------------------------------------------------------------


def _ref_probes() -> dict[str, Callable[[], str]]:
    from hookproof import models as m
    from hookproof import runtime as rt

    @rt.tool
    def echo(text: str) -> str:
        """Echo."""
        return text

    @rt.tool
    def boom(text: str) -> str:
        """Fail."""
        raise RuntimeError("tool bug")

    events: list[str] = []

    def layer(name: str) -> Any:
        @rt.wrap_model_call(name=name)
        def wrap(request: Any, handler: Any) -> Any:
            events.append(f"{name}>")
            result = handler(request)
            events.append(f"<{name}")
            return result

        return wrap

    def after(name: str) -> Any:
        @rt.after_model(name=f"after_{name}")
        def hook(state: Any, runtime: Any) -> None:
            events.append(name)

        return hook

    def onion() -> str:
        events.clear()
        rt.create_agent(m.ScriptedModel(["ok"]), middleware=[layer("A"), layer("B")]).invoke(_HI)
        return " ".join(events)

    def reversed_after() -> str:
        events.clear()
        rt.create_agent(m.ScriptedModel(["ok"]), middleware=[after("A"), after("B")]).invoke(_HI)
        return ",".join(events)

    def override() -> str:
        request = rt.ModelRequest.create(model="m", messages=[("user", "x")])
        changed = request.override(tools=[])
        try:
            changed.messages.append(changed.messages[0])
        except AttributeError:
            return "deep (in-place change refused)"
        return "shallow (original changed)" if len(request.messages) == 2 else "deep"

    @rt.wrap_model_call(name="adds_tool")
    def adds_tool(request: Any, handler: Any) -> Any:
        return handler(request.override(tools=[*request.tools, boom]))

    def schema_only() -> str:
        return _outcome(
            lambda: rt.create_agent(m.ScriptedModel(["ok"]), [echo], middleware=[adds_tool]).invoke(
                _HI
            )
        )

    def unknown_tool() -> str:
        result = rt.create_agent(m.ScriptedModel([m.call("ghost"), "ok"]), [echo]).invoke(_HI)
        return _tool_list_elided(next(msg.text for msg in result.messages if msg.role == "tool"))

    def tool_error() -> str:
        return _outcome(
            lambda: rt.create_agent(
                m.ScriptedModel([m.call("boom", {"text": "x"}), "ok"]), [boom]
            ).invoke(_HI)
        )

    def duplicates() -> str:
        return _outcome(lambda: rt.create_agent(m.ScriptedModel(["ok"]), [echo, echo]) and "builds")

    def sync_under_ainvoke() -> str:
        agent = rt.create_agent(m.ScriptedModel(["ok"]), middleware=[layer("S")])
        return _outcome(lambda: asyncio.run(agent.ainvoke(_HI)).text)

    return {
        "onion_order": onion,
        "after_hooks_reversed": reversed_after,
        "override_depth": override,
        "schema_only_tool": schema_only,
        "unknown_tool_message": unknown_tool,
        "tool_exception": tool_error,
        "duplicate_tool_names": duplicates,
        "sync_wrap_under_ainvoke": sync_under_ainvoke,
    }


# -- harness probes (the reference harness and deepagents) ---------------------------------

_HARNESS_PROBES = ("profile_exclusion_after_user_middleware", "profile_resolved_at_build")


def _ref_harness_probes() -> dict[str, Callable[[], str]]:
    from hookproof import runtime as rt
    from hookproof.harness import HarnessProfile, create_deep_agent, isolated_profiles
    from hookproof.models import RecordingModel, ScriptedModel

    @rt.tool
    def lookup(query: str) -> str:
        """Look up."""
        return query

    def re_adds(model: Any = None) -> Any:
        @rt.wrap_model_call(name="ReAdd")
        def wrap(request: Any, handler: Any) -> Any:
            changed = request.override(tools=[*request.tools, lookup])
            return handler(changed if model is None else changed.override(model=model))

        return wrap

    def exclusion() -> str:
        with isolated_profiles() as profiles:
            profiles.register_harness_profile(
                "conf", HarnessProfile(excluded_tools=frozenset({"lookup"}))
            )
            model = RecordingModel(ScriptedModel(["ok"], provider="conf"))
            create_deep_agent(model, [lookup], middleware=[re_adds()], profiles=profiles).invoke(
                _HI
            )
        return "excluded" if "lookup" not in model.last.tool_names else "visible"

    def resolution() -> str:
        with isolated_profiles() as profiles:
            profiles.register_harness_profile(
                "conf:first", HarnessProfile(system_prompt_suffix="[FIRST]")
            )
            profiles.register_harness_profile(
                "conf:second", HarnessProfile(system_prompt_suffix="[SECOND]")
            )
            first = ScriptedModel([], name="first", provider="conf")
            second = RecordingModel(ScriptedModel(["ok"], name="second", provider="conf"))
            create_deep_agent(
                first, [lookup], middleware=[re_adds(second)], profiles=profiles
            ).invoke(_HI)
        text = second.last.system_text
        return (
            "at build ([FIRST] kept)"
            if "[FIRST]" in text and "[SECOND]" not in text
            else "re-resolved"
        )

    return {
        "profile_exclusion_after_user_middleware": exclusion,
        "profile_resolved_at_build": resolution,
    }


def _deepagents_probes() -> dict[str, Callable[[], str]]:
    from deepagents import HarnessProfile, create_deep_agent, register_harness_profile
    from langchain.agents.middleware import AgentMiddleware
    from langchain_core.tools import tool

    from hookproof.adapters.langchain import RecordingChatModel, ScriptedChatModel

    @tool
    def lookup(query: str) -> str:
        """Look up."""
        return query

    class ReAdd(AgentMiddleware):
        def __init__(self, model: Any = None) -> None:
            super().__init__()
            self.model = model

        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            changed = request.override(tools=[*request.tools, lookup])
            return handler(changed if self.model is None else changed.override(model=self.model))

    def recording(name: str, *turns: Any) -> Any:
        return RecordingChatModel(
            inner=ScriptedChatModel(
                script=list(turns), model_name=name, provider="hookproof-conformance"
            )
        )

    def exclusion() -> str:
        register_harness_profile(
            "hookproof-conformance:excluding", HarnessProfile(excluded_tools=frozenset({"lookup"}))
        )
        model = recording("excluding", "ok")
        create_deep_agent(model=model, tools=[lookup], middleware=[ReAdd()]).invoke(_HI)
        return "excluded" if "lookup" not in model.last.tool_names else "visible"

    def resolution() -> str:
        register_harness_profile(
            "hookproof-conformance:first", HarnessProfile(system_prompt_suffix="[FIRST]")
        )
        register_harness_profile(
            "hookproof-conformance:second", HarnessProfile(system_prompt_suffix="[SECOND]")
        )
        second = recording("second", "ok")
        create_deep_agent(
            model=recording("first"), tools=[lookup], middleware=[ReAdd(second)]
        ).invoke(_HI)
        text = second.last.system_text
        return (
            "at build ([FIRST] kept)"
            if "[FIRST]" in text and "[SECOND]" not in text
            else "re-resolved"
        )

    probes = _lc_probes(
        builder=lambda model, tools, **kw: create_deep_agent(model=model, tools=tools, **kw)
    )
    probes.update(
        {
            "profile_exclusion_after_user_middleware": exclusion,
            "profile_resolved_at_build": resolution,
        }
    )
    return probes


# -- LangChain create_agent -----------------------------------------------------------------


def _lc_probes(builder: Callable[..., Any] | None = None) -> dict[str, Callable[[], str]]:
    from langchain.agents import create_agent as langchain_create_agent
    from langchain.agents.middleware import AgentMiddleware, ModelRequest
    from langchain_core.tools import tool

    from hookproof.adapters.langchain import ScriptedChatModel, sample_model_request
    from hookproof.models import call

    create_agent = builder or langchain_create_agent

    @tool
    def echo(text: str) -> str:
        """Echo."""
        return text

    @tool
    def boom(text: str) -> str:
        """Fail."""
        raise RuntimeError("tool bug")

    events: list[str] = []

    def layer(name: str) -> Any:
        class Layer(AgentMiddleware):
            def wrap_model_call(self, request: Any, handler: Any) -> Any:
                events.append(f"{name}>")
                result = handler(request)
                events.append(f"<{name}")
                return result

        Layer.__name__ = f"Layer{name}"
        return Layer()

    def after(name: str) -> Any:
        class After(AgentMiddleware):
            def after_model(self, state: Any, runtime: Any) -> None:
                events.append(name)

        After.__name__ = f"After{name}"
        return After()

    def model(*turns: Any) -> Any:
        return ScriptedChatModel(script=list(turns))

    def onion() -> str:
        events.clear()
        create_agent(model("ok"), [], middleware=[layer("A"), layer("B")]).invoke(_HI)
        return " ".join(events)

    def reversed_after() -> str:
        events.clear()
        create_agent(model("ok"), [], middleware=[after("A"), after("B")]).invoke(_HI)
        return ",".join(events)

    def override() -> str:
        request: ModelRequest = sample_model_request()
        size = len(request.messages)
        changed = request.override(tools=[])
        changed.messages.append(changed.messages[0])
        return "shallow (original changed)" if len(request.messages) != size else "deep"

    class AddsTool(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            return handler(request.override(tools=[*request.tools, boom]))

    def schema_only() -> str:
        agent = create_agent(model("ok"), [echo], middleware=[AddsTool()])
        return _outcome(lambda: agent.invoke(_HI) and "runs without error")

    def unknown_tool() -> str:
        result = create_agent(model(call("ghost"), "ok"), [echo]).invoke(_HI)
        return _tool_list_elided(
            next(str(m.content) for m in result["messages"] if m.type == "tool")
        )

    def tool_error() -> str:
        return _outcome(
            lambda: create_agent(model(call("boom", {"text": "x"}), "ok"), [boom]).invoke(_HI)
        )

    def duplicates() -> str:
        return _outcome(lambda: create_agent(model("ok"), [echo, echo]) and "builds")

    def sync_under_ainvoke() -> str:
        agent = create_agent(model("ok"), [], middleware=[layer("S")])
        return _outcome(lambda: asyncio.run(agent.ainvoke(_HI))["messages"][-1].content)

    return {
        "onion_order": onion,
        "after_hooks_reversed": reversed_after,
        "override_depth": override,
        "schema_only_tool": schema_only,
        "unknown_tool_message": unknown_tool,
        "tool_exception": tool_error,
        "duplicate_tool_names": duplicates,
        "sync_wrap_under_ainvoke": sync_under_ainvoke,
    }


_HI: Any = {"messages": [("user", "hi")]}
PROBES = (
    "onion_order",
    "after_hooks_reversed",
    "override_depth",
    "schema_only_tool",
    "unknown_tool_message",
    "tool_exception",
    "duplicate_tool_names",
    "sync_wrap_under_ainvoke",
    *_HARNESS_PROBES,
)


def _reference_probes() -> dict[str, Callable[[], str]]:
    return {**_ref_probes(), **_ref_harness_probes()}


_TARGETS: dict[str, tuple[str, Callable[[], dict[str, Callable[[], str]]]]] = {
    "reference": ("hookproof", _reference_probes),
    "langchain": ("langchain", _lc_probes),
    "deepagents": ("deepagents", _deepagents_probes),
}


def targets() -> list[str]:
    """The targets whose framework is installed."""
    return [name for name, (module, _) in _TARGETS.items() if importlib.util.find_spec(module)]


def _same(baseline: str, observed: str) -> bool:
    def kind(text: str) -> str:
        return "raises" if text.startswith("raises ") else text

    return kind(baseline) == kind(observed) or baseline == observed


def run_conformance(selected: list[str] | None = None) -> list[ProbeResult]:
    """Run every probe on each selected installed target; the reference is the baseline."""
    names = selected or targets()
    baseline = {probe: _outcome(fn) for probe, fn in _TARGETS["reference"][1]().items()}
    results = []
    for name in names:
        if name not in _TARGETS or name not in targets():
            results += [ProbeResult(p, name, NOT_APPLICABLE, "not installed") for p in PROBES]
            continue
        observed = (
            baseline
            if name == "reference"
            else {p: _outcome(fn) for p, fn in _TARGETS[name][1]().items()}
        )
        results += [_judge(probe, name, baseline, observed) for probe in PROBES]
    return results


def _judge(
    probe: str, target: str, baseline: dict[str, str], observed: dict[str, str]
) -> ProbeResult:
    if probe not in observed:
        return ProbeResult(probe, target, NOT_APPLICABLE, "does not apply to this target")
    if target == "reference":
        return ProbeResult(probe, target, "baseline", observed[probe])
    same = _same(baseline[probe], observed[probe])
    return ProbeResult(probe, target, "holds" if same else "differs", observed[probe])


def format_text(results: list[ProbeResult]) -> str:
    width = max(len(p) for p in PROBES)
    lines = [f"{'semantic':<{width}}  {'target':<10} {'status':<9} observed"]
    lines += [f"{r.probe:<{width}}  {r.target:<10} {r.status:<9} {r.observed}" for r in results]
    return "\n".join(lines)


def format_json(results: list[ProbeResult]) -> str:
    return json.dumps([asdict(r) for r in results], indent=2, sort_keys=True)
