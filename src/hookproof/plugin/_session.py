"""The session behind the plugin's hooks: one ``HookproofSession`` per pytest run, kept on the
config, owns what hookproof does around the tests (the hooks only hand it their arguments):

- at the start, the guard inherited from a parent test, the hypothesis profile, the example
  database, the extra redaction and the snapshot directory (``_configure``);
- for each test, its options, the frozen clock, the real-model guard of each phase, the
  cassette, and the totals of what its contract checks exercised;
- at the end, the report header and summary line, and the redaction put back.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Generator, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from hookproof.plugin._cassettes import cassette_for, recording_hosts
from hookproof.plugin._configure import (
    check_snapshot_dir,
    configure_example_database,
    configure_redaction,
    load_requested_profile,
    requested_profile,
)
from hookproof.plugin._settings import MARKER, asks_to_freeze, options_for

if TYPE_CHECKING:
    from hookproof.plugin._options import HookproofOptions
    from hookproof.recording import Cassette
    from hookproof.redaction import Redaction

__all__ = ["HookproofSession", "end_session", "session_of"]

_SESSION = pytest.StashKey["HookproofSession"]()
_FROZEN_CLOCK = pytest.StashKey[contextlib.ExitStack]()
_GUARD = pytest.StashKey["tuple[bool, tuple[str, ...]]"]()
_FAILED = pytest.StashKey[bool]()


def session_of(config: pytest.Config) -> HookproofSession:
    return config.stash[_SESSION]


def end_session(config: pytest.Config) -> None:
    """Finish the session, if it started (pytest unconfigures after a failed configure too)."""
    session = config.stash.get(_SESSION, None)
    if session is not None:
        del config.stash[_SESSION]
        session.finish()


class HookproofSession:
    """What hookproof keeps and does for one pytest run (see the module's docstring)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.example_database: str | None = None
        self._replaced_redaction: Redaction | None = None
        config.stash[_SESSION] = self

    def start(self) -> None:
        config = self.config
        _leave_parent_guard()
        profile = requested_profile(config)
        load_requested_profile(profile)
        self.example_database = configure_example_database(config, profile)
        check_snapshot_dir(config)
        self._replaced_redaction = configure_redaction(config)
        config.pluginmanager.register(GuardPhases(self), "hookproof-real-model-guard")
        config.addinivalue_line("markers", MARKER)

    def finish(self) -> None:
        """Put back the redaction this session replaced (pytester runs sessions in one
        process)."""
        if self._replaced_redaction is not None:
            from hookproof import redaction

            redaction.configure_redaction(self._replaced_redaction)

    def report_header(self) -> str:
        from hookproof import __version__

        header = f"hookproof: {__version__}"
        if self.example_database is not None:
            from hookproof.plugin._example_db import describe

            header += f", example database {describe(self.example_database)}"
        return header

    def options(self, item: pytest.Item) -> HookproofOptions:
        return options_for(item)

    # -- the frozen clock: from the test's first fixture to its last teardown ---------------

    def freeze_clock(self, item: pytest.Item) -> None:
        moment = options_for(item).freeze_time if asks_to_freeze(item) else None
        if moment is not None:
            item.stash[_FROZEN_CLOCK] = clock = contextlib.ExitStack()
            from hookproof.plugin._clock import frozen_clock

            clock.enter_context(frozen_clock(self.config, moment))

    def release_clock(self, item: pytest.Item) -> None:
        clock = item.stash.get(_FROZEN_CLOCK, None)
        if clock is not None:
            del item.stash[_FROZEN_CLOCK]
            clock.close()

    # -- the real-model guard, around each phase -------------------------------------------

    def guarded_setup(self, item: pytest.Item) -> Generator[None, None, None]:
        """The setup phase, which resolves the guard the later phases reuse. Raising before
        the yield would skip other plugins' setup wrappers, so a bad option is raised once
        the phase has run (guarded fail-closed meanwhile) if nothing failed earlier."""
        __tracebackhide__ = True
        from hookproof.errors import UsageError

        try:
            options = options_for(item)
        except UsageError as error:
            yield from self.guarded_phase(item, "setup")
            raise error from None
        hosts = (*options.allow_hosts, *recording_hosts(item, options))
        item.stash[_GUARD] = (not options.allow_real_models, hosts)
        return (yield from self.guarded_phase(item, "setup"))

    def guarded_phase(self, item: pytest.Item, phase: str) -> Generator[None, None, None]:
        """Run one phase with the guard on (unless the test opts out), and fail it if a
        refusal was caught by the code under test while the phase itself passed."""
        __tracebackhide__ = True
        from hookproof.guard import RealModelBlocked, block_real_models, swallowed_message

        # Not resolved (the setup failed on the options): fail closed, no host allowed.
        blocking, hosts = item.stash.get(_GUARD, (True, ()))
        with block_real_models(blocking, allow_hosts=hosts) as refusals:
            result = yield
        if refusals:
            raise RealModelBlocked(swallowed_message(phase, refusals))
        return result

    # -- the cassette, saved only when the test passed -------------------------------------

    def cassette(self, item: pytest.Item, options: HookproofOptions) -> Iterator[Cassette]:
        cassette = cassette_for(item, options)
        yield cassette
        if not item.stash.get(_FAILED, False):
            cassette.save()

    def note_report(self, item: pytest.Item, report: pytest.TestReport) -> None:
        """Note a failed setup or call, for the cassette; show a failed snapshot's diff."""
        if report.failed and report.when in ("setup", "call"):
            item.stash[_FAILED] = True
        if report.when == "call":
            from hookproof.plugin._snapshots import failure_sections

            failure_sections(item, report)

    # -- what the contract checks exercised -----------------------------------------------

    @contextlib.contextmanager
    def exercised(self, item: pytest.Item) -> Iterator[None]:
        """Total what the test's contract checks exercised, as a property of its report
        (junit XML and ``hookproof check`` read it; xdist carries it to the controller)."""
        from hookproof import _exercised

        with _exercised.collecting() as reports:
            try:
                yield
            finally:
                if reports:
                    summed = _exercised.totals(report.counts() for report in reports)
                    item.user_properties.append((_exercised.PROPERTY, _exercised.encode(summed)))

    def exercised_line(self, stats: dict[str, list[Any]]) -> str | None:
        """One line with what the session's contract checks exercised, when any ran."""
        from hookproof import _exercised

        # Every phase's report carries the item's properties: count each test's call once.
        calls = [r for group in stats.values() for r in group if getattr(r, "when", None) == "call"]
        found = _exercised.from_properties(getattr(r, "user_properties", ()) for r in calls)
        return None if found is None else f"hookproof contracts: {_exercised.describe(found)}"


class GuardPhases:
    """The guard around each phase of every test (a plugin object of its own: the plugin
    module has hooks of these names already). Being on for the whole phase, not only while a
    function-scoped fixture lives, it covers every fixture set up or torn down for the test,
    whatever its scope, and ``setup_module`` / ``setUpClass`` / their teardowns. Code run at
    import or collection time is not covered: no test's options are known yet."""

    def __init__(self, session: HookproofSession) -> None:
        self.session = session

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, None, None]:
        __tracebackhide__ = True
        return (yield from self.session.guarded_setup(item))

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, None, None]:
        __tracebackhide__ = True
        return (yield from self.session.guarded_phase(item, "call"))

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Generator[None, None, None]:
        __tracebackhide__ = True
        return (yield from self.session.guarded_phase(item, "teardown"))


def _leave_parent_guard() -> None:
    """A session started by a guarded test (a child process) follows its own options."""
    if os.environ.get("HOOKPROOF_GUARD_RECORDS"):
        from hookproof.guard.child import leave_parent

        leave_parent()
