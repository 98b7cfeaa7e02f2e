"""The models the plugin's fixtures hand a test: hookproof's own, and LangChain's (whose
adapter is imported only when a test asks for one).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from hookproof.adapters.langchain import RecordingChatModel, ScriptedChatModel
    from hookproof.models import ScriptedModel
    from hookproof.plugin._options import HookproofOptions

__all__ = ["recording_chat_model", "scripted_chat_model", "scripted_model"]


def scripted_model(options: HookproofOptions) -> ScriptedModel:
    from hookproof.models import ScriptedModel

    return ScriptedModel(list(options.script), name=options.model_name)


def scripted_chat_model(options: HookproofOptions) -> ScriptedChatModel:
    with _langchain_needed("scripted_chat_model"):
        from hookproof.adapters.langchain import ScriptedChatModel

    return ScriptedChatModel(list(options.script), model_name=options.model_name)


def recording_chat_model(scripted: ScriptedChatModel) -> Iterator[RecordingChatModel]:
    """While the test runs, LangChain's ``create_agent`` builds its wrap hooks instrumented,
    so the FinalRequests of an agent built in the test carry provenance."""
    from hookproof.adapters.langchain import RecordingChatModel
    from hookproof.adapters.langchain.tracing import instrumented_builds

    with instrumented_builds():
        yield RecordingChatModel(scripted)


@contextmanager
def _langchain_needed(fixture: str) -> Iterator[None]:
    """Turn a missing langchain into a message saying what to install."""
    try:
        yield
    except ModuleNotFoundError as error:
        if not (error.name or "").startswith("langchain"):
            raise
        raise pytest.UsageError(
            f"hookproof: {fixture} needs langchain-core, which cannot be imported ({error}). "
            "The fixture builds a real LangChain chat model for create_agent. Install it with "
            "`pip install 'hookproof[langchain]'`."
        ) from None
