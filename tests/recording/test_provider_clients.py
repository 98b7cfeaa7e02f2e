"""The real ``langchain-openai`` and ``langchain-anthropic`` clients against loopback servers
speaking their APIs (SSE streaming included): a model's own settings are part of what it
receives (recorded, snapshotted, matched by cassettes, classified), no secret among them is
written, and every client records and replays, sync and async, streaming or not, with a
recorder and a cassette in either order."""

from __future__ import annotations

import asyncio
import importlib
import os
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langchain", reason="install hookproof[langchain] to run this")

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.tools import tool

from hookproof.adapters.langchain import RecordingChatModel, run
from hookproof.errors import StaleCassetteError
from hookproof.recording import Cassette
from hookproof.snapshot import ChangeClass, diff, render
from tests.recording.anthropic_server import anthropic_server
from tests.recording.openai_server import openai_server

OPENAI_KEY = "sk-proj-" + "Fake0Key1For2Tests3Only4" * 2
ANTHROPIC_KEY = "sk-ant-api03-" + "Fake0Key1For2Tests3Only4" * 2
HEADER_SECRET = "header-" + "S3cr3tValueNobodyMaySee"
PROMPT = [SystemMessage("You are terse."), HumanMessage("What is the capital of France?")]
# A loopback client is no real provider: the tests that call one through a RecordingChatModel
# (no cassette between) let it run.
loopback_models = pytest.mark.hookproof(allow_real_models=True)


@tool
def shout(text: str) -> str:
    """Say the text louder."""
    return text.upper()


@dataclass(frozen=True)
class Client:
    """One provider package: its chat model aimed at a base URL, and its loopback server."""

    name: str
    make: Callable[..., Any]
    server: Callable[[], AbstractContextManager[Any]]
    gone: str  # a base URL where nothing answers

    def __call__(self, base_url: str, **settings: Any) -> Any:
        return self.make(base_url=base_url, max_retries=0, **settings)


def _provider(module: str) -> Any:
    """The provider package, or a skip naming the extra; a failure under CI, which installs
    the extra (a skipped provider would let its client go untested)."""
    try:
        return importlib.import_module(module)
    except ImportError:
        reason = f"{module} is not installed: install hookproof[providers] to run this"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"{reason}; CI installs that extra, so these tests must run there.")
        pytest.skip(reason)


def _openai() -> Client:
    chat_openai = _provider("langchain_openai").ChatOpenAI

    def make(**kwargs: Any) -> Any:
        return chat_openai(**{"model": "gpt-4o-mini", "api_key": OPENAI_KEY, **kwargs})

    return Client("openai", make, openai_server, "http://127.0.0.1:9/v1")


def _anthropic() -> Client:
    chat_anthropic = _provider("langchain_anthropic").ChatAnthropic

    def make(**kwargs: Any) -> Any:
        return chat_anthropic(
            **{"model": "claude-sonnet-4-5", "api_key": ANTHROPIC_KEY, "max_tokens": 64, **kwargs}
        )

    return Client("anthropic", make, anthropic_server, "http://127.0.0.1:9")


@pytest.fixture(params=["openai", "anthropic"])
def client(request: pytest.FixtureRequest) -> Client:
    return _openai() if request.param == "openai" else _anthropic()


# -- 1. a model's own settings are part of what it receives ------------------------------

# What each client is configured with, and the settings a FinalRequest shows for it (under
# each provider's own parameter names, as LangChain reports them).
CONFIGURED = {
    "openai": (
        {"temperature": 0, "max_tokens": 256, "top_p": 0.5, "seed": 7, "stop": ["END"]},
        {"temperature": 0.0, "max_completion_tokens": 256, "top_p": 0.5, "seed": 7},
    ),
    "anthropic": (
        {"temperature": 0, "max_tokens": 256, "top_p": 0.5, "top_k": 40, "stop": ["END"]},
        {"temperature": 0.0, "max_tokens": 256, "top_p": 0.5, "top_k": 40},
    ),
}


# The settings each client sends whatever it is configured with (Anthropic needs max_tokens).
FIXED: dict[str, dict[str, Any]] = {"openai": {}, "anthropic": {"max_tokens": 64}}


@loopback_models
def test_a_models_own_settings_are_recorded_with_the_bound_ones(client: Client) -> None:
    configured, shown = CONFIGURED[client.name]
    with client.server() as provider:
        model = RecordingChatModel(client(provider.base_url, **configured))
        model.bind_tools([shout], tool_choice="shout", parallel_tool_calls=False).invoke(PROMPT)
    request = model.last
    expected = {**shown, "stop": ["END"], "parallel_tool_calls": False}
    assert dict(request.model_settings) == expected
    assert request.tool_choice == "shout"
    assert request.tool_names == ["shout"]
    settings_line = next(line for line in render(request).splitlines() if "settings" in line)
    assert '"temperature": 0.0' in settings_line and "256" in settings_line
    assert "stream" not in settings_line  # how the answer comes back is not a setting


def _gate(tmp_path: Path, before: Any, after: Any) -> tuple[int, str]:
    """``hookproof gate --fail-on review`` on one snapshot before and after."""
    from hookproof.cli import main

    for side, request in (("baseline", before), ("candidate", after)):
        (tmp_path / side / "suite").mkdir(parents=True)
        (tmp_path / side / "suite" / "test_agent.txt").write_text(render(request))
    out = tmp_path / "report.txt"
    args = [str(tmp_path / "baseline"), str(tmp_path / "candidate"), "-o", str(out)]
    code = main(["gate", "--fail-on", "review", *args])
    return code, out.read_text()


@loopback_models
def test_run_and_snapshots_see_a_settings_change_as_review(client: Client, tmp_path: Path) -> None:
    from langchain.agents import create_agent

    def final(base_url: str, recorder: bool = True, **settings: Any) -> Any:
        chat = client(base_url, **settings)
        agent = create_agent(RecordingChatModel(chat) if recorder else chat)
        return run(agent, {"messages": [HumanMessage("hi")]}).final_requests[0]

    with client.server() as provider:
        calm = final(provider.base_url, temperature=0, max_tokens=256)
        bare = final(provider.base_url, recorder=False, temperature=0, max_tokens=256)
        wild = final(provider.base_url, temperature=1.7, max_tokens=5)
        other = final(provider.base_url, temperature=0, max_tokens=256, model="other-model")
    assert calm.model_settings["temperature"] == 0.0
    assert render(bare) == render(calm)  # with or without a recorder around the model
    assert wild.model_settings["temperature"] == 1.7
    changes = diff(render(calm), render(wild))
    assert [(c.kind, c.subject) for c in changes.changes] == [(ChangeClass.REVIEW, "settings")]
    renamed = diff(render(calm), render(other))
    assert [(c.kind, c.subject) for c in renamed.changes] == [(ChangeClass.REVIEW, "model")]
    code, report = _gate(tmp_path, calm, wild)
    assert code == 1
    assert "REVIEW" in report and "settings" in report


@pytest.mark.parametrize(
    "change", [{"temperature": 1.7}, {"max_tokens": 5}], ids=["temperature", "max_tokens"]
)
def test_a_settings_change_makes_the_cassette_stale(
    client: Client, change: dict[str, Any], tmp_path: Path
) -> None:
    path = tmp_path / "cassette.json"
    recorded = {"temperature": 0, "max_tokens": 256}
    with client.server() as provider, Cassette(path, record_mode="once") as cassette:
        cassette.wrap(client(provider.base_url, **recorded)).invoke(PROMPT)
    assert Cassette(path).wrap(client(client.gone, **recorded)).invoke(PROMPT).content
    replay = Cassette(path, test="tests/t.py::test_capital")
    with pytest.raises(StaleCassetteError) as caught:
        replay.wrap(client(client.gone, **{**recorded, **change})).invoke(PROMPT)
    assert caught.value.diff.kinds == {ChangeClass.REVIEW}
    message = str(caught.value)
    assert "REVIEW   settings: changed" in message
    assert "-settings: " in message and "+settings: " in message
    assert str(next(iter(change.values()))) in message.split("+settings: ")[1].splitlines()[0]


MCP_SERVER = {"type": "url", "url": "https://mcp.example/sse", "name": "docs"}
# Settings that reach the provider in its request but not in LangChain's invocation
# parameters (Anthropic's), or in both (OpenAI's): each is recorded, and a change is seen.
PROVIDER_KEYS = {
    "anthropic": [
        ({"betas": ["files-api-2025-04-14"]}, {"betas": ["context-1m-2025-08-07"]}),
        ({"mcp_servers": [MCP_SERVER]}, {"mcp_servers": [{**MCP_SERVER, "name": "wiki"}]}),
    ],
    "openai": [
        ({"service_tier": "flex"}, {"service_tier": "priority"}),
        ({"reasoning_effort": "low"}, {"reasoning_effort": "high"}),
    ],
}


def _shows(shown: Any, value: Any) -> bool:
    """Whether a recorded setting is ``value``; a list may hold more (a beta the client adds)."""
    return all(item in shown for item in value) if isinstance(value, list) else shown == value


@loopback_models
@pytest.mark.parametrize("index", [0, 1])
def test_a_provider_key_is_recorded_and_its_change_makes_the_cassette_stale(
    client: Client, index: int, tmp_path: Path
) -> None:
    recorded, changed = PROVIDER_KEYS[client.name][index]
    (key,) = recorded
    path = tmp_path / "cassette.json"
    with client.server() as provider:
        with Cassette(path, record_mode="once") as cassette:
            model = cassette.wrap(client(provider.base_url, **recorded))
            model.invoke(PROMPT)
        recorder = RecordingChatModel(client(provider.base_url, **changed))
        recorder.invoke(PROMPT)
    before, after = model.last.model_settings[key], recorder.last.model_settings[key]
    assert before != after
    assert _shows(before, recorded[key]) and _shows(after, changed[key])
    assert key in path.read_text()
    with pytest.raises(StaleCassetteError) as caught:
        Cassette(path).wrap(client(client.gone, **changed)).invoke(PROMPT)
    assert "REVIEW   settings: changed" in str(caught.value)


def test_a_model_name_change_makes_the_cassette_stale(client: Client, tmp_path: Path) -> None:
    path = tmp_path / "cassette.json"
    with client.server() as provider, Cassette(path, record_mode="once") as cassette:
        cassette.wrap(client(provider.base_url)).invoke(PROMPT)
    with pytest.raises(StaleCassetteError) as caught:
        Cassette(path).wrap(client(client.gone, model="upgraded-model")).invoke(PROMPT)
    assert "REVIEW   model: changed" in str(caught.value)


def _secret_settings(name: str) -> dict[str, Any]:
    """Settings that hold secrets in every place a client takes them, and one plain one."""
    headers = {"X-Team-Auth": HEADER_SECRET, "Authorization": f"Bearer {HEADER_SECRET}"}
    settings: dict[str, Any] = {"default_headers": headers, "temperature": 0.5}
    if name == "openai":
        settings["extra_body"] = {"metadata": {"tier": "gold"}, "access_token": HEADER_SECRET}
    else:
        settings["model_kwargs"] = {"extra_headers": headers}
    return settings


def test_no_secret_among_the_settings_is_written(client: Client, tmp_path: Path) -> None:
    path = tmp_path / "cassette.json"
    with client.server() as provider, Cassette(path, record_mode="once") as cassette:
        model = cassette.wrap(client(provider.base_url, **_secret_settings(client.name)))
        model.bind(extra_headers={"X-Call-Token": HEADER_SECRET}).invoke(PROMPT)
    settings = dict(model.last.model_settings)
    assert settings["temperature"] == 0.5
    if client.name == "openai":  # the provider-specific body is kept, its secret is not
        assert settings["extra_body"] == {"metadata": {"tier": "gold"}}
    text = path.read_text()
    assert "temperature" in text
    for secret in (HEADER_SECRET, OPENAI_KEY, ANTHROPIC_KEY, "X-Team-Auth", "X-Call-Token"):
        assert secret not in text
        assert secret not in render(model.last)
        assert secret not in repr(model.last)


MCP_TOKEN = "tok-" + "S3cr3tMcpTokenNobodyMaySee"


def test_a_secret_nested_in_a_bound_setting_is_not_written(tmp_path: Path) -> None:
    client = _anthropic()
    server = MCP_SERVER
    path = tmp_path / "cassette.json"
    with client.server() as provider, Cassette(path, record_mode="once") as cassette:
        model = cassette.wrap(client(provider.base_url))
        model.bind(mcp_servers=[{**server, "authorization_token": MCP_TOKEN}]).invoke(PROMPT)
    assert model.last.model_settings["mcp_servers"] == [server]
    text = path.read_text()
    assert "mcp.example" in text
    for shown in (text, render(model.last), repr(model.last)):
        assert MCP_TOKEN not in shown
        assert "authorization_token" not in shown


# -- 2. every client records and replays ---------------------------------------------------


def _every_call_kind(model: Any) -> dict[str, Any]:
    """invoke, stream, ainvoke and astream once each; what a test compares of each."""

    async def async_calls() -> tuple[AIMessage, list[Any]]:
        answer = await model.ainvoke([HumanMessage("async, please")])
        return answer, [chunk async for chunk in model.astream([HumanMessage("stream async")])]

    answer, async_chunks = asyncio.run(async_calls())
    return {
        "invoke": model.invoke(PROMPT).content,
        "stream": "".join(str(c.content) for c in model.stream([HumanMessage("a stream")])),
        "ainvoke": answer.content,
        "astream": "".join(str(chunk.content) for chunk in async_chunks),
    }


def _wrapped(wrapping: str, chat: Any, cassette: Cassette) -> Any:
    if wrapping == "cassette":
        return cassette.wrap(chat)
    return _composed(wrapping, chat, cassette)[0]


@pytest.mark.parametrize("wrapping", ["cassette", "recorder-outside", "cassette-outside"])
@pytest.mark.parametrize("streaming", [False, True], ids=["plain", "streaming"])
def test_every_call_kind_records_and_replays(
    client: Client, streaming: bool, wrapping: str, tmp_path: Path
) -> None:
    def model(base_url: str, cassette: Cassette) -> Any:
        return _wrapped(wrapping, client(base_url, streaming=streaming), cassette)

    path = tmp_path / "cassette.json"
    with client.server() as provider, Cassette(path, record_mode="once") as cassette:
        recorded = _every_call_kind(model(provider.base_url, cassette))
    assert recorded == {
        "invoke": "echo: What is the capital of France?",
        "stream": "echo: a stream",
        "ainvoke": "echo: async, please",
        "astream": "echo: stream async",
    }
    assert [bool(body.get("stream")) for body in provider.bodies] == [
        streaming,
        True,
        streaming,
        True,
    ]
    replayed = _every_call_kind(model(client.gone, Cassette(path)))
    assert replayed == recorded


def _composed(order: str, chat: Any, cassette: Cassette) -> tuple[Any, RecordingChatModel]:
    """The model an agent gets, a recorder and a cassette composed in ``order``, and the
    RecordingChatModel inside it (which a replay does not reach when the cassette is
    outside: the cassette answers)."""
    if order == "recorder-outside":
        recorder = RecordingChatModel(cassette.wrap(chat))
        return recorder, recorder
    recorder = RecordingChatModel(chat)
    return cassette.wrap(recorder), recorder


ORDERS = ["recorder-outside", "cassette-outside"]


RunAgent = Callable[[str, Cassette], tuple[list[Any], Any, Any]]


def _record_then_replay(client: Client, tmp_path: Path, run_agent: RunAgent) -> tuple[Any, ...]:
    """Runs ``run_agent`` (messages, outer model, recorder) against the loopback server while
    recording a cassette, then with the server gone from the cassette: the provider must see
    a tool call and the answer, the replay the recorded messages. Returns the replayed
    messages, the recorded run's outer model and recorder, the replayed run's outer model."""
    path = tmp_path / "cassette.json"
    with client.server() as provider, Cassette(path, record_mode="once") as cassette:
        recorded, outer, recorder = run_agent(provider.base_url, cassette)
    assert len(provider.bodies) == 2  # a tool call, then the answer
    replayed, replay_outer, _ = run_agent(client.gone, Cassette(path))
    assert [m.content for m in replayed] == [m.content for m in recorded]
    return replayed, outer, recorder, replay_outer


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_recorder_and_a_cassette_compose_inside_create_agent(
    client: Client, order: str, mode: str, tmp_path: Path
) -> None:
    from langchain.agents import create_agent

    def run_agent(base_url: str, cassette: Cassette) -> tuple[list[Any], Any, Any]:
        model, recorder = _composed(order, client(base_url, temperature=0), cassette)
        agent = create_agent(model, tools=[shout])
        prompt = {"messages": [HumanMessage("hello")]}
        invoked = agent.invoke(prompt) if mode == "sync" else asyncio.run(agent.ainvoke(prompt))
        return invoked["messages"], model, recorder

    replayed, outer, recorder, replay_outer = _record_then_replay(client, tmp_path, run_agent)
    assert replayed[-1].content == "echo: HELLO"
    for model in (recorder, outer, replay_outer):
        assert [r.tool_names for r in model.requests] == [["shout"], ["shout"]]
        assert model.last.model_settings == {"temperature": 0.0, **FIXED[client.name]}


@pytest.mark.parametrize("order", ORDERS)
def test_a_recorder_and_a_cassette_compose_inside_a_deep_agent(
    client: Client, order: str, tmp_path: Path
) -> None:
    deepagents = pytest.importorskip(
        "deepagents", reason="install hookproof[deepagents] to run this"
    )

    def run_agent(base_url: str, cassette: Cassette) -> tuple[list[Any], Any, Any]:
        model, recorder = _composed(order, client(base_url), cassette)
        agent = deepagents.create_deep_agent(model=model)
        return agent.invoke({"messages": [HumanMessage("/")]})["messages"], model, recorder

    _, outer, recorder, replay_outer = _record_then_replay(client, tmp_path, run_agent)
    assert "read_file" in recorder.last.tool_names
    rendered = [render(request) for request in recorder.requests]
    assert [render(request) for request in outer.requests] == rendered
    assert [render(request) for request in replay_outer.requests] == rendered


@loopback_models
@pytest.mark.parametrize("streaming", [False, True], ids=["plain", "streaming"])
def test_a_recorder_alone_forwards_every_call_kind(client: Client, streaming: bool) -> None:
    with client.server() as provider:
        model = RecordingChatModel(client(provider.base_url, streaming=streaming))
        answers = _every_call_kind(model)
    assert answers["invoke"] == "echo: What is the capital of France?"
    assert answers["astream"] == "echo: stream async"
    assert len(model.requests) == 4 == len(provider.bodies)
    assert [bool(body.get("stream")) for body in provider.bodies] == [
        streaming,
        True,
        streaming,
        True,
    ]
