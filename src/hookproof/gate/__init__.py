"""Upgrade gating: compare two snapshot directories and decide whether the change may land.

Run the same suite before and after an upgrade, each writing its snapshots to its own
directory, then ``hookproof gate BASELINE CANDIDATE``. Snapshots are paired by relative path;
a snapshot only in the baseline is BREAKING (the suite lost a recorded request), one only in
the candidate is REVIEW. The report is data (``compare_directories`` returns a GateReport);
the registered formats render it: ``format_text``, ``format_markdown``, ``format_json`` and
``format_html``, and any a project adds with ``register_format`` (``hookproof gate --format``
offers every registered one).

Every report shows each change's lines: the diff of the section it touched (the system prompt,
the messages, a tool's description and parameter schema, a setting), capped with a "N more
lines" marker, most severe first (SECURITY, BREAKING, REVIEW, COSMETIC). Identical changes in
several snapshots are reported once, with every snapshot they occur in. Everything a report
shows passes through ``hookproof.redaction``.

Every ``*.txt`` file under either directory is a snapshot and must be read; other names
(README.md, .gitkeep) are not looked at. The gate fails closed: a ``*.txt`` it cannot read (a
byte-order mark, not UTF-8, another format, truncated, a directory, FIFO or device, a link to
anything but a regular file) and any link to a directory stop it with InvalidInputError listing
every such file, before anything is compared. Links to regular files are followed. Windows line
endings (a core.autocrlf checkout) are read as LF, as pytest's text-mode read of a snapshot.

A side without any snapshot is bad input too: an empty baseline would make every candidate
snapshot merely "new" (a pass that checked nothing), an empty candidate every baseline snapshot
"missing"; both usually mean a job wrote its snapshots somewhere else. The first run of a new
suite passes ``allow_empty_baseline=True`` (``--allow-empty-baseline``); an empty candidate is
always an error, since a suite that records nothing has nothing left to gate.

``hookproof.gate.review`` walks the pending snapshots a ``--hookproof-pending`` run left.

The names below load on first use, so ``hookproof --help`` reads the registry of formats
(``hookproof.gate.formats``) without loading the comparison.
"""

from __future__ import annotations

from hookproof._support import lazy as _lazy

TYPE_CHECKING = False  # typing itself costs an import several ms; mypy sees True
if TYPE_CHECKING:
    from hookproof.gate._compare import compare_directories
    from hookproof.gate._html import format_html
    from hookproof.gate._json import format_json
    from hookproof.gate._markdown import format_markdown
    from hookproof.gate._report import DEFAULT_FAIL_ON, FileReport, GateReport, parse_fail_on
    from hookproof.gate._text import format_text
    from hookproof.gate.formats import (
        DEFAULT_FORMAT,
        ReportFormat,
        register_format,
        report_format,
        report_formats,
        unregister_format,
    )

__all__ = [
    "DEFAULT_FAIL_ON",
    "DEFAULT_FORMAT",
    "FileReport",
    "GateReport",
    "ReportFormat",
    "compare_directories",
    "format_html",
    "format_json",
    "format_markdown",
    "format_text",
    "parse_fail_on",
    "register_format",
    "report_format",
    "report_formats",
    "unregister_format",
]

_ORIGINS = _lazy.origins(
    {
        "hookproof.gate._compare": ("compare_directories",),
        "hookproof.gate._html": ("format_html",),
        "hookproof.gate._json": ("format_json",),
        "hookproof.gate._markdown": ("format_markdown",),
        "hookproof.gate._report": (
            "DEFAULT_FAIL_ON",
            "FileReport",
            "GateReport",
            "parse_fail_on",
        ),
        "hookproof.gate._text": ("format_text",),
        "hookproof.gate.formats": (
            "DEFAULT_FORMAT",
            "ReportFormat",
            "register_format",
            "report_format",
            "report_formats",
            "unregister_format",
        ),
    },
)

if not TYPE_CHECKING:  # mypy reads the imports above
    __getattr__, __dir__ = _lazy.exports(globals(), _ORIGINS)
