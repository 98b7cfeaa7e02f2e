"""LangChain chat models for tests: scripted replies, recorded final requests."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import ConfigDict, PrivateAttr

from hookproof._guard import check_model
from hookproof.adapters.langchain._convert import (
    PLACEHOLDER_REQUEST,
    final_request,
    portable_kwargs,
    to_ai_message,
)
from hookproof.adapters.langchain._tracing import noted, with_noted_provenance
from hookproof.errors import InvalidInputError, UsageError
from hookproof.models import FinalRequest, ScriptedModel
from hookproof.redaction import redact_text

__all__ = ["FalsyRecordingChatModel", "RecordingChatModel", "ScriptedChatModel", "models_for"]


class _Absent:
    """The default of a positional argument that was not given (it may come as a keyword)."""

    def __repr__(self) -> str:
        return "<positional or keyword>"


_ABSENT: Any = _Absent()


def _with_positional(model: str, field: str, value: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    """Fold the one positional argument into pydantic's keywords, refusing it twice."""
    if value is _ABSENT:
        return kwargs
    if field in kwargs:
        raise UsageError(
            f"hookproof: {model} got {field} twice, positionally and as {field}=. "
            f"hookproof cannot tell which one you meant. Pass it once, e.g. "
            f"{model}(value) or {model}({field}=value)."
        )
    return {**kwargs, field: value}


class _ToolBinding(BaseChatModel):
    """bind_tools that keeps full schemas, tool_choice and any settings."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    # The repr shows the inner model's fields (default_headers, model_kwargs, a plain
    # api_key): it reaches logs and pytest's failure output, so no secret may show in it.
    def __repr__(self) -> str:
        return redact_text(super().__repr__())

    def __str__(self) -> str:
        return redact_text(super().__str__())

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any) -> Any:
        formatted = [convert_to_openai_tool(item) for item in tools]
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return self.bind(tools=formatted, **kwargs)

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        message = self._generate(messages, stop, run_manager, **kwargs).generations[0].message
        chunk = AIMessageChunk(
            content=message.content,
            tool_call_chunks=[
                {"name": c["name"], "args": json.dumps(c["args"]), "id": c["id"], "index": i}
                for i, c in enumerate(getattr(message, "tool_calls", []))
            ],
            id=message.id,
        )
        yield ChatGenerationChunk(message=chunk)


class ScriptedChatModel(_ToolBinding):
    """A LangChain chat model that plays a hookproof script (turns or a function)."""

    __test__: ClassVar[bool] = False
    hookproof_offline: ClassVar[bool] = True
    script: Any
    model_name: str = "scripted"
    provider: str | None = None
    _scripted: ScriptedModel | None = PrivateAttr(default=None)

    def __init__(self, script: Any = _ABSENT, /, **kwargs: Any) -> None:
        """``ScriptedChatModel([...])`` or ``ScriptedChatModel(script=[...])``, like
        ``ScriptedModel(turns)``; the other fields are keywords."""
        super().__init__(**_with_positional(type(self).__name__, "script", script, kwargs))

    @property
    def _llm_type(self) -> str:
        return "hookproof-scripted"

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> Any:
        params = super()._get_ls_params(stop=stop, **kwargs)
        params["ls_provider"] = self.provider or "hookproof"
        params["ls_model_name"] = self.model_name
        return params

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self._scripted is None:
            script = self.script if callable(self.script) else list(self.script)
            self._scripted = ScriptedModel(script, name=self.model_name)
        # A list script needs the request only to explain running out; build it only then.
        needs_request = callable(self.script) or self._scripted.remaining == 0
        request = (
            final_request(messages, kwargs, model=self.model_name, stop=stop)
            if needs_request
            else PLACEHOLDER_REQUEST
        )
        reply = self._scripted.invoke(request)
        return ChatResult(generations=[ChatGeneration(message=to_ai_message(reply))])


class RecordingChatModel(_ToolBinding):
    """Wraps a chat model and records the FinalRequest of every call, then forwards it."""

    __test__: ClassVar[bool] = False
    hookproof_offline: ClassVar[bool] = True
    inner: BaseChatModel
    # Calls are kept raw and converted on first read, so recording costs almost nothing.
    _raw: list[tuple[list[BaseMessage], dict[str, Any], Any, Any]] = PrivateAttr(
        default_factory=list
    )
    _requests: list[FinalRequest] = PrivateAttr(default_factory=list)

    def __init__(self, inner: Any = _ABSENT, /, **kwargs: Any) -> None:
        """``RecordingChatModel(model)`` or ``RecordingChatModel(inner=model)``, like
        ``RecordingModel(inner)``."""
        super().__init__(**_with_positional(type(self).__name__, "inner", inner, kwargs))

    @property
    def _llm_type(self) -> str:
        return "hookproof-recording"

    @property
    def model_name(self) -> str:
        inner = self.inner
        name = getattr(inner, "model_name", None) or getattr(inner, "model", None)
        return str(name or type(inner).__name__)

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any) -> Any:
        """Let the inner model format the tools its own way (a provider needs its format);
        keep the portable schemas aside for the recorded FinalRequest."""
        formatted = [convert_to_openai_tool(item) for item in tools]
        choice = {"tool_choice": tool_choice} if tool_choice is not None else {}
        try:
            bound = self.inner.bind_tools(tools, **choice, **kwargs)
            native = dict(getattr(bound, "kwargs", {}) or {})
        except NotImplementedError:
            native = {"tools": formatted, **choice, **kwargs}
        return self.bind(_hookproof_tools=formatted, _hookproof_tool_choice=tool_choice, **native)

    def _converted(self) -> list[FinalRequest]:
        for messages, kwargs, stop, notes in self._raw[len(self._requests) :]:
            final = final_request(messages, kwargs, model=self.model_name, stop=stop)
            self._requests.append(with_noted_provenance(final, notes))
        return self._requests

    def _record(self, messages: Sequence[BaseMessage], portable: dict[str, Any], stop: Any) -> None:
        """Keep one call (``portable``: its bound arguments, as portable_kwargs gives them)
        with the notes its provenance is computed from."""
        self._raw.append((list(messages), portable, stop, noted()))

    @property
    def requests(self) -> tuple[FinalRequest, ...]:
        return tuple(self._converted())

    @property
    def last(self) -> FinalRequest:
        if not self._converted():
            raise InvalidInputError(
                f"hookproof: RecordingChatModel {self.model_name!r} has recorded no request yet. "
                "Run the agent first; if you did, it used another model."
            )
        return self._requests[-1]

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> Any:
        return self.inner._get_ls_params(stop=stop, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        check_model(self.inner)
        forward = {k: v for k, v in kwargs.items() if not k.startswith("_hookproof_")}
        self._record(messages, portable_kwargs(kwargs), stop)
        return self.inner._generate(messages, stop=stop, run_manager=run_manager, **forward)


class FalsyRecordingChatModel(RecordingChatModel):
    """A valid model whose truth value is False (for check_injected_model_used)."""

    def __bool__(self) -> bool:
        return False


def models_for(tiers: Sequence[str], script: Any) -> dict[str, RecordingChatModel]:
    turns = script if script is not None else ["done"]
    return {
        tier: RecordingChatModel(
            inner=ScriptedChatModel(
                script=turns if callable(turns) else list(turns), model_name=tier
            )
        )
        for tier in tiers
    }
