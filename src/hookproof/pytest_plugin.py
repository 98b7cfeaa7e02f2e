"""hookproof's pytest plugin (entry point ``hookproof``; disable with ``-p no:hookproof``).

A thin layer over the library. It imports hookproof's runtime, syrupy and the snapshot code
only inside the fixtures that need them, so loading it costs almost nothing:

- ``hookproof_snapshot``: ``assert recording_model.last == hookproof_snapshot`` writes or
  compares one readable file under ``<rootdir>/snapshots/`` (ini ``hookproof_snapshot_dir``);
  a failure adds its semantic diff, most severe first, as a report section (never cut);
  ``--hookproof-pending`` also writes what the test received as ``<name>.txt.pending``, for
  ``hookproof review``;
- ``scripted_model``: a ScriptedModel playing the marker's ``script=``;
- ``recording_model``: a RecordingModel over ``scripted_model``;
- ``scripted_chat_model`` / ``recording_chat_model``: the same for LangChain, real
  ``BaseChatModel``s ``create_agent`` and deepagents accept (needs ``hookproof[langchain]``;
  the adapter is imported only when one of them is requested);
- ``hookproof_options``: the merged options (see ``hookproof.config``);
- ``hookproof_profiles``: an isolated harness-profile registry for the test;
- ``hookproof_cassette``: the test's Cassette (``hookproof.recording``) in
  ``<rootdir>/recording/`` (ini ``hookproof_recording_dir``); ``hookproof_cassette.wrap(model)``
  replays recorded answers, or records them as ``hookproof(record_mode=...)`` /
  ``--hookproof-record-mode`` (which wins) allow; written when the test passes. While it
  records, the test's sockets may reach any host (the provider); other models stay blocked;
- marker ``@pytest.mark.hookproof(**options)``: the kwargs of ``HookproofOptions``;
- real model calls are blocked in every test unless ``allow_real_models=True``: models not
  declared offline, LangChain chat models included, and sockets to hosts off the machine
  (ini ``hookproof_allow_hosts`` / marker ``allow_hosts`` let some through), from
  the first fixture's setup to the last teardown, fixtures of any scope included; a phase
  whose refusal the code under test caught fails anyway (``_RealModelGuard``); Python child
  processes the test starts carry the guard (``hookproof._guard_child``);
- ``hookproof_guard``: ``with hookproof_guard.expect_blocked(): ...`` passes only if something
  inside the block was refused (``hookproof._guard.expect_blocked``);
- ``freeze_time``: ``@pytest.mark.hookproof(freeze_time="2026-01-01T09:00:00Z")`` or
  ``--hookproof-freeze-time=...`` (which wins) freezes the clock with freezegun from the
  test's setup to its teardown — its function-scoped fixtures (building the agent), the body,
  each run, sync or async — so a prompt with today's date snapshots the same on every run;
  pytest and its plugins keep the real clock (``hookproof._frozen_clock``). A
  fixture of a wider scope is frozen only if it is set up or torn down during a frozen test
  (one an earlier test set up saw the real clock). freezegun is imported only for tests that
  ask; ``hookproof.snapshot.dates`` masks dates instead;
- hypothesis profiles ``ci``, ``dev`` and ``deep`` (see ``hookproof.contracts.profiles``);
- ini ``hookproof_example_database`` / ``--hookproof-example-database``: a directory or a
  ``redis://`` URL the profiles share failing examples through, read-only under ``ci`` unless
  ``--hookproof-example-database-write`` (``hookproof._example_db``);
- ini ``hookproof_redact_fields`` / ``hookproof_redact_patterns``: more keys and regular
  expressions redacted in every snapshot, cassette and report, on top of the built-ins
  (``hookproof.redaction``), for the session;
- snapshots of test modules that did not run (skipped at import, say) are not "unused";
- snapshot files are never collected as tests (pytest's default ``--doctest-glob``
  matches ``test*.txt``).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from hookproof._guard import GuardHandle
    from hookproof.adapters.langchain import RecordingChatModel, ScriptedChatModel
    from hookproof.config import HookproofOptions
    from hookproof.models import RecordingModel, ScriptedModel
    from hookproof.recording import Cassette

_INI_OPTIONS = {
    "hookproof_snapshot_dir": "directory for hookproof snapshot files, relative to rootdir "
    "(one outside it is refused unless hookproof_snapshot_dir_outside_rootdir is true)",
    "hookproof_allow_hosts": "hosts (names or IPs, comma or whitespace separated) tests may "
    "connect to while real models are blocked; loopback is always allowed",
    "hookproof_example_database": "hypothesis example database of the ci/dev/deep profiles: "
    "a directory (relative to rootdir) or a redis:// URL; read-only under ci",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("hookproof")
    group.addoption(
        "--hookproof-allow-real-models",
        action="store_true",
        default=None,
        help="let models that are not declared offline run and sockets connect anywhere "
        "(the guard is on by default)",
    )
    group.addoption(
        "--hookproof-record-mode",
        default=None,
        choices=("none", "once", "new_episodes", "all"),
        help="record mode of every test's hookproof_cassette (overrides the marker's "
        "record_mode; the default replays only)",
    )
    group.addoption(
        "--hookproof-freeze-time",
        default=None,
        metavar="MOMENT",
        help="freeze the clock of every test at this ISO-8601 moment, e.g. "
        "2026-01-01T09:00:00Z (overrides the marker's freeze_time)",
    )
    group.addoption(
        "--hookproof-pending",
        action="store_true",
        default=False,
        help="a failing hookproof_snapshot comparison writes what the test received beside "
        "the reviewed file as <name>.txt.pending, to accept or reject with `hookproof review`",
    )
    group.addoption(
        "--hookproof-example-database",
        default=None,
        metavar="DIR_OR_URL",
        help="hypothesis example database shared by runs (overrides the ini "
        "hookproof_example_database): a directory or a redis:// URL",
    )
    group.addoption(
        "--hookproof-example-database-write",
        action="store_true",
        default=False,
        help="let the ci profile write to the example database too (it only reads by "
        "default, as a pull request should)",
    )
    for name, help_text in _INI_OPTIONS.items():
        parser.addini(name, help_text, default="")
    parser.addini(
        "hookproof_redact_fields",
        "more data keys whose values are redacted whole in snapshots, cassettes and reports "
        "(one or more a line, comma-separated; api_key, authorization, cookie, ... always are)",
        type="linelist",
        default=[],
    )
    parser.addini(
        "hookproof_redact_patterns",
        "more regular expressions redacted in snapshots, cassettes and reports, one a line "
        "(a group named secret limits the redaction to it)",
        type="linelist",
        default=[],
    )
    parser.addini(
        "hookproof_recording_dir",
        "directory for hookproof cassettes, relative to rootdir",
        default="recording",
    )
    parser.addini(
        "hookproof_snapshot_dir_outside_rootdir",
        "let hookproof_snapshot_dir (or the marker's snapshot_dir) leave the rootdir",
        type="bool",
        default=False,
    )
    parser.addini(
        "hookproof_example_database_outside_rootdir",
        "let hookproof_example_database name a directory outside the rootdir",
        type="bool",
        default=False,
    )


def _requested_profile(config: pytest.Config) -> str | None:
    explicit = os.environ.get("HYPOTHESIS_PROFILE")
    try:
        option = config.getoption("hypothesis_profile")
    except ValueError:
        option = None
    return option or explicit or ("ci" if os.environ.get("CI") else None)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    _leave_parent_guard()
    profile = _requested_profile(config)
    if profile in ("ci", "dev", "deep") and importlib.util.find_spec("hypothesis") is not None:
        # Only here is hypothesis imported: a profile was asked for, so it is in use.
        from hypothesis import settings

        from hookproof._profiles import register_profiles

        register_profiles()
        settings.load_profile(profile)
    _configure_example_database(config, profile)
    _check_snapshot_dir(config)
    _configure_redaction(config)
    config.pluginmanager.register(_RealModelGuard(), "hookproof-real-model-guard")
    config.addinivalue_line(
        "markers",
        "hookproof(**options): hookproof options for this test (the fields of "
        "hookproof.config.HookproofOptions: script, model_name, matchers, normalise_ids, "
        "snapshot_dir, allow_real_models, allow_hosts, freeze_time, record_mode)",
    )


def _leave_parent_guard() -> None:
    """A session started by a guarded test (a child process) follows its own options."""
    if os.environ.get("HOOKPROOF_GUARD_RECORDS"):
        from hookproof._guard_child import leave_parent

        leave_parent()


def _configure_example_database(config: pytest.Config, profile: str | None) -> None:
    """Share hypothesis' failing examples through the database the options name."""
    spec = config.getoption("hookproof_example_database") or config.getini(
        "hookproof_example_database"
    )
    if not spec:
        if config.getoption("hookproof_example_database_write"):
            raise pytest.UsageError(
                "hookproof: --hookproof-example-database-write was given without an example "
                "database, so nothing would be shared; set hookproof_example_database or "
                "--hookproof-example-database too."
            )
        return
    if importlib.util.find_spec("hypothesis") is None:
        raise pytest.UsageError(
            "hookproof: an example database is set but hypothesis is not installed; "
            "install it with `pip install 'hookproof[test]'`."
        )
    from hookproof._example_db import apply_example_database, open_database
    from hookproof.errors import InvalidInputError

    write = config.getoption("hookproof_example_database_write")
    try:
        database = open_database(
            spec,
            config.rootpath,
            writes=write or profile != "ci",
            outside_rootdir=config.getini("hookproof_example_database_outside_rootdir"),
        )
    except InvalidInputError as error:
        raise pytest.UsageError(str(error)) from error
    apply_example_database(database, requested_profile=profile, write=write)
    config.stash[_EXAMPLE_DATABASE] = spec


_EXAMPLE_DATABASE = pytest.StashKey[str]()
_PREVIOUS_REDACTION = pytest.StashKey[Any]()


def _configure_redaction(config: pytest.Config) -> None:
    """Install the ini's extra redaction fields and patterns for this session; an invalid
    pattern stops the run, since the secret it was written for would reach the files."""
    fields = [
        name.strip()
        for line in config.getini("hookproof_redact_fields")
        for name in line.split(",")
        if name.strip()
    ]
    patterns = config.getini("hookproof_redact_patterns")
    if not fields and not patterns:
        return
    from hookproof.errors import InvalidInputError
    from hookproof.redaction import Redaction, active_redaction, configure_redaction

    try:
        extra = Redaction(fields=tuple(fields), patterns=tuple(patterns))
    except InvalidInputError as error:
        raise pytest.UsageError(str(error)) from error
    config.stash[_PREVIOUS_REDACTION] = configure_redaction(active_redaction().including(extra))


def pytest_unconfigure(config: pytest.Config) -> None:
    """Put back the redaction this session replaced (pytester runs sessions in one process)."""
    if _PREVIOUS_REDACTION in config.stash:
        from hookproof.redaction import configure_redaction

        configure_redaction(config.stash[_PREVIOUS_REDACTION])


def _check_snapshot_dir(config: pytest.Config) -> None:
    """A snapshot directory outside the rootdir (by the ini option or a symbolic link)
    stops the run before any test; a marker's is checked by ``hookproof_snapshot``."""
    from hookproof._snapshot_files import snapshot_root
    from hookproof.errors import InvalidInputError

    try:
        snapshot_root(config)
    except InvalidInputError as error:
        raise pytest.UsageError(str(error)) from error


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """Note each test module's collection: the snapshot extension asks which ones ran."""
    report = yield
    if isinstance(collector, pytest.Module):
        from hookproof._collected_modules import record_module_collection

        record_module_collection(collector.config, collector.path, complete=report.passed)
    return report


def pytest_ignore_collect(collection_path: Path) -> bool | None:
    """Snapshot files are data: a ``*.txt`` whose first bytes are the snapshot header.

    The header, not the directory, decides: the snapshot directory may hold (or be) a folder
    of the user's own doctests, and a file there without the header is no snapshot anyway.
    """
    from hookproof._snapshot_files import has_snapshot_header, is_snapshot_name

    if not is_snapshot_name(collection_path):
        return None
    # None, not False: False would also overrule --ignore and other plugins' decisions.
    return True if has_snapshot_header(collection_path) else None


def pytest_report_header(config: pytest.Config) -> str:
    from hookproof import __version__

    header = f"hookproof: {__version__}"
    if _EXAMPLE_DATABASE in config.stash:
        from hookproof._example_db import describe

        header += f", example database {describe(config.stash[_EXAMPLE_DATABASE])}"
    return header


def _options_for(node: pytest.Item) -> HookproofOptions:
    from hookproof.config import resolve_options

    config = node.config
    ini = {
        "snapshot_dir": config.getini("hookproof_snapshot_dir") or None,
        "allow_hosts": config.getini("hookproof_allow_hosts") or None,
    }
    markers = [mark.kwargs for mark in reversed(list(node.iter_markers("hookproof")))]
    cli = {
        "allow_real_models": config.getoption("hookproof_allow_real_models"),
        "freeze_time": config.getoption("hookproof_freeze_time"),
        "record_mode": config.getoption("hookproof_record_mode"),
    }
    return resolve_options(ini=ini, markers=markers, cli=cli)


@pytest.fixture
def hookproof_options(request: pytest.FixtureRequest) -> HookproofOptions:
    """The options in force for this test: defaults < ini < markers < command line."""
    return _options_for(request.node)


_FROZEN_CLOCK = pytest.StashKey[contextlib.ExitStack]()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Freeze the clock (``freeze_time``) before any of the test's fixtures is set up."""
    # A plain hook, not a wrapper: its errors then reach the report like a fixture's do.
    moment = _options_for(item).freeze_time if _may_freeze(item) else None
    if moment is not None:
        item.stash[_FROZEN_CLOCK] = clock = contextlib.ExitStack()
        from hookproof._frozen_clock import frozen_clock

        clock.enter_context(frozen_clock(item.config, moment))


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    """Let the clock run again once the test's fixtures are torn down."""
    try:
        return (yield)
    finally:
        clock = item.stash.get(_FROZEN_CLOCK, None)
        if clock is not None:
            del item.stash[_FROZEN_CLOCK]
            clock.close()


def _may_freeze(item: pytest.Item) -> bool:
    """Whether any source sets freeze_time (cheap: most tests resolve no options here)."""
    asked = item.config.getoption("hookproof_freeze_time") is not None
    return asked or any("freeze_time" in mark.kwargs for mark in item.iter_markers("hookproof"))


_GUARD = pytest.StashKey["tuple[bool, tuple[str, ...]]"]()


class _RealModelGuard:
    """The guard around each phase of every test (registered in ``pytest_configure``; this
    module has hooks of these names already). Being on for the whole phase, not only while a
    function-scoped fixture lives, it covers every fixture set up or torn down for the test,
    whatever its scope, and ``setup_module`` / ``setUpClass`` / their teardowns. Code run at
    import or collection time is not covered: no test's options are known yet."""

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Generator[None, None, None]:
        __tracebackhide__ = True
        from hookproof.errors import UsageError

        # Resolved once; the later phases reuse it. Raising before the yield would skip
        # other plugins' setup wrappers, so a bad option is raised once the phase has run
        # (guarded fail-closed meanwhile) if nothing failed earlier.
        try:
            options = _options_for(item)
        except UsageError as error:
            yield from _guarded_phase(item, "setup")
            raise error from None
        hosts = (*options.allow_hosts, *_recording_hosts(item, options))
        item.stash[_GUARD] = (not options.allow_real_models, hosts)
        return (yield from _guarded_phase(item, "setup"))

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, None, None]:
        __tracebackhide__ = True
        return (yield from _guarded_phase(item, "call"))

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Generator[None, None, None]:
        __tracebackhide__ = True
        return (yield from _guarded_phase(item, "teardown"))


_ANY_HOST = ("0.0.0.0/0", "::/0")


def _recording_hosts(item: pytest.Item, options: HookproofOptions) -> tuple[str, ...]:
    """Every host, while the test's cassette records: the provider it records is not on
    this machine. Models the cassette does not wrap stay blocked."""
    if "hookproof_cassette" not in getattr(item, "fixturenames", ()):
        return ()
    from hookproof.errors import InvalidInputError, UsageError
    from hookproof.recording import RecordMode

    try:
        exists = _cassette_path(item).exists()
    except (UsageError, InvalidInputError):  # the fixture reports it; the guard stays closed
        return ()
    return _ANY_HOST if RecordMode.parse(options.record_mode).records(exists) else ()


def _cassette_path(item: pytest.Item) -> Path:
    from hookproof.recording import cassette_path

    directory = item.config.getini("hookproof_recording_dir") or "recording"
    callspec = getattr(item, "callspec", None)
    parameters = callspec.indices if callspec is not None else None
    return cassette_path(item.config.rootpath, directory, item.nodeid, parameters=parameters)


def _guarded_phase(item: pytest.Item, phase: str) -> Generator[None, None, None]:
    """Run one phase with the guard on (unless the test opts out), and fail it if a refusal
    was caught by the code under test while the phase itself passed."""
    __tracebackhide__ = True
    from hookproof._guard import RealModelBlocked, block_real_models, swallowed_message

    # Not resolved (the setup failed on the options): fail closed, no host allowed.
    blocking, hosts = item.stash.get(_GUARD, (True, ()))
    with block_real_models(blocking, allow_hosts=hosts) as refusals:
        result = yield
    if refusals:
        raise RealModelBlocked(swallowed_message(phase, refusals))
    return result


@pytest.fixture
def hookproof_guard() -> GuardHandle:
    """The real-model guard of this test: ``with hookproof_guard.expect_blocked(): ...``
    passes only if something inside the block was refused, and absorbs that refusal."""
    from hookproof._guard import GuardHandle

    return GuardHandle()


@pytest.fixture
def scripted_model(hookproof_options: HookproofOptions) -> ScriptedModel:
    """A ScriptedModel playing ``@pytest.mark.hookproof(script=[...])``."""
    from hookproof.models import ScriptedModel

    return ScriptedModel(list(hookproof_options.script), name=hookproof_options.model_name)


@pytest.fixture
def recording_model(scripted_model: ScriptedModel) -> RecordingModel:
    """A RecordingModel over ``scripted_model``: ``.last`` is the final request."""
    from hookproof.models import RecordingModel

    return RecordingModel(scripted_model)


@contextlib.contextmanager
def _langchain_needed(fixture: str) -> Iterator[None]:
    """Turn a missing langchain into a message saying what to install."""
    try:
        yield
    except ModuleNotFoundError as error:
        if not (error.name or "").startswith("langchain"):
            raise
        raise pytest.UsageError(
            f"hookproof: {fixture} needs langchain-core, which cannot be imported ({error}). "
            "The fixture builds a real LangChain chat model for create_agent. Install it with "
            "`pip install 'hookproof[langchain]'`."
        ) from None


@pytest.fixture
def scripted_chat_model(hookproof_options: HookproofOptions) -> ScriptedChatModel:
    """A LangChain ScriptedChatModel playing ``@pytest.mark.hookproof(script=[...])``."""
    with _langchain_needed("scripted_chat_model"):
        from hookproof.adapters.langchain import ScriptedChatModel

    script = list(hookproof_options.script)
    return ScriptedChatModel(script, model_name=hookproof_options.model_name)


@pytest.fixture
def recording_chat_model(scripted_chat_model: ScriptedChatModel) -> Iterator[RecordingChatModel]:
    """A LangChain RecordingChatModel over ``scripted_chat_model``, for ``create_agent``.

    While the test runs, LangChain's ``create_agent`` builds its wrap hooks instrumented, so
    the FinalRequests of an agent built in the test carry provenance."""
    from hookproof.adapters.langchain import RecordingChatModel, instrumented_builds

    with instrumented_builds():
        yield RecordingChatModel(scripted_chat_model)


@pytest.fixture
def hookproof_snapshot(request: pytest.FixtureRequest, hookproof_options: HookproofOptions) -> Any:
    """syrupy's snapshot, writing hookproof's readable final-request files."""
    try:
        snapshot = request.getfixturevalue("snapshot")
    except pytest.FixtureLookupError:
        raise pytest.UsageError(
            "hookproof: hookproof_snapshot needs syrupy. Install it with "
            "`pip install 'hookproof[test]'` (or `pip install syrupy`)."
        ) from None
    from hookproof._snapshot_files import snapshot_root
    from hookproof.snapshot.extension import extension_for

    base = snapshot_root(request.config, hookproof_options.snapshot_dir)  # refuses one outside
    matchers = hookproof_options.matchers
    extension = extension_for(
        None if matchers is None else tuple(matchers),
        hookproof_options.normalise_ids,
        hookproof_options.snapshot_dir,
        bool(getattr(request.config.option, "update_snapshots", False)),
        str(_confining_root(request.config.rootpath, base)),
    )
    return snapshot.use_extension(extension)


def _confining_root(rootdir: Path, directory: Path) -> Path:
    """What the files under ``directory`` must stay inside: the rootdir, or the directory
    itself when the project let it be outside (hookproof_snapshot_dir_outside_rootdir)."""
    return rootdir if directory.resolve().is_relative_to(rootdir.resolve()) else directory


@pytest.fixture
def hookproof_cassette(
    request: pytest.FixtureRequest, hookproof_options: HookproofOptions
) -> Iterator[Cassette]:
    """The test's Cassette: ``hookproof_cassette.wrap(model)`` replays its recorded answers
    (or records them, as the record mode allows); saved only if the test passed, so a
    failed run never replaces a good cassette."""
    from hookproof.recording import Cassette

    matchers = hookproof_options.matchers
    cassette = Cassette(
        _cassette_path(request.node),
        record_mode=hookproof_options.record_mode,
        test=request.node.nodeid,
        matchers=None if matchers is None else tuple(matchers),
        normalise_ids=hookproof_options.normalise_ids,
        root=request.config.rootpath,
    )
    yield cassette
    if not request.node.stash.get(_CALL_FAILED, False):
        cassette.save()


_CALL_FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Note a failed setup or call, for hookproof_cassette's teardown; show a failed
    snapshot's semantic diff in full and write it as pending (``--hookproof-pending``)."""
    report = yield
    if report.failed and report.when in ("setup", "call"):
        item.stash[_CALL_FAILED] = True
    if report.when == "call":
        _snapshot_sections(item, report)
    return report


def _snapshot_sections(item: pytest.Item, report: pytest.TestReport) -> None:
    assertion = getattr(item, "funcargs", {}).get("hookproof_snapshot")
    if assertion is None:
        return
    from hookproof.snapshot.extension import failure_sections

    pending = bool(item.config.getoption("hookproof_pending"))
    report.sections.extend(failure_sections(assertion, pending=pending))


@pytest.fixture
def hookproof_profiles() -> Iterator[Any]:
    """A fresh harness-profile registry for this test: registrations never leak."""
    from hookproof.harness.profiles import isolated_profiles

    with isolated_profiles() as registry:
        yield registry


@pytest.hookimpl(tryfirst=True)
def pytest_assertrepr_compare(
    config: pytest.Config, op: str, left: object, right: object
) -> list[str] | None:
    """Explain a snapshot written in another format before syrupy's generic message."""
    extension = getattr(right, "extension", None)
    if op != "==" or extension is None or not _is_hookproof_extension(extension):
        return None
    from hookproof.snapshot.extension import tainted_message

    return tainted_message(right)


def _is_hookproof_extension(extension: object) -> bool:
    from hookproof.snapshot.extension import HookproofSnapshotExtension

    return isinstance(extension, HookproofSnapshotExtension)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """Total what the test's contract checks exercised, as a property of its report (junit
    XML and ``hookproof check`` read it; xdist carries it to the controller)."""
    from hookproof import _exercised

    with _exercised.collecting() as reports:
        try:
            return (yield)
        finally:
            if reports:
                summed = _exercised.totals(report.counts() for report in reports)
                item.user_properties.append((_exercised.PROPERTY, _exercised.encode(summed)))


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """One line with what the session's contract checks exercised, when any ran."""
    from hookproof import _exercised

    # Every phase's report carries the item's properties: count each test's call once.
    reports = [
        r
        for group in terminalreporter.stats.values()
        for r in group
        if getattr(r, "when", None) == "call"
    ]
    found = _exercised.from_properties(getattr(r, "user_properties", ()) for r in reports)
    if found is not None:
        terminalreporter.write_line(f"hookproof contracts: {_exercised.describe(found)}")
