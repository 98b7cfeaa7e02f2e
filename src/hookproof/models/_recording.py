"""RecordingModel: wraps any model and keeps every FinalRequest it receives."""

from __future__ import annotations

import threading
from typing import Any

from hookproof._support.sync_ainvoke import answers_synchronously
from hookproof.errors import InvalidInputError, UsageError
from hookproof.guard import check_model
from hookproof.messages import AssistantMessage
from hookproof.redaction import redact_text
from hookproof.requests import FinalRequest, model_name, sent_by

__all__ = ["RecordingModel"]


class RecordingModel:
    """Records the request exactly as the model receives it, after every layer, then
    forwards it to ``inner``. Its identity (``name``) is the inner model's unless given.

    Deliberately defines no ``__len__`` or ``__bool__``: a model must never be falsy by
    accident. Recording is thread-safe; requests are kept in call order.
    """

    __test__ = False
    hookproof_offline = True

    def __init__(self, inner: Any, *, name: str | None = None) -> None:
        if inner is None or not callable(getattr(inner, "invoke", None)):
            raise UsageError(
                "hookproof: RecordingModel wraps a model with invoke(), got "
                f"{redact_text(repr(inner)):.60}. "
                "Example: RecordingModel(ScriptedModel(['done']))."
            )
        self.inner = inner
        self.name = name if name is not None else model_name(inner)
        self.provider: str | None = getattr(inner, "provider", None)
        profile = getattr(inner, "profile", None)
        self.profile: dict[str, Any] = dict(profile) if profile else {}
        self._requests: list[FinalRequest] = []
        self._responses: list[AssistantMessage] = []
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return redact_text(f"RecordingModel(name={self.name!r}, requests={len(self._requests)})")

    @property
    def hookproof_sync_ainvoke(self) -> bool:
        """Its ainvoke only calls invoke when the inner model's does (or it has none)."""
        return answers_synchronously(self.inner)

    @property
    def requests(self) -> tuple[FinalRequest, ...]:
        """Every FinalRequest received so far, in order."""
        with self._lock:
            return tuple(self._requests)

    @property
    def responses(self) -> tuple[AssistantMessage, ...]:
        with self._lock:
            return tuple(self._responses)

    @property
    def last(self) -> FinalRequest:
        """The most recent FinalRequest."""
        with self._lock:
            if not self._requests:
                raise InvalidInputError(
                    f"hookproof: RecordingModel {self.name!r} has recorded no request yet. "
                    "Run the agent first; if you did, the agent used another model (check "
                    "your model routing)."
                )
            return self._requests[-1]

    def requests_by(
        self, agent: str | None = None, *, depth: int | None = None
    ) -> tuple[FinalRequest, ...]:
        """The requests the agent named ``agent`` sent (any agent when None), at ``depth``
        (0 the main agent, 1 a subagent...; any when None), in call order. InvalidInputError,
        saying which agents did send, when none matched."""
        return sent_by(self.requests, agent, depth, f"RecordingModel {self.name!r}")

    def first(self, agent: str | None = None, *, depth: int | None = None) -> FinalRequest:
        """The first request of the agent named ``agent`` (at ``depth``): ``first("researcher")``
        is what subagent researcher's model received first."""
        return self.requests_by(agent, depth=depth)[0]

    def clear(self) -> None:
        with self._lock:
            self._requests.clear()
            self._responses.clear()

    def _record(self, request: FinalRequest) -> FinalRequest:
        recorded = request
        if request.model != self.name:  # a validated copy: what travels beside it, kept
            renamed = request.override(model=self.name).with_provenance(request.provenance)
            recorded = renamed.with_sender(request.sender)
        with self._lock:
            self._requests.append(recorded)
        return recorded

    def invoke(self, request: FinalRequest) -> AssistantMessage:
        check_model(self.inner)
        self._record(request)
        response: AssistantMessage = self.inner.invoke(request)
        with self._lock:
            self._responses.append(response)
        return response

    async def ainvoke(self, request: FinalRequest) -> AssistantMessage:
        check_model(self.inner)
        self._record(request)
        ainvoke = getattr(self.inner, "ainvoke", None)
        response: AssistantMessage = (
            await ainvoke(request) if ainvoke is not None else self.inner.invoke(request)
        )
        with self._lock:
            self._responses.append(response)
        return response
