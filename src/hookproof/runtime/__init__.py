"""The reference agent runtime: one engine and the LangChain-shaped middleware dialect."""

from __future__ import annotations

from hookproof._support import lazy as _lazy

TYPE_CHECKING = False  # typing itself costs the import several ms; mypy sees True
if TYPE_CHECKING:
    from typing import Any

    from hookproof._engine import (
        Checkpoint,
        InMemoryCheckpointer,
        Interrupt,
        RunResult,
        UntrackedValue,
        add_messages,
        interrupt,
    )
    from hookproof.context import Runtime, ToolRuntime
    from hookproof.messages import (
        AssistantMessage,
        RemoveMessage,
        SystemMessage,
        ToolCall,
        ToolMessage,
        UserMessage,
    )
    from hookproof.requests import (
        ChatModel,
        Command,
        ExtendedModelResponse,
        FinalRequest,
        ModelRequest,
        ModelResponse,
        ToolCallRequest,
    )
    from hookproof.runtime._agent import DEFAULT_RUNTIME_MAX_ITERATIONS, Agent, create_agent
    from hookproof.runtime._middleware import (
        AgentMiddleware,
        after_agent,
        after_model,
        before_agent,
        before_model,
        dynamic_prompt,
        hook_config,
        wrap_model_call,
        wrap_tool_call,
    )
    from hookproof.runtime._state import AgentState
    from hookproof.tools import InjectedState, InjectedToolCallId, Tool, ToolSchema, tool

__all__ = [
    "DEFAULT_RUNTIME_MAX_ITERATIONS",
    "Agent",
    "AgentMiddleware",
    "AgentState",
    "AssistantMessage",
    "ChatModel",
    "Checkpoint",
    "Command",
    "ExtendedModelResponse",
    "FinalRequest",
    "InMemoryCheckpointer",
    "InjectedState",
    "InjectedToolCallId",
    "Interrupt",
    "ModelRequest",
    "ModelResponse",
    "RemoveMessage",
    "RunResult",
    "Runtime",
    "SystemMessage",
    "Tool",
    "ToolCall",
    "ToolCallRequest",
    "ToolMessage",
    "ToolRuntime",
    "ToolSchema",
    "UntrackedValue",
    "UserMessage",
    "add_messages",
    "after_agent",
    "after_model",
    "before_agent",
    "before_model",
    "create_agent",
    "dynamic_prompt",
    "hook_config",
    "interrupt",
    "tool",
    "wrap_model_call",
    "wrap_tool_call",
]


# Loaded on first use: the package imports in a millisecond, and pydantic and the engine load
# with the first name that needs them.
def _old_name(name: str) -> Any:  # an old name warns, naming the new one
    from hookproof.compat import deprecated_alias

    return deprecated_alias(__name__, name, callers=2)


_ORIGINS = _lazy.origins(
    {
        "hookproof._engine": (
            "Checkpoint",
            "InMemoryCheckpointer",
            "Interrupt",
            "RunResult",
            "UntrackedValue",
            "add_messages",
            "interrupt",
        ),
        "hookproof.context": ("Runtime", "ToolRuntime"),
        "hookproof.messages": (
            "AssistantMessage",
            "RemoveMessage",
            "SystemMessage",
            "ToolCall",
            "ToolMessage",
            "UserMessage",
        ),
        "hookproof.runtime._agent": ("DEFAULT_RUNTIME_MAX_ITERATIONS", "Agent", "create_agent"),
        "hookproof.runtime._middleware": (
            "AgentMiddleware",
            "after_agent",
            "after_model",
            "before_agent",
            "before_model",
            "dynamic_prompt",
            "hook_config",
            "wrap_model_call",
            "wrap_tool_call",
        ),
        "hookproof.runtime._state": ("AgentState",),
        "hookproof.tools": (
            "InjectedState",
            "InjectedToolCallId",
            "Tool",
            "ToolSchema",
            "tool",
        ),
        "hookproof.requests": (
            "ChatModel",
            "Command",
            "ExtendedModelResponse",
            "FinalRequest",
            "ModelRequest",
            "ModelResponse",
            "ToolCallRequest",
        ),
    }
)

if not TYPE_CHECKING:  # the old names warn at run time; mypy reports them as missing
    __getattr__, __dir__ = _lazy.exports(globals(), _ORIGINS, _old_name)
