"""The gate report as one self-contained HTML page.

Inline CSS and a few lines of inline JavaScript, no external asset and no network: the file
can be attached to a CI run and opened anywhere. The summary comes first, then one card per
finding with its class, every snapshot it occurs in and a side-by-side diff of the section
it changed. Buttons show or hide the cards of each class; ``report.html#only=SECURITY,BREAKING``
opens it showing those classes only. Jinja2 autoescapes every value; the
values are redacted before they reach the template. Jinja2 is imported when a page is
rendered, not when the gate's formats are listed (``hookproof gate --help``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hookproof.gate._report import FileReport, GateReport, verdict
from hookproof.redaction import redact_text
from hookproof.snapshot import ChangeClass
from hookproof.snapshot.findings import RANK, Finding, SideRow, cap, side_by_side

__all__ = ["HTML_DIFF_ROWS", "format_html"]

HTML_DIFF_ROWS = 300

_TEMPLATE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>hookproof gate report</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #1b1f24; }
h1 { font-size: 1.4em; margin: 0 0 .4em; }
.verdict { font-weight: bold; padding: .5em .8em; border-radius: 4px; display: inline-block; }
.failed { background: #ffebe9; color: #82071e; }
.passed { background: #dafbe1; color: #116329; }
.dirs { color: #57606a; margin: .5em 0; }
table.counts td, table.counts th { padding: .1em .8em; text-align: left; }
.badge { font: bold 12px monospace; padding: .1em .4em; border-radius: 3px; color: #fff; }
.SECURITY { background: #8250df; } .BREAKING { background: #cf222e; }
.REVIEW { background: #9a6700; } .COSMETIC { background: #6e7781; }
.filters { margin: 1em 0; } .filters button { margin-right: .4em; cursor: pointer; }
.filters button[aria-pressed="false"] { opacity: .45; }
.finding { border: 1px solid #d0d7de; border-radius: 6px; margin: 1em 0; padding: .6em 1em; }
.finding h2 { font-size: 1.05em; margin: .2em 0; }
.finding ul { margin: .3em 0; } .paths { color: #57606a; font-size: .9em; }
table.diff { border-collapse: collapse; width: 100%; table-layout: fixed; margin-top: .5em;
  font: 12px/1.35 ui-monospace, monospace; }
table.diff td { vertical-align: top; white-space: pre-wrap; word-break: break-all;
  padding: 0 .4em; }
table.diff col.n { width: 3.5em; }
table.diff td.n { color: #6e7781; text-align: right; user-select: none; }
tr.delete td.old, tr.replace td.old { background: #ffebe9; }
tr.insert td.new, tr.replace td.new { background: #dafbe1; }
tr.gap td { background: #f6f8fa; color: #6e7781; text-align: center; }
.more { color: #57606a; font-style: italic; }
</style>
</head>
<body>
<h1>hookproof gate report</h1>
<p class="verdict {{ 'failed' if failed else 'passed' }}" id="verdict">{{ verdict }}</p>
<p class="dirs">{{ baseline }} &rarr; {{ candidate }}</p>
<table class="counts" id="summary">
<tr><th>snapshots</th><td>{{ snapshots }} ({{ unchanged }} unchanged)</td></tr>
{% for kind, count in counts %}
<tr><th><span class="badge {{ kind }}">{{ kind }}</span></th><td>{{ count }}</td></tr>
{% endfor %}
<tr><th>distinct findings</th><td>{{ findings|length }}</td></tr>
</table>
<div class="filters" id="filters">Show:
{% for kind, count in counts %}
<button type="button" data-kind="{{ kind }}" aria-pressed="true">{{ kind }} ({{ count }})</button>
{% endfor %}
</div>
{% for finding in findings %}
<section class="finding" data-kinds="{{ finding.kinds|join(' ') }}">
<h2>{% for kind in finding.kinds %}<span class="badge {{ kind }}">{{ kind }}</span> {% endfor %}
{{ finding.subject }}</h2>
<ul>{% for change in finding.changes %}
<li><span class="badge {{ change.kind }}">{{ change.kind }}</span> {{ change.what }}</li>
{% endfor %}</ul>
{% set count = finding.paths|length %}
<div class="paths">in {{ count }} snapshot{{ '' if count == 1 else 's' }}:
{{ finding.paths|join(', ') }}</div>
{% if finding.rows %}
<table class="diff"><colgroup><col class="n"><col><col class="n"><col></colgroup>
<tr><th></th><th>baseline</th><th></th><th>candidate</th></tr>
{% for row in finding.rows %}{% if row.tag == 'gap' %}
<tr class="gap"><td colspan="4">&#8943;</td></tr>
{% else %}<tr class="{{ row.tag }}"><td class="n">{{ row.old_number or '' }}</td>
<td class="old">{{ row.old_text }}</td><td class="n">{{ row.new_number or '' }}</td>
<td class="new">{{ row.new_text }}</td></tr>
{% endif %}{% endfor %}
</table>
{% if finding.more %}<p class="more">&hellip; {{ finding.more }} more rows</p>{% endif %}
{% endif %}
</section>
{% endfor %}
<p id="shown" class="more"></p>
<details id="snapshots"><summary>{{ files|length }} snapshots with changes</summary>
<table class="counts"><tr><th>snapshot</th><th>status</th><th>changes</th></tr>
{% for file in files %}<tr><td>{{ file.path }}</td><td>{{ file.status }}</td>
<td>{% for kind, count in file.counts %}<span class="badge {{ kind }}">{{ kind }}</span> {{ count }}
{% endfor %}</td></tr>
{% endfor %}</table>
</details>
<script>
(function () {
  var buttons = document.querySelectorAll("#filters button");
  var cards = document.querySelectorAll("section.finding");
  function apply() {
    var on = {}, shown = 0;
    buttons.forEach(function (b) {
      on[b.dataset.kind] = b.getAttribute("aria-pressed") === "true";
    });
    cards.forEach(function (card) {
      var visible = card.dataset.kinds.split(" ").some(function (k) { return on[k]; });
      card.hidden = !visible;
      shown += visible ? 1 : 0;
    });
    var total = cards.length;
    document.getElementById("shown").textContent = shown + " of " + total + " findings shown";
  }
  var only = /^#only=([A-Z,]+)$/.exec(window.location.hash);
  buttons.forEach(function (b) {
    if (only) {
      b.setAttribute("aria-pressed", only[1].split(",").indexOf(b.dataset.kind) >= 0);
    }
    b.addEventListener("click", function () {
      b.setAttribute("aria-pressed", b.getAttribute("aria-pressed") === "true" ? "false" : "true");
      apply();
    });
  });
  apply();
})();
</script>
</body>
</html>
"""


@dataclass(frozen=True)
class _Card:
    kinds: tuple[str, ...]
    subject: str
    changes: tuple[_ChangeLine, ...]
    paths: tuple[str, ...]
    rows: tuple[SideRow, ...]
    more: int


@dataclass(frozen=True)
class _ChangeLine:
    kind: str
    what: str


def _redacted_row(row: SideRow) -> SideRow:
    return SideRow(
        row.tag,
        row.old_number,
        redact_text(row.old_text),
        row.new_number,
        redact_text(row.new_text),
    )


def _card(finding: Finding) -> _Card:
    rows, more = cap(side_by_side(finding.section), HTML_DIFF_ROWS)
    return _Card(
        kinds=tuple(kind.value for kind in finding.kinds),
        subject=redact_text(finding.subject),
        changes=tuple(_ChangeLine(c.kind.value, redact_text(c.explained)) for c in finding.changes),
        paths=finding.paths,
        rows=tuple(_redacted_row(row) for row in rows),
        more=more,
    )


@dataclass(frozen=True)
class _FileRow:
    path: str
    status: str
    counts: tuple[tuple[str, int], ...]


def _file_row(item: FileReport) -> _FileRow:
    kinds = sorted({change.kind for change in item.changes}, key=RANK.__getitem__)
    counts = tuple((k.value, sum(c.kind is k for c in item.changes)) for k in kinds)
    return _FileRow(item.path, item.status, counts)


def _page(**values: Any) -> str:
    import jinja2  # only when a page is rendered: listing the formats stays cheap

    environment = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    return environment.from_string(_TEMPLATE).render(**values)


def format_html(report: GateReport) -> str:
    """One self-contained HTML page: summary, class filters, side-by-side diffs."""
    counts = report.counts()
    ordered = [kind.value for kind in sorted(ChangeClass, key=RANK.__getitem__)]
    return _page(
        failed=bool(report.failing),
        verdict=verdict(report),
        baseline=report.baseline,
        candidate=report.candidate,
        snapshots=len(report.files),
        unchanged=report.unchanged,
        counts=[(name, counts[name]) for name in ordered],
        findings=[_card(finding) for finding in report.findings],
        files=[_file_row(item) for item in report.files if item.changes],
    )
