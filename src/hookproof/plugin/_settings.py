"""The plugin's command-line options, ini keys and marker, and the options of one test.

Every source a test's ``HookproofOptions`` come from is read here and merged by
``resolve_options`` (defaults < ini < markers < command line).
"""

from __future__ import annotations

from typing import Any

import pytest

from hookproof.plugin._options import HookproofOptions, resolve_options

__all__ = ["MARKER", "add_options", "asks_to_freeze", "options_for"]

MARKER = (
    "hookproof(**options): hookproof options for this test (the fields of "
    "hookproof.plugin.HookproofOptions: script, model_name, matchers, normalise_ids, "
    "snapshot_dir, allow_real_models, allow_hosts, freeze_time, record_mode)"
)

_COMMAND_LINE: dict[str, dict[str, Any]] = {
    "--hookproof-allow-real-models": {
        "action": "store_true",
        "default": None,
        "help": "let models that are not declared offline run and sockets connect anywhere "
        "(the guard is on by default)",
    },
    "--hookproof-record-mode": {
        "default": None,
        "choices": ("none", "once", "new_episodes", "all"),
        "help": "record mode of every test's hookproof_cassette (overrides the marker's "
        "record_mode; the default replays only)",
    },
    "--hookproof-freeze-time": {
        "default": None,
        "metavar": "MOMENT",
        "help": "freeze the clock of every test at this ISO-8601 moment, e.g. "
        "2026-01-01T09:00:00Z (overrides the marker's freeze_time)",
    },
    "--hookproof-pending": {
        "action": "store_true",
        "default": False,
        "help": "a failing hookproof_snapshot comparison writes what the test received beside "
        "the reviewed file as <name>.txt.pending, to accept or reject with `hookproof review`",
    },
    "--hookproof-example-database": {
        "default": None,
        "metavar": "DIR_OR_URL",
        "help": "hypothesis example database shared by runs (overrides the ini "
        "hookproof_example_database): a directory or a redis:// URL",
    },
    "--hookproof-example-database-write": {
        "action": "store_true",
        "default": False,
        "help": "let the ci profile write to the example database too (it only reads by "
        "default, as a pull request should)",
    },
}

_INI: dict[str, dict[str, Any]] = {
    "hookproof_snapshot_dir": {
        "help": "directory for hookproof snapshot files, relative to rootdir (one outside it "
        "is refused unless hookproof_snapshot_dir_outside_rootdir is true)",
        "default": "",
    },
    "hookproof_allow_hosts": {
        "help": "hosts (names or IPs, comma or whitespace separated) tests may connect to "
        "while real models are blocked; loopback is always allowed",
        "default": "",
    },
    "hookproof_example_database": {
        "help": "hypothesis example database of the ci/dev/deep profiles: a directory "
        "(relative to rootdir) or a redis:// URL; read-only under ci",
        "default": "",
    },
    "hookproof_redact_fields": {
        "help": "more data keys whose values are redacted whole in snapshots, cassettes and "
        "reports (one or more a line, comma-separated; api_key, authorization, cookie, ... "
        "always are)",
        "type": "linelist",
        "default": [],
    },
    "hookproof_redact_patterns": {
        "help": "more regular expressions redacted in snapshots, cassettes and reports, one a "
        "line (a group named secret limits the redaction to it)",
        "type": "linelist",
        "default": [],
    },
    "hookproof_recording_dir": {
        "help": "directory for hookproof cassettes, relative to rootdir",
        "default": "recording",
    },
    "hookproof_snapshot_dir_outside_rootdir": {
        "help": "let hookproof_snapshot_dir (or the marker's snapshot_dir) leave the rootdir",
        "type": "bool",
        "default": False,
    },
    "hookproof_example_database_outside_rootdir": {
        "help": "let hookproof_example_database name a directory outside the rootdir",
        "type": "bool",
        "default": False,
    },
}


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("hookproof")
    for flag, settings in _COMMAND_LINE.items():
        group.addoption(flag, **settings)
    for name, settings in _INI.items():
        parser.addini(name, **settings)


def options_for(item: pytest.Item) -> HookproofOptions:
    """The options in force for ``item``: defaults < ini < markers < command line."""
    config = item.config
    ini = {
        "snapshot_dir": config.getini("hookproof_snapshot_dir") or None,
        "allow_hosts": config.getini("hookproof_allow_hosts") or None,
    }
    markers = [mark.kwargs for mark in reversed(_closest_first(item))]
    cli = {
        "allow_real_models": config.getoption("hookproof_allow_real_models"),
        "freeze_time": config.getoption("hookproof_freeze_time"),
        "record_mode": config.getoption("hookproof_record_mode"),
    }
    return resolve_options(ini=ini, markers=markers, cli=cli)


def _closest_first(item: pytest.Item) -> list[Any]:
    """The item's hookproof markers, closest first: a ``pytest.param(...,
    marks=pytest.mark.hookproof(...))`` before the test function's own markers (pytest lists
    a parameter's marks after them), then the class's, the module's."""
    marks = list(item.iter_markers("hookproof"))
    callspec = getattr(item, "callspec", None)
    of_param = [mark for mark in getattr(callspec, "marks", ()) if mark.name == "hookproof"]
    return of_param + [mark for mark in marks if not any(mark is own for own in of_param)]


def asks_to_freeze(item: pytest.Item) -> bool:
    """Whether any source sets freeze_time (cheap: most tests resolve no options here)."""
    asked = item.config.getoption("hookproof_freeze_time") is not None
    return asked or any("freeze_time" in mark.kwargs for mark in item.iter_markers("hookproof"))
