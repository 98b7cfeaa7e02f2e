"""Where each piece of an agent runs under ainvoke(), and what it sees there.

A sync wrap hook runs on a helper thread (no running event loop there), so it can block on
its handler; node hooks and async twins run on the event loop's thread. Below a sync wrap
hook, the synchronous rest of the onion (sync-only layers, a model whose ``ainvoke`` only
calls ``invoke``, a sync tool) runs on that same helper thread, and whatever is asynchronous
is handed back to the event loop. Context variables cross every boundary as copies: what a
hook sets before calling its handler is seen inside, what the inside sets stays inside.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import replace
from typing import Any

import pytest

from hookproof.models import ScriptedModel, call
from hookproof.runtime import AgentMiddleware, ToolMessage, create_agent, tool

HI = {"messages": [("user", "hi")]}
WAIT_SECONDS = 10.0  # only reached when the behaviour under test is broken


@contextlib.contextmanager
def brief_wait(seconds: float) -> Iterator[None]:
    """How long the event loop's thread waits for a sync wrap hook before it frees the loop
    (0: it frees the loop at once, the path every wrapped call took before brief waits)."""
    from hookproof._engine import workers

    saved = workers.BRIEF_SECONDS
    workers.BRIEF_SECONDS = seconds
    try:
        yield
    finally:
        workers.BRIEF_SECONDS = saved


async def _nothing() -> None:
    return None


def cancel_once_entered(
    agent: Any,
    entered: threading.Event,
    released: threading.Event,
    while_blocked: Callable[[], Awaitable[None]] = _nothing,
) -> None:
    """Start ``agent.ainvoke``, wait (bounded) until a hook has entered and blocks, run
    ``while_blocked`` on the loop, cancel the call and see it end cancelled; then release."""

    async def main() -> None:
        pending = asyncio.ensure_future(agent.ainvoke(HI))
        for _ in range(int(WAIT_SECONDS * 1000)):
            if entered.is_set():
                break
            await asyncio.sleep(0.001)
        assert entered.is_set(), "the blocking hook never started"
        await while_blocked()
        pending.cancel()
        with pytest.raises(asyncio.CancelledError):
            await pending

    try:
        asyncio.run(main())
    finally:
        released.set()


MARK: contextvars.ContextVar[str] = contextvars.ContextVar("MARK", default="unset")


def place(loop_thread: threading.Thread) -> tuple[str, bool]:
    """Which thread runs the caller (the event loop's, a hookproof helper, another), and
    whether an event loop is running there."""
    thread = threading.current_thread()
    if thread is loop_thread:
        kind = "loop"
    elif thread.name == "hookproof-worker":
        kind = "helper"
    else:
        kind = "other"
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return kind, False
    return kind, True


class Places:
    """What each piece saw, by label, in the order they ran."""

    def __init__(self) -> None:
        self.loop_thread = threading.current_thread()
        self.seen: list[tuple[str, tuple[str, bool], str, int]] = []

    def note(self, label: str) -> None:
        where = place(self.loop_thread)
        self.seen.append((label, where, MARK.get(), threading.get_ident()))

    def places(self) -> list[tuple[str, tuple[str, bool]]]:
        return [(label, where) for label, where, _, _ in self.seen]

    def marks(self) -> list[tuple[str, str]]:
        return [(label, mark) for label, _, mark, _ in self.seen]


def turn_noting(places: Places) -> Any:
    def turn(request: Any) -> Any:
        places.note("model")
        if any(isinstance(message, ToolMessage) for message in request.messages):
            return "done"
        return call("lookup", {"query": "x"}, id="call_0")

    return turn


def lookup_noting(places: Places) -> Any:
    @tool
    def lookup(query: str) -> str:
        """Look something up."""
        places.note("tool")
        return f"found:{query}"

    return lookup


class SyncWrap(AgentMiddleware):
    """Sync-only wrap hooks that note where they run and mark the context for the inside."""

    def __init__(self, places: Places, name: str) -> None:
        self.places, self.label = places, name

    @property
    def name(self) -> str:
        return self.label

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        return self._wrapped("model", request, handler)

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        return self._wrapped("tool", request, handler)

    def _wrapped(self, kind: str, request: Any, handler: Any) -> Any:
        self.places.note(f"{self.label}.{kind}")
        MARK.set(f"{self.label}.{kind}")
        try:
            return handler(request)
        finally:
            self.places.note(f"{self.label}.{kind} after")


class TwinWrap(SyncWrap):
    """Both versions of each wrap hook: under ainvoke() the async twin runs."""

    async def awrap_model_call(self, request: Any, handler: Any) -> Any:
        return await self._awrapped("model", request, handler)

    async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
        return await self._awrapped("tool", request, handler)

    async def _awrapped(self, kind: str, request: Any, handler: Any) -> Any:
        self.places.note(f"{self.label}.a{kind}")
        MARK.set(f"{self.label}.a{kind}")
        try:
            return await handler(request)
        finally:
            self.places.note(f"{self.label}.a{kind} after")


class Node(AgentMiddleware):
    def __init__(self, places: Places) -> None:
        self.places = places

    def before_model(self, state: Any, runtime: Any) -> None:
        self.places.note("before_model")


def ainvoked(agent: Any) -> Any:
    async def main() -> Any:
        MARK.set("caller")
        result = await agent.ainvoke(HI)
        assert MARK.get() == "caller"  # nothing a hook set reaches the caller
        return result

    return asyncio.run(main())


def test_sync_wrap_hooks_and_the_synchronous_inside_run_on_one_helper_thread() -> None:
    places = Places()
    middleware = [Node(places), SyncWrap(places, "outer"), SyncWrap(places, "inner")]
    agent = create_agent(
        ScriptedModel(turn_noting(places)), [lookup_noting(places)], middleware=middleware
    )
    places.loop_thread = threading.current_thread()
    ainvoked(agent)

    helper, loop = ("helper", False), ("loop", True)
    turn = [
        ("outer.model", helper),
        ("inner.model", helper),
        ("model", helper),
        ("inner.model after", helper),
        ("outer.model after", helper),
    ]
    tool_turn = [
        ("outer.tool", helper),
        ("inner.tool", helper),
        ("tool", helper),
        ("inner.tool after", helper),
        ("outer.tool after", helper),
    ]
    assert places.places() == [
        ("before_model", loop),
        *turn,
        *tool_turn,
        ("before_model", loop),
        *turn,
    ]


class AsyncModel:
    """A model with an ``ainvoke`` of its own (awaited on the event loop under ainvoke())."""

    name = "async-model"
    hookproof_offline = True

    def __init__(self, places: Places) -> None:
        self.scripted = ScriptedModel(turn_noting(places))

    def invoke(self, request: Any) -> Any:
        return self.scripted.invoke(request)

    async def ainvoke(self, request: Any) -> Any:
        await asyncio.sleep(0)  # real asynchronous work: only the event loop can do it
        return self.scripted.invoke(request)


def async_lookup_noting(places: Places, *, with_sync: bool) -> Any:
    def lookup(query: str) -> str:
        """Look something up."""
        places.note("tool")
        return f"found:{query}"

    async def alookup(query: str) -> str:
        """Look something up."""
        await asyncio.sleep(0)
        return lookup(query)

    if with_sync:
        return replace(tool(lookup), coroutine=alookup)
    return tool("lookup")(alookup)


def test_asynchronous_pieces_below_a_sync_wrap_hook_are_handed_back_to_the_event_loop() -> None:
    places = Places()
    middleware = [SyncWrap(places, "outer"), TwinWrap(places, "middle"), SyncWrap(places, "inner")]
    lookup = async_lookup_noting(places, with_sync=False)
    agent = create_agent(AsyncModel(places), [lookup], middleware=middleware)
    ainvoked(agent)

    helper, loop = ("helper", False), ("loop", True)
    for kind in ("model", "tool", "model"):
        expected = [
            (f"outer.{kind}", helper),
            (f"middle.a{kind}", loop),
            (f"inner.{kind}", helper),
            (kind, loop),
            (f"inner.{kind} after", helper),
            (f"middle.a{kind} after", loop),
            (f"outer.{kind} after", helper),
        ]
        assert places.places()[: len(expected)] == expected
        del places.seen[: len(expected)]
    assert places.seen == []


def test_each_piece_sees_what_the_hooks_around_it_set_and_nothing_set_inside_it() -> None:
    places = Places()
    middleware = [SyncWrap(places, "outer"), SyncWrap(places, "inner")]
    agent = create_agent(
        ScriptedModel(turn_noting(places)), [lookup_noting(places)], middleware=middleware
    )
    ainvoked(agent)

    model_turn = [
        ("outer.model", "caller"),
        ("inner.model", "outer.model"),
        ("model", "inner.model"),
        ("inner.model after", "inner.model"),
        ("outer.model after", "outer.model"),
    ]
    assert places.marks()[:5] == model_turn
    assert places.marks()[5:10] == [
        ("outer.tool", "caller"),
        ("inner.tool", "outer.tool"),
        ("tool", "inner.tool"),
        ("inner.tool after", "inner.tool"),
        ("outer.tool after", "outer.tool"),
    ]


def test_one_wrapped_call_keeps_to_one_helper_thread() -> None:
    places = Places()
    middleware = [SyncWrap(places, "outer"), SyncWrap(places, "inner")]
    agent = create_agent(
        ScriptedModel(turn_noting(places)), [lookup_noting(places)], middleware=middleware
    )
    ainvoked(agent)
    for start in (0, 5, 10):  # each wrapped call: its hooks, the model or tool, on one thread
        assert len({ident for _, _, _, ident in places.seen[start : start + 5]}) == 1


# -- the same run on the old path: every inner boundary awaited on the event loop -------------


class QuietProbe:
    """A probe that holds nothing: a probed run takes the old path (every boundary below a
    sync wrap hook awaited on the event loop), so the two paths can be compared."""

    def reached(self, label: str) -> None:
        return None

    async def areached(self, label: str) -> None:
        return None


class Retrying(SyncWrap):
    """Calls its handler twice (a retry), after passing on a rewritten request."""

    def _wrapped(self, kind: str, request: Any, handler: Any) -> Any:
        self.places.note(f"{self.label}.{kind}")
        MARK.set(f"{self.label}.{kind}")
        changed = request.override(system_prompt="rewritten") if kind == "model" else request
        handler(changed)
        return handler(request)


class Catching(SyncWrap):
    """Turns a failing tool into an error message; lets everything else through."""

    def _wrapped(self, kind: str, request: Any, handler: Any) -> Any:
        self.places.note(f"{self.label}.{kind}")
        try:
            return handler(request)
        except Broken as error:
            self.places.note(f"{self.label}.{kind} caught {error}")
            return ToolMessage(content="broken", tool_call_id=request.tool_call["id"])


class Broken(Exception):
    pass


LAYERS = {"sync": SyncWrap, "twin": TwinWrap, "retry": Retrying, "catch": Catching}


def build(places: Places, layers: tuple[str, ...], model: str, tool_kind: str) -> Any:
    middleware = [LAYERS[kind](places, f"{kind}{index}") for index, kind in enumerate(layers)]
    chosen = ScriptedModel(turn_noting(places)) if model == "scripted" else AsyncModel(places)
    if tool_kind == "sync":
        lookup = lookup_noting(places)
    elif tool_kind == "broken":

        @tool
        def lookup(query: str) -> str:
            """Look something up."""
            places.note("tool")
            raise Broken(query)

    else:
        lookup = async_lookup_noting(places, with_sync=tool_kind == "both")
    return create_agent(chosen, [lookup], middleware=middleware)


def observed(layers: tuple[str, ...], model: str, tool_kind: str, *, probed: bool) -> Any:
    """What one ainvoke() showed: its messages, trace, final requests or error, and where and
    with which context each piece ran."""
    from hookproof._engine.probe import PROBE

    places = Places()
    agent = build(places, layers, model, tool_kind)

    async def main() -> Any:
        MARK.set("caller")
        if probed:
            PROBE.set(QuietProbe())
        try:  # bounded: a hand-back that never comes shows as a TimeoutError, not a hang
            result = await asyncio.wait_for(agent.ainvoke(HI), WAIT_SECONDS)
        except Exception as error:  # noqa: BLE001 - the error is part of what is compared
            return f"{type(error).__name__}: {error}"
        return (result.messages, result.trace, result.final_requests)

    outcome = asyncio.run(main())
    pieces = {"model", "tool"}
    hooks = [(label, where) for label, where in places.places() if label not in pieces]
    return outcome, hooks, places.marks(), [label for label, _ in places.places()]


STACKS = [
    ("sync",),
    ("twin",),
    ("sync", "sync"),
    ("sync", "twin"),
    ("twin", "sync"),
    ("retry", "sync"),
    ("sync", "retry"),
    ("catch", "sync", "twin"),
    ("sync", "twin", "sync"),
    ("twin", "retry", "catch"),
    ("catch", "retry", "sync"),
]


@pytest.mark.parametrize("tool_kind", ["sync", "async", "both", "broken"])
@pytest.mark.parametrize("model", ["scripted", "async"])
def test_the_threaded_inside_shows_what_the_event_loop_round_trips_showed(
    model: str, tool_kind: str
) -> None:
    for layers in STACKS:
        new = observed(layers, model, tool_kind, probed=False)
        with brief_wait(0.0):
            old = observed(layers, model, tool_kind, probed=True)
        assert new == old, layers


# A brief wait that never runs out, none at all, and one as long as a short hook takes (so
# the loop's thread gives up about when the helper thread finishes: both orders occur).
@pytest.mark.parametrize("seconds", [WAIT_SECONDS, 0.0, 0.00002], ids=["long", "none", "racing"])
def test_a_brief_wait_for_a_sync_wrap_hook_shows_what_freeing_the_loop_at_once_showed(
    seconds: float,
) -> None:
    for model, tool_kind in (("scripted", "sync"), ("async", "broken"), ("scripted", "both")):
        for layers in STACKS:
            with brief_wait(0.0):
                expected = observed(layers, model, tool_kind, probed=False)
            with brief_wait(seconds):
                assert observed(layers, model, tool_kind, probed=False) == expected, layers


def test_invoke_and_ainvoke_give_the_same_run_below_sync_wrap_hooks() -> None:
    places = Places()
    agent = build(places, ("retry", "sync", "catch"), "scripted", "broken")
    sync = agent.invoke(HI)
    run = asyncio.run(agent.ainvoke(HI))
    assert (run.messages, run.trace, run.final_requests) == (
        sync.messages,
        sync.trace,
        sync.final_requests,
    )
    assert run.text == "done"


# -- failures, cancellation, and what a run costs in thread hand-offs -------------------------


def test_a_failure_inside_reaches_the_hooks_and_the_caller_as_the_same_error() -> None:
    seen: list[BaseException] = []

    class Watching(AgentMiddleware):
        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            try:
                return handler(request)
            except Broken as error:
                seen.append(error)
                raise

    places = Places()
    agent = build(places, ("sync",), "scripted", "broken")
    agent = create_agent(
        ScriptedModel(turn_noting(places)),
        agent.tools,
        middleware=[Watching(), SyncWrap(places, "inner")],
    )
    with pytest.raises(Broken) as raised:
        asyncio.run(agent.ainvoke(HI))
    assert seen == [raised.value] and seen[0] is raised.value
    assert places.places()[-3:] == [
        ("inner.tool", ("helper", False)),
        ("tool", ("helper", False)),
        ("inner.tool after", ("helper", False)),
    ]


def blocking_agent(*, in_tool: bool, entered: threading.Event, released: threading.Event) -> Any:
    def wait() -> None:
        entered.set()
        assert released.wait(WAIT_SECONDS)

    @tool
    def lookup(query: str) -> str:
        """Look something up."""
        if in_tool:
            wait()
        return f"found:{query}"

    class Blocking(AgentMiddleware):
        def wrap_tool_call(self, request: Any, handler: Any) -> Any:
            if not in_tool:
                wait()
            return handler(request)

    model = ScriptedModel([call("lookup", {"query": "x"}, id="call_0"), "done"])
    return create_agent(model, [lookup], middleware=[Blocking()])


@pytest.mark.parametrize("in_tool", [False, True], ids=["hook blocks", "tool inside blocks"])
def test_a_cancelled_ainvoke_ends_at_once_while_the_blocked_hook_finishes_apart(
    in_tool: bool,
) -> None:
    entered, released, ticks = threading.Event(), threading.Event(), []
    agent = blocking_agent(in_tool=in_tool, entered=entered, released=released)

    async def tick() -> None:  # the event loop is free while the helper thread is blocked
        for _ in range(3):
            ticks.append(None)
            await asyncio.sleep(0)

    cancel_once_entered(agent, entered, released, while_blocked=tick)
    assert len(ticks) == 3


class CountingLoop(asyncio.SelectorEventLoop):
    """Counts the times another thread woke the event loop (a helper thread handing back)."""

    def __init__(self) -> None:
        super().__init__()
        self.woken = 0

    def call_soon_threadsafe(self, *args: Any, **kwargs: Any) -> Any:
        self.woken += 1
        return super().call_soon_threadsafe(*args, **kwargs)


def hand_backs(agent: Any, *, probed: bool = False, brief: float = 0.0) -> int:
    """How often helper threads woke the event loop during one ainvoke(), with brief waits
    of ``brief`` seconds (0: none, each wrapped call hands back through the loop)."""
    from hookproof._engine.probe import PROBE

    async def main() -> None:
        if probed:
            PROBE.set(QuietProbe())
        assert (await agent.ainvoke(HI)).text == "done"

    with brief_wait(brief), asyncio.Runner(loop_factory=CountingLoop) as runner:
        runner.run(main())
        loop = runner.get_loop()
        assert isinstance(loop, CountingLoop)
        return loop.woken


def test_a_wrapped_call_with_a_synchronous_inside_costs_one_round_trip() -> None:
    places = Places()  # bench_runtime's scenario: a model call, a tool call, a model call
    synchronous = build(places, ("sync",), "scripted", "sync")
    # The first model call and the tool call it asks for share one visit (fused.py).
    assert hand_backs(synchronous) == 2
    assert hand_backs(synchronous, probed=True) == 6  # the old path: two per wrapped call
    asynchronous = build(places, ("sync",), "async", "async")  # one more each, for the inside
    assert hand_backs(asynchronous) == 5


def test_a_short_hook_hands_back_without_waking_the_event_loop() -> None:
    places = Places()
    synchronous = build(places, ("sync", "sync"), "scripted", "sync")
    assert hand_backs(synchronous, brief=WAIT_SECONDS) == 0
    # An asynchronous inside needs the loop: the loop's thread stops waiting at once and
    # the wrapped call takes its round trip through the loop, as without brief waits.
    asynchronous = build(places, ("sync",), "async", "async")
    assert hand_backs(asynchronous, brief=WAIT_SECONDS) == 5  # the first turn's two share one
    single = build(places, ("sync",), "scripted", "sync")
    assert hand_backs(single, probed=True, brief=WAIT_SECONDS) == 6


def timed_ainvoke(agent: Any) -> float:
    start = time.monotonic()
    assert asyncio.run(agent.ainvoke(HI)).text == "done"
    return time.monotonic() - start


def test_a_hook_whose_inside_needs_the_event_loop_frees_it_without_waiting_out_the_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from hookproof._engine import threaded

    agent = build(Places(), ("sync",), "async", "sync")  # the async model: twice
    with brief_wait(WAIT_SECONDS):
        assert timed_ainvoke(agent) < WAIT_SECONDS
    # Its twin whose helper thread does not say it wants the loop waits the wait out.
    monkeypatch.setattr(threaded, "wants_loop", lambda: None)
    with brief_wait(0.2):
        assert timed_ainvoke(agent) >= 2 * 0.2


def test_a_hook_that_outlasts_the_brief_wait_frees_the_loop_and_gives_the_same_run() -> None:
    """A hook that runs something on the event loop itself (not through its handler) cannot
    finish while the loop's thread waits for it: it does once the brief wait has run out."""
    places = Places()
    loops: list[asyncio.AbstractEventLoop] = []

    class OnTheLoop(SyncWrap):
        def _wrapped(self, kind: str, request: Any, handler: Any) -> Any:
            ran = asyncio.run_coroutine_threadsafe(asyncio.sleep(0), loops[-1])
            ran.result(WAIT_SECONDS)
            return super()._wrapped(kind, request, handler)

    agent = create_agent(
        ScriptedModel(turn_noting(places)),
        [lookup_noting(places)],
        middleware=[OnTheLoop(places, "s")],
    )

    def run_with(brief: float) -> tuple[Any, int]:
        async def main() -> Any:
            loops.append(asyncio.get_running_loop())
            return await agent.ainvoke(HI)

        with brief_wait(brief), asyncio.Runner(loop_factory=CountingLoop) as runner:
            result = runner.run(main())
            loop = runner.get_loop()
            assert isinstance(loop, CountingLoop)
            return (result.messages, result.trace, result.final_requests), loop.woken

    waited, waits_woken = run_with(0.001)
    freed, freed_woken = run_with(0.0)
    assert waited == freed
    # Per wrapped call the hook's own and, per helper visit, the hand-back (the first turn's
    # model and tool calls share one visit: fused.py).
    assert waits_woken == freed_woken == 5


def test_a_long_sync_hook_frees_the_event_loop_for_other_tasks_while_it_runs() -> None:
    """The default brief wait: a hook that sleeps past it (here until another task on the
    loop has ticked, at most WAIT_SECONDS) sees that task make progress while it sleeps."""
    ticked = threading.Event()
    in_hook = [False]
    ticks_in_hook = [0]

    class Sleeping(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            in_hook[0] = True
            ticked.clear()  # only a tick from here on sets it
            try:
                assert ticked.wait(WAIT_SECONDS), "no other task ran while the hook slept"
            finally:
                in_hook[0] = False
            return handler(request)

    agent = create_agent(ScriptedModel(["a", "b"]), [], middleware=[Sleeping()])

    async def main() -> str:
        done = False

        async def tick() -> None:
            while not done:
                ticks_in_hook[0] += in_hook[0]
                ticked.set()
                await asyncio.sleep(0)

        ticking = asyncio.ensure_future(tick())
        try:
            return (await agent.ainvoke(HI)).text
        finally:
            done = True
            await ticking

    assert asyncio.run(main()) == "a"
    assert ticks_in_hook[0] >= 1


class Varied(SyncWrap):
    """Tool calls that outlast the brief wait on some runs: concurrent runs interleave."""

    def wrap_tool_call(self, request: Any, handler: Any) -> Any:
        if request.tool_call["args"]["query"].endswith(("1", "4", "7")):
            time.sleep(0.005)
        return self._wrapped("tool", request, handler)


@pytest.mark.parametrize("seconds", [WAIT_SECONDS, 0.001, 0.0], ids=["long", "default", "none"])
def test_concurrent_ainvokes_give_each_run_what_it_gives_alone(seconds: float) -> None:
    places = Places()

    def turn(request: Any) -> Any:
        if any(isinstance(message, ToolMessage) for message in request.messages):
            return "done"
        query = request.messages[0].text
        return call("lookup", {"query": query}, id=f"call_{query}")

    agent = create_agent(
        ScriptedModel(turn),
        [lookup_noting(places)],
        middleware=[Node(places), Varied(places, "outer"), SyncWrap(places, "inner")],
    )
    queries = [f"q{index}" for index in range(20)]

    def shown(result: Any) -> Any:
        return result.messages, result.trace, result.final_requests

    async def alone() -> list[Any]:
        return [shown(await agent.ainvoke({"messages": [("user", q)]})) for q in queries]

    async def together() -> list[Any]:
        runs = [agent.ainvoke({"messages": [("user", q)]}) for q in queries]
        return [shown(result) for result in await asyncio.gather(*runs)]

    with brief_wait(seconds):
        expected, found = asyncio.run(alone()), asyncio.run(together())
    assert found == expected
    assert [run[0][-1].text for run in found] == ["done"] * len(queries)


class SharedRoleRouter(AgentMiddleware):
    """Keeps the run's role on the (shared) middleware: concurrent runs see each other's."""

    def before_agent(self, state: Any, runtime: Any) -> None:
        self.role = getattr(runtime.context, "role", "guest")

    def wrap_model_call(self, request: Any, handler: Any) -> Any:
        from hookproof.examples.dynamic_routing import BUSINESS_TOOL_NAMES, visible_business_tools

        allowed = visible_business_tools(self.role)
        kept = [t for t in request.tools if t.name not in BUSINESS_TOOL_NAMES or t.name in allowed]
        return handler(request.override(tools=kept))


def test_check_isolation_under_asyncio_gives_one_verdict_with_brief_waits_or_without() -> None:
    from hookproof import contracts
    from hookproof.examples.dynamic_routing import BUSINESS_TOOLS, AgentContext

    def unsafe(model: Any) -> Any:
        return create_agent(model, list(BUSINESS_TOOLS), middleware=[SharedRoleRouter()])

    def safe(model: Any) -> Any:
        return create_agent(model, list(BUSINESS_TOOLS), middleware=[SyncWrap(Places(), "s")])

    contexts = [AgentContext("guest"), AgentContext("admin")]
    for seconds in (WAIT_SECONDS, 0.0):
        with brief_wait(seconds):
            with pytest.raises(contracts.ContractViolation) as caught:
                contracts.check_isolation(unsafe, contexts, modes=["asyncio"])
            contracts.check_isolation(safe, contexts, modes=["asyncio"])
        # Which boundary shows the leak first, and to which run, depends on how the released
        # runs interleave (without brief waits it varies from call to call); the leak does not.
        message = str(caught.value)
        assert "asyncio: all 2 runs held" in message
        assert "saw another run's request" in message


def test_a_recording_model_answers_on_the_hook_thread_when_its_inner_model_does() -> None:
    from hookproof.models import RecordingModel

    def agent_over(model: Any, places: Places) -> Any:
        return create_agent(model, [lookup_noting(places)], middleware=[SyncWrap(places, "w")])

    places = Places()
    scripted = RecordingModel(ScriptedModel(turn_noting(places)))
    assert hand_backs(agent_over(scripted, places)) == 2  # the first turn in one visit
    assert hand_backs(agent_over(scripted, places), brief=WAIT_SECONDS) == 0
    assert ("model", ("helper", False)) in places.places()

    places = Places()
    awaited = RecordingModel(AsyncModel(places))
    assert hand_backs(agent_over(awaited, places)) == 4  # its two model calls: one more each
    assert ("model", ("loop", True)) in places.places()
    recorded = [r.messages for r in scripted.requests]
    assert recorded[:2] == recorded[2:] == [r.messages for r in awaited.requests]


def test_a_scripted_model_whose_ainvoke_is_overridden_is_awaited_below_a_sync_wrap_hook() -> None:
    """The flag says what its declaring class's ainvoke does: a subclass's own ainvoke (or a
    recorder around one) runs, as it does without the hook."""
    from hookproof.models import RecordingModel

    awaited: list[str] = []

    class Audited(ScriptedModel):
        async def ainvoke(self, request: Any) -> Any:
            awaited.append("ainvoke")
            return await super().ainvoke(request)

    for model in (Audited(["a", "b"]), RecordingModel(Audited(["a", "b"]))):
        awaited.clear()
        agent = create_agent(model, [], middleware=[SyncWrap(Places(), "w")])
        assert asyncio.run(agent.ainvoke(HI)).text == "a"
        assert awaited == ["ainvoke"]


def paused_and_resumed(*, probed: bool) -> Any:
    """A tool below a sync wrap hook asks a human, then runs a subagent; pause and resume."""
    from hookproof._engine.probe import PROBE
    from hookproof.runtime import Command, InMemoryCheckpointer, interrupt

    helper = create_agent(ScriptedModel(["sub done"]), name="helper")

    @tool
    def ask(query: str) -> str:
        """Ask a human, then the helper agent."""
        answer = interrupt({"query": query})
        return f"{answer}:{helper.invoke({'messages': [('user', query)]}).text}"

    places = Places()
    model = ScriptedModel([call("ask", {"query": "x"}, id="call_0"), "done"])
    agent = create_agent(
        model,
        [ask],
        middleware=[SyncWrap(places, "outer"), SyncWrap(places, "inner")],
        checkpointer=InMemoryCheckpointer(),
    )

    async def main() -> Any:
        if probed:
            PROBE.set(QuietProbe())
        paused = await agent.ainvoke(HI, thread_id="t")
        resumed = await agent.ainvoke(Command(resume="yes"), thread_id="t")
        return [(r.messages, r.trace, r.final_requests, r.interrupts) for r in (paused, resumed)]

    return asyncio.run(main()), places.marks()


def test_an_interrupt_and_a_subagent_below_sync_wrap_hooks_pause_and_resume_as_before() -> None:
    new, old = paused_and_resumed(probed=False), paused_and_resumed(probed=True)
    assert new == old
    (paused, resumed), _ = new
    assert paused[3][0].value == {"query": "x"}
    assert resumed[0][-2].text == "yes:sub done" and resumed[0][-1].text == "done"


def test_a_handler_called_after_its_event_loop_closed_raises_at_once() -> None:
    entered, released, done = threading.Event(), threading.Event(), threading.Event()
    errors: list[str] = []  # texts only: an error's traceback would keep the coroutine alive

    class Late(AgentMiddleware):
        def wrap_model_call(self, request: Any, handler: Any) -> Any:
            entered.set()
            assert released.wait(WAIT_SECONDS)
            try:
                return handler(request)  # the model awaits on a loop that is gone
            except RuntimeError as error:
                errors.append(str(error))
                raise
            finally:
                done.set()

    agent = create_agent(AsyncModel(Places()), [], middleware=[Late()])

    cancel_once_entered(agent, entered, released)
    assert done.wait(WAIT_SECONDS)
    assert errors == ["Event loop is closed"]


def test_handing_to_a_closed_loop_closes_the_coroutine_so_it_never_warns() -> None:
    from hookproof._engine.threaded import on_loop

    async def inside() -> None:
        return None

    loop = asyncio.new_event_loop()
    loop.close()
    coroutine = inside()
    with pytest.raises(RuntimeError, match="closed"):
        on_loop(loop, coroutine)
    assert coroutine.cr_frame is None  # closed: no "never awaited" warning when collected


def test_an_idle_helper_thread_keeps_nothing_of_the_last_run() -> None:
    import gc
    import time
    import weakref

    places = Places()
    middleware = SyncWrap(places, "w")
    agent = create_agent(ScriptedModel(turn_noting(places)), [], middleware=[middleware])
    assert asyncio.run(agent.ainvoke(HI)).text == "done"
    gone = weakref.ref(middleware)
    del agent, middleware
    deadline = time.monotonic() + WAIT_SECONDS
    while gone() is not None and time.monotonic() < deadline:  # the helper lets go at once
        gc.collect()
        time.sleep(0.001)
    assert gone() is None
