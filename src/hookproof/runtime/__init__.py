"""The reference agent runtime: one engine and the LangChain-shaped middleware dialect."""

from typing import TYPE_CHECKING, Any

from hookproof._engine import (
    Checkpoint,
    InMemoryCheckpointer,
    Interrupt,
    RunResult,
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
from hookproof.runtime._agent import DEFAULT_RUNTIME_MAX_ITERATIONS, Agent, create_agent
from hookproof.runtime._middleware import (
    AgentMiddleware,
    after_agent,
    after_model,
    before_agent,
    before_model,
    dynamic_prompt,
    wrap_model_call,
    wrap_tool_call,
)
from hookproof.tools import Tool, ToolSchema, tool
from hookproof.vocabulary import (
    ChatModel,
    Command,
    ExtendedModelResponse,
    FinalRequest,
    ModelRequest,
    ModelResponse,
    ToolCallRequest,
)

__all__ = [
    "DEFAULT_RUNTIME_MAX_ITERATIONS",
    "Agent",
    "AgentMiddleware",
    "AssistantMessage",
    "ChatModel",
    "Checkpoint",
    "Command",
    "ExtendedModelResponse",
    "FinalRequest",
    "InMemoryCheckpointer",
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
    "UserMessage",
    "add_messages",
    "after_agent",
    "after_model",
    "before_agent",
    "before_model",
    "create_agent",
    "dynamic_prompt",
    "interrupt",
    "tool",
    "wrap_model_call",
    "wrap_tool_call",
]


if not TYPE_CHECKING:  # the old names warn at run time; mypy reports them as missing

    def __getattr__(name: str) -> Any:
        from hookproof.compat import deprecated_alias

        return deprecated_alias(__name__, name)
