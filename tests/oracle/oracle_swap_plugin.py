"""A pytest plugin the oracle loads (``-p``) into the second run of LangChain's tests: every
``create_agent`` the tests can reach builds its agent with hookproof's public
``on_reference_engine`` instead. The test files are not changed: before collection (so an
agent a test module builds at import is a reference one too) LangChain's
``langchain.agents.create_agent`` and ``langchain.agents.factory.create_agent`` are pointed
at the swap, and after it, any other name bound to LangChain's own in the tests' modules.
``--hookproof-oracle-swap-in`` names more packages to sweep the same way (deepagents binds
``create_agent`` in its own modules at import); they are swept when the run starts (their
modules a conftest imported) and after collection.

Each test that calls it is marked in its report (the oracle counts agent-building tests).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import langchain.agents
import langchain.agents.factory
import pytest
from oracle_report_plugin import BUILT_AGENT  # copied beside this file for the run

from hookproof.adapters.langchain import on_reference_engine

_LANGCHAIN_CREATE_AGENT = langchain.agents.create_agent
_current: list[pytest.Item] = []


def _build(*args: Any, **kwargs: Any) -> Any:
    # Looked up at call time: on_reference_engine swaps langchain.agents' name while it builds.
    return langchain.agents.create_agent(*args, **kwargs)


_BUILD_ON_REFERENCE = on_reference_engine(_build)


def create_agent(*args: Any, **kwargs: Any) -> Any:
    """LangChain's ``create_agent`` signature, building on the reference engine."""
    if _current and (BUILT_AGENT, True) not in _current[-1].user_properties:
        _current[-1].user_properties.append((BUILT_AGENT, True))
    return _BUILD_ON_REFERENCE(*args, **kwargs)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--hookproof-oracle-swap-in", action="append", default=[])


def pytest_configure(config: pytest.Config) -> None:
    _swap_in([langchain.agents, langchain.agents.factory])
    _swap_in(_loaded(config.getoption("--hookproof-oracle-swap-in")))


def pytest_collection_finish(session: pytest.Session) -> None:
    _swap_in(_loaded(["tests", *session.config.getoption("--hookproof-oracle-swap-in")]))


def _loaded(packages: list[str]) -> list[Any]:
    """The loaded modules of the packages (a package and its submodules)."""
    return [
        module
        for name, module in sorted(sys.modules.items())
        if any(name == p or name.startswith(f"{p}.") for p in packages)
    ]


def _swap_in(modules: list[Any]) -> None:
    for module in modules:
        for name, value in list(vars(module).items()):
            if value is _LANGCHAIN_CREATE_AGENT:
                setattr(module, name, create_agent)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    _current.append(item)
    try:
        return (yield)
    finally:
        _current.pop()
