"""The LangChain target: factories whose agents are LangChain ``create_agent`` or deepagents
graphs."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from langchain_core.utils.function_calling import convert_to_openai_tool

from hookproof.adapters.langchain._convert import to_message
from hookproof.adapters.langchain._models import (
    FalsyRecordingChatModel,
    RecordingChatModel,
    ScriptedChatModel,
    models_for,
)
from hookproof.adapters.langchain._run import run_agent
from hookproof.adapters.langchain._samples import (
    mutation_findings,
    node_samples,
    overridden,
    passed_on,
    sample_model_request,
    sample_tool_call_request,
)
from hookproof.adapters.langchain._tracing import build_instrumented
from hookproof.messages import Message
from hookproof.targets import DEFAULT_INPUT, IsolationRuns, OnInterrupt, Target, TargetRun
from hookproof.targets.interrupts import check_on_interrupt
from hookproof.targets.samples import NodeSamples, PassedOn

__all__ = ["LangChainTarget", "graph_tool_schemas"]


def graph_tool_schemas(agent: Any) -> dict[str, Any]:
    """Parameter schemas of the tools a LangChain agent graph can execute (best effort)."""
    tools = _tool_node_tools(agent)
    return {
        name: convert_to_openai_tool(item)["function"].get("parameters", {})
        for name, item in tools.items()
    }


class LangChainTarget(Target):
    """Runs a factory whose agents are LangChain ``create_agent`` or deepagents graphs."""

    unexecutable_tool_markers: ClassVar[tuple[str, ...]] = ("doesn't know how to execute",)
    tool_library_modules: ClassVar[tuple[str, ...]] = (
        "langchain_core.",
        "langchain.",
        "langgraph.",
        "pydantic",
    )

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
        answer = check_on_interrupt(on_interrupt)
        chosen = dict(models) if models is not None else self.models(script)
        if any(not isinstance(m, RecordingChatModel) for m in chosen.values()):
            chosen = {
                name: RecordingChatModel(inner=ScriptedChatModel(script=["done"], model_name=name))
                for name in chosen
            }
        agent = self.agent(chosen)
        payload = input or DEFAULT_INPUT
        return run_agent(agent, chosen, context, payload, on_interrupt=answer, config=config)

    def isolation_runs(
        self, script: Any, input: Mapping[str, Any], config: Mapping[str, Any] | None
    ) -> IsolationRuns:
        """LangChain holds runs in its callbacks, on each run's own thread: threads only."""
        models = self.models(script)
        agent = self.agent(models)
        return IsolationRuns(
            lambda context, probe: run_agent(agent, models, context, input, probe, config=config)
        )

    # -- one middleware's hooks ----------------------------------------------------------

    @classmethod
    def wrap_hook(cls, middleware: object, name: str) -> Callable[[Any, Any], Any] | None:
        return overridden(middleware, name)  # type: ignore[no-any-return]

    @classmethod
    def node_samples(cls, context: Any = None) -> NodeSamples:
        return node_samples(context)

    @classmethod
    def sample_model_request(cls, context: Any = None) -> Any:
        return sample_model_request(context=context)

    @classmethod
    def sample_tool_request(cls, context: Any = None) -> Any:
        return sample_tool_call_request(context)

    @classmethod
    def mutation_findings(
        cls, middleware: object, request: Any = None, context: Any = None
    ) -> list[str] | None:
        return mutation_findings(middleware, request, context)

    @classmethod
    def passed_on(
        cls, middleware: object, system_message: Any = None, context: Any = None
    ) -> PassedOn | None:
        return passed_on(middleware, system_message, context)

    # -- authoring -----------------------------------------------------------------------

    @classmethod
    def create_agent(
        cls, model: Any, tools: Sequence[Any] = (), middleware: Sequence[Any] = ()
    ) -> Any:
        from langchain.agents import create_agent

        return create_agent(model, list(tools), middleware=list(middleware))

    @classmethod
    def tool(cls, function: Callable[..., Any]) -> Any:
        from langchain_core.tools import tool

        return tool(function)

    @classmethod
    def scripted_model(
        cls, *turns: Any, name: str = "scripted", provider: str | None = None
    ) -> Any:
        return RecordingChatModel(
            inner=ScriptedChatModel(script=list(turns), model_name=name, provider=provider)
        )

    @classmethod
    def wrap_model_layer(cls, name: str, wrap: Callable[[Any, Any], Any]) -> Any:
        return _middleware(
            name, "wrap_model_call", lambda _self, request, handler: wrap(request, handler)
        )

    @classmethod
    def after_model_hook(cls, name: str, hook: Callable[[Any, Any], Any]) -> Any:
        return _middleware(name, "after_model", lambda _self, state, runtime: hook(state, runtime))

    @classmethod
    def invoke(cls, agent: Any, input: Mapping[str, Any]) -> list[Message]:
        return _messages(agent.invoke(dict(input)))

    @classmethod
    async def ainvoke(cls, agent: Any, input: Mapping[str, Any]) -> list[Message]:
        return _messages(await agent.ainvoke(dict(input)))


def _middleware(name: str, hook: str, method: Callable[..., Any]) -> Any:
    """A LangChain middleware class of its own named ``name`` with one hook, instantiated."""
    from langchain.agents.middleware import AgentMiddleware

    return type(name, (AgentMiddleware,), {hook: method})()


def _messages(output: Any) -> list[Message]:
    return [to_message(item) for item in output.get("messages", ())]


def _tool_node_tools(agent: Any) -> Mapping[str, Any]:
    node = getattr(agent, "nodes", {}).get("tools")
    return getattr(getattr(node, "bound", None), "tools_by_name", {}) or {}
