"""LangChain chat models for tests: ``ScriptedChatModel`` plays a hookproof script,
``RecordingChatModel`` wraps any chat model and records the FinalRequest of every call.

A subclass of ``RecordingChatModel`` answers a call its own way by overriding its answering
methods, each given the ``ModelCall`` as LangChain made it (the cassettes of
``hookproof.recording`` replay answers so). ``FalsyRecordingChatModel`` and ``models_for``
give the LangChain target its models.
"""

from hookproof.adapters.langchain.models._base import ModelCall, tool_call_chunks
from hookproof.adapters.langchain.models._recording import (
    FalsyRecordingChatModel,
    RecordingChatModel,
    models_for,
)
from hookproof.adapters.langchain.models._scripted import ScriptedChatModel

__all__ = [
    "FalsyRecordingChatModel",
    "ModelCall",
    "RecordingChatModel",
    "ScriptedChatModel",
    "models_for",
    "tool_call_chunks",
]
