"""Summarization: when the conversation outgrows the model's budget, condense old messages.

Tokens are estimated deterministically (characters / 4). Over the threshold, every message
before the last ``keep_messages`` is replaced by one summary message; the cut moves back so
a tool result is never separated from the call that asked for it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from hookproof.harness.prompts import SUMMARY_PREFIX
from hookproof.messages import AssistantMessage, Message, RemoveMessage, ToolMessage, UserMessage
from hookproof.runtime import AgentMiddleware

__all__ = ["DEFAULT_THRESHOLD", "SummarizationMiddleware", "estimate_tokens"]

DEFAULT_THRESHOLD = 170_000
_SHARE_OF_WINDOW = 0.85


def estimate_tokens(messages: Sequence[Message]) -> int:
    """A deterministic estimate: about four characters a token, plus a few per message."""
    characters = 0
    for message in messages:
        characters += len(message.text) + 16
        for call in getattr(message, "tool_calls", ()):
            characters += len(call.name) + len(json.dumps(dict(call.args), sort_keys=True))
    return characters // 4


def _window(model: Any) -> int | None:
    profile = getattr(model, "profile", None)
    value = profile.get("max_input_tokens") if isinstance(profile, dict) else None
    return value if isinstance(value, int) and value > 0 else None


def _extract(messages: Sequence[Message]) -> str:
    lines = []
    for message in messages:
        text = " ".join(message.text.split())[:100]
        calls = ", ".join(call.name for call in getattr(message, "tool_calls", ()))
        lines.append(f"- {message.role}: {text or '(calls ' + calls + ')'}")
    return "\n".join(lines)


class SummarizationMiddleware(AgentMiddleware):
    """Condense old messages before a model call once the estimate passes the threshold."""

    def __init__(
        self,
        *,
        model: Any = None,
        max_tokens: int | None = None,
        keep_messages: int = 6,
        summarize: Callable[[Sequence[Message]], str] = _extract,
    ) -> None:
        window = _window(model)
        self.threshold = max_tokens or (
            int(window * _SHARE_OF_WINDOW) if window else DEFAULT_THRESHOLD
        )
        self.keep_messages = keep_messages
        self.summarize = summarize

    def before_model(self, state: Any, runtime: Any) -> Any:
        messages = list(state["messages"])
        if estimate_tokens(messages) <= self.threshold:
            return None
        cut = self._cut(messages)
        if cut <= 0:
            return None
        summary = UserMessage(content=f"{SUMMARY_PREFIX}\n{self.summarize(messages[:cut])}")
        return {"messages": [RemoveMessage(id=RemoveMessage.ALL), summary, *messages[cut:]]}

    def _cut(self, messages: list[Message]) -> int:
        cut = max(len(messages) - self.keep_messages, 0)
        while 0 < cut < len(messages) and isinstance(messages[cut], ToolMessage):
            cut -= 1
        while cut > 0 and _calls_tools(messages[cut - 1]):
            cut -= 1
        return cut


def _calls_tools(message: Message) -> bool:
    return isinstance(message, AssistantMessage) and bool(message.tool_calls)
