"""Requests and responses that flow through wrap layers, and the FinalRequest a model receives.

ModelRequest and ToolCallRequest are deeply immutable: ``override(**changes)`` returns a new
request and the original stays equal to what it was; assignment or in-place list edits raise
ImmutableError with the fix in the message.
"""

from hookproof.requests._final import ChatModel, FinalRequest, model_name
from hookproof.requests._requests import ModelRequest, ToolCallRequest

# For the engine and the dialects: importable from here, not part of __all__.
from hookproof.requests._requests import as_system_message as as_system_message
from hookproof.requests._responses import NO_RESUME as NO_RESUME
from hookproof.requests._responses import Command, ExtendedModelResponse, ModelResponse
from hookproof.requests._sender import RUNNING_AGENT as RUNNING_AGENT
from hookproof.requests._sender import Sender
from hookproof.requests._sender import sent_by as sent_by

__all__ = [
    "ChatModel",
    "Command",
    "ExtendedModelResponse",
    "FinalRequest",
    "ModelRequest",
    "ModelResponse",
    "Sender",
    "ToolCallRequest",
    "model_name",
]
