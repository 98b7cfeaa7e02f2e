"""The provenance observer of one Eino run.

The engine reports each model layer that passed on another value than it received; in Eino
those values are the dialect's own (ChatModelInput, ModelCall), and both hold the run and
the model. A FinalRequest keeps its provenance until it is read, and a RecordingModel keeps
its FinalRequests: provenance that kept those values would close a cycle (model -> recorded
request -> provenance -> ModelCall -> model) and leave every run to the garbage collector.
So each value is read down to what provenance reads of it, its tools and system message,
when the model is called.
"""

from __future__ import annotations

from typing import Any

from hookproof.eino._model_call import ChatModelInput, ModelCall
from hookproof.eino._provenance import RequestShape
from hookproof.messages import SystemMessage
from hookproof.provenance import Edit, PendingProvenance
from hookproof.requests import ModelRequest

__all__ = ["EinoNotes"]


class EinoNotes:
    """Records one run's model-layer changes (a RunObserver) and gives each FinalRequest
    the provenance read from them, with the handlers' state rewrites before the model layers
    first. The tools are all the agent's."""

    __slots__ = ("_edits",)

    def __init__(self) -> None:
        self._edits: list[Edit] = []

    def request_passed(self, owner: str, received: Any, passed: Any) -> None:
        self._edits.append((owner, received, passed))

    def request_returned(self) -> None:
        self._edits.pop()

    def model_called(self, call: Any, request: ModelRequest) -> Any:
        edits = self._edits
        if len(edits) == 1 and edits[0][2] is call and type(edits[0][1]) is ChatModelInput:
            # Only the chat-model step passed on another value (the call, from the state,
            # which holds no request): the agent's own request, unless the state's tools or
            # system message are not the agent's or a handler's state rewrite changed them.
            run = call.run
            agent = run.agent
            if (
                request.tools is agent.tool_index.frozen_infos
                and request.system_message is agent.system_message
                and not run.provenance_edits
            ):
                return agent.unchanged_provenance
        return self.pending(call, request)

    def pending(self, call: Any, request: ModelRequest) -> PendingProvenance:
        """The provenance read from the handlers' state rewrites and the layers' changes."""
        base, edits = None, []
        if type(call) is ModelCall and call.run.provenance_base is not None:
            base, edits = call.run.provenance_base, [*call.run.provenance_edits]
        for owner, old, new in self._edits:
            received = _plain(old, call, request)
            if received is None and base is not None:
                continue  # provenance skips a change from a value that holds no request
            edits.append((owner, received, _plain(new, call, request)))
        if base is None and self._edits:
            base = _plain(self._edits[0][1], call, request)
        return PendingProvenance(base, edits, request, {}, _as_read)


def _plain(value: Any, call: Any, request: ModelRequest) -> RequestShape | None:
    """What provenance reads of a value between the layers: its request's tools and system
    message, or None for a value that holds no request (the state before the first layer)."""
    if type(value) is RequestShape:  # a handler's state rewrite, noted by the run
        return value
    if value is call:  # the request the model receives was built from it
        return RequestShape(request.tools, request.system_message)
    if not isinstance(value, ModelCall):
        return None
    messages = value.messages
    first = messages[0] if messages else None
    tools = value.run.request_tools(value.options.get("tools") or ())
    return RequestShape(tools, first if isinstance(first, SystemMessage) else None)


def _as_read(value: RequestShape | None) -> RequestShape | None:
    return value
