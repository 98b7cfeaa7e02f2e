package hookproof

import (
	"fmt"
	"sort"
	"strings"
)

// The findings of a gate report: each change's section (the lines of the part of the
// request it touched), unified diffs of them, and identical changes across snapshots
// grouped, as Python's hookproof.snapshot.findings does.

var findingRank = map[string]int{Security: 0, Breaking: 1, Review: 2, Cosmetic: 3}

const lineCharacters = 400

type section struct {
	subject  string
	old, new []string
}

type finding struct {
	changes []change
	paths   []string
	section section
}

func (f finding) kinds() []string {
	seen := map[string]bool{}
	var kinds []string
	for _, found := range f.changes {
		if !seen[found.kind] {
			seen[found.kind] = true
			kinds = append(kinds, found.kind)
		}
	}
	sort.Slice(kinds, func(i, j int) bool { return findingRank[kinds[i]] < findingRank[kinds[j]] })
	return kinds
}

func (f finding) rank() int {
	best := len(findingRank)
	for _, found := range f.changes {
		best = min(best, findingRank[found.kind])
	}
	return best
}

func prettyLines(value any) []string {
	if text, ok := value.(string); ok {
		return strings.Split(text, "\n")
	}
	return strings.Split(prettyJSON(value), "\n")
}

func sectionToolLines(view *snapshotView, name string) []string {
	tool := view.tool(name)
	if tool == nil {
		return nil
	}
	lines := append([]string{"description:"}, descriptionLines(tool.description)...)
	return append(append(lines, "parameters:"), prettyLines(tool.parameters)...)
}

func rawSectionLines(view *snapshotView, subject string) []string {
	switch {
	case subject == "system prompt":
		return view.system
	case subject == "messages":
		return view.messages
	case strings.HasPrefix(subject, "tool "):
		return sectionToolLines(view, strings.TrimPrefix(subject, "tool "))
	}
	for _, name := range scalarNames {
		if subject == name {
			return prettyLines(view.scalar(name))
		}
	}
	lines := strings.Split(strings.TrimRight(renderView(view), "\n"), "\n")
	switch subject {
	case "provenance":
		for index := len(lines) - 1; index >= 0; index-- {
			if lines[index] == "provenance:" {
				return lines[index:]
			}
		}
		return nil
	case "agent":
		var found []string
		for _, line := range lines[1:min(3, len(lines))] {
			if strings.HasPrefix(line, "agent: ") {
				found = append(found, line)
			}
		}
		return found
	}
	return lines
}

func redactedLines(lines []string) []string {
	if len(lines) == 0 {
		return []string{}
	}
	return strings.Split(RedactText(strings.Join(lines, "\n")), "\n")
}

func sectionOf(subject string, old, new *snapshotView) section {
	var before, after []string
	if old != nil {
		before = rawSectionLines(old, subject)
	}
	if new != nil {
		after = rawSectionLines(new, subject)
	}
	return section{subject, redactedLines(before), redactedLines(after)}
}

func sectionsFor(changes []change, old, new *snapshotView) []section {
	seen := map[string]bool{}
	var sections []section
	for _, found := range changes {
		if !seen[found.subject] {
			seen[found.subject] = true
			sections = append(sections, sectionOf(found.subject, old, new))
		}
	}
	return sections
}

type fileChanges struct {
	path     string
	changes  []change
	sections []section
}

func optional(value *string) any {
	if value == nil {
		return nil
	}
	return *value
}

func findingKey(changes []change, part section) string {
	described := []any{}
	for _, found := range changes {
		described = append(described, []any{found.kind, found.what, optional(found.before), optional(found.after), optional(found.origin)})
	}
	var changed []any
	for _, line := range unifiedDiff(part) {
		if strings.HasPrefix(line, "+") || strings.HasPrefix(line, "-") {
			changed = append(changed, line)
		}
	}
	return compactJSON([]any{part.subject, described, changed})
}

func byRank(changes []change, subject string) []change {
	var mine []change
	for _, found := range changes {
		if subject == "" || found.subject == subject {
			mine = append(mine, found)
		}
	}
	sort.SliceStable(mine, func(i, j int) bool { return findingRank[mine[i].kind] < findingRank[mine[j].kind] })
	return mine
}

func groupFindings(files []fileChanges) []finding {
	var order []string
	groups := map[string]*finding{}
	for _, file := range files {
		for _, part := range file.sections {
			mine := byRank(file.changes, part.subject)
			key := findingKey(mine, part)
			if groups[key] == nil {
				groups[key] = &finding{changes: mine, section: part}
				order = append(order, key)
			}
			groups[key].paths = append(groups[key].paths, file.path)
		}
	}
	found := make([]finding, len(order))
	for index, key := range order {
		found[index] = *groups[key]
	}
	sort.SliceStable(found, func(i, j int) bool { return findingLess(found[i], found[j]) })
	return found
}

func findingLess(a, b finding) bool {
	if a.rank() != b.rank() {
		return a.rank() < b.rank()
	}
	if a.section.subject != b.section.subject {
		return a.section.subject < b.section.subject
	}
	for index := 0; index < len(a.paths) && index < len(b.paths); index++ {
		if a.paths[index] != b.paths[index] {
			return a.paths[index] < b.paths[index]
		}
	}
	return len(a.paths) < len(b.paths)
}

// -- unified diffs -------------------------------------------------------------------------

func hunkSpan(start, stop int) string {
	length := stop - start
	if length == 1 {
		return fmt.Sprint(start + 1)
	}
	if length == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, length)
}

func commonHead(a, b []string) int {
	count := 0
	for count < len(a) && count < len(b) && a[count] == b[count] {
		count++
	}
	return count
}

func commonTail(a, b []string) int {
	count := 0
	for count < len(a) && count < len(b) && a[len(a)-1-count] == b[len(b)-1-count] {
		count++
	}
	return count
}

// trimmedOpcodes are difflib's opcodes run between the common head and tail, as Python's
// report does.
func trimmedOpcodes(old, new []string) []opcode {
	head := commonHead(old, new)
	tail := commonTail(old[head:], new[head:])
	var codes []opcode
	if head > 0 {
		codes = append(codes, opcode{"equal", 0, head, 0, head})
	}
	for _, code := range newSequenceMatcher(old[head:len(old)-tail], new[head:len(new)-tail]).opcodes() {
		codes = append(codes, opcode{code.tag, code.i1 + head, code.i2 + head, code.j1 + head, code.j2 + head})
	}
	if tail > 0 {
		codes = append(codes, opcode{"equal", len(old) - tail, len(old), len(new) - tail, len(new)})
	}
	return codes
}

// groupedOpcodes is difflib's get_grouped_opcodes(3).
func groupedOpcodes(codes []opcode, context int) [][]opcode {
	if len(codes) == 0 {
		codes = []opcode{{"equal", 0, 1, 0, 1}}
	}
	codes = append([]opcode(nil), codes...)
	if first := codes[0]; first.tag == "equal" {
		codes[0] = opcode{"equal", max(first.i1, first.i2-context), first.i2, max(first.j1, first.j2-context), first.j2}
	}
	if last := codes[len(codes)-1]; last.tag == "equal" {
		codes[len(codes)-1] = opcode{"equal", last.i1, min(last.i2, last.i1+context), last.j1, min(last.j2, last.j1+context)}
	}
	var groups [][]opcode
	var group []opcode
	for _, code := range codes {
		if code.tag == "equal" && code.i2-code.i1 > 2*context {
			group = append(group, opcode{"equal", code.i1, min(code.i2, code.i1+context), code.j1, min(code.j2, code.j1+context)})
			groups = append(groups, group)
			group = nil
			code.i1, code.j1 = max(code.i1, code.i2-context), max(code.j1, code.j2-context)
		}
		group = append(group, code)
	}
	if len(group) > 0 && !(len(group) == 1 && group[0].tag == "equal") {
		groups = append(groups, group)
	}
	return groups
}

func unifiedDiff(part section) []string {
	if sameLines(part.old, part.new) {
		return nil
	}
	var lines []string
	for _, hunk := range groupedOpcodes(trimmedOpcodes(part.old, part.new), 3) {
		first, last := hunk[0], hunk[len(hunk)-1]
		lines = append(lines, fmt.Sprintf("@@ -%s +%s @@", hunkSpan(first.i1, last.i2), hunkSpan(first.j1, last.j2)))
		for _, code := range hunk {
			if code.tag == "equal" {
				for _, line := range part.old[code.i1:code.i2] {
					lines = append(lines, " "+line)
				}
				continue
			}
			for _, line := range part.old[code.i1:code.i2] {
				lines = append(lines, "-"+line)
			}
			for _, line := range part.new[code.j1:code.j2] {
				lines = append(lines, "+"+line)
			}
		}
	}
	return lines
}

func capLines(lines []string, limit int) ([]string, int) {
	if len(lines) <= limit {
		return lines, 0
	}
	return lines[:limit], len(lines) - limit
}

func shortLine(line string) string {
	extra := runeCount(line) - lineCharacters
	if extra <= 0 {
		return line
	}
	return fmt.Sprintf("%s [... %s]", runePrefix(line, lineCharacters), plural(extra, "more character"))
}

// diffLines is the finding's unified diff, at most limit lines, each cut, then a count of
// the rest.
func diffLines(found finding, limit int) []string {
	lines, more := capLines(unifiedDiff(found.section), limit)
	shown := make([]string, 0, len(lines)+1)
	for _, line := range lines {
		shown = append(shown, shortLine(line))
	}
	if more > 0 {
		shown = append(shown, "... "+plural(more, "more line"))
	}
	return shown
}
