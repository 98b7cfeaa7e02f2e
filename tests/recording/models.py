"""Live-looking models for the cassette tests: not declared offline, each counts its calls
and answers from the request, so a changed request gets a changed answer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hookproof.messages import AssistantMessage, Message, ToolCall
from hookproof.requests import FinalRequest


def _last_text(messages: Any) -> str:
    return messages[-1].text if messages else ""


class EchoModel:
    """A hookproof ChatModel (invoke / ainvoke) answering ``echo: <last message>``; with
    tools and no tool result yet, it calls the first tool once."""

    name = "echo-model"

    def __init__(self) -> None:
        self.calls = 0

    def invoke(self, request: FinalRequest) -> AssistantMessage:
        self.calls += 1
        usage = {"input_tokens": len(request.messages), "output_tokens": 2}
        has_result = any(message.role == "tool" for message in request.messages)
        if request.tools and not has_result:
            call = ToolCall(name=request.tools[0].name, args={"q": "x"}, id=f"call_{self.calls}")
            return AssistantMessage(tool_calls=[call], response_metadata={"usage": usage})
        text = f"echo: {_last_text(request.messages)}"
        return AssistantMessage(text, id=f"answer-{self.calls}", response_metadata={"usage": usage})

    async def ainvoke(self, request: FinalRequest) -> AssistantMessage:
        return self.invoke(request)


class EinoEchoModel:
    """An Eino-style model: generate and a stream of one chunk per word."""

    name = "eino-echo"

    def __init__(self) -> None:
        self.calls = 0

    def generate(self, ctx: Any, messages: list[Message], **options: Any) -> AssistantMessage:
        self.calls += 1
        return AssistantMessage(f"echo: {_last_text(messages)}")

    def stream(
        self, ctx: Any, messages: list[Message], **options: Any
    ) -> Iterator[AssistantMessage]:
        self.calls += 1
        words = f"echo: {_last_text(messages)}".split(" ")
        for index, word in enumerate(words):
            yield AssistantMessage(word if index == 0 else f" {word}")
