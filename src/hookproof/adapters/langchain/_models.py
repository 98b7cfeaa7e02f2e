"""LangChain chat models for tests: scripted replies, recorded final requests."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any, ClassVar

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.chat_models import (
    agenerate_from_stream,
    generate_from_stream,
)
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
from hookproof.adapters.langchain._settings import invocation_params
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
        keep the portable schemas aside for the recorded FinalRequest, with the options as
        given (a provider may fold one into its own shape: Anthropic's tool_choice holds
        parallel_tool_calls)."""
        formatted = [convert_to_openai_tool(item) for item in tools]
        choice = {"tool_choice": tool_choice} if tool_choice is not None else {}
        try:
            bound = self.inner.bind_tools(tools, **choice, **kwargs)
            native = _without_own(getattr(bound, "kwargs", {}) or {})  # an inner recorder's
        except NotImplementedError:
            native = {"tools": formatted, **choice, **kwargs}
        options = {"_hookproof_tool_options": kwargs} if kwargs else {}  # parallel_tool_calls
        return self.bind(
            _hookproof_tools=formatted, _hookproof_tool_choice=tool_choice, **options, **native
        )

    def _converted(self) -> list[FinalRequest]:
        for messages, kwargs, stop, notes in self._raw[len(self._requests) :]:
            final = final_request(messages, kwargs, model=self.model_name, stop=stop)
            self._requests.append(with_noted_provenance(final, notes))
        return self._requests

    def _record(
        self, messages: Sequence[BaseMessage], kwargs: Mapping[str, Any], stop: Any
    ) -> dict[str, Any]:
        """Keep one call with the notes its provenance is computed from; its parameters (the
        inner model's own and the bound arguments, as portable_kwargs gives them) are
        returned."""
        params = portable_kwargs(self._get_invocation_params(stop=stop, **kwargs))
        self._raw.append((list(messages), params, stop, noted()))
        return params

    def _get_invocation_params(self, stop: list[str] | None = None, **kwargs: Any) -> Any:
        """The inner model's, so callbacks (and ``run()``) see the settings it sends."""
        return invocation_params(self.inner, stop, kwargs)

    def _forwarded(self, kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """What the inner model is called with: the bound arguments, with hookproof's own
        only for an inner recorder (a cassette), which reads them."""
        return dict(kwargs) if isinstance(self.inner, RecordingChatModel) else _without_own(kwargs)

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
        self._record(messages, kwargs, stop)
        return self._inner_generate(messages, stop, run_manager, kwargs)

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        check_model(self.inner)
        self._record(messages, kwargs, stop)
        return await self._inner_agenerate(messages, stop, run_manager, kwargs)

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        if not _streams(self.inner, async_api=False):
            yield from super()._stream(messages, stop, run_manager, **kwargs)
            return
        check_model(self.inner)
        self._record(messages, kwargs, stop)
        # No run manager: the stream() around this one reports each chunk already.
        yield from self.inner._stream(messages, stop=stop, **self._forwarded(kwargs))

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        if not _streams(self.inner, async_api=True):
            async for chunk in super()._astream(messages, stop, run_manager, **kwargs):
                yield chunk
            return
        check_model(self.inner)
        self._record(messages, kwargs, stop)
        async for chunk in self.inner._astream(messages, stop=stop, **self._forwarded(kwargs)):
            yield chunk

    def _inner_generate(
        self, messages: list[BaseMessage], stop: Any, run_manager: Any, kwargs: Mapping[str, Any]
    ) -> ChatResult:
        """The inner model's answer; streamed and joined when the inner model streams on
        invoke (``ChatOpenAI(streaming=True)``'s own ``_generate`` cannot read its stream)."""
        forward = self._forwarded(kwargs)
        inner = self.inner
        if _streams_on_invoke(inner, False, run_manager, forward):
            chunks = inner._stream(messages, stop=stop, run_manager=run_manager, **forward)
            return generate_from_stream(chunks)
        return inner._generate(messages, stop=stop, run_manager=run_manager, **forward)

    async def _inner_agenerate(
        self, messages: list[BaseMessage], stop: Any, run_manager: Any, kwargs: Mapping[str, Any]
    ) -> ChatResult:
        forward = self._forwarded(kwargs)
        inner = self.inner
        if _streams_on_invoke(inner, True, run_manager, forward):
            chunks = inner._astream(messages, stop=stop, run_manager=run_manager, **forward)
            return await agenerate_from_stream(chunks)
        return await inner._agenerate(messages, stop=stop, run_manager=run_manager, **forward)


def _without_own(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """Bound arguments without hookproof's own (``_hookproof_tools``, ...)."""
    return {key: value for key, value in kwargs.items() if not key.startswith("_hookproof_")}


def _streams_on_invoke(
    model: BaseChatModel, async_api: bool, run_manager: Any, kwargs: Mapping[str, Any]
) -> bool:
    """Whether ``model.invoke`` would stream this call: LangChain's own decision where the
    model has it, else its ``streaming`` field."""
    decide = getattr(model, "_should_stream", None)
    if callable(decide):
        return bool(decide(async_api=async_api, run_manager=run_manager, **kwargs))
    return bool(getattr(model, "streaming", False))


def _streams(model: BaseChatModel, *, async_api: bool) -> bool:
    """Whether ``model`` implements streaming (sync, or either kind for async)."""
    sync = type(model)._stream is not BaseChatModel._stream
    return sync or (async_api and type(model)._astream is not BaseChatModel._astream)


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
