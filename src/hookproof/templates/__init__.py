"""AgenticChatTemplate: agentic messages as prompt templates (FString, GoTemplate, Jinja2).

Formatting renders only user-input blocks (text; URL, base64 data and file name when set)
and copies every other block unchanged; the messages passed in are never modified.
"""

from hookproof.errors import (
    TemplateError,
    TemplateRenderError,
    TemplateSecurityError,
    TemplateSyntaxError,
    TemplateVariableError,
    UnsupportedTemplateConstruct,
)
from hookproof.templates._agentic_message import AgenticMessage, to_message
from hookproof.templates._budget import TemplateBudget
from hookproof.templates._content_blocks import (
    AssistantGenText,
    ContentBlock,
    FunctionToolCall,
    FunctionToolResult,
    MCPToolCall,
    MCPToolResult,
    Reasoning,
    ServerToolCall,
    ServerToolResult,
    ToolSearchResult,
    UserInputAudio,
    UserInputFile,
    UserInputImage,
    UserInputText,
    UserInputVideo,
    new_content_block,
)
from hookproof.templates._format import (
    AgenticMessagesTemplate,
    AgenticTemplateCallbacks,
    DefaultAgenticChatTemplate,
    FormatType,
    MessagesPlaceholder,
    agentic_messages_placeholder,
    format_message,
    from_agentic_messages,
    system_agentic_message,
    user_agentic_message,
)
from hookproof.templates._pipe import Pipe, output_key, pipe

__all__ = [
    "AgenticMessage",
    "AgenticMessagesTemplate",
    "AgenticTemplateCallbacks",
    "AssistantGenText",
    "ContentBlock",
    "DefaultAgenticChatTemplate",
    "FormatType",
    "FunctionToolCall",
    "FunctionToolResult",
    "MCPToolCall",
    "MCPToolResult",
    "MessagesPlaceholder",
    "Pipe",
    "Reasoning",
    "ServerToolCall",
    "ServerToolResult",
    "TemplateBudget",
    "TemplateError",
    "TemplateRenderError",
    "TemplateSecurityError",
    "TemplateSyntaxError",
    "TemplateVariableError",
    "ToolSearchResult",
    "UnsupportedTemplateConstruct",
    "UserInputAudio",
    "UserInputFile",
    "UserInputImage",
    "UserInputText",
    "UserInputVideo",
    "agentic_messages_placeholder",
    "format_message",
    "from_agentic_messages",
    "new_content_block",
    "output_key",
    "pipe",
    "system_agentic_message",
    "to_message",
    "user_agentic_message",
]
