"""Test models: ScriptedModel plays a script, RecordingModel shows the final request."""

from hookproof.errors import ScriptExhausted
from hookproof.models._recording import RecordingModel
from hookproof.models._scripted import ScriptedCall, ScriptedModel, Turn, call
from hookproof.requests import ChatModel, FinalRequest, Sender

__all__ = [
    "ChatModel",
    "FinalRequest",
    "RecordingModel",
    "ScriptExhausted",
    "ScriptedCall",
    "ScriptedModel",
    "Sender",
    "Turn",
    "call",
]
