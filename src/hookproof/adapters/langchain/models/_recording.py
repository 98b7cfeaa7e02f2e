"""RecordingChatModel: wraps any LangChain chat model and records the FinalRequest of every
call, then forwards it; a subclass answers its own way through the answering methods."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any, ClassVar

from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.chat_models import (
    agenerate_from_stream,
    generate_from_stream,
)
from langchain_core.messages import BaseMessage
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import PrivateAttr

from hookproof.adapters.langchain._convert import final_request, portable_kwargs
from hookproof.adapters.langchain._notes import noted, with_noted_provenance
from hookproof.adapters.langchain._settings import invocation_params
from hookproof.adapters.langchain.models._base import (
    ABSENT,
    ModelCall,
    ToolBindingChatModel,
    with_positional,
)
from hookproof.adapters.langchain.models._scripted import ScriptedChatModel
from hookproof.adapters.langchain.models._sender import sender_of
from hookproof.errors import InvalidInputError
from hookproof.guard import check_model
from hookproof.models import FinalRequest
from hookproof.requests import sent_by

__all__ = ["FalsyRecordingChatModel", "RecordingChatModel", "models_for"]


class RecordingChatModel(ToolBindingChatModel):
    """Wraps a chat model and records the FinalRequest of every call, then forwards it."""

    __test__: ClassVar[bool] = False
    hookproof_offline: ClassVar[bool] = True
    inner: BaseChatModel
    # Calls are kept raw and converted on first read, so recording costs almost nothing.
    _raw: list[tuple[list[BaseMessage], dict[str, Any], Any, Any, Any]] = PrivateAttr(
        default_factory=list
    )
    _requests: list[FinalRequest] = PrivateAttr(default_factory=list)

    def __init__(self, inner: Any = ABSENT, /, **kwargs: Any) -> None:
        """``RecordingChatModel(model)`` or ``RecordingChatModel(inner=model)``, like
        ``RecordingModel(inner)``."""
        super().__init__(**with_positional(type(self).__name__, "inner", inner, kwargs))

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
        for messages, kwargs, stop, notes, sender in self._raw[len(self._requests) :]:
            final = final_request(messages, kwargs, model=self.model_name, stop=stop)
            self._requests.append(with_noted_provenance(final, notes).with_sender(sender))
        return self._requests

    def _record(self, call: ModelCall) -> dict[str, Any]:
        """Keep one call with the notes its provenance is computed from and the agent that
        made it; its parameters (the inner model's own and the bound arguments, as
        portable_kwargs gives them) are returned."""
        params = portable_kwargs(self._get_invocation_params(stop=call.stop, **call.kwargs))
        sender = sender_of(call.run_manager)
        self._raw.append((list(call.messages), params, call.stop, noted(), sender))
        return params

    def _get_invocation_params(self, stop: list[str] | None = None, **kwargs: Any) -> Any:
        """The inner model's, so callbacks (and ``run()``) see the settings it sends."""
        return invocation_params(self.inner, stop, kwargs)

    def _forwarded(self, call: ModelCall) -> dict[str, Any]:
        """What the inner model is called with: the bound arguments, with hookproof's own
        only for an inner recorder (a cassette), which reads them."""
        own = isinstance(self.inner, RecordingChatModel)
        return dict(call.kwargs) if own else _without_own(call.kwargs)

    def _restart(self, script: Any) -> None:
        """Forget the calls recorded and play ``script`` (as ``models_for`` takes it) from
        its first turn: a build reused for another run (hookproof's checks only)."""
        self._raw.clear()
        self._requests.clear()
        if not isinstance(self.inner, ScriptedChatModel):
            raise TypeError("only a recorder of a ScriptedChatModel can be restarted")
        self.inner._restart(_turns(script))

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

    def requests_by(
        self, agent: str | None = None, *, depth: int | None = None
    ) -> tuple[FinalRequest, ...]:
        """The requests the agent named ``agent`` sent (any agent when None), at ``depth``
        (0 the main agent, 1 a subagent a tool ran...; any when None), in call order.
        InvalidInputError, saying which agents did send, when none matched."""
        recorder = f"RecordingChatModel {self.model_name!r}"
        return sent_by(self.requests, agent, depth, recorder)

    def first(self, agent: str | None = None, *, depth: int | None = None) -> FinalRequest:
        """The first request of the agent named ``agent`` (at ``depth``): ``first("researcher")``
        is what subagent researcher's model received first."""
        return self.requests_by(agent, depth=depth)[0]

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> Any:
        return self.inner._get_ls_params(stop=stop, **kwargs)

    # -- answering: record the call, then forward it to the inner model --------------------

    def _checked(self, call: ModelCall) -> dict[str, Any]:
        check_model(self.inner)
        return self._record(call)

    def _answer(self, call: ModelCall) -> ChatResult:
        self._checked(call)
        return self._inner_generate(call)

    async def _aanswer(self, call: ModelCall) -> ChatResult:
        self._checked(call)
        return await self._inner_agenerate(call)

    def _answer_stream(self, call: ModelCall) -> Iterator[ChatGenerationChunk]:
        if not _streams(self.inner, async_api=False):
            yield from super()._answer_stream(call)
            return
        self._checked(call)
        # No run manager: the stream() around this one reports each chunk already.
        yield from self.inner._stream(call.messages, stop=call.stop, **self._forwarded(call))

    async def _aanswer_stream(self, call: ModelCall) -> AsyncIterator[ChatGenerationChunk]:
        if not _streams(self.inner, async_api=True):
            async for chunk in super()._aanswer_stream(call):
                yield chunk
            return
        self._checked(call)
        forwarded = self._forwarded(call)
        async for chunk in self.inner._astream(call.messages, stop=call.stop, **forwarded):
            yield chunk

    def _inner_generate(self, call: ModelCall) -> ChatResult:
        """The inner model's answer; streamed and joined when the inner model streams on
        invoke (``ChatOpenAI(streaming=True)``'s own ``_generate`` cannot read its stream)."""
        arguments = self._inner_arguments(call)
        if self._streams_on_invoke(call, async_api=False):
            return generate_from_stream(self.inner._stream(call.messages, **arguments))
        return self.inner._generate(call.messages, **arguments)

    async def _inner_agenerate(self, call: ModelCall) -> ChatResult:
        arguments = self._inner_arguments(call)
        if self._streams_on_invoke(call, async_api=True):
            return await agenerate_from_stream(self.inner._astream(call.messages, **arguments))
        return await self.inner._agenerate(call.messages, **arguments)

    def _inner_arguments(self, call: ModelCall) -> dict[str, Any]:
        """The inner model's arguments but its messages: stop words, run manager, the
        forwarded bound arguments."""
        return {"stop": call.stop, "run_manager": call.run_manager, **self._forwarded(call)}

    def _streams_on_invoke(self, call: ModelCall, *, async_api: bool) -> bool:
        """Whether ``inner.invoke`` would stream this call: LangChain's own decision where
        the model has it, else its ``streaming`` field."""
        decide = getattr(self.inner, "_should_stream", None)
        if not callable(decide):
            return bool(getattr(self.inner, "streaming", False))
        forwarded = self._forwarded(call)
        return bool(decide(async_api=async_api, run_manager=call.run_manager, **forwarded))


def _streams(model: BaseChatModel, *, async_api: bool) -> bool:
    """Whether ``model`` implements streaming (sync, or either kind for async)."""
    sync = type(model)._stream is not BaseChatModel._stream
    return sync or (async_api and type(model)._astream is not BaseChatModel._astream)


def _without_own(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """Bound arguments without hookproof's own (``_hookproof_tools``, ...)."""
    return {key: value for key, value in kwargs.items() if not key.startswith("_hookproof_")}


class FalsyRecordingChatModel(RecordingChatModel):
    """A valid model whose truth value is False (for check_injected_model_used)."""

    def __bool__(self) -> bool:
        return False


def models_for(tiers: Sequence[str], script: Any) -> dict[str, RecordingChatModel]:
    return {
        tier: RecordingChatModel(inner=ScriptedChatModel(script=_turns(script), model_name=tier))
        for tier in tiers
    }


def _turns(script: Any) -> Any:
    turns = script if script is not None else ["done"]
    return turns if callable(turns) else list(turns)
