"""LangChain's target (factories whose agents are LangChain ``create_agent`` or deepagents
graphs) and its conformance kit (tiny LangChain agents for the probes)."""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any, ClassVar

from langchain_core.utils.function_calling import convert_to_openai_tool

from hookproof.adapters.langchain._convert import to_message
from hookproof.adapters.langchain._reference_scope import reference_engine_scope
from hookproof.adapters.langchain._reuse import ReusedBuild
from hookproof.adapters.langchain._run import run_agent
from hookproof.adapters.langchain._samples import sample_model_request
from hookproof.adapters.langchain.models import (
    FalsyRecordingChatModel,
    RecordingChatModel,
    ScriptedChatModel,
    models_for,
)
from hookproof.adapters.langchain.tracing import build_instrumented
from hookproof.errors import UsageError
from hookproof.messages import Message
from hookproof.targets import (
    DEFAULT_INPUT,
    Build,
    ConformanceKit,
    IsolationRuns,
    OnInterrupt,
    RunSettings,
    RunWithTarget,
    Target,
    TargetRun,
)
from hookproof.targets.interrupts import check_on_interrupt

__all__ = ["LANGCHAIN_KIT", "BridgedTarget", "LangChainTarget", "graph_tool_schemas"]


def graph_tool_schemas(agent: Any) -> dict[str, Any]:
    """Parameter schemas of the tools a LangChain agent graph can execute (best effort)."""
    tools = _tool_node_tools(agent)
    return {
        name: convert_to_openai_tool(item)["function"].get("parameters", {})
        for name, item in tools.items()
    }


class LangChainTarget(RunWithTarget):
    """Runs a factory whose agents are LangChain ``create_agent`` or deepagents graphs. Runs
    with scripted models reuse one build while each run leaves it as built (see ``_reuse``);
    ``rebuilt_because`` says why they stopped, once they did."""

    unexecutable_tool_markers: ClassVar[tuple[str, ...]] = ("doesn't know how to execute",)
    tool_library_modules: ClassVar[tuple[str, ...]] = (
        "langchain_core.",
        "langchain.",
        "langgraph.",
        "pydantic",
    )

    def __init__(self, build: Build, *, tiers: Sequence[str] | None = None) -> None:
        super().__init__(build, tiers=tiers)
        self._reused = ReusedBuild(self.agent, self.models)

    @property
    def rebuilt_because(self) -> str:
        return self._reused.changed

    def _keep_built(self, models: dict[str, Any], agent: Any) -> None:
        """Keep the agent ``as_target`` built to recognise the factory for the first run."""
        self._reused.keep(agent, models)

    def building(self) -> AbstractContextManager[None]:
        """Where the factory builds and its agents run (the reference engine's scope for
        ``BridgedTarget``)."""
        return nullcontext()

    def run(
        self,
        *,
        context: Any = None,
        script: Any = None,
        input: Mapping[str, Any] | None = None,
        models: Mapping[str, Any] | None = None,
        on_interrupt: OnInterrupt = "approve",
        config: Mapping[str, Any] | None = None,
    ) -> TargetRun:
        if models is not None:
            return super().run(
                context=context,
                script=script,
                input=input,
                models=models,
                on_interrupt=on_interrupt,
                config=config,
            )
        answer = check_on_interrupt(on_interrupt)
        with self.building():
            agent, chosen = self._reused.agent_and_models(script)
            # in a context of its own, as LangGraph runs each node: a context variable a run
            # sets (one a middleware made in its build, say) is not there for the next run
            run = contextvars.copy_context().run(
                run_agent,
                agent,
                chosen,
                context,
                input or DEFAULT_INPUT,
                on_interrupt=answer,
                config=config,
            )
            self._reused.returned()
        return run

    def models(self, script: Any = None) -> dict[str, Any]:
        return models_for(self.tiers or ("model",), script)

    def falsy_models(self) -> dict[str, Any]:
        return {
            n: FalsyRecordingChatModel(inner=ScriptedChatModel(script=["done"], model_name=n))
            for n in self.tiers or ("model",)
        }

    def agent(self, models: Mapping[str, Any]) -> Any:
        return build_instrumented(self.build, dict(models) if self.tiers else models["model"])

    def accepts(self, agent: Any) -> bool:
        return callable(getattr(agent, "invoke", None))

    def tool_schemas(self) -> Mapping[str, Mapping[str, Any]]:
        return graph_tool_schemas(self.agent(self.models()))

    def bridged_target(self) -> Target | None:
        return BridgedTarget(self.build, tiers=self.tiers)

    def middleware_constructors(self) -> Sequence[tuple[Callable[..., Any], str]]:
        from langchain.agents import create_agent  # deepagents builds through it too

        return [(create_agent, "middleware")]

    def tool_objects(self) -> Mapping[str, list[Any]]:
        """The tools the agent's tool node can execute, by name."""
        return {name: [item] for name, item in _tool_node_tools(self.agent(self.models())).items()}

    def registered_tool_names(self) -> list[list[str]]:
        """The tool names each agent the factory builds registers, duplicates kept (LangChain
        keeps the last tool of a name without a word)."""
        lists: list[list[str]] = []
        build_instrumented(
            self.build, self.models() if self.tiers else self.models()["model"], lists
        )
        return lists

    def run_with(self, models: dict[str, Any], settings: RunSettings) -> TargetRun:
        if any(not isinstance(m, RecordingChatModel) for m in models.values()):
            models = {
                name: RecordingChatModel(inner=ScriptedChatModel(script=["done"], model_name=name))
                for name in models
            }
        return run_agent(
            self.agent(models),
            models,
            settings.context,
            settings.input,
            on_interrupt=settings.on_interrupt,
            config=settings.config,
        )

    def isolation_runs(
        self, script: Any, input: Mapping[str, Any], config: Mapping[str, Any] | None
    ) -> IsolationRuns:
        """LangChain holds runs in its callbacks, on each run's own thread: threads only."""
        models = self.models(script)
        agent = self.agent(models)
        return IsolationRuns(
            lambda context, probe: run_agent(agent, models, context, input, probe, config=config)
        )


class BridgedTarget(LangChainTarget):
    """The same factory as ``LangChainTarget``'s, its LangChain code run on the reference
    engine: the agent it builds must be a reference-engine agent, or ``agent()`` refuses.
    Runs with scripted models reuse one build while each run leaves it as built (see
    ``_reuse``); ``rebuilt_because`` says why they stopped, once they did."""

    def building(self) -> AbstractContextManager[None]:
        return reference_engine_scope(self.build)

    def agent(self, models: Mapping[str, Any]) -> Any:
        from hookproof.runtime import Agent

        with reference_engine_scope(self.build):
            agent = self.build(dict(models) if self.tiers else models["model"])
        if not isinstance(agent, Agent):
            name = getattr(self.build, "__qualname__", repr(self.build))
            raise UsageError(
                f"hookproof: {name} still built a {type(agent).__name__} with LangChain's "
                "create_agent standing in as the reference engine's, so the reference engine "
                "cannot run it (it builds its graph some other way)."
            )
        return agent

    def accepts(self, agent: Any) -> bool:
        return callable(getattr(agent, "invoke", None))

    def run_with(self, models: dict[str, Any], settings: RunSettings) -> TargetRun:
        with reference_engine_scope(self.build):
            return super().run_with(models, settings)

    def tool_schemas(self) -> Mapping[str, Mapping[str, Any]]:
        return {item.name: item.parameters for item in self.agent(self.models()).tools}

    def tool_objects(self) -> Mapping[str, list[Any]]:
        """The LangChain tools the reference engine's tools run, by name (a bridged tool
        keeps the LangChain tool it calls as ``func.tool``)."""
        found: dict[str, list[Any]] = {}
        for item in self.agent(self.models()).tools:
            found.setdefault(item.name, []).append(getattr(item.func, "tool", item))
        return found

    def bridged_target(self) -> BridgedTarget | None:
        return self


def _create_agent(model: Any, tools: Sequence[Any], middleware: Sequence[Any]) -> Any:
    from langchain.agents import create_agent

    return create_agent(model, list(tools), middleware=list(middleware))


def _tool(function: Callable[..., Any]) -> Any:
    from langchain_core.tools import tool

    return tool(function)


def _scripted_model(*turns: Any, name: str = "scripted", provider: str | None = None) -> Any:
    return RecordingChatModel(
        inner=ScriptedChatModel(script=list(turns), model_name=name, provider=provider)
    )


def _invoke(agent: Any, input: Mapping[str, Any]) -> list[Message]:
    return _messages(agent.invoke(dict(input)))


async def _ainvoke(agent: Any, input: Mapping[str, Any]) -> list[Message]:
    return _messages(await agent.ainvoke(dict(input)))


LANGCHAIN_KIT = ConformanceKit(
    create_agent=_create_agent,
    tool=_tool,
    scripted_model=_scripted_model,
    wrap_model_layer=lambda name, wrap: _middleware(
        name, "wrap_model_call", lambda _self, request, handler: wrap(request, handler)
    ),
    after_model_hook=lambda name, hook: _middleware(
        name, "after_model", lambda _self, state, runtime: hook(state, runtime)
    ),
    invoke=_invoke,
    ainvoke=_ainvoke,
    model_request=sample_model_request,
)


def _middleware(name: str, hook: str, method: Callable[..., Any]) -> Any:
    """A LangChain middleware class of its own named ``name`` with one hook, instantiated."""
    from langchain.agents.middleware import AgentMiddleware

    return type(name, (AgentMiddleware,), {hook: method})()


def _messages(output: Any) -> list[Message]:
    return [to_message(item) for item in output.get("messages", ())]


def _tool_node_tools(agent: Any) -> Mapping[str, Any]:
    node = getattr(agent, "nodes", {}).get("tools")
    return getattr(getattr(node, "bound", None), "tools_by_name", {}) or {}
