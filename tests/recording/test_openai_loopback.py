"""Record through langchain-openai's real ChatOpenAI against a loopback server, stop the
server, replay. No part of the client library is mocked."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain_openai", reason="install hookproof[providers] to run this")

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_openai import ChatOpenAI

from hookproof.errors import StaleCassetteError
from hookproof.guard import block_real_models
from hookproof.recording import Cassette
from hookproof.snapshot import ChangeClass
from tests.recording.openai_server import openai_server

FAKE_KEY = "sk-proj-" + "Fake0Key1For2Tests3Only4" * 2
GONE = "http://127.0.0.1:9/v1"  # the discard port: nothing answers there


def _chat(base_url: str) -> ChatOpenAI:
    return ChatOpenAI(
        model="gpt-4o-mini",
        base_url=base_url,
        api_key=FAKE_KEY,  # type: ignore[arg-type]
        max_retries=0,
        stream_usage=True,
    )


PROMPT = [SystemMessage("You are terse."), HumanMessage("What is the capital of France?")]


def _calls(model: Any) -> dict[str, Any]:
    """One call of each kind, and what each answered."""

    async def async_calls() -> tuple[AIMessage, list[Any]]:
        answer = await model.ainvoke([HumanMessage("async, please")])
        chunks = [chunk async for chunk in model.astream([HumanMessage("stream async")])]
        return answer, chunks

    answer, async_chunks = asyncio.run(async_calls())
    return {
        "invoke": model.invoke(PROMPT),
        "stream": list(model.stream([HumanMessage("stream these words")])),
        "ainvoke": answer,
        "astream": async_chunks,
    }


def _seen(results: dict[str, Any]) -> dict[str, Any]:
    """What a test compares: texts, tool calls and usage (LangChain gives new run ids)."""
    return {
        "invoke": (results["invoke"].content, results["invoke"].usage_metadata),
        "ainvoke": results["ainvoke"].content,
        "stream": [chunk.content for chunk in results["stream"]],
        "astream": [chunk.content for chunk in results["astream"]],
        "stream_usage": sum(
            c.usage_metadata["total_tokens"] for c in results["stream"] if c.usage_metadata
        ),
    }


def test_recorded_once_replays_with_the_server_gone(tmp_path: Path) -> None:
    path = tmp_path / "cassette.json"
    with openai_server() as provider, Cassette(path, record_mode="once") as cassette:
        recorded = _calls(cassette.wrap(_chat(provider.base_url)))
    assert len(provider.bodies) == 4
    assert recorded["invoke"].content == "echo: What is the capital of France?"
    assert recorded["invoke"].usage_metadata["total_tokens"] == 10
    with block_real_models() as refusals:
        replayed = _calls(Cassette(path).wrap(_chat(GONE)))
    assert refusals == []
    assert _seen(replayed) == _seen(recorded)
    assert _seen(replayed)["stream"][:5] == ["", "echo:", " stream", " these", " words"]


def test_recording_the_same_calls_twice_writes_the_same_bytes(tmp_path: Path) -> None:
    texts = []
    for name in ("first.json", "second.json"):
        with openai_server() as provider, Cassette(tmp_path / name, record_mode="once") as c:
            _calls(c.wrap(_chat(provider.base_url)))
        texts.append((tmp_path / name).read_text())
    assert texts[0] == texts[1]
    assert "lc_run" not in texts[0]  # LangChain's per-run ids are not recorded


def test_a_call_recorded_without_streaming_streams_back_whole(tmp_path: Path) -> None:
    path = tmp_path / "cassette.json"
    with openai_server() as provider, Cassette(path, record_mode="once") as cassette:
        cassette.wrap(_chat(provider.base_url)).invoke(PROMPT)
    model = Cassette(path).wrap(_chat(GONE))
    chunks = list(model.stream(PROMPT))
    assert "".join(str(chunk.content) for chunk in chunks) == "echo: What is the capital of France?"
    assert model.last.system_text == "You are terse."  # kept for snapshots too


def test_a_stream_replays_to_invoke_and_a_tool_call_to_stream(tmp_path: Path) -> None:
    from langchain_core.tools import tool

    @tool
    def shout(text: str) -> str:
        """Say the text louder."""
        return text.upper()

    path = tmp_path / "cassette.json"
    with openai_server() as provider, Cassette(path, record_mode="once") as cassette:
        model = cassette.wrap(_chat(provider.base_url))
        list(model.stream(PROMPT))
        model.bind_tools([shout]).invoke([HumanMessage("hi")])
    model = Cassette(path).wrap(_chat(GONE))
    assert model.invoke(PROMPT).content == "echo: What is the capital of France?"
    chunks = list(model.bind_tools([shout]).stream([HumanMessage("hi")]))
    whole = chunks[0]
    for chunk in chunks[1:]:
        whole = whole + chunk
    assert [(c["name"], c["args"]) for c in whole.tool_calls] == [("shout", {"text": "hi"})]


def test_a_bound_runnable_is_refused_with_what_to_wrap(tmp_path: Path) -> None:
    from hookproof.errors import UsageError

    with pytest.raises(UsageError, match=r"cassette.wrap\(ChatOpenAI\(...\)\).bind_tools"):
        Cassette(tmp_path / "c.json").wrap(_chat(GONE).bind(temperature=0))


def test_an_answer_that_is_not_json_is_refused_when_it_is_recorded(tmp_path: Path) -> None:
    from langchain_core.language_models import BaseChatModel
    from langchain_core.outputs import ChatGeneration, ChatResult

    from hookproof.errors import CassetteError

    class OddModel(BaseChatModel):
        @property
        def _llm_type(self) -> str:
            return "odd"

        def _generate(self, messages: Any, stop: Any = None, **kwargs: Any) -> ChatResult:
            generation = ChatGeneration(message=AIMessage("x"), generation_info={"at": object()})
            return ChatResult(generations=[generation])

    path = tmp_path / "c.json"
    with pytest.raises(CassetteError, match="cannot be written to a cassette: Object of type"):
        Cassette(path, record_mode="once").wrap(OddModel()).invoke("hi")
    assert not path.exists()


def test_a_changed_prompt_fails_replay_with_the_semantic_diff(tmp_path: Path) -> None:
    path = tmp_path / "cassette.json"
    with openai_server() as provider, Cassette(path, record_mode="once") as cassette:
        cassette.wrap(_chat(provider.base_url)).invoke(PROMPT)
    changed = [SystemMessage("You are verbose."), PROMPT[1]]
    with pytest.raises(StaleCassetteError) as caught:
        Cassette(path, test="tests/t.py::test_capital").wrap(_chat(GONE)).invoke(changed)
    assert caught.value.diff.kinds == {ChangeClass.REVIEW}
    message = str(caught.value)
    assert "REVIEW   system prompt" in message
    assert "-  | You are terse." in message and "+  | You are verbose." in message
    assert "pytest --hookproof-record-mode=all 'tests/t.py::test_capital'" in message


def test_create_agent_with_a_tool_records_and_replays_both_model_turns(tmp_path: Path) -> None:
    from langchain.agents import create_agent
    from langchain_core.tools import tool

    @tool
    def shout(text: str) -> str:
        """Say the text louder."""
        return text.upper()

    def run(base_url: str, cassette: Cassette) -> list[Any]:
        agent = create_agent(cassette.wrap(_chat(base_url)), tools=[shout])
        return agent.invoke({"messages": [HumanMessage("hello")]})["messages"]

    path = tmp_path / "cassette.json"
    with openai_server() as provider, Cassette(path, record_mode="once") as cassette:
        recorded = run(provider.base_url, cassette)
    assert provider.bodies[0]["tools"][0]["function"]["name"] == "shout"
    replayed = run(GONE, Cassette(path))
    assert [m.content for m in replayed] == [m.content for m in recorded]
    assert replayed[1].tool_calls[0]["args"] == {"text": "hello"}
    assert replayed[-1].content == "echo: HELLO"
    requests = Cassette(path).exchanges
    assert [r.request.count("  shout") for r in requests] == [1, 1]  # the tool, in both


def test_the_reference_runtime_runs_a_recorded_chat_openai(tmp_path: Path) -> None:
    from hookproof.runtime import create_agent

    path = tmp_path / "cassette.json"
    with openai_server() as provider, Cassette(path, record_mode="once") as cassette:
        agent = create_agent(cassette.wrap(_chat(provider.base_url)))
        assert agent.invoke({"messages": [("user", "hi")]}).text == "echo: hi"
    agent = create_agent(Cassette(path).wrap(_chat(GONE)))
    assert agent.invoke({"messages": [("user", "hi")]}).text == "echo: hi"


def test_a_deep_agent_records_and_replays(tmp_path: Path) -> None:
    deepagents = pytest.importorskip(
        "deepagents", reason="install hookproof[deepagents] to run this"
    )

    def run(base_url: str, cassette: Cassette) -> list[Any]:
        agent = deepagents.create_deep_agent(model=cassette.wrap(_chat(base_url)))
        return agent.invoke({"messages": [HumanMessage("/")]})["messages"]

    path = tmp_path / "cassette.json"
    with openai_server() as provider, Cassette(path, record_mode="once") as cassette:
        recorded = run(provider.base_url, cassette)
    assert len(provider.bodies) == 2  # a tool call, then the answer
    replayed = run(GONE, Cassette(path))
    assert [m.content for m in replayed] == [m.content for m in recorded]
    assert replayed[-1].content.startswith("echo: ")


SECRETS = {
    "openai": "sk-proj-" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8Qr9St0Uv",
    "anthropic": "sk-ant-api03-" + "Zy9Xw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0Fe",
    "google": "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
    "aws": "AKIA" + "IOSFODNN7EXAMPLE",
    "github": "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
    "slack": "xoxb-" + "1234567890-0987654321-AbCdEfGhIjKl",
    "stripe": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "huggingface": "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
    "bearer": "Bearer " + "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJl",
}


def test_no_secret_reaches_the_cassette(tmp_path: Path) -> None:
    path = tmp_path / "cassette.json"
    leaky = "Here are my keys: " + "; ".join(f"{k} {v}" for k, v in SECRETS.items())
    with openai_server() as provider, Cassette(path, record_mode="once") as cassette:
        model = cassette.wrap(_chat(provider.base_url)).bind(user=SECRETS["openai"])
        answer = model.invoke([HumanMessage(leaky)])
        list(model.stream([HumanMessage(leaky)]))
    assert SECRETS["github"] in str(answer.content)  # the provider echoed them back
    text = path.read_text()
    leaked = [name for name, secret in SECRETS.items() if secret.split()[-1] in text]
    assert leaked == []
    assert FAKE_KEY not in text and "[REDACTED]" in text
    assert provider.credentials[0] == f"Bearer {FAKE_KEY}"  # sent, never written
    # The live request carries the secrets again; redacted the same way, it still matches.
    replay = Cassette(path).wrap(_chat(GONE)).bind(user=SECRETS["openai"])
    assert "[REDACTED]" in str(replay.invoke([HumanMessage(leaky)]).content)
