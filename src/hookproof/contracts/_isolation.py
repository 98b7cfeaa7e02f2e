"""check_isolation: concurrent runs through one agent must see exactly their own requests.

Luck does not find races, so the check forces them. It first runs each context alone and
records its final requests. Then, for each hook boundary k (before a hook, a wrap layer, a
model call or a tool call), it starts every context at once, on threads and on asyncio, and
holds each run at its k-th boundary until all runs have reached theirs. A middleware that
keeps request data on ``self`` is then caught in the act, and the report names the boundary.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from hookproof._support.untimed import untimed
from hookproof.contracts._report import CheckReport, Exercise
from hookproof.contracts._violation import violation
from hookproof.errors import UsageError, safe_repr
from hookproof.snapshot import Change, diff, render
from hookproof.targets import DEFAULT_INPUT, Build, IsolationRuns, Target, as_target

__all__ = ["check_isolation"]

# Only a run that hangs comes near this: a run that ends before its hold point joins the
# others at its end, so no run waits for one that will never arrive.
_WAIT_SECONDS = 120.0


@dataclass
class _Counter:
    labels: list[str] = field(default_factory=list)

    def reached(self, label: str) -> None:
        self.labels.append(label)

    async def areached(self, label: str) -> None:
        self.labels.append(label)


@dataclass
class _HoldAt:
    """Holds a run at its k-th boundary until every run has reached its own k-th (or ended).
    ``broken`` is set when the runs could not be held together."""

    point: int
    barrier: Any
    seen: int = 0
    broken: bool = False

    def reached(self, label: str) -> None:
        self.seen += 1
        if self.seen == self.point:
            self._wait()

    async def areached(self, label: str) -> None:
        self.seen += 1
        if self.seen == self.point:
            await self._await()

    def ended(self) -> None:
        if self.seen < self.point:
            self.seen = self.point
            self._wait()

    async def aended(self) -> None:
        if self.seen < self.point:
            self.seen = self.point
            await self._await()

    def _wait(self) -> None:
        try:
            self.barrier.wait(timeout=_WAIT_SECONDS)
        except threading.BrokenBarrierError:
            self.broken = True

    async def _await(self) -> None:
        try:
            await asyncio.wait_for(self.barrier.wait(), _WAIT_SECONDS)
        except (TimeoutError, asyncio.BrokenBarrierError):
            self.broken = True


def _fingerprint(outcome: Any) -> tuple[str, ...]:
    error = outcome if isinstance(outcome, BaseException) else getattr(outcome, "error", None)
    if error is not None:
        return (f"raised {type(error).__name__}: {error}",)
    return tuple(render(request, provenance=False) for request in outcome.final_requests)


def _threads(runs: IsolationRuns, contexts: Sequence[Any], point: int) -> _HeldRuns:
    barrier = threading.Barrier(len(contexts))
    holds = [_HoldAt(point, barrier) for _ in contexts]

    def run(context: Any, hold: _HoldAt) -> Any:
        try:
            return runs.sync(context, hold)
        finally:
            hold.ended()

    with ThreadPoolExecutor(max_workers=len(contexts)) as pool:
        futures = [pool.submit(run, c, h) for c, h in zip(contexts, holds, strict=True)]
        return _HeldRuns([future.result() for future in futures], holds)


def _asyncio(runs: IsolationRuns, contexts: Sequence[Any], point: int) -> _HeldRuns:
    assert runs.async_ is not None
    run_async = runs.async_
    barrier = asyncio.Barrier(len(contexts))
    holds = [_HoldAt(point, barrier) for _ in contexts]

    async def run(context: Any, hold: _HoldAt) -> Any:
        try:
            return await run_async(context, hold)
        finally:
            await hold.aended()

    async def main() -> list[Any]:
        started = [run(c, h) for c, h in zip(contexts, holds, strict=True)]
        return list(await asyncio.gather(*started))

    return _HeldRuns(asyncio.run(main()), holds)


@dataclass
class _HeldRuns:
    outcomes: list[Any]
    holds: list[_HoldAt]

    @property
    def held_together(self) -> bool:
        return not any(hold.broken for hold in self.holds)


_MODES = {"threads": _threads, "asyncio": _asyncio}


def _leak_lines(
    contexts: Sequence[Any], expected: list[tuple[str, ...]], got: list[Any]
) -> list[str]:
    found = []
    for context, want, outcome in zip(contexts, expected, got, strict=True):
        have = _fingerprint(outcome)
        if have == want:
            continue
        if len(have) != len(want) or have[0].startswith("raised "):
            first = have[0][:120] if have else "no request"
            found.append(f"context {context!r}: {first} (alone: {len(want)} request(s))")
            continue
        changes = [
            _leaked(c) for old, new in zip(want, have, strict=True) for c in diff(old, new).changes
        ]
        found.append(f"context {context!r} saw another run's request: {'; '.join(changes)[:1200]}")
    return found


def _leaked(change: Change) -> str:
    """The change and the text that leaked: what this run saw, and what it sees alone."""
    detail = change.describe()
    if change.after is not None:
        detail += f", saw {_clip(change.after)}"
    if change.before is not None:
        detail += f" where alone it sees {_clip(change.before)}"
    return detail


def _clip(text: str) -> str:
    return repr(text if len(text) <= 200 else text[:197] + "...")


def _usable_modes(runs: IsolationRuns, modes: Sequence[str]) -> list[str]:
    usable = [mode for mode in modes if mode == "threads" or runs.async_ is not None]
    if not usable:
        raise UsageError(
            "hookproof: this agent can only be held on threads (LangChain and deepagents "
            "runs are held in their callbacks; Eino-dialect runs are synchronous); use "
            "modes=['threads']."
        )
    return usable


@untimed
def check_isolation(
    build: Build,
    contexts: Sequence[Any],
    *,
    tiers: Sequence[str] | None = None,
    script: Any = None,
    input: Mapping[str, Any] | None = None,
    modes: Sequence[str] = ("threads", "asyncio"),
    config: Mapping[str, Any] | None = None,
    allow_untested: bool = False,
) -> CheckReport:
    """Concurrent runs through ONE built agent each get exactly their sequential requests.
    On LangChain and deepagents agents only threads are used (runs are held in callbacks).
    Runs that pass no hook boundary cannot be held together, which is not a pass."""
    __tracebackhide__ = True
    if len(contexts) < 2:
        raise UsageError("hookproof: check_isolation needs at least two contexts to run together.")
    if script is not None and not callable(script):
        raise UsageError(
            "hookproof: check_isolation shares one model between concurrent runs, so its script "
            "must be a function of the request (e.g. lambda request: 'done'), not a list of "
            "turns that the runs would consume from each other."
        )
    exercise = Exercise("check_isolation", allow_untested=allow_untested)
    for context in contexts:
        exercise.context(context)
    runs = _runs_for(as_target(build, tiers), script, input or DEFAULT_INPUT, config)
    counters = [_Counter() for _ in contexts]
    expected = [_fingerprint(runs.sync(c, n)) for c, n in zip(contexts, counters, strict=True)]
    exercise.runs += len(contexts)
    exercise.hook(*(label for counter in counters for label in counter.labels))
    points = min(len(counter.labels) for counter in counters)
    if all(not fingerprint or fingerprint[0].startswith("raised ") for fingerprint in expected):
        exercise.not_tried(
            "every run on its own raised or made no model call, so there was no request for "
            f"concurrent runs to leak into (first: {safe_repr(expected[0][:1], 160)})"
        )
    if points == 0:
        exercise.not_tried(
            "a run passed no hook, layer, model or tool boundary, so no runs could be held "
            "together there"
        )
    for mode in _usable_modes(runs, modes):
        for point in range(1, points + 1):
            exercise.runs += len(contexts)
            held = _MODES[mode](runs, contexts, point)
            found = _leak_lines(contexts, expected, held.outcomes)
            if not found and not held.held_together:
                exercise.not_tried(
                    f"{mode}: the runs could not be held together at boundary {point} (a run "
                    f"did not reach it or end within {_WAIT_SECONDS:.0f}s), so they did not "
                    "overlap there"
                )
            if found:
                label = counters[0].labels[point - 1]
                raise exercise.failed(
                    violation(
                        "check_isolation",
                        invariant="concurrent runs through one agent see exactly what they see "
                        "alone",
                        counterexample=f"{mode}: all {len(contexts)} runs held at boundary "
                        f"{point} (before {label}) until every run reached it",
                        found=found,
                        fix="keep request data in hook locals, the runtime context or state, "
                        "never on the middleware instance (self); one instance serves every run",
                        replay=f"check_isolation(build, {list(contexts)!r}, modes=[{mode!r}])",
                    )
                )
    return exercise.passed(
        counterexample=f"contexts={list(contexts)!r}",
        fix="check an agent whose runs pass through middleware hooks or a model call",
    )


def _runs_for(
    target: Target, script: Any, payload: Mapping[str, Any], config: Mapping[str, Any] | None
) -> IsolationRuns:
    return target.isolation_runs(
        script if script is not None else (lambda request: "done"), payload, config
    )
