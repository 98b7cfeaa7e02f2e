"""The gate report as JSON: the verdict, counts, findings with their diffs, every file."""

from __future__ import annotations

import json
from collections.abc import Iterable

from hookproof.gate._report import GateReport
from hookproof.redaction import redact_data
from hookproof.snapshot import Change
from hookproof.snapshot.findings import RANK, Finding, cap, unified

__all__ = ["JSON_DIFF_LINES", "format_json"]

JSON_DIFF_LINES = 400


def _json_finding(finding: Finding) -> dict[str, object]:
    lines, more = cap(unified(finding.section), JSON_DIFF_LINES)
    return {
        "classes": [kind.value for kind in finding.kinds],
        "subject": finding.subject,
        "changes": [change.as_dict() for change in finding.changes],
        "snapshots": list(finding.paths),
        "diff": lines,
        "diff_more_lines": more,
    }


def _by_rank(changes: Iterable[Change]) -> list[Change]:
    return sorted(changes, key=lambda change: RANK[change.kind])


def format_json(report: GateReport) -> str:
    data = {
        "baseline": report.baseline,
        "candidate": report.candidate,
        "fail_on": sorted(kind.value for kind in report.fail_on),
        "passed": not report.failing,
        "counts": report.counts(),
        "findings": [_json_finding(finding) for finding in report.findings],
        "files": [
            {
                "path": item.path,
                "status": item.status,
                "changes": [change.as_dict() for change in _by_rank(item.changes)],
            }
            for item in report.files
        ],
    }
    return json.dumps(redact_data(data), indent=2, sort_keys=True, ensure_ascii=False)
