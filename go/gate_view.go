package hookproof

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// The gate reads snapshot files back into views, as Python's hookproof.snapshot.parse does,
// and renders a view again for the sections a report shows.

const (
	snapshotHeader = "hookproof final request, format "
	senderFormat   = 3 // a subagent's request: an "agent:" line
	provenanceForm = 2 // a request with provenance
	plainFormat    = 1
	unnamedAgent   = "(unnamed)"
	noneShown      = "(none)"
)

type senderView struct {
	name  *string
	depth int
}

type toolView struct {
	name        string
	description string
	parameters  *Object
}

type provenanceView struct {
	system []string          // the origin of each text line of the system section
	tools  map[string]string // each tool's history, by its name as rendered
}

// snapshotView is a snapshot's request as plain data: what the gate pairs and diffs.
type snapshotView struct {
	sender                                      *senderView
	model, toolChoice, responseFormat, settings any
	system, messages                            []string
	tools                                       []toolView
	provenance                                  *provenanceView
}

func (v *snapshotView) scalar(name string) any {
	switch name {
	case "model":
		return v.model
	case "tool_choice":
		return v.toolChoice
	case "response_format":
		return v.responseFormat
	}
	return v.settings
}

var scalarNames = []string{"model", "tool_choice", "response_format", "settings"}

func (v *snapshotView) toolNames() []string {
	names := make([]string, len(v.tools))
	for index, tool := range v.tools {
		names[index] = tool.name
	}
	return names
}

func (v *snapshotView) tool(name string) *toolView {
	for index := range v.tools {
		if v.tools[index].name == name {
			return &v.tools[index]
		}
	}
	return nil
}

func isTextLine(line string) bool { return strings.HasPrefix(line, "| ") || line == "|" }

// systemText is the system prompt's text lines, without block headers.
func (v *snapshotView) systemText() []string {
	var texts []string
	for _, line := range v.system {
		if isTextLine(line) {
			texts = append(texts, strings.TrimPrefix(line, "| "))
		}
	}
	if len(texts) == 0 {
		return []string{}
	}
	return texts
}

func (v *snapshotView) version() int {
	if v.sender != nil {
		return senderFormat
	}
	if v.provenance != nil && (len(v.provenance.system) > 0 || len(v.provenance.tools) > 0) {
		return provenanceForm
	}
	return plainFormat
}

// linesOrigin is the origins of lines first..last (end excluded) of the system section, each
// once, joined; "" when there are none. A block header counts as the text it heads.
func (p *provenanceView) linesOrigin(system []string, first, last int) string {
	every := everyLineOrigin(p.system, system)
	var found []string
	seen := map[string]bool{}
	for _, origin := range every[first:last] {
		if !seen[origin] {
			seen[origin] = true
			found = append(found, origin)
		}
	}
	return strings.Join(found, ", ")
}

func everyLineOrigin(origins, system []string) []string {
	expanded := make([]string, len(system))
	next := 0
	for index, line := range system {
		if isTextLine(line) && next < len(origins) {
			expanded[index] = origins[next]
			next++
		} else if isTextLine(line) {
			next++
		}
	}
	following := ""
	for index := len(expanded) - 1; index >= 0; index-- {
		if expanded[index] == "" {
			expanded[index] = following
		}
		following = expanded[index]
	}
	last := "agent"
	for index := len(expanded) - 1; index >= 0; index-- {
		if expanded[index] != "" {
			last = expanded[index]
			break
		}
	}
	for index := range expanded {
		if expanded[index] == "" {
			expanded[index] = last
		}
	}
	return expanded
}

func senderLine(sender *senderView) string {
	shown := unnamedAgent
	if sender.name != nil {
		name := *sender.name
		shown = name
		printable := true
		for _, char := range name {
			printable = printable && isPyPrintable(char)
		}
		if name == "" || strings.HasPrefix(name, `"`) || strings.IndexFunc(name, isPythonSpace) >= 0 || !printable || strings.HasPrefix(name, "(") {
			shown = compactJSON(name)
		}
	}
	return fmt.Sprintf("%s (depth %d)", shown, sender.depth)
}

func sameSender(a, b *senderView) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if (a.name == nil) != (b.name == nil) || a.depth != b.depth {
		return false
	}
	return a.name == nil || *a.name == *b.name
}

func sameLines(a, b []string) bool {
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

func sameTool(a, b toolView) bool {
	return a.name == b.name && a.description == b.description && pyEqual(a.parameters, b.parameters)
}

func sameProvenance(a, b *provenanceView) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if !sameLines(a.system, b.system) || len(a.tools) != len(b.tools) {
		return false
	}
	for name, history := range a.tools {
		if other, ok := b.tools[name]; !ok || other != history {
			return false
		}
	}
	return true
}

// sameView is RequestView's ==, provenance compared only when withProvenance.
func sameView(a, b *snapshotView, withProvenance bool) bool {
	for _, name := range scalarNames {
		if !pyEqual(a.scalar(name), b.scalar(name)) {
			return false
		}
	}
	if !sameSender(a.sender, b.sender) || !sameLines(a.system, b.system) || !sameLines(a.messages, b.messages) || len(a.tools) != len(b.tools) {
		return false
	}
	for index := range a.tools {
		if !sameTool(a.tools[index], b.tools[index]) {
			return false
		}
	}
	return !withProvenance || sameProvenance(a.provenance, b.provenance)
}

// -- rendering ---------------------------------------------------------------------------

func indentedOrNone(lines []string) []string {
	if len(lines) == 0 {
		return []string{"  " + noneShown}
	}
	out := make([]string, len(lines))
	for index, line := range lines {
		out[index] = "  " + line
	}
	return out
}

func descriptionLines(description string) []string {
	var lines []string
	for _, line := range strings.Split(description, "\n") {
		if line == "" {
			lines = append(lines, "|")
		} else {
			lines = append(lines, "| "+line)
		}
	}
	return lines
}

func renderedToolLines(tool toolView) []string {
	lines := []string{"  " + tool.name, "    description:"}
	for _, line := range descriptionLines(tool.description) {
		lines = append(lines, "    "+line)
	}
	lines = append(lines, "    parameters:")
	for _, line := range strings.Split(prettyJSON(tool.parameters), "\n") {
		lines = append(lines, "    | "+line)
	}
	return lines
}

func provenanceSection(data *provenanceView) []string {
	lines := []string{"", "provenance:"}
	start := 0
	for index := 1; index <= len(data.system); index++ {
		if index == len(data.system) || data.system[index] != data.system[start] {
			span := strconv.Itoa(start + 1)
			if index != start+1 {
				span += "-" + strconv.Itoa(index)
			}
			lines = append(lines, fmt.Sprintf("  system %s: %s", span, data.system[start]))
			start = index
		}
	}
	names := make([]string, 0, len(data.tools))
	for name := range data.tools {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		lines = append(lines, fmt.Sprintf("  tool %s: %s", name, data.tools[name]))
	}
	return lines
}

// renderView is Python's render_view: the view's canonical snapshot text.
func renderView(data *snapshotView) string {
	lines := []string{snapshotHeader + strconv.Itoa(data.version()), "model: " + compactJSON(data.model)}
	if data.sender != nil {
		lines = append(lines, "agent: "+senderLine(data.sender))
	}
	lines = append(lines,
		"tool_choice: "+compactJSON(data.toolChoice),
		"response_format: "+compactJSON(data.responseFormat),
		"settings: "+compactJSON(data.settings),
		"", "system:")
	lines = append(lines, indentedOrNone(data.system)...)
	lines = append(lines, "", "messages:")
	lines = append(lines, indentedOrNone(data.messages)...)
	lines = append(lines, "", "tools: "+strconv.Itoa(len(data.tools)))
	for _, tool := range data.tools {
		lines = append(lines, renderedToolLines(tool)...)
	}
	shown := data.provenance != nil && (len(data.provenance.system) > 0 || len(data.provenance.tools) > 0)
	if shown {
		lines = append(lines, provenanceSection(data.provenance)...)
	} else if data.sender != nil {
		lines = append(lines, "", "provenance:", "  "+noneShown)
	}
	return strings.Join(lines, "\n") + "\n"
}
