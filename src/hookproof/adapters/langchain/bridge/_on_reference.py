"""Run a factory written for LangChain's ``create_agent`` on the reference engine, unchanged.

``on_reference_engine(build)`` returns a factory that calls ``build`` with LangChain's
``create_agent`` standing in as ``hookproof.runtime.create_agent``: wherever ``build`` finds
it (its module's globals, its closure, ``langchain.agents``). The same middleware, tools and
prompts then run at the reference engine's speed. A factory that still builds a LangChain
graph (it reached ``create_agent`` some other way) is an error, never a silent slow run.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

from hookproof.adapters.langchain.bridge._shaped import LangChainShapedAgent
from hookproof.adapters.langchain.bridge._state_keys import state_keys
from hookproof.adapters.langchain.bridge._stream_events import agent_transformers
from hookproof.errors import UsageError

__all__ = ["on_reference_engine"]

# LangChain create_agent keywords the reference runtime has no counterpart for: accepted only
# at their default, so a factory that relies on one is told instead of silently changed.
_UNSUPPORTED = {
    "interrupt_before": None,
    "interrupt_after": None,
    "debug": False,
    "cache": None,
}
_SWAP_LOCK = threading.RLock()


def _reference_create_agent(model: Any, tools: Any = None, **options: Any) -> Any:
    from hookproof.adapters.langchain.bridge._model import chat_model_by_name
    from hookproof.runtime import create_agent

    drawing = functools.partial(_genuine_create_agent(), model, tools, **options)
    given = sorted(
        key for key, default in _UNSUPPORTED.items() if options.pop(key, default) != default
    )
    if given:
        raise UsageError(
            f"hookproof: the factory passes {given} to create_agent, which the reference "
            "engine does not provide, so it cannot run this agent as LangChain would. Run the "
            "factory on LangChain's create_agent (without on_reference_engine), or build "
            "without those options for this test."
        )
    transformers = options.pop("transformers", None)
    # LangChain bounds a run by graph steps (9,999, about 5,000 model calls), not by the
    # reference runtime's default of 25 model calls: a long run must not fail here only.
    options.setdefault("max_iterations", LANGCHAIN_MODEL_CALL_BOUND)
    keys = state_keys([options.get("state_schema"), *_middleware_schemas(options)])
    store = options.pop("store", None)
    built = create_agent(chat_model_by_name(model), tools, **options)
    built = built.with_message_name(options.get("name"))
    agent = LangChainShapedAgent.of(built, keys, options.get("name"), drawing=drawing, store=store)
    agent.lc_agent_name = options.get("name")
    agent.stream_transformers = agent_transformers(options.get("middleware") or (), transformers)
    return agent


def _middleware_schemas(options: dict[str, Any]) -> list[Any]:
    return [getattr(item, "state_schema", None) for item in options.get("middleware") or ()]


LANGCHAIN_MODEL_CALL_BOUND = 5_000


def _langchain_create_agent() -> Any:
    from langchain.agents import create_agent

    return create_agent


_GENUINE: list[Any] = []


def _genuine_create_agent() -> Any:
    """LangChain's own ``create_agent`` (never a swap standing in for it), first seen while
    LangChain's module held it (a swap may stay in place for a whole test session)."""
    if not _GENUINE:
        import langchain.agents.factory

        found = inspect.unwrap(langchain.agents.factory.create_agent)  # a declared stand-in's
        if getattr(found, "__module__", None) != "langchain.agents.factory":
            raise UsageError(
                "hookproof: LangChain's create_agent was already replaced when hookproof "
                "first looked for it, so it cannot draw the graph LangChain would build. "
                "Import hookproof.adapters.langchain before replacing create_agent."
            )
        _GENUINE.append(found)
    return _GENUINE[0]


if "langchain.agents.factory" in sys.modules:  # seen now, before a swap that outlives a build
    with contextlib.suppress(UsageError):
        _genuine_create_agent()


@contextlib.contextmanager
def _swapped(build: Callable[..., Any]) -> Iterator[None]:
    import langchain.agents
    import langchain.agents.factory

    original = _langchain_create_agent()
    with contextlib.suppress(UsageError):  # seen before this swap hides it
        _genuine_create_agent()
    namespaces = [langchain.agents.__dict__, langchain.agents.factory.__dict__]
    namespaces += [getattr(build, "__globals__", {})]
    cells = [cell for cell in getattr(build, "__closure__", None) or () if _holds(cell, original)]
    swapped = [(n, key) for n in namespaces for key, value in n.items() if value is original]
    with _SWAP_LOCK:
        for namespace, key in swapped:
            namespace[key] = _reference_create_agent
        for cell in cells:
            cell.cell_contents = _reference_create_agent
        try:
            yield
        finally:
            for namespace, key in swapped:
                namespace[key] = original
            for cell in cells:
                cell.cell_contents = original


def _holds(cell: Any, value: Any) -> bool:
    try:
        return cell.cell_contents is value
    except ValueError:  # an empty cell
        return False


def on_reference_engine(build: Callable[..., Any]) -> Callable[..., Any]:
    """A factory building what ``build`` builds with LangChain's ``create_agent``, on the
    reference engine instead: pass it wherever a factory goes (contracts, fixtures)."""

    @functools.wraps(build)
    def built_on_reference(*args: Any, **kwargs: Any) -> Any:
        from hookproof.runtime import Agent

        with _swapped(build):
            agent = build(*args, **kwargs)
        if not isinstance(agent, Agent):
            name = getattr(build, "__qualname__", repr(build))
            raise UsageError(
                f"hookproof: on_reference_engine({name}) still built a "
                f"{type(agent).__name__}, not a reference-engine agent: the factory reaches "
                "create_agent some way that cannot be swapped (another module's helper, or "
                "deepagents' create_deep_agent). Call hookproof.runtime.create_agent in the "
                "factory, or run it on LangChain without on_reference_engine."
            )
        return agent

    return built_on_reference
