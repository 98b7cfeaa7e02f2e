"""The guard's first line: while it is on, only models declared offline run.

hookproof's runtime, Eino dialect and recording models call ``check_model``; every LangChain
model is checked in its base class and in the methods its subclasses define (see
``_langchain``). A model is offline when its class says ``hookproof_offline = True``
(hookproof's scripted and recording models do), or when it is one of langchain-core's fakes,
which answer from the lists they are given.
"""

from __future__ import annotations

from hookproof.errors import RealModelBlocked
from hookproof.guard._state import current_policy, is_allowed_model, record_refusal

__all__ = ["check_model", "is_offline"]

_LANGCHAIN_FAKES = (
    "langchain_core.language_models.fake_chat_models",
    "langchain_core.language_models.fake",
    "langchain_core.embeddings.fake",
)


def is_offline(model: object) -> bool:
    model_type = type(model)
    return getattr(model_type, "hookproof_offline", False) is True or any(
        base.__module__ in _LANGCHAIN_FAKES for base in model_type.__mro__
    )


def check_model(model: object) -> None:
    """Raise RealModelBlocked if the guard is on and ``model`` is not declared offline."""
    blocking = current_policy().blocking
    if blocking and not is_offline(model) and not is_allowed_model(model):
        raise record_refusal(RealModelBlocked(_blocked_model_message(model)))


_LANGCHAIN_REPLACEMENTS = {
    "BaseChatModel": "ScriptedChatModel or RecordingChatModel (over a ScriptedChatModel) from "
    "hookproof.adapters.langchain",
    "BaseLLM": "langchain-core's FakeListLLM (langchain_core.language_models)",
    "Embeddings": "langchain-core's DeterministicFakeEmbedding (langchain_core.embeddings)",
}


def _langchain_kind(model: object) -> str | None:
    """Which LangChain base ``model`` is (a key of ``_LANGCHAIN_REPLACEMENTS``), if any."""
    for base in type(model).__mro__:
        if base.__name__ in _LANGCHAIN_REPLACEMENTS and base.__module__.startswith(
            "langchain_core."
        ):
            return base.__name__
    return None


def _model_label(model: object) -> str:
    for attribute in ("name", "model_name", "model"):
        value = getattr(model, attribute, None)
        if isinstance(value, str) and value:
            return value
    return type(model).__name__


def _blocked_model_message(model: object) -> str:
    kind = type(model).__name__
    langchain = _langchain_kind(model)
    if langchain is not None:
        replacement = _LANGCHAIN_REPLACEMENTS[langchain]
        marking = f"`hookproof_offline: ClassVar[bool] = True` on {kind}"
    else:
        replacement = "ScriptedModel or RecordingModel (over a ScriptedModel) from hookproof.models"
        marking = f"`hookproof_offline = True` on {kind}"
    return (
        f"hookproof: the test called model {_model_label(model)!r} ({kind}), which is not "
        "declared offline and may reach a real provider. hookproof blocks real model calls "
        f"in tests: they are slow, cost money and are not deterministic. Use {replacement}; "
        f"if {kind} never leaves the machine, declare it with {marking}; to let this test "
        "call real models, mark it @pytest.mark.hookproof(allow_real_models=True), or run "
        "with --hookproof-allow-real-models."
    )
