package hookproof

import (
	"fmt"
	"sort"
	"strings"
)

// Agent is the origin of what the agent itself was given: its tools and its instruction.
const Agent = "agent"

// Provenance says where each tool and each system-prompt line of a FinalRequest came from,
// as Python's hookproof.provenance.Provenance: per tool its history ("registered by agent",
// "added by X", "description changed by X", "removed by X"), per line of the system prompt's
// text the handler that wrote it. It is information about the request, not part of it.
type Provenance struct {
	Tools  []ToolOrigin `json:"tools"`
	System []string     `json:"system"`
}

// ToolOrigin is one tool's history; Visible says whether the model saw the tool.
type ToolOrigin struct {
	Name    string   `json:"name"`
	Events  []string `json:"events"`
	Visible bool     `json:"visible"`
}

// Describe is the history on one line, events joined by "; ".
func (o ToolOrigin) Describe() string { return strings.Join(o.Events, "; ") }

// requestShape is what provenance follows of a request: its tools and its system prompt's
// text lines (nil without a system message).
type requestShape struct {
	tools  []ToolSchema
	system []string
}

// provenanceEdit is one handler's change: what it received and what it passed on.
type provenanceEdit struct {
	owner         string
	before, after requestShape
}

// computeProvenance is Python's hookproof.provenance.compute for a run whose tools are all
// the agent's own: base is what the agent was given, edits each change in order, final the
// request the model received.
func computeProvenance(base requestShape, edits []provenanceEdit, final requestShape) *Provenance {
	history := map[string][]string{}
	for _, name := range schemaNames(base.tools) {
		history[name] = []string{"registered by " + Agent}
	}
	lines := make([]originLine, len(base.system))
	for index, text := range base.system {
		lines[index] = originLine{text, Agent}
	}
	for _, edit := range edits {
		toolEvents(history, edit.before.tools, edit.after.tools, edit.owner)
		lines = relabel(lines, edit.after.system, edit.owner)
	}
	lines = relabel(lines, final.system, Agent) // what Eino itself set, if anything
	visible := schemasByName(final.tools)
	names := make([]string, 0, len(history))
	for name := range history {
		names = append(names, name)
	}
	sort.Strings(names)
	result := &Provenance{Tools: []ToolOrigin{}, System: []string{}}
	for _, name := range names {
		_, shown := visible[name]
		result.Tools = append(result.Tools, ToolOrigin{name, history[name], shown})
	}
	for _, line := range lines {
		result.System = append(result.System, line.origin)
	}
	return result
}

type originLine struct{ text, origin string }

// schemasByName keeps the first tool of each name, as Python's _schemas does.
func schemasByName(tools []ToolSchema) map[string]ToolSchema {
	found := map[string]ToolSchema{}
	for _, tool := range tools {
		if _, seen := found[tool.Name]; !seen {
			found[tool.Name] = tool
		}
	}
	return found
}

func schemaNames(tools []ToolSchema) []string {
	var names []string
	seen := map[string]bool{}
	for _, tool := range tools {
		if !seen[tool.Name] {
			seen[tool.Name] = true
			names = append(names, tool.Name)
		}
	}
	return names
}

func toolEvents(history map[string][]string, before, after []ToolSchema, owner string) {
	old, new := schemasByName(before), schemasByName(after)
	for _, name := range schemaNames(before) {
		if _, kept := new[name]; !kept {
			addEvent(history, name, "removed by "+owner)
		}
	}
	for _, name := range schemaNames(after) {
		previous, existed := old[name]
		if !existed {
			addEvent(history, name, "added by "+owner)
			continue
		}
		var changed []string
		if previous.Description != new[name].Description {
			changed = append(changed, "description")
		}
		if compactJSON(orEmpty(previous.Parameters)) != compactJSON(orEmpty(new[name].Parameters)) {
			changed = append(changed, "parameters")
		}
		if len(changed) > 0 {
			addEvent(history, name, strings.Join(changed, " and ")+" changed by "+owner)
		}
	}
}

// addEvent is Python's _event: an event the tool's history ends with already is not repeated
// (a handler doing the same again on a later model call is no new origin).
func addEvent(history map[string][]string, name, event string) {
	events := history[name]
	if len(events) > 0 && events[len(events)-1] == event {
		return
	}
	history[name] = append(events, event)
}

// relabel is Python's _relabel: the new lines, each keeping its origin where
// SequenceMatcher finds it unchanged, and owner where it is new.
func relabel(lines []originLine, next []string, owner string) []originLine {
	old := make([]string, len(lines))
	for index, line := range lines {
		old[index] = line.text
	}
	if equalLines(old, next) {
		return lines
	}
	kept := []originLine{}
	for _, code := range newSequenceMatcher(old, next).opcodes() {
		if code.tag == "equal" {
			kept = append(kept, lines[code.i1:code.i2]...)
			continue
		}
		for _, text := range next[code.j1:code.j2] {
			kept = append(kept, originLine{text, owner})
		}
	}
	return kept
}

func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for index := range a {
		if a[index] != b[index] {
			return false
		}
	}
	return true
}

// -- rendering ------------------------------------------------------------------------------

// provenanceLines is the closing section of a format-2 snapshot, or nil when there is
// nothing to show (Python's _provenance_view and _provenance_lines).
func provenanceLines(request *FinalRequest, system []string) []string {
	found := request.Provenance
	if found == nil {
		return nil
	}
	origins := systemOrigins(request, found, system)
	tools := map[string]string{}
	for _, item := range found.Tools {
		tools[toolName(item.Name)] = oneLineText(item.Describe())
	}
	if len(origins) == 0 && len(tools) == 0 {
		return nil
	}
	lines := []string{"", "provenance:"}
	for start := 0; start < len(origins); {
		end := start + 1
		for end < len(origins) && origins[end] == origins[start] {
			end++
		}
		where := fmt.Sprint(start + 1)
		if end > start+1 {
			where = fmt.Sprintf("%d-%d", start+1, end)
		}
		lines = append(lines, fmt.Sprintf("  system %s: %s", where, origins[start]))
		start = end
	}
	names := make([]string, 0, len(tools))
	for name := range tools {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		lines = append(lines, fmt.Sprintf("  tool %s: %s", name, tools[name]))
	}
	return lines
}

// systemOrigins is the origin of each text line of the rendered system section: the
// recorded origins follow the prompt's raw lines to the rendered (redacted, normalised)
// ones as Python's map_lines does.
func systemOrigins(request *FinalRequest, found *Provenance, system []string) []string {
	var raw []string
	if request.SystemMessage != nil {
		raw = strings.Split(request.SystemMessage.Text(), "\n")
	}
	shown := make([]string, len(system))
	for index, line := range system {
		switch {
		case strings.HasPrefix(line, "| "):
			shown[index] = line[2:]
		case line == "|":
			shown[index] = ""
		default:
			shown[index] = line
		}
	}
	var every []string
	if len(raw) > 0 && len(raw) == len(found.System) {
		every = mapLines(raw, found.System, shown)
	} else {
		every = make([]string, len(shown))
		for index := range every {
			every[index] = Agent
		}
	}
	var origins []string
	for index, line := range system {
		if strings.HasPrefix(line, "| ") || line == "|" {
			origins = append(origins, oneLineText(every[index]))
		}
	}
	return origins
}

// mapLines is Python's map_lines: a line found unchanged keeps its origin, any other takes
// its neighbour's.
func mapLines(source, origins, shown []string) []string {
	mapped := make([]*string, len(shown))
	matcher := newSequenceMatcher(source, shown)
	for _, block := range matcher.matchingBlocks() {
		for offset := 0; offset < block.size; offset++ {
			mapped[block.j+offset] = &origins[block.i+offset]
		}
	}
	for _, code := range matcher.opcodes() {
		if (code.tag == "replace" || code.tag == "insert") && code.i2 > code.i1 {
			for index := code.j1; index < code.j2; index++ {
				mapped[index] = &origins[min(code.i1+index-code.j1, code.i2-1)]
			}
		}
	}
	last := Agent
	for _, item := range mapped {
		if item != nil {
			last = *item
			break
		}
	}
	filled := make([]string, len(mapped))
	for index, item := range mapped {
		if item != nil {
			last = *item
		}
		filled[index] = last
	}
	return filled
}

// oneLineText is Python's _one_line_text: redacted, with every control character and line
// separator written as Python's repr writes it, so an origin cannot forge a line.
func oneLineText(text string) string {
	var out strings.Builder
	for _, char := range RedactText(text) {
		if char == 0x2028 || char == 0x2029 {
			fmt.Fprintf(&out, `\u%04x`, char)
		} else if !writeEscape(&out, char, isC0OrC1Control) {
			out.WriteRune(char)
		}
	}
	return out.String()
}
