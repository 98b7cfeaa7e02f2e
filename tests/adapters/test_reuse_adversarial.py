"""Adversarial cases for build reuse: apps whose state between runs hides where the state
print does not look (a per-build ``functools.lru_cache``, a generator, a C object's own
state behind its ``__dict__``). Each sticky app resolves the caller's role on its first run
and keeps it, so with reuse a guest's first run would hide an intruder's refund bug; every
case shows the verdict with reuse next to the verdict with a fresh build per run."""

from __future__ import annotations

import contextvars
import functools
import io
import random
from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any

import pytest

pytest.importorskip("langchain.agents", reason="install hookproof[langchain] to run this")

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware

from hookproof import _exercised, contracts
from hookproof._support.object_state import state_print
from hookproof.adapters.langchain import ScriptedChatModel, _reuse
from hookproof.contracts import ContractViolation
from tests.adapters.reuse_apps import (
    GUEST,
    INTRUDER,
    MEMBER,
    refund,
    search,
)
from tests.adapters.reuse_apps import shows_refund as _shows_refund


class _Router(AgentMiddleware):
    """Hides refund by the role ``_context`` resolves."""

    def _context(self, request: Any) -> Any:
        raise NotImplementedError

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        context = self._context(request)
        shown = [t for t in request.tools if t.name != "refund" or _shows_refund(context)]
        return handler(request.override(tools=shown))


@dataclass(frozen=True)
class _Session:
    """A cache key: the session (every context here has none), not the caller."""

    name: str
    context: Any = field(compare=False, hash=False)


class CachedRoleRouter(_Router):
    """Caches each session's caller in an ``lru_cache`` made per build: the first caller's
    role sticks."""

    def __init__(self) -> None:
        super().__init__()
        self._caller = functools.lru_cache(maxsize=None)(lambda session: session.context)

    def _context(self, request: Any) -> Any:
        return self._caller(_Session("default", request.runtime.context))


def _first_caller() -> Generator[Any, Any, None]:
    caller = yield None
    while True:
        yield caller


class GeneratorRoleRouter(_Router):
    """Keeps the first caller inside a generator made per build."""

    def __init__(self) -> None:
        super().__init__()
        self._session = _first_caller()
        next(self._session)

    def _context(self, request: Any) -> Any:
        return self._session.send(request.runtime.context)


class ContextVarRoleRouter(_Router):
    """Keeps the first caller in a context variable made per build (the reference engine ran
    a reused build's runs in one context, so the next run still saw it)."""

    def __init__(self) -> None:
        super().__init__()
        self._caller: contextvars.ContextVar[Any] = contextvars.ContextVar("caller")

    def _context(self, request: Any) -> Any:
        caller = self._caller.get(None)
        if caller is None:
            self._caller.set(caller := request.runtime.context)
        return caller


class ScriptedJudgeRouter(_Router):
    """Asks a scripted model of its own, made per build, whether to check the role: its
    first answer says check (and the check has the deny-list bug), the later ones deny. A
    reuse that left the judge's place in its script out of the print would hide the bug."""

    def __init__(self) -> None:
        super().__init__()
        self._judge = ScriptedChatModel(script=["check"] + ["deny"] * 20)

    def _context(self, request: Any) -> Any:
        checked = self._judge.invoke("check the caller?").content == "check"
        return request.runtime.context if checked else GUEST


class WarmCacheRoleRouter(_Router):
    """Warms a per-build cache of a set while building; its first run marks the set, and
    later runs read the caller no more: the cache holds as many entries as when built."""

    def __init__(self) -> None:
        super().__init__()
        self._seen = functools.lru_cache(maxsize=None)(lambda: set())
        self._seen()

    def _context(self, request: Any) -> Any:
        seen = self._seen()
        if seen:
            return GUEST
        seen.add("caller read")
        return request.runtime.context


class StoreRoleRouter(_Router):
    """Keeps the first caller in the graph's store (``create_agent(store=...)``)."""

    def _context(self, request: Any) -> Any:
        store = request.runtime.store
        first = store.get(("roles",), "first")
        if first is None:
            store.put(("roles",), "first", {"caller": request.runtime.context})
            return request.runtime.context
        return first.value["caller"]


def _store_app(model: Any) -> Any:
    from langgraph.store.memory import InMemoryStore

    return create_agent(
        model, [search, refund], middleware=[StoreRoleRouter()], store=InMemoryStore()
    )


class ClassAttributeRoleRouter(_Router):
    """Keeps the first caller on its class, which the factory resets while building."""

    first: Any = None

    def _context(self, request: Any) -> Any:
        if ClassAttributeRoleRouter.first is None:
            ClassAttributeRoleRouter.first = request.runtime.context
        return ClassAttributeRoleRouter.first


def _class_attribute_app(model: Any) -> Any:
    ClassAttributeRoleRouter.first = None
    return create_agent(model, [search, refund], middleware=[ClassAttributeRoleRouter()])


def _app(router: Callable[[], AgentMiddleware]) -> Callable[[Any], Any]:
    def build(model: Any) -> Any:
        return create_agent(model, [search, refund], middleware=[router()])

    return build


def _verdicts(build: Callable[[Any], Any], engine: Any) -> list[str]:
    """check_fail_closed for a member, then an intruder, in one test: each verdict."""
    verdicts: list[str] = []
    with _exercised.collecting():
        for context in (MEMBER, INTRUDER):
            try:
                contracts.check_fail_closed(
                    build, context, least_privileged_context=GUEST, engine=engine
                )
                verdicts.append("pass")
            except ContractViolation as error:
                refund = "tools beyond the least-privileged set: ['refund']" in str(error)
                verdicts.append("refund shown" if refund else f"violation: {error}")
    return verdicts


CAUGHT = ["pass", "refund shown"]


@pytest.fixture
def fresh_builds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every run builds the app anew (what HOOKPROOF_BENCH_REBUILD=1 does)."""
    monkeypatch.setattr(_reuse.ReusedBuild, "returned", lambda self: None)


ROUTERS = [
    CachedRoleRouter,
    WarmCacheRoleRouter,
    GeneratorRoleRouter,
    ContextVarRoleRouter,
    ScriptedJudgeRouter,
]
ROUTER_IDS = ["lru_cache", "warm-lru_cache", "generator", "contextvar", "own-scripted-model"]
ENGINES = ["reference", "graph"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("router", ROUTERS, ids=ROUTER_IDS)
def test_with_fresh_builds_the_intruder_sees_refund(
    router: Any, engine: str, fresh_builds: None
) -> None:
    assert _verdicts(_app(router), engine) == CAUGHT


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("router", ROUTERS, ids=ROUTER_IDS)
def test_with_reuse_the_verdict_is_a_fresh_builds(router: Any, engine: str) -> None:
    """The state hidden in the cache or the generator still drops the build; a context
    variable a run sets is gone for the next run, as on LangGraph."""
    assert _verdicts(_app(router), engine) == CAUGHT


def _changes(holder: Any, run: Callable[[Any], object]) -> bool:
    """Whether ``run(holder)`` changes ``holder``'s print."""
    before = state_print(holder, lambda owner, name: False)
    run(holder)
    return state_print(holder, lambda owner, name: False) != before


def _filled(cached: Any) -> None:
    cached(1)


def _advanced(session: Generator[Any, Any, None]) -> None:
    session.send("intruder")


@pytest.mark.parametrize(
    ("make", "run"),
    [
        (lambda: functools.lru_cache(maxsize=None)(lambda key: key), _filled),
        (lambda: random.Random(7), lambda rng: rng.random()),
        (lambda: io.StringIO(), lambda buffer: buffer.write("denied")),
        (lambda: (session := _first_caller(), next(session))[0], _advanced),
    ],
    ids=["lru_cache", "random", "stringio", "generator"],
)
def test_state_held_inside_a_c_object_shows_in_the_print(make: Any, run: Any) -> None:
    assert _changes(make(), run)


def test_a_cached_value_a_run_changes_in_place_shows_in_the_print() -> None:
    """A cache's entries are out of reach, so one holding any matches no print: a hit whose
    value a run changes in place (no new entry, no miss) is not taken for no change."""
    cached = functools.lru_cache(maxsize=None)(lambda key: {key})
    cached(1)
    assert _changes(cached, lambda c: c(1).add(2))


def test_an_empty_cache_a_run_leaves_empty_keeps_its_print() -> None:
    cached = functools.lru_cache(maxsize=None)(lambda key: key)
    assert not _changes(cached, lambda c: c.cache_info())


@pytest.mark.parametrize("engine", ENGINES)
def test_state_kept_in_the_graphs_store_drops_the_build(engine: str) -> None:
    assert _verdicts(_store_app, engine) == CAUGHT


@pytest.mark.parametrize("engine", ENGINES)
def test_with_fresh_builds_a_class_attribute_the_factory_resets_is_caught(
    engine: str, fresh_builds: None
) -> None:
    assert _verdicts(_class_attribute_app, engine) == CAUGHT


@pytest.mark.xfail(
    strict=True,
    reason="documented limit: the print walks what the agent holds, not class attributes or "
    "module globals; a factory that resets one while building makes a fresh build differ "
    "from a reused one, and the reuse passes the intruder's refund",
)
@pytest.mark.parametrize("engine", ENGINES)
def test_with_reuse_a_class_attribute_the_factory_resets(engine: str) -> None:
    assert _verdicts(_class_attribute_app, engine) == CAUGHT


class ModelMetadataRoleRouter(_Router):
    """Keeps the first caller in the model's ``metadata`` (the model a reused build keeps)."""

    def _context(self, request: Any) -> Any:
        model = request.model
        if model.metadata is None:
            model.metadata = {}
        return model.metadata.setdefault("caller", request.runtime.context)


@pytest.mark.parametrize("engine", ENGINES)
def test_with_fresh_builds_state_kept_on_the_model_is_caught(
    engine: str, fresh_builds: None
) -> None:
    assert _verdicts(_app(ModelMetadataRoleRouter), engine) == CAUGHT


@pytest.mark.parametrize("engine", ENGINES)
def test_with_reuse_state_kept_on_the_model_drops_the_build(engine: str) -> None:
    """The recording model is printed too, all but what its restart resets."""
    assert _verdicts(_app(ModelMetadataRoleRouter), engine) == CAUGHT
