"""The gate report as plain text: each finding with its indented diff, the verdict last."""

from __future__ import annotations

from hookproof.gate._report import GateReport, summary, verdict
from hookproof.redaction import redact_text
from hookproof.snapshot.findings import Finding, diff_lines

__all__ = ["TEXT_DIFF_LINES", "format_text"]

TEXT_DIFF_LINES = 60


def _where(finding: Finding, limit: int = 10) -> str:
    paths = finding.paths
    if len(paths) == 1:
        return f"in {paths[0]}"
    rest = len(paths) - limit
    shown = ", ".join(paths[:limit]) + (f" and {rest} more" if rest > 0 else "")
    return f"in {len(paths)} snapshots: {shown}"


def format_text(report: GateReport) -> str:
    lines = [f"hookproof gate: {report.baseline} -> {report.candidate}"]
    for finding in report.findings:
        lines += [change.describe() for change in finding.changes]
        lines.append(f"  {_where(finding)}")
        lines += [f"    {line}" for line in diff_lines(finding, TEXT_DIFF_LINES)]
    lines += [summary(report), verdict(report)]
    return redact_text("\n".join(lines))
