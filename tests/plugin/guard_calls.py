"""Every way a test can reach a LangChain chat model, each returning the texts it got back.

Shared by tests/plugin/test_guard.py and the pytester projects it writes (copied into them), so the
paths refused with the guard on are exactly the paths that reach the provider without it.
Needs langchain-openai (and langchain, deepagents for the agent paths).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest


def chat_openai(base_url: str) -> Any:
    from langchain_openai import ChatOpenAI

    return ChatOpenAI(model="stub-model", base_url=base_url, api_key="test", max_retries=0)


def lookup(query: str) -> str:
    """Look something up."""
    return f"found:{query}"


def _invoke(model: Any) -> list[str]:
    return [model.invoke("hi").content]


def _ainvoke(model: Any) -> list[str]:
    return [asyncio.run(model.ainvoke("hi")).content]


def _stream(model: Any) -> list[str]:
    return ["".join(chunk.content for chunk in model.stream("hi"))]


def _astream(model: Any) -> list[str]:
    async def collect() -> list[str]:
        return ["".join([chunk.content async for chunk in model.astream("hi")])]

    return asyncio.run(collect())


def _batch(model: Any) -> list[str]:
    return [reply.content for reply in model.batch(["hi", "there"])]


def _abatch(model: Any) -> list[str]:
    return [reply.content for reply in asyncio.run(model.abatch(["hi", "there"]))]


def _stream_events_v3(model: Any) -> list[str]:
    with _beta_allowed():
        stream = model.stream_events("hi", version="v3")
    return [str(stream.text)]


def _astream_events_v3(model: Any) -> list[str]:
    async def text() -> str:
        with _beta_allowed():
            stream = await model.astream_events("hi", version="v3")
        return str(await stream.text)

    return [asyncio.run(text())]


@contextmanager
def _beta_allowed() -> Iterator[None]:
    from langchain_core._api.beta_decorator import LangChainBetaWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", LangChainBetaWarning)  # v3 is beta: it warns on call
        yield


def _bound_tools(model: Any) -> list[str]:
    return [model.bind_tools([lookup]).invoke("hi").content]


def _last_text(result: dict[str, Any]) -> list[str]:
    return [result["messages"][-1].content]


def _create_agent(model: Any) -> list[str]:
    from langchain.agents import create_agent

    return _last_text(create_agent(model, [lookup]).invoke({"messages": [("user", "hi")]}))


def _create_agent_async(model: Any) -> list[str]:
    from langchain.agents import create_agent

    agent = create_agent(model, [lookup])
    return _last_text(asyncio.run(agent.ainvoke({"messages": [("user", "hi")]})))


def _create_agent_streaming(model: Any) -> list[str]:
    from langchain.agents import create_agent

    parts = create_agent(model, [lookup]).stream(
        {"messages": [("user", "hi")]}, stream_mode="messages"
    )
    return ["".join(chunk.content for chunk, _ in parts if chunk.type == "AIMessageChunk")]


def _create_deep_agent(model: Any) -> list[str]:
    from deepagents import create_deep_agent

    agent = create_deep_agent(model=model, tools=[lookup])
    return _last_text(agent.invoke({"messages": [("user", "hi")]}))


CALLS: dict[str, Callable[[Any], list[str]]] = {
    "invoke": _invoke,
    "ainvoke": _ainvoke,
    "stream": _stream,
    "astream": _astream,
    "batch": _batch,
    "abatch": _abatch,
    "stream_events_v3": _stream_events_v3,
    "astream_events_v3": _astream_events_v3,
    "bind_tools": _bound_tools,
    "create_agent": _create_agent,
    "create_agent_async": _create_agent_async,
    "create_agent_streaming": _create_agent_streaming,
    "create_deep_agent": _create_deep_agent,
}
NEEDS = {"create_agent": "langchain", "create_deep_agent": "deepagents"}


def requirements(name: str) -> list[str]:
    """The packages a call path imports, for ``pytest.importorskip``."""
    return ["langchain_openai"] + [
        package for prefix, package in NEEDS.items() if name.startswith(prefix)
    ]


def _is_loopback(host: object) -> bool:
    try:
        return ipaddress.ip_address(str(host)).is_loopback
    except ValueError:
        return str(host).lower() == "localhost"


def stay_on_this_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """A safety net independent of hookproof, for tests that turn hookproof's guard off:
    no connection and no name lookup leaves the machine."""
    connect, getaddrinfo = socket.socket.connect, socket.getaddrinfo

    def loopback_connect(self: socket.socket, address: Any) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6) and not _is_loopback(address[0]):
            pytest.fail(f"the test tried to connect to {address!r}, off this machine")
        connect(self, address)

    def loopback_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host is not None and not _is_loopback(host):
            pytest.fail(f"the test tried to look up {host!r}, off this machine")
        return getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", loopback_connect)
    monkeypatch.setattr(socket, "getaddrinfo", loopback_getaddrinfo)
