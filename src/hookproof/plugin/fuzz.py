"""The pytest side of ``hookproof fuzz``, loaded into the campaign's pytest and each of its
pytest-xdist workers with ``-p hookproof.plugin.fuzz`` (it does nothing unless the campaign's
variables are set).

Targets are the ``@given`` tests collected from the campaign's paths; every other test is
deselected. Each worker runs every target (xdist ``--dist each``) with hypothesis' own random
seeds, which differ per worker and per round: ``--hypothesis-seed`` would make hypothesis
skip the example database, and sharing what is found through it is the point. A target runs
in rounds of the profile in force (``deep``) until its share of the worker's time is used:
the first round tries ``FIRST_ROUND`` examples, each later one as many as the rate measured so
far fits in the time left (at most the profile's ``max_examples``), and every target gets one
round at least. The round's size is set on the test's own settings
(``_hypothesis_internal_use_settings``, the attribute hypothesis' pytest plugin reads too):
hypothesis has no public time limit for a run. After each round a line goes to
``$HOOKPROOF_FUZZ_LOG/<worker>.jsonl``, which ``hookproof fuzz`` reads for its progress and
summary.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pytest

__all__ = ["DEADLINE_VARIABLE", "FIRST_ROUND", "LOG_VARIABLE", "Round"]

DEADLINE_VARIABLE = "HOOKPROOF_FUZZ_DEADLINE"  # seconds since the epoch, set by the campaign
LOG_VARIABLE = "HOOKPROOF_FUZZ_LOG"
FIRST_ROUND = 10
_PROFILE = "hookproof-fuzz"
_TARGETS_LEFT = pytest.StashKey[list[str]]()


@dataclass
class Round:
    """What one worker has done on one target so far (one JSON line per round)."""

    worker: str
    check: str
    examples: int = 0
    seconds: float = 0.0
    rounds: int = 0
    failure: list[str] = field(default_factory=list)


def _active() -> bool:
    return bool(os.environ.get(DEADLINE_VARIABLE) and os.environ.get(LOG_VARIABLE))


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    """After hypothesis loaded the campaign's profile: the same, with the blob that
    reproduces a failure printed."""
    if not _active():
        return
    from hypothesis import settings

    settings.register_profile(_PROFILE, parent=settings(), print_blob=True)
    settings.load_profile(_PROFILE)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not _active():
        return
    from hypothesis import is_hypothesis_test

    targets = [item for item in items if is_hypothesis_test(getattr(item, "obj", None))]
    chosen = set(targets)
    others = [item for item in items if item not in chosen]
    if others:
        config.hook.pytest_deselected(items=others)
        items[:] = targets
    config.stash[_TARGETS_LEFT] = [item.nodeid for item in targets]


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    if not _active():
        return None
    left = pyfuncitem.config.stash.get(_TARGETS_LEFT, [])
    share = (float(os.environ[DEADLINE_VARIABLE]) - time.time()) / max(len(left), 1)
    if pyfuncitem.nodeid in left:
        left.remove(pyfuncitem.nodeid)
    test = pyfuncitem.obj
    parameters = inspect.signature(test).parameters
    arguments = {name: pyfuncitem.funcargs[name] for name in parameters}
    _fuzz(test, arguments, _record(pyfuncitem), until=time.monotonic() + share)
    return True


def _record(item: pytest.Function) -> Round:
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    return Round(worker=worker, check=item.nodeid)


def _fuzz(test: Any, arguments: dict[str, Any], progress: Round, *, until: float) -> None:
    """Round after round of ``test`` until ``until`` (monotonic), counting its examples."""
    from hypothesis import settings

    inner = test.hypothesis.inner_test

    @functools.wraps(inner)
    def counted(*args: Any, **kwargs: Any) -> Any:
        progress.examples += 1
        return inner(*args, **kwargs)

    test.hypothesis.inner_test = counted
    chosen = test._hypothesis_internal_use_settings
    started = time.monotonic()
    try:
        while True:
            size = _round_size(progress, until - time.monotonic(), chosen.max_examples)
            test._hypothesis_internal_use_settings = settings(chosen, max_examples=size)
            try:
                test(**arguments)
            except Exception as error:  # not a skip, nor the campaign interrupted
                progress.failure = _failure_lines(error)
                raise
            finally:
                progress.rounds += 1
                progress.seconds = time.monotonic() - started
                _write(progress)
            if time.monotonic() >= until:
                return
    finally:
        test.hypothesis.inner_test = inner
        test._hypothesis_internal_use_settings = chosen


def _round_size(progress: Round, remaining: float, most: int) -> int:
    """A round that fits the time left at the rate seen so far."""
    if not progress.examples:
        return min(FIRST_ROUND, most)
    rate = progress.examples / max(progress.seconds, 1e-6)
    return max(1, min(most, int(rate * remaining)))


def _failure_lines(error: BaseException) -> list[str]:
    """The error and hypothesis' notes: the falsifying example and its reproduction blob."""
    head = traceback.format_exception_only(type(error), error)[0].strip()
    return [head, *getattr(error, "__notes__", [])]


def _write(progress: Round) -> None:
    log = Path(os.environ[LOG_VARIABLE]) / f"{progress.worker}.jsonl"
    with log.open("a", encoding="utf-8") as stream:
        stream.write(json.dumps(asdict(progress)) + "\n")
