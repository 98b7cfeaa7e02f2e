"""hookproof's pytest plugin (entry point ``hookproof``; disable with ``-p no:hookproof``).

Thin hooks over a ``HookproofSession`` (``_session``) kept on the config: each hook hands its
arguments to the session, which imports hookproof's runtime, syrupy and the snapshot code
only when a test needs them, so loading the plugin costs almost nothing:

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
- ``hookproof_options``: the merged options (``HookproofOptions``, ``resolve_options``);
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
  whose refusal the code under test caught fails anyway (``_session.GuardPhases``); Python
  child processes the test starts carry the guard (``hookproof.guard``);
- ``hookproof_guard``: ``with hookproof_guard.expect_blocked(): ...`` passes only if something
  inside the block was refused (``hookproof.guard.expect_blocked``);
- ``freeze_time``: ``@pytest.mark.hookproof(freeze_time="2026-01-01T09:00:00Z")`` or
  ``--hookproof-freeze-time=...`` (which wins) freezes the clock with freezegun from the
  test's setup to its teardown — its function-scoped fixtures (building the agent), the body,
  each run, sync or async — so a prompt with today's date snapshots the same on every run;
  pytest and its plugins keep the real clock (``_clock``). A fixture of a wider scope is
  frozen only if it is set up or torn down during a frozen test (one an earlier test set up
  saw the real clock). freezegun is imported only for tests that ask;
  ``hookproof.snapshot.dates`` masks dates instead;
- hypothesis profiles ``ci``, ``dev`` and ``deep`` (see ``hookproof.contracts.profiles``);
- ini ``hookproof_example_database`` / ``--hookproof-example-database``: a directory or a
  ``redis://`` URL the profiles share failing examples through, read-only under ``ci`` unless
  ``--hookproof-example-database-write`` (``_example_db``);
- ini ``hookproof_redact_fields`` / ``hookproof_redact_patterns``: more keys and regular
  expressions redacted in every snapshot, cassette and report, on top of the built-ins
  (``hookproof.redaction``), for the session;
- snapshots of test modules that did not run (skipped at import, say) are not "unused";
- snapshot files are never collected as tests (pytest's default ``--doctest-glob``
  matches ``test*.txt``).
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from hookproof.plugin import _models, _snapshots
from hookproof.plugin._options import HookproofOptions, resolve_options
from hookproof.plugin._session import HookproofSession, end_session, session_of
from hookproof.plugin._settings import add_options

if TYPE_CHECKING:
    from hookproof.adapters.langchain import RecordingChatModel, ScriptedChatModel
    from hookproof.guard import GuardHandle
    from hookproof.models import RecordingModel, ScriptedModel
    from hookproof.recording import Cassette

__all__ = ["HookproofOptions", "resolve_options"]


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    HookproofSession(config).start()


def pytest_unconfigure(config: pytest.Config) -> None:
    end_session(config)


def pytest_report_header(config: pytest.Config) -> str:
    return session_of(config).report_header()


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    report = yield
    _snapshots.note_collection(collector, report)
    return report


def pytest_ignore_collect(collection_path: Path) -> bool | None:
    return _snapshots.is_snapshot_file(collection_path)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    # A plain hook, not a wrapper: its errors then reach the report like a fixture's do.
    session_of(item.config).freeze_clock(item)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item) -> Generator[None, None, None]:
    try:
        return (yield)
    finally:
        session_of(item.config).release_clock(item)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    with session_of(item.config).exercised(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    session_of(item.config).note_report(item, report)
    return report


@pytest.hookimpl(tryfirst=True)
def pytest_assertrepr_compare(
    config: pytest.Config, op: str, left: object, right: object
) -> list[str] | None:
    return _snapshots.explain_comparison(op, right)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    line = session_of(terminalreporter.config).exercised_line(terminalreporter.stats)
    if line is not None:
        terminalreporter.write_line(line)


@pytest.fixture
def hookproof_options(request: pytest.FixtureRequest) -> HookproofOptions:
    """The options in force for this test: defaults < ini < markers < command line.
    Docs: https://hookproof.github.io/hookproof/concepts/pytest-plugin/"""
    return session_of(request.config).options(request.node)


@pytest.fixture
def hookproof_guard() -> GuardHandle:
    """The real-model guard of this test: ``with hookproof_guard.expect_blocked(): ...``
    passes only if something inside the block was refused, and absorbs that refusal.
    Docs: https://hookproof.github.io/hookproof/concepts/pytest-plugin/"""
    from hookproof.guard import GuardHandle

    return GuardHandle()


@pytest.fixture
def scripted_model(hookproof_options: HookproofOptions) -> ScriptedModel:
    """A ScriptedModel playing ``@pytest.mark.hookproof(script=[...])``.
    Docs: https://hookproof.github.io/hookproof/concepts/runtime/#test-models"""
    return _models.scripted_model(hookproof_options)


@pytest.fixture
def recording_model(scripted_model: ScriptedModel) -> RecordingModel:
    """A RecordingModel over ``scripted_model``: ``.last`` is the final request.
    Docs: https://hookproof.github.io/hookproof/concepts/runtime/#test-models"""
    from hookproof.models import RecordingModel

    return RecordingModel(scripted_model)


@pytest.fixture
def scripted_chat_model(hookproof_options: HookproofOptions) -> ScriptedChatModel:
    """A LangChain ScriptedChatModel playing ``@pytest.mark.hookproof(script=[...])``.
    Docs: https://hookproof.github.io/hookproof/concepts/testing-langchain-apps/"""
    return _models.scripted_chat_model(hookproof_options)


@pytest.fixture
def recording_chat_model(scripted_chat_model: ScriptedChatModel) -> Iterator[RecordingChatModel]:
    """A LangChain RecordingChatModel over ``scripted_chat_model``, for ``create_agent``: the
    FinalRequests of an agent built in the test carry provenance.
    Docs: https://hookproof.github.io/hookproof/concepts/testing-langchain-apps/"""
    yield from _models.recording_chat_model(scripted_chat_model)


@pytest.fixture
def hookproof_snapshot(request: pytest.FixtureRequest, hookproof_options: HookproofOptions) -> Any:
    """syrupy's snapshot, writing hookproof's readable final-request files.
    Docs: https://hookproof.github.io/hookproof/concepts/snapshots/"""
    return _snapshots.snapshot_fixture(request, hookproof_options)


@pytest.fixture
def hookproof_cassette(
    request: pytest.FixtureRequest, hookproof_options: HookproofOptions
) -> Iterator[Cassette]:
    """The test's Cassette: ``hookproof_cassette.wrap(model)`` replays its recorded answers
    (or records them, as the record mode allows); saved only if the test passed, so a
    failed run never replaces a good cassette.
    Docs: https://hookproof.github.io/hookproof/concepts/record-replay/"""
    yield from session_of(request.config).cassette(request.node, hookproof_options)


@pytest.fixture
def hookproof_profiles() -> Iterator[Any]:
    """A fresh harness-profile registry for this test: registrations never leak.
    Docs: https://hookproof.github.io/hookproof/concepts/harness/"""
    from hookproof.harness.profiles import isolated_profiles

    with isolated_profiles() as registry:
        yield registry
