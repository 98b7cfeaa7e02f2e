"""The small harness layers: patch dangling tool calls, mark the prompt cache, load memory,
list skills, and enforce the harness profile's tool exclusions and description overrides."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from hookproof.harness._system import with_section
from hookproof.harness.backend import files_of
from hookproof.harness.prompts import CANCELLED_TOOL_CALL, MEMORY_SECTION, SKILLS_SECTION
from hookproof.messages import AssistantMessage, Message, RemoveMessage, ToolMessage
from hookproof.runtime import AgentMiddleware, ModelRequest, ToolCallRequest
from hookproof.tools import Tool, ToolSchema

__all__ = [
    "HarnessProfileToolsMiddleware",
    "MemoryMiddleware",
    "PatchToolCallsMiddleware",
    "ProviderPromptCacheMiddleware",
    "SkillsMiddleware",
]

Handler = Callable[[Any], Any]


class PatchToolCallsMiddleware(AgentMiddleware):
    """Before a run, answer every tool call left without a result by an earlier turn."""

    def before_agent(self, state: Any, runtime: Any) -> Any:
        messages: Sequence[Message] = state["messages"]
        answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
        patched: list[Message] = []
        for message in messages:
            patched.append(message)
            if isinstance(message, AssistantMessage):
                patched += [
                    _cancelled(call.name, call.id or "")
                    for call in message.tool_calls
                    if call.id not in answered
                ]
        if len(patched) == len(messages):
            return None
        return {"messages": [RemoveMessage(id=RemoveMessage.ALL), *patched]}


def _cancelled(name: str, call_id: str) -> ToolMessage:
    text = CANCELLED_TOOL_CALL.format(name=name, call_id=call_id)
    return ToolMessage(content=text, tool_call_id=call_id, name=name, status="error")


class ProviderPromptCacheMiddleware(AgentMiddleware):
    """Mark the last system block for provider-side prompt caching."""

    def __init__(self, cache_control: Mapping[str, Any] | None = None) -> None:
        self.cache_control = dict(cache_control or {"type": "ephemeral"})

    def wrap_model_call(self, request: ModelRequest, handler: Handler) -> Any:
        system = request.system_message
        if system is None or not system.content or system.content[-1].cache_control:
            return handler(request)
        last = system.content[-1].override(cache_control=self.cache_control)
        marked = system.model_copy(update={"content": [*system.content[:-1], last]})
        return handler(request.override(system_message=marked))


class MemoryMiddleware(AgentMiddleware):
    """Load AGENTS.md-style files from the file store into the system prompt."""

    def __init__(self, sources: Sequence[str]) -> None:
        self.sources = tuple(sources)

    def wrap_model_call(self, request: ModelRequest, handler: Handler) -> Any:
        files = files_of(request.state)
        for path in self.sources:
            if path in files:
                request = with_section(
                    request, MEMORY_SECTION.format(path=path, content=files[path])
                )
        return handler(request)


_FRONTMATTER = re.compile(r"^(name|description):\s*(.+)$", re.MULTILINE)


class SkillsMiddleware(AgentMiddleware):
    """List the skills found as ``<source>/<skill>/SKILL.md`` in the file store."""

    def __init__(self, sources: Sequence[str]) -> None:
        self.sources = tuple(source.rstrip("/") + "/" for source in sources)

    def wrap_model_call(self, request: ModelRequest, handler: Handler) -> Any:
        files = files_of(request.state)
        found = [
            self._describe(path, files[path])
            for path in sorted(files)
            if path.endswith("/SKILL.md") and path.startswith(self.sources)
        ]
        if not found:
            return handler(request)
        return handler(with_section(request, SKILLS_SECTION.format(skills="\n".join(found))))

    @staticmethod
    def _describe(path: str, text: str) -> str:
        fields = dict(_FRONTMATTER.findall(text))
        name = fields.get("name", path.rsplit("/", 2)[-2])
        return f"- {name}: {fields.get('description', '(no description)')} ({path})"


def _describe(item: Tool | ToolSchema, text: str) -> Tool | ToolSchema:
    return (
        item.with_description(text) if isinstance(item, Tool) else item.override(description=text)
    )


class HarnessProfileToolsMiddleware(AgentMiddleware):
    """The profile's tool layer: overrides descriptions, removes excluded tools from every
    request, and refuses to execute an excluded tool even if a call reaches it."""

    name = "HarnessProfileToolExclusion"

    def __init__(self, excluded: Collection[str], overrides: Mapping[str, str]) -> None:
        self.excluded = frozenset(excluded)
        self.overrides = {key: value for key, value in overrides.items() if key != "task"}

    def wrap_model_call(self, request: ModelRequest, handler: Handler) -> Any:
        tools = [
            _describe(item, self.overrides[item.name]) if item.name in self.overrides else item
            for item in request.tools
            if item.name not in self.excluded
        ]
        return handler(request.override(tools=tools))

    def wrap_tool_call(self, request: ToolCallRequest, handler: Handler) -> Any:
        call = request.tool_call
        if call.name not in self.excluded:
            return handler(request)
        text = f"Error: {call.name} is not available to this agent."
        return ToolMessage(content=text, tool_call_id=call.id or "", name=call.name, status="error")
