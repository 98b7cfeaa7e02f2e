package hookproof

import (
	"fmt"
	"strings"
)

// GateReport is the verdict of gating two snapshot directories: each snapshot's changes, the
// findings, what fails. Render it with Text, Markdown or JSON; ExitCode is the command's.
type GateReport struct {
	Baseline, Candidate string
	files               []fileReport
	failOn              map[string]bool
	findings            []finding
}

type fileReport struct {
	path, status string
	changes      []change
	sections     []section
}

type failure struct {
	path   string
	change change
}

func newGateReport(baseline, candidate string, files []fileReport, failOn map[string]bool) *GateReport {
	grouped := make([]fileChanges, len(files))
	for index, file := range files {
		grouped[index] = fileChanges{file.path, file.changes, file.sections}
	}
	return &GateReport{baseline, candidate, files, failOn, groupFindings(grouped)}
}

func (r *GateReport) failing() []failure {
	var found []failure
	for _, file := range r.files {
		for _, item := range file.changes {
			if r.failOn[item.kind] {
				found = append(found, failure{file.path, item})
			}
		}
	}
	return found
}

// Passed says whether no change of a failing class was found.
func (r *GateReport) Passed() bool { return len(r.failing()) == 0 }

// ExitCode is 1 when a change of a failing class was found, else 0.
func (r *GateReport) ExitCode() int {
	if r.Passed() {
		return 0
	}
	return 1
}

func (r *GateReport) unchanged() int {
	count := 0
	for _, file := range r.files {
		if file.status == "unchanged" {
			count++
		}
	}
	return count
}

func (r *GateReport) counts() *Object {
	totals := map[string]int{}
	for _, file := range r.files {
		for _, item := range file.changes {
			totals[item.kind]++
		}
	}
	counts := NewObject()
	for _, kind := range changeClasses {
		counts.Set(kind, totals[kind])
	}
	return counts
}

func (r *GateReport) failOnNames() []string {
	names := sortedKeys(r.failOn, func(name string) bool { return r.failOn[name] })
	if names == nil {
		return []string{}
	}
	return names
}

func (r *GateReport) verdict() string {
	classes := strings.Join(r.failOnNames(), ", ")
	if classes == "" {
		classes = "nothing"
	}
	if failing := r.failing(); len(failing) > 0 {
		return fmt.Sprintf("FAILED: %d change(s) of a failing class (%s)", len(failing), classes)
	}
	return fmt.Sprintf("PASSED: no change of a failing class (%s)", classes)
}

func (r *GateReport) summary() string {
	counts := r.counts()
	parts := make([]string, len(changeClasses))
	for index, kind := range changeClasses {
		parts[index] = fmt.Sprintf("%s %d", kind, counts.Values[kind])
	}
	return fmt.Sprintf("%s, %d unchanged; %s (%s)", plural(len(r.files), "snapshot"), r.unchanged(),
		strings.Join(parts, ", "), plural(len(r.findings), "distinct finding"))
}

// ParseFailOn reads --fail-on: "breaking,security" gives those classes; "none" or ""
// gives none (the gate never fails).
func ParseFailOn(value string) (map[string]bool, error) {
	var names []string
	for _, part := range strings.Split(value, ",") {
		if name := strings.ToUpper(pyStrip(part)); name != "" {
			names = append(names, name)
		}
	}
	if len(names) == 0 || (len(names) == 1 && names[0] == "NONE") {
		return map[string]bool{}, nil
	}
	var unknown []string
	classes := map[string]bool{}
	for _, name := range names {
		if _, known := findingRank[name]; !known {
			unknown = append(unknown, pyRepr(name))
		}
		classes[name] = true
	}
	if len(unknown) > 0 {
		return nil, gateError("hookproof: --fail-on has unknown classes [%s]. Use a comma-separated list of ['breaking', 'cosmetic', 'review', 'security'], or none.", strings.Join(unknown, ", "))
	}
	return classes, nil
}

// -- text ----------------------------------------------------------------------------------

const textDiffLines = 60

func where(found finding) string {
	if len(found.paths) == 1 {
		return "in " + found.paths[0]
	}
	shown := strings.Join(found.paths[:min(10, len(found.paths))], ", ")
	if rest := len(found.paths) - 10; rest > 0 {
		shown += fmt.Sprintf(" and %d more", rest)
	}
	return fmt.Sprintf("in %d snapshots: %s", len(found.paths), shown)
}

// Text is the report as plain text: each finding with its indented diff, the verdict last.
func (r *GateReport) Text() string {
	lines := []string{fmt.Sprintf("hookproof gate: %s -> %s", r.Baseline, r.Candidate)}
	for _, found := range r.findings {
		for _, item := range found.changes {
			lines = append(lines, item.describe())
		}
		lines = append(lines, "  "+where(found))
		for _, line := range diffLines(found, textDiffLines) {
			lines = append(lines, "    "+line)
		}
	}
	lines = append(lines, r.summary(), r.verdict())
	return RedactText(strings.Join(lines, "\n"))
}

// -- JSON ----------------------------------------------------------------------------------

const jsonDiffLines = 400

func changeData(item change) *Object {
	return NewObject("class", item.kind, "subject", item.subject, "what", item.what,
		"origin", optional(item.origin), "before", optional(item.before), "after", optional(item.after))
}

func changesData(changes []change) []any {
	items := []any{}
	for _, item := range changes {
		items = append(items, changeData(item))
	}
	return items
}

func findingData(found finding) *Object {
	lines, more := capLines(unifiedDiff(found.section), jsonDiffLines)
	return NewObject("classes", stringsAny(found.kinds()), "subject", found.section.subject,
		"changes", changesData(found.changes), "snapshots", stringsAny(found.paths),
		"diff", stringsAny(lines), "diff_more_lines", more)
}

// JSON is the report as data: the verdict, counts, findings with their diffs, every file.
func (r *GateReport) JSON() string {
	findings := []any{}
	for _, found := range r.findings {
		findings = append(findings, findingData(found))
	}
	files := []any{}
	for _, file := range r.files {
		files = append(files, NewObject("path", file.path, "status", file.status, "changes", changesData(byRank(file.changes, ""))))
	}
	data := NewObject("baseline", r.Baseline, "candidate", r.Candidate, "fail_on", stringsAny(r.failOnNames()),
		"passed", r.Passed(), "counts", r.counts(), "findings", findings, "files", files)
	return prettyJSON(redactData(data))
}

// redactData is Python's redact_data: every string redacted, and the value of a key naming
// a secret replaced whole (None and booleans kept: they say only whether one is set).
func redactData(value any) any {
	switch typed := value.(type) {
	case string:
		return RedactText(typed)
	case []any:
		items := make([]any, len(typed))
		for index, item := range typed {
			items[index] = redactData(item)
		}
		return items
	case *Object:
		redacted := &Object{Values: map[string]any{}}
		for _, key := range typed.Keys {
			item := typed.Values[key]
			_, isBool := item.(bool)
			if item != nil && !isBool && IsSensitiveField(key) {
				redacted.Set(key, Redacted)
			} else {
				redacted.Set(key, redactData(item))
			}
		}
		return redacted
	}
	return value
}
