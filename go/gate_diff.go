package hookproof

import (
	"fmt"
	"sort"
	"strings"
)

// The semantic diff of two snapshots, each change classified as Python's hookproof.snapshot
// diff classifies it: BREAKING (a tool or parameter removed, retyped, its requiredness
// changed), SECURITY (a tool newly visible), REVIEW (text, settings or sender changed),
// COSMETIC (whitespace, provenance only, the same request written differently).

// Change classes, as the reports name them.
const (
	Breaking = "BREAKING"
	Security = "SECURITY"
	Review   = "REVIEW"
	Cosmetic = "COSMETIC"
)

var changeClasses = []string{Breaking, Security, Review, Cosmetic}

// change is one classified difference; before, after and origin are nil where Python's are None.
type change struct {
	kind, subject, what   string
	before, after, origin *string
}

func strPtr(value string) *string { return &value }

func (c change) explained() string {
	if c.origin != nil && *c.origin != "" {
		return fmt.Sprintf("%s (%s)", c.what, *c.origin)
	}
	return c.what
}

func (c change) describe() string {
	return fmt.Sprintf("%-8s %s: %s", c.kind, c.subject, c.explained())
}

var diffSeverity = map[string]int{Breaking: 0, Security: 1, Review: 2, Cosmetic: 3}

// diffViews is Python's diff(old, new) of two parsed snapshots (as the gate calls it, on
// views: two texts of the same request are unchanged).
func diffViews(before, after *snapshotView) []change {
	var changes []change
	changes = append(changes, scalarChanges(before, after)...)
	changes = append(changes, senderChanges(before, after)...)
	changes = append(changes, systemChanges(before, after)...)
	changes = append(changes, lineChanges("messages", before.messages, after.messages, nil)...)
	changes = append(changes, toolChanges(before, after)...)
	changes = append(changes, provenanceChanges(before, after)...)
	changes = append(changes, undescribed(before, after, changes)...)
	sort.SliceStable(changes, func(i, j int) bool {
		return diffSeverity[changes[i].kind] < diffSeverity[changes[j].kind]
	})
	return changes
}

func scalarChanges(before, after *snapshotView) []change {
	var changes []change
	for _, name := range scalarNames {
		old, new := before.scalar(name), after.scalar(name)
		if !pyEqual(old, new) {
			changes = append(changes, change{kind: Review, subject: name, what: "changed", before: strPtr(shortValue(old)), after: strPtr(shortValue(new))})
		}
	}
	return changes
}

func textKind(before, after string) string {
	if pySquash(before) == pySquash(after) {
		return Cosmetic
	}
	return Review
}

type hunkOrigin func(code opcode) *string

func lineChanges(subject string, old, new []string, origin hunkOrigin) []change {
	if origin == nil {
		origin = func(opcode) *string { return nil }
	}
	var changes []change
	for _, code := range newSequenceMatcher(old, new).opcodes() {
		removed := strings.Join(old[code.i1:code.i2], "\n")
		added := strings.Join(new[code.j1:code.j2], "\n")
		switch code.tag {
		case "replace":
			kind, what := textKind(removed, added), "lines changed"
			if kind == Cosmetic {
				what = "whitespace changed"
			} else if headersOnly(old[code.i1:code.i2], new[code.j1:code.j2]) {
				what = "message metadata changed"
			}
			changes = append(changes, change{kind, subject, what, strPtr(removed), strPtr(added), origin(code)})
		case "delete":
			what := countedLines(code.i2-code.i1, "removed")
			changes = append(changes, change{blankKind(old[code.i1:code.i2]), subject, what, strPtr(removed), nil, origin(code)})
		case "insert":
			what := countedLines(code.j2-code.j1, "added")
			changes = append(changes, change{blankKind(new[code.j1:code.j2]), subject, what, nil, strPtr(added), origin(code)})
		}
	}
	return changes
}

func systemChanges(before, after *snapshotView) []change {
	origin := func(code opcode) *string {
		was, now := "", ""
		if before.provenance != nil {
			was = before.provenance.linesOrigin(before.system, code.i1, code.i2)
		}
		if after.provenance != nil {
			now = after.provenance.linesOrigin(after.system, code.j1, code.j2)
		}
		var said []string
		if now != "" && code.tag != "delete" {
			said = append(said, "from "+now)
		}
		if was != "" && code.tag != "insert" && was != now {
			said = append(said, "was from "+was)
		}
		if len(said) == 0 {
			return nil
		}
		return strPtr(strings.Join(said, "; "))
	}
	return lineChanges("system prompt", before.system, after.system, origin)
}

func lineRole(line string) string {
	if !strings.HasPrefix(line, "<") {
		return ""
	}
	role, _, _ := strings.Cut(line, ">")
	return role
}

func headersOnly(old, new []string) bool {
	if len(old) != len(new) {
		return false
	}
	for index := range old {
		if !strings.HasPrefix(old[index], "<") || lineRole(old[index]) != lineRole(new[index]) {
			return false
		}
	}
	return true
}

func blankKind(lines []string) string {
	for _, line := range lines {
		if stripped := pyStrip(line); stripped != "|" && stripped != "" {
			return Review
		}
	}
	return Cosmetic
}

func countedLines(count int, verb string) string {
	if count == 1 {
		return fmt.Sprintf("1 line %s", verb)
	}
	return fmt.Sprintf("%d lines %s", count, verb)
}

func history(request *snapshotView, name string) *string {
	if request.provenance == nil {
		return nil
	}
	if found, ok := request.provenance.tools[name]; ok {
		return &found
	}
	return nil
}

func removedOrigin(before, after *snapshotView, name string) *string {
	if now := history(after, name); now != nil {
		return now
	}
	if was := history(before, name); was != nil && *was != "" {
		return strPtr("was " + *was)
	}
	return nil
}

func shownOrigin(before, after *snapshotView, name string) *string {
	now, was := history(after, name), history(before, name)
	hider := ""
	if was != nil {
		if at := strings.LastIndex(*was, "; "); at >= 0 {
			hider = (*was)[at+2:]
		} else {
			hider = *was
		}
	}
	nowText := ""
	if now != nil {
		nowText = *now
	}
	if !strings.HasPrefix(hider, "removed by ") || strings.HasSuffix(nowText, hider) {
		return now
	}
	var parts []string
	if nowText != "" {
		parts = append(parts, nowText)
	}
	return strPtr(strings.Join(append(parts, "no longer "+hider), "; "))
}

func nameSet(names []string) map[string]bool {
	set := map[string]bool{}
	for _, name := range names {
		set[name] = true
	}
	return set
}

func sortedKeys[Value any](set map[string]Value, keep func(string) bool) []string {
	var names []string
	for name := range set {
		if keep(name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

func toolChanges(before, after *snapshotView) []change {
	oldNames, newNames := nameSet(before.toolNames()), nameSet(after.toolNames())
	var changes []change
	for _, name := range sortedKeys(oldNames, func(name string) bool { return !newNames[name] }) {
		changes = append(changes, change{kind: Breaking, subject: "tool " + name, what: "removed", origin: removedOrigin(before, after, name)})
	}
	for _, name := range sortedKeys(newNames, func(name string) bool { return !oldNames[name] }) {
		changes = append(changes, change{kind: Security, subject: "tool " + name, what: "now visible to the model", origin: shownOrigin(before, after, name)})
	}
	for _, name := range sortedKeys(oldNames, func(name string) bool { return newNames[name] }) {
		origin := history(after, name)
		for _, found := range oneTool(*before.tool(name), *after.tool(name)) {
			found.origin = origin
			changes = append(changes, found)
		}
	}
	return changes
}

func oneTool(old, new toolView) []change {
	subject := "tool " + old.name
	var changes []change
	if old.description != new.description {
		kind := textKind(old.description, new.description)
		changes = append(changes, change{kind, subject, "description changed", strPtr(old.description), strPtr(new.description), nil})
	}
	return append(changes, parameterChanges(subject, old.parameters, new.parameters)...)
}
