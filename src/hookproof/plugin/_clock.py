"""The frozen clock of ``freeze_time``: frozen for the code under test, real for the tools.

freezegun replaces the clock everywhere except in the modules it is told to ignore: there it
leaves the real functions in place, and a call whose last few callers include such a module
gets the real time. pytest and its plugins time every test (``--durations``, junit times,
the session time, pytest-split's stored durations, xdist), so their modules are ignored:
pytest's own timing module and the module of every registered plugin that reads the clock
(it holds ``time``, ``datetime`` or one of their functions), except

- conftest files and the project's own code (it is what is tested), and hookproof;
- plugins that run test code themselves (they define test items, or call test functions or
  fixtures: ``_pytest.python``, ``_pytest.fixtures``, anyio's plugin...). Their frames sit
  right under the test body, so ignoring them would hand the test the real time.
"""

from __future__ import annotations

import contextlib
import datetime
import sys
import sysconfig
import time
from pathlib import Path
from types import ModuleType

import pytest

__all__ = ["frozen_clock", "timing_modules"]

# pytest's indirection for the time functions it measures with.
_PYTEST_TIMING = "_pytest.timing"
# Hooks whose plain (not wrapper) implementations call the test function or its fixtures.
_RUNS_TEST_CODE = ("pytest_pyfunc_call", "pytest_fixture_setup", "pytest_runtest_call")
_TIMING_MODULES = pytest.StashKey[tuple[str, ...]]()


def frozen_clock(
    config: pytest.Config, moment: str | datetime.date
) -> contextlib.AbstractContextManager[object]:
    """freezegun's clock frozen at ``moment`` for the test, real for pytest and plugins."""
    try:
        from freezegun import freeze_time
    except ModuleNotFoundError:
        raise pytest.UsageError(
            f"hookproof: freeze_time={moment!r} needs freezegun, which is not installed. "
            "Without it the clock cannot be frozen and the test would see the real time. "
            "Install it with `pip install 'hookproof[test]'` (or `pip install freezegun`)."
        ) from None
    # real_asyncio: event loops keep real monotonic time, so awaited sleeps and timeouts end.
    return freeze_time(moment, ignore=list(timing_modules(config)), real_asyncio=True)


def timing_modules(config: pytest.Config) -> tuple[str, ...]:
    """The modules whose clock stays real (computed once: plugins register at start-up)."""
    if _TIMING_MODULES not in config.stash:
        config.stash[_TIMING_MODULES] = _find_timing_modules(config)
    return config.stash[_TIMING_MODULES]


def _find_timing_modules(config: pytest.Config) -> tuple[str, ...]:
    runners = _modules_running_test_code(config)
    plugins = {_module_of(plugin) for _, plugin in config.pluginmanager.list_name_plugin()}
    found = {
        module.__name__
        for module in plugins
        if module is not None
        and module.__name__ not in runners
        and _reads_the_clock(module)
        and not _is_tested_code(module, config.rootpath)
        and not _defines_test_items(module)
    }
    return tuple(sorted(found | {_PYTEST_TIMING}))


def _module_of(plugin: object) -> ModuleType | None:
    if plugin is None:  # a blocked plugin (-p no:name) is listed with None
        return None
    if isinstance(plugin, ModuleType):
        return plugin
    return sys.modules.get(type(plugin).__module__)


_CLOCKS = (time, datetime, datetime.datetime, datetime.date)


def _reads_the_clock(module: ModuleType) -> bool:
    return any(
        any(value is clock for clock in _CLOCKS) or getattr(value, "__module__", None) == "time"
        for value in vars(module).values()
    )


def _modules_running_test_code(config: pytest.Config) -> set[str]:
    hooks = [getattr(config.pluginmanager.hook, name) for name in _RUNS_TEST_CODE]
    plugins = [
        impl.plugin
        for hook in hooks
        for impl in hook.get_hookimpls()
        if not (impl.wrapper or impl.hookwrapper)
    ]
    return {module.__name__ for module in map(_module_of, plugins) if module is not None}


def _defines_test_items(module: ModuleType) -> bool:
    return any(
        isinstance(value, type)
        and issubclass(value, pytest.Item)
        and value.__module__ == module.__name__
        for value in vars(module).values()
    )


_INSTALLED = {Path(sysconfig.get_paths()[key]).resolve() for key in ("purelib", "platlib")}


def _is_tested_code(module: ModuleType, rootpath: Path) -> bool:
    """Conftests, hookproof, and modules of the project under test (inside its root directory
    but not installed there, as a virtualenv inside the project would be)."""
    if module.__name__.split(".")[0] == "hookproof":
        return True
    location = getattr(module, "__file__", None)
    if location is None:
        return False
    path = Path(location).resolve()
    if path.name == "conftest.py":
        return True
    installed = any(path.is_relative_to(site) for site in _INSTALLED)
    return path.is_relative_to(rootpath.resolve()) and not installed
