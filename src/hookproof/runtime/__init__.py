"""The reference agent runtime: one engine and the LangChain-shaped middleware dialect."""

from hookproof._engine.checkpoint import Checkpoint, InMemoryCheckpointer, Interrupt, interrupt
from hookproof._engine.loop import RunResult
from hookproof._engine.state import add_messages
from hookproof.context import Runtime, ToolRuntime
from hookproof.messages import (
    AIMessage,
    AssistantMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from hookproof.runtime._agent import DEFAULT_MAX_ITERATIONS, Agent, create_agent
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
    "DEFAULT_MAX_ITERATIONS",
    "AIMessage",
    "Agent",
    "AgentMiddleware",
    "AssistantMessage",
    "ChatModel",
    "Checkpoint",
    "Command",
    "ExtendedModelResponse",
    "FinalRequest",
    "HumanMessage",
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
