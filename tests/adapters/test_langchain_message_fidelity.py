"""LangChain messages crossing into the reference engine and back come back equal: every
content block type langchain_core defines, and the metadata (id, name, additional_kwargs,
response_metadata, usage_metadata, invalid_tool_calls), as a LangChain hook and the LangChain
chat model see them. A list holding one plain text block, or no block, comes back as a str
(same text, same content_blocks): hookproof's messages hold blocks, not the shape of the list.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run these")

from langchain.agents import create_agent as langchain_create_agent
from langchain.agents.middleware import (
    AgentMiddleware,
    ModelFallbackMiddleware,
    ModelRefusalMiddleware,
)
from langchain_core.exceptions import ModelRefusalError
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from pydantic import Field

from hookproof.messages import FileBlock, ImageBlock
from hookproof.runtime import create_agent

PNG = "iVBORw0KGgo="
BLOCKS: dict[str, dict[str, Any]] = {
    "text with id and annotations": {
        "type": "text",
        "text": "cited",
        "id": "b1",
        "annotations": [{"type": "citation", "url": "https://example.com", "cited_text": "x"}],
    },
    "text with cache_control": {"type": "text", "text": "kept", "cache_control": {"type": "x"}},
    "reasoning": {"type": "reasoning", "reasoning": "because", "id": "r1", "extras": {"s": 1}},
    "refusal": {"type": "refusal", "refusal": "blocked"},
    "image by url": {"type": "image", "url": "https://example.com/a.png"},
    "image by base64": {"type": "image", "base64": PNG, "mime_type": "image/png", "id": "i1"},
    "image by file id": {"type": "image", "file_id": "file-1"},
    "audio": {"type": "audio", "base64": "UklGRg==", "mime_type": "audio/wav"},
    "video": {"type": "video", "url": "https://example.com/v.mp4", "mime_type": "video/mp4"},
    "file": {"type": "file", "base64": "JVBERi0=", "mime_type": "application/pdf"},
    "file with extras": {
        "type": "file",
        "file_id": "f-2",
        "extras": {"filename": "a.pdf"},
        "index": 1,
    },
    "file by url": {"type": "file", "url": "https://example.com/a.pdf", "mime_type": "x/y"},
    "v0 file by base64": {
        "type": "file",
        "source_type": "base64",
        "data": "JVBERi0=",
        "mime_type": "application/pdf",
        "filename": "a.pdf",
    },
    "v0 file by url": {"type": "file", "source_type": "url", "url": "https://example.com/b"},
    "v0 file by id": {"type": "file", "source_type": "id", "id": "file-abc"},
    "v0 image by base64": {
        "type": "image",
        "source_type": "base64",
        "data": PNG,
        "mime_type": "image/png",
    },
    "v0 audio by url": {"type": "audio", "source_type": "url", "url": "https://e.com/a.wav"},
    "plain text data": {"type": "text-plain", "text": "data", "mime_type": "text/plain"},
    "tool call": {"type": "tool_call", "name": "t", "args": {"a": 1}, "id": "c9"},
    "invalid tool call": {
        "type": "invalid_tool_call",
        "name": "t",
        "args": "{",
        "id": "c8",
        "error": "bad",
    },
    "tool call chunk": {"type": "tool_call_chunk", "name": "t", "args": "{", "id": "c7"},
    "server tool call": {"type": "server_tool_call", "name": "web", "args": {}, "id": "s1"},
    "server tool call chunk": {"type": "server_tool_call_chunk", "name": "web", "args": "{"},
    "server tool result": {
        "type": "server_tool_result",
        "tool_call_id": "s1",
        "status": "success",
        "output": {"hits": 2},
    },
    "non standard": {"type": "non_standard", "value": {"provider": "thing"}},
    "provider specific": {"type": "document", "source": {"type": "text", "data": "doc"}},
}


class Replies(GenericFakeChatModel):  # type: ignore[misc]
    """Answers with the given messages in turn; keeps the messages it received."""

    received: list[Any] = Field(default_factory=list)

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self

    def _generate(self, messages: list[Any], *args: Any, **kwargs: Any) -> Any:
        self.received = list(messages)
        return super()._generate(messages, *args, **kwargs)


class Sees(AgentMiddleware):  # type: ignore[misc]
    """Keeps the messages a LangChain hook is shown."""

    def __init__(self) -> None:
        self.seen: list[Any] = []

    def before_model(self, state: Any, runtime: Any) -> None:
        self.seen = list(state["messages"])


def _history(block: dict[str, Any]) -> list[Any]:
    usage = {"input_tokens": 10, "output_tokens": 2, "total_tokens": 12}
    bad_call = {"name": "t", "args": "{", "id": "x", "error": "bad", "type": "invalid_tool_call"}
    return [
        HumanMessage(content=[{"type": "text", "text": "see"}, block], id="u1", name="ann"),
        AIMessage(
            content=[block, {"type": "text", "text": "ok"}],
            id="a1",
            tool_calls=[{"name": "t", "args": {"q": 1}, "id": "call_1", "type": "tool_call"}],
            invalid_tool_calls=[bad_call],
            usage_metadata=usage,  # type: ignore[arg-type]
            response_metadata={"model_name": "m", "stop_reason": "tool_use"},
            additional_kwargs={"custom": {"k": [1, 2]}},
        ),
        ToolMessage(
            content=[{"type": "text", "text": "found"}, block],
            tool_call_id="call_1",
            id="t1",
            name="t",
            status="error",
        ),
        ToolMessage("seen", tool_call_id="x", id="t2", status="error"),
        HumanMessage("go on", id="u2"),
    ]


@pytest.mark.parametrize("name", sorted(BLOCKS))
def test_a_langchain_message_crosses_the_reference_engine_unchanged(name: str) -> None:
    """Hooks see the very messages; the model gets what it gets on LangChain's create_agent
    (langchain_core turns a v0 data block into the standard shape for the model itself)."""
    history = _history(BLOCKS[name])
    model, hook = Replies(messages=iter([AIMessage("done", id="a2")])), Sees()
    system = SystemMessage(content=[{"type": "text", "text": "be brief"}, BLOCKS[name]])
    agent = create_agent(model, [], system_prompt=system, middleware=[hook])
    agent.invoke({"messages": history})
    assert hook.seen == history
    on_langchain = Replies(messages=iter([AIMessage("done", id="a2")]))
    langchain_create_agent(on_langchain, [], system_prompt=system).invoke({"messages": history})
    assert _without_made_ids(model.received) == _without_made_ids(on_langchain.received)


def _without_made_ids(messages: list[Any]) -> list[Any]:
    """The messages with the random block ids langchain_core makes ("lc_...") left out."""
    return [m.model_copy(update={"content": _kept_ids(m.content)}) for m in messages]


def _kept_ids(content: Any) -> Any:
    if not isinstance(content, list):
        return content
    return [
        {k: v for k, v in b.items() if not (k == "id" and str(v).startswith("lc_"))}
        if isinstance(b, dict)
        else b
        for b in content
    ]


FILES = {
    "v1 base64": (
        {"type": "file", "base64": "JVBERi0=", "mime_type": "application/pdf"},
        FileBlock(base64="JVBERi0=", mime_type="application/pdf"),
    ),
    "v1 url": (
        {"type": "file", "url": "https://example.com/a.docx"},
        FileBlock(url="https://example.com/a.docx"),
    ),
    "v1 file id": ({"type": "file", "file_id": "file-1"}, FileBlock(file_id="file-1")),
    "v0 base64": (
        {"type": "file", "source_type": "base64", "data": "JVBERi0=", "mime_type": "app/pdf"},
        FileBlock(base64="JVBERi0=", mime_type="app/pdf", extras={"source_type": "base64"}),
    ),
    "v0 url": (
        {"type": "file", "source_type": "url", "url": "https://example.com/b"},
        FileBlock(url="https://example.com/b", extras={"source_type": "url"}),
    ),
    "v0 id": (
        {"type": "file", "source_type": "id", "id": "file-2"},
        FileBlock(file_id="file-2", extras={"source_type": "id"}),
    ),
    "v0 image": (
        {"type": "image", "source_type": "base64", "data": PNG, "mime_type": "image/png"},
        ImageBlock(base64=PNG, mime_type="image/png", extras={"source_type": "base64"}),
    ),
}


@pytest.mark.parametrize("name", sorted(FILES))
def test_a_file_block_is_a_file_block_in_the_recorded_request(name: str) -> None:
    """What a snapshot shows of a LangChain file block is a file: its data and mime type,
    never its JSON as text; a hook still sees the block as it was."""
    given, shown = FILES[name]
    question = HumanMessage(content=[{"type": "text", "text": "read it"}, given], id="u1")
    model, hook = Replies(messages=iter([AIMessage("read")])), Sees()
    result = create_agent(model, [], middleware=[hook]).invoke({"messages": [question]})
    assert result.final_requests[0].messages[0].content[1] == shown
    assert hook.seen == [question]


class DropsFiles(AgentMiddleware):  # type: ignore[misc]
    """Replaces file blocks the model cannot read with a note, on copies of the messages
    (model_copy), as deepagents' per-provider scrubbing does."""

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        def scrubbed(message: Any) -> Any:
            blocks = message.content_blocks
            kept = [b if b["type"] != "file" else {"type": "text", "text": "[no]"} for b in blocks]
            return message if kept == blocks else message.model_copy(update={"content": kept})

        return handler(request.override(messages=[scrubbed(m) for m in request.messages]))


@pytest.mark.parametrize("shape", ["v1 base64", "v1 file id", "v0 base64", "v0 id"])
def test_a_hook_that_scrubs_file_blocks_on_copies_works_as_on_langchain(shape: str) -> None:
    given, _ = FILES[shape]
    question = HumanMessage(content=[{"type": "text", "text": "read"}, given], id="u1")
    received = []
    for build in (langchain_create_agent, create_agent):
        model = Replies(messages=iter([AIMessage("read")]))
        build(model, [], middleware=[DropsFiles()]).invoke({"messages": [question]})
        received.append(_without_made_ids(model.received))
    on_langchain, on_reference = received
    assert on_reference == on_langchain
    assert on_reference[0].content_blocks[1] == {"type": "text", "text": "[no]"}
    assert question.content[1] == given  # the caller's message is left as it was


def test_a_message_holding_an_image_reaches_a_langchain_model() -> None:
    """langchain_core copies such a message to change it for tracing: the copy is free."""
    image = {"type": "image", "base64": PNG, "mime_type": "image/png"}
    question = HumanMessage(content=[{"type": "text", "text": "what is it?"}, image], id="u1")
    model = Replies(messages=iter([AIMessage("a cat")]))
    result = create_agent(model, [], middleware=[Sees()]).invoke({"messages": [question]})
    assert model.received == [question]
    assert result.text == "a cat"


@pytest.mark.parametrize("ainvoke", [False, True], ids=["invoke", "ainvoke"])
def test_a_refusal_block_reaches_langchains_refusal_middleware(ainvoke: bool) -> None:
    refusal = AIMessage(content_blocks=[{"type": "refusal", "refusal": "blocked"}])
    guarded = [ModelRefusalMiddleware()]
    primary = Replies(messages=iter([refusal]))
    agent = create_agent(primary, [], middleware=guarded)
    hi = {"messages": [HumanMessage("request")]}
    with pytest.raises(ModelRefusalError):
        asyncio.run(agent.ainvoke(hi)) if ainvoke else agent.invoke(hi)
    fallback = Replies(messages=iter([AIMessage("fallback answer")]))
    primary = Replies(messages=iter([refusal]))
    both = [ModelFallbackMiddleware(fallback), ModelRefusalMiddleware()]
    agent = create_agent(primary, [], middleware=both)
    result = asyncio.run(agent.ainvoke(hi)) if ainvoke else agent.invoke(hi)
    assert result.text == "fallback answer"
