"""Streaming: chunks and their metadata, callbacks that read a stream, a stream cut midway."""

from __future__ import annotations

from typing import Any

from hookproof.eino import (
    ChatModelAgent,
    ManualClock,
    ModelRetryConfig,
    RetryDecision,
)
from hookproof.messages import AssistantMessage, text_message
from hookproof.models import call
from tests.eino.helpers import scripted


def test_streamed_chunks_merge_their_metadata() -> None:
    from hookproof.eino._streams import concat_messages
    from hookproof.messages import construct

    first = text_message(AssistantMessage, "Hel")
    last = construct(
        AssistantMessage,
        content=text_message(AssistantMessage, "lo").content,
        response_metadata={"finish_reason": "stop"},
    )
    whole = concat_messages((first, last))
    assert whole.text == "Hello" and whole.response_metadata == {"finish_reason": "stop"}


def test_a_callback_reading_a_stream_leaves_the_result_whole() -> None:
    from hookproof.eino import CallbackHandler
    from tests.eino.helpers import StreamableOnly

    seen: list[Any] = []

    class Reads(CallbackHandler):
        def on_end(self, ctx: Any, info: Any, output: Any) -> Any:
            seen.append((info.component, list(output) if info.component == "Tool" else None))
            return ctx

    for streaming in (False, True):
        agent = ChatModelAgent(
            model=scripted(call("kind_tool", {"q": "x"}), "done"),
            tools=[StreamableOnly()],
            callbacks=[Reads()],
        )
        run = agent.run([("user", "x")], enable_streaming=streaming)
        assert run.events[1].message.text == "stream"  # type: ignore[union-attr]
    assert ("Tool", ["str", "eam"]) in seen


class ChunkModel:
    """An Eino-style model that streams its answer in chunks, optionally failing midway."""

    hookproof_offline = True

    def __init__(self, *answers: Any, fail_after: int | None = None) -> None:
        self.answers, self.fail_after, self.inputs = list(answers), fail_after, []

    def stream(self, ctx: Any, messages: Any, **options: Any) -> Any:
        self.inputs.append([m.text for m in messages])
        parts = self.answers.pop(0)
        for index, part in enumerate(parts):
            if self.fail_after is not None and index == self.fail_after:
                self.fail_after = None
                raise ConnectionError("stream cut")
            yield text_message(AssistantMessage, part)


def test_an_eino_style_stream_keeps_its_chunks_and_the_id_is_on_the_first() -> None:
    run = ChatModelAgent(model=ChunkModel(("a", "b", "c"))).run(
        [("user", "x")], enable_streaming=True
    )
    chunks = run.events[0].chunks
    assert [chunk.text for chunk in chunks] == ["a", "b", "c"]
    assert [bool(chunk.additional_kwargs.get("_eino_msg_id")) for chunk in chunks] == [
        True,
        False,
        False,
    ]
    assert run.text == "abc"


def test_a_stream_that_fails_midway_shows_its_partial_output_to_the_deciders() -> None:
    seen: list[Any] = []

    def decide(ctx: Any, context: Any) -> RetryDecision | None:
        seen.append((context.output_message and context.output_message.text, context.error))
        return RetryDecision(retry=True) if context.error is not None else None

    model = ChunkModel(("p1", "p2", "p3"), ("ok",), fail_after=2)
    agent = ChatModelAgent(
        model=model, model_retry_config=ModelRetryConfig(1, decide), clock=ManualClock()
    )
    run = agent.run([("user", "x")], enable_streaming=True)
    assert run.text == "ok"
    assert seen[0][0] == "p1p2" and isinstance(seen[0][1], ConnectionError)
