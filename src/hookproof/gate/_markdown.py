"""The gate report as a pull-request comment, with every snapshot string inert.

The verdict, then each finding in a ``<details>`` block with its diff, within the most
characters a comment accepts (the rest is counted, most severe kept).

A tool name, description, prompt line, origin or file path comes from snapshots, so it may
read ``[Approve](http://x) ![t](y) @octocat <img src=x>``. Each one is written only inside
HTML block lines (``<summary>``, ``<p>``, ``<li>``), where CommonMark and GitHub's renderer
parse no markdown and find no autolinks: HTML-escaped, with line breaks shown as ``⏎`` (a
blank line would end the HTML block). GitHub then links @mentions, #references (also
``owner/repo#12`` and ``GH-12``), commit SHAs (a bare run of 7 to 40 hex digits, also
``owner/repo@sha``), :emoji: and bare addresses in the rendered text outside ``<code>``;
prose gets an invisible word joiner after the ``@``, ``#``, ``:`` or ``GH-`` that would start
one and inside a hex run after its first digit, file paths sit in ``<code>`` so they copy
exactly. The diff is a fenced code block whose fence no line can close.
"""

from __future__ import annotations

import html
import re

from hookproof.gate._report import GateReport, summary, verdict
from hookproof.redaction import redact_text
from hookproof.snapshot.findings import Finding, diff_lines, plural

__all__ = ["MARKDOWN_DIFF_LINES", "PR_COMMENT_LIMIT", "format_markdown", "markdown_finding"]

MARKDOWN_DIFF_LINES = 40
PR_COMMENT_LIMIT = 65_536  # the most characters a pull-request comment accepts
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# What GitHub turns into a link or picture in rendered text: @user, #12, GH-12, :emoji:,
# x://, www. (``owner/repo#12`` and ``owner/repo@sha`` start at the ``#`` and the ``@``).
_LINK_START = re.compile(
    r"([@#:])(?=[\w/])|(?<![\w.])(www)(?=\.)|(?<![\w-])(gh-)(?=\d)", re.IGNORECASE
)
# A commit SHA, which GitHub links bare: a word of 7 to 40 hex digits. It is broken after
# its first digit and then every six, so no piece is a run GitHub would link.
_HEX_RUN = re.compile(r"(?<!\w)[0-9a-f]{7,40}(?!\w)", re.IGNORECASE)
_HEX_PIECES = re.compile(r"^.|.{1,6}")
_WORD_JOINER = "\u2060"  # invisible, and not a character a username or link may hold


def _one_line(text: str) -> str:
    return _LINE_BREAK.sub(" ⏎ ", redact_text(text))


def inert_code(text: str) -> str:
    """``text`` as ``<code>`` inside an HTML block: shown and copied as it is, never linked."""
    return f"<code>{html.escape(_one_line(text))}</code>"


def inert_text(text: str) -> str:
    """``text`` as prose inside an HTML block: no markup, link, mention or reference."""
    joined = _LINK_START.sub(lambda match: match.group(0) + _WORD_JOINER, _one_line(text))
    return html.escape(_HEX_RUN.sub(_broken_hex, joined))


def _broken_hex(match: re.Match[str]) -> str:
    return _WORD_JOINER.join(_HEX_PIECES.findall(match.group(0)))


def _fence(lines: list[str]) -> str:
    """A code fence longer than any run of backticks in the lines, so none closes it."""
    longest = max((len(run) for line in lines for run in re.findall("`+", line)), default=0)
    return "`" * max(3, longest + 1)


def _summary(finding: Finding) -> str:
    kinds = ", ".join(kind.value for kind in finding.kinds)
    if len(finding.changes) == 1:
        what = inert_text(finding.changes[0].explained)
    else:
        what = plural(len(finding.changes), "change")
    where = f" (in {len(finding.paths)} snapshots)" if len(finding.paths) > 1 else ""
    return f"<summary><b>{kinds}</b> {inert_text(finding.subject)}: {what}{where}</summary>"


def _paths(paths: tuple[str, ...], limit: int = 20) -> str:
    shown = ", ".join(inert_code(path) for path in paths[:limit])
    more = f" and {len(paths) - limit} more" if len(paths) > limit else ""
    return f"<p>in {shown}{more}</p>"


def _changes(finding: Finding) -> list[str]:
    if len(finding.changes) < 2:
        return []
    items = [f"<li>{inert_text(change.describe())}</li>" for change in finding.changes]
    return ["<ul>", *items, "</ul>", ""]


def markdown_finding(finding: Finding) -> str:
    """One ``<details>`` block: the finding's classes, subject, snapshots, changes, diff."""
    lines = [f"<details>{_summary(finding)}", "", _paths(finding.paths), "", *_changes(finding)]
    diff = diff_lines(finding, MARKDOWN_DIFF_LINES)
    if diff:
        fence = _fence(diff)
        lines += [f"{fence}diff", *diff, fence, ""]
    lines.append("</details>")
    return redact_text("\n".join(lines))


def _cut_note(left: int, shown: int) -> str:
    return (
        f"\n**Report cut** at {PR_COMMENT_LIMIT:,} characters, the most a pull-request "
        f"comment accepts: {plural(left, 'more finding')} not shown after the {shown} above. "
        "The text, JSON and HTML reports (`--format html -o report.html`) show every one."
    )


def format_markdown(report: GateReport, limit: int = PR_COMMENT_LIMIT) -> str:
    """A pull-request comment: the verdict, then each finding in a ``<details>`` block with
    its diff, within ``limit`` characters (the rest is counted, most severe kept)."""
    icon = "❌" if report.failing else "✅"
    text = "\n".join([f"### {icon} hookproof gate", "", verdict(report), "", summary(report)])
    blocks = [markdown_finding(finding) for finding in report.findings]
    for index, block in enumerate(blocks):
        note = _cut_note(len(blocks) - index, index)
        if len(text) + 2 + len(block) + len(note) > limit:
            return text + note
        text += "\n\n" + block
    return text
