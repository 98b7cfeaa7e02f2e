"""ScriptedChatModel: a LangChain chat model that plays a hookproof script."""

from __future__ import annotations

from typing import Any, ClassVar

from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

from hookproof.adapters.langchain._convert import (
    PLACEHOLDER_REQUEST,
    final_request,
    to_ai_message,
)
from hookproof.adapters.langchain.models._base import (
    ABSENT,
    ModelCall,
    ToolBindingChatModel,
    with_positional,
)
from hookproof.models import ScriptedModel

__all__ = ["ScriptedChatModel"]


class ScriptedChatModel(ToolBindingChatModel):
    """A LangChain chat model that plays a hookproof script (turns or a function)."""

    __test__: ClassVar[bool] = False
    hookproof_offline: ClassVar[bool] = True
    script: Any
    model_name: str = "scripted"
    provider: str | None = None
    _scripted: ScriptedModel | None = PrivateAttr(default=None)

    def __init__(self, script: Any = ABSENT, /, **kwargs: Any) -> None:
        """``ScriptedChatModel([...])`` or ``ScriptedChatModel(script=[...])``, like
        ``ScriptedModel(turns)``; the other fields are keywords."""
        super().__init__(**with_positional(type(self).__name__, "script", script, kwargs))

    @property
    def _llm_type(self) -> str:
        return "hookproof-scripted"

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> Any:
        params = super()._get_ls_params(stop=stop, **kwargs)
        params["ls_provider"] = self.provider or "hookproof"
        params["ls_model_name"] = self.model_name
        return params

    def _restart(self, script: Any) -> None:
        """Play ``script`` from its first turn (a recorder reused for another run)."""
        self.script = script
        self._scripted = None

    def _answer(self, call: ModelCall) -> ChatResult:
        if self._scripted is None:
            script = self.script if callable(self.script) else list(self.script)
            self._scripted = ScriptedModel(script, name=self.model_name)
        # A list script needs the request only to explain running out; build it only then.
        needs_request = callable(self.script) or self._scripted.remaining == 0
        request = (
            final_request(call.messages, call.kwargs, model=self.model_name, stop=call.stop)
            if needs_request
            else PLACEHOLDER_REQUEST
        )
        reply = self._scripted.invoke(request)
        return ChatResult(generations=[ChatGeneration(message=to_ai_message(reply))])
