"""Subagents: the ``task`` tool runs a real subagent on the same runtime and returns its answer."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from hookproof.errors import InvalidInputError, ToolError
from hookproof.harness._system import with_section
from hookproof.harness.prompts import TASK_DESCRIPTION, TASK_SECTION
from hookproof.messages import ToolMessage
from hookproof.runtime import Agent, AgentMiddleware, Command, ModelRequest, ToolRuntime, tool
from hookproof.tools import Tool

__all__ = ["GENERAL_PURPOSE", "TASK_TOOL_NAME", "SubAgent", "SubAgentMiddleware"]

TASK_TOOL_NAME = "task"
"""The name of the tool by which the main agent delegates to a subagent."""

GENERAL_PURPOSE = "general-purpose"


@dataclass(frozen=True, kw_only=True)
class SubAgent:
    """A subagent the ``task`` tool can run. ``tools``/``model`` default to the parent's."""

    name: str
    description: str
    system_prompt: str
    tools: Sequence[object] | None = None
    model: Any = None
    middleware: Sequence[object] = field(default_factory=tuple)

    @classmethod
    def from_value(cls, value: SubAgent | Mapping[str, Any]) -> SubAgent:
        if isinstance(value, SubAgent):
            return value
        if isinstance(value, Mapping):
            try:
                return cls(**value)
            except TypeError as error:
                raise InvalidInputError(
                    f"hookproof: subagent {dict(value).get('name')!r} is malformed ({error}). A "
                    "subagent needs name, description and system_prompt; tools, model and "
                    "middleware are optional."
                ) from None
        raise InvalidInputError(
            f"hookproof: a subagent is a SubAgent or a dict, not {type(value).__name__}."
        )


def _listing(agents: Sequence[SubAgent]) -> str:
    return "\n".join(f"- {agent.name}: {agent.description}" for agent in agents)


def _task_tool(agents: Mapping[str, Agent], description: str) -> Tool:
    @tool(TASK_TOOL_NAME, description=description)
    def task(description: str, subagent_type: str, runtime: ToolRuntime[Any]) -> Command:
        agent = agents.get(subagent_type)
        if agent is None:
            raise ToolError(
                f"Error: no subagent named {subagent_type!r}; choose one of {sorted(agents)}."
            )
        shared = {"files": runtime.state["files"]} if "files" in runtime.state else {}
        result = agent.run({"messages": [("user", description)], **shared}, context=runtime.context)
        reply = ToolMessage(
            content=result.text, tool_call_id=runtime.tool_call_id or "", name=TASK_TOOL_NAME
        )
        files = {"files": result.state["files"]} if "files" in result.state else {}
        return Command(update={"messages": [reply], **files})

    return task


class SubAgentMiddleware(AgentMiddleware):
    """Adds the ``task`` tool over the given subagents and a prompt section about delegation.

    ``build`` turns a SubAgent spec into an Agent (the harness passes one that gives each
    subagent its own smaller harness); ``description`` overrides the task tool's text and
    must keep ``{available_agents}``.
    """

    def __init__(
        self,
        subagents: Sequence[SubAgent],
        *,
        build: Callable[[SubAgent], Agent],
        description: str | None = None,
    ) -> None:
        self.subagents = tuple(subagents)
        template = description or TASK_DESCRIPTION
        if "{available_agents}" not in template:
            raise InvalidInputError(
                "hookproof: the task tool's description override must keep the "
                "{available_agents} placeholder, or the model cannot learn which subagents "
                "exist."
            )
        names = [agent.name for agent in self.subagents]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise InvalidInputError(f"hookproof: subagent names {duplicates} are used twice.")
        self.agents = {agent.name: build(agent) for agent in self.subagents}
        text = template.replace("{available_agents}", _listing(self.subagents))
        self.tools = (_task_tool(self.agents, text),)

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], Any]) -> Any:
        return handler(with_section(request, TASK_SECTION))
