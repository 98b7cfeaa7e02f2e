"""Human in the loop: pause before configured tools run; resume with approve, edit or reject.

The interrupt value is ``{"action_requests": [{"name", "args", "id"}, ...], "review_configs":
[{"action_name", "allowed_decisions"}, ...]}``. Resume with
``Command(resume={"decisions": [...]})``, one decision per request, in order:
``{"type": "approve"}``, ``{"type": "edit", "args": {...}}`` or
``{"type": "reject", "message": "..."}`` (the message reaches the model as the tool's answer).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hookproof.errors import InvalidInputError, safe_repr
from hookproof.messages import AssistantMessage, RemoveMessage, ToolCall, ToolMessage
from hookproof.runtime import AgentMiddleware, interrupt

__all__ = ["HumanInTheLoopMiddleware"]

ALL_DECISIONS = ("approve", "edit", "reject")


def _allowed(config: bool | Mapping[str, Any]) -> tuple[str, ...] | None:
    if config is False:
        return None
    if config is True:
        return ALL_DECISIONS
    return tuple(config.get("allowed_decisions", ALL_DECISIONS))


class HumanInTheLoopMiddleware(AgentMiddleware):
    """``interrupt_on`` maps tool names to True, False or {"allowed_decisions": [...]}."""

    def __init__(self, interrupt_on: Mapping[str, bool | Mapping[str, Any]]) -> None:
        self.policies = {
            name: allowed
            for name, config in interrupt_on.items()
            if (allowed := _allowed(config)) is not None
        }

    def after_model(self, state: Any, runtime: Any) -> Any:
        messages = list(state["messages"])
        last = messages[-1] if messages else None
        if not isinstance(last, AssistantMessage):
            return None
        reviewed = [call for call in last.tool_calls if call.name in self.policies]
        if not reviewed:
            return None
        answer = interrupt(self._request(reviewed))
        decisions = self._decisions(answer, reviewed)
        calls, rejections = self._apply(
            last, dict(zip((c.id for c in reviewed), decisions, strict=True))
        )
        rewritten = last.override(tool_calls=calls)
        return {
            "messages": [
                RemoveMessage(id=RemoveMessage.ALL),
                *messages[:-1],
                rewritten,
                *rejections,
            ]
        }

    def _request(self, calls: list[ToolCall]) -> dict[str, Any]:
        return {
            "action_requests": [{"name": c.name, "args": dict(c.args), "id": c.id} for c in calls],
            "review_configs": [
                {"action_name": c.name, "allowed_decisions": list(self.policies[c.name])}
                for c in calls
            ],
        }

    def _decisions(self, answer: Any, calls: list[ToolCall]) -> list[Mapping[str, Any]]:
        decisions = answer.get("decisions") if isinstance(answer, Mapping) else None
        if not isinstance(decisions, list) or len(decisions) != len(calls):
            raise InvalidInputError(
                f"hookproof: resume the human-in-the-loop interrupt with "
                f"{{'decisions': [...]}} holding {len(calls)} decision(s), one per reviewed "
                f"tool call ({[c.name for c in calls]}); got {safe_repr(answer, 100)}."
            )
        for call, decision in zip(calls, decisions, strict=True):
            kind = decision.get("type") if isinstance(decision, Mapping) else None
            if kind not in self.policies[call.name]:
                raise InvalidInputError(
                    f"hookproof: decision {safe_repr(decision, 80)} for {call.name!r} "
                    "is not allowed; "
                    f"allowed: {list(self.policies[call.name])}."
                )
        return decisions

    @staticmethod
    def _apply(
        message: AssistantMessage, decisions: Mapping[str | None, Mapping[str, Any]]
    ) -> tuple[list[ToolCall], list[ToolMessage]]:
        calls: list[ToolCall] = []
        rejections: list[ToolMessage] = []
        for call in message.tool_calls:
            decision = decisions.get(call.id, {"type": "approve"})
            if decision["type"] == "edit":
                call = call.override(args=decision.get("args", call.args))
            elif decision["type"] == "reject":
                text = decision.get("message") or f"The user rejected the call to {call.name}."
                rejections.append(
                    ToolMessage(
                        content=text, tool_call_id=call.id or "", name=call.name, status="error"
                    )
                )
            calls.append(call)
        return calls, rejections
