package hookproof

import (
	"strconv"
	"strings"
)

// parseSnapshot reads a snapshot's text (line endings already LF) into its view, or says
// why it is not a snapshot this hookproof reads, in the words Python's parse uses.
func parseSnapshot(text string) (*snapshotView, error) {
	version, err := checkVersion(text)
	if err != nil {
		return nil, err
	}
	lines := &snapshotLines{lines: strings.Split(strings.TrimRight(text, "\n"), "\n"), index: 1}
	view := &snapshotView{}
	if view.model, err = lines.json("model: "); err != nil {
		return nil, err
	}
	if version == senderFormat {
		if view.sender, err = lines.sender(); err != nil {
			return nil, err
		}
	}
	if err = readScalars(lines, view); err != nil {
		return nil, err
	}
	if err = readBody(lines, view); err != nil {
		return nil, err
	}
	if err = readProvenance(lines, view, version); err != nil {
		return nil, err
	}
	return view, checkEnd(lines, text, version)
}

func readScalars(lines *snapshotLines, view *snapshotView) (err error) {
	if view.toolChoice, err = lines.json("tool_choice: "); err != nil {
		return err
	}
	if view.responseFormat, err = lines.json("response_format: "); err != nil {
		return err
	}
	if view.settings, err = lines.json("settings: "); err != nil {
		return err
	}
	_, err = lines.take("")
	return err
}

func readBody(lines *snapshotLines, view *snapshotView) (err error) {
	if view.system, err = lines.section("system"); err != nil {
		return err
	}
	if view.messages, err = lines.section("messages"); err != nil {
		return err
	}
	view.tools, err = lines.tools()
	return err
}

func readProvenance(lines *snapshotLines, view *snapshotView, version int) (err error) {
	rest := lines.lines[min(lines.index+1, len(lines.lines)):]
	if version == senderFormat && len(rest) == 2 && rest[0] == "provenance:" && rest[1] == "  "+noneShown {
		lines.index = len(lines.lines)
		return nil
	}
	if version < provenanceForm {
		return nil
	}
	texts := 0
	for _, line := range view.system {
		if isTextLine(line) {
			texts++
		}
	}
	view.provenance, err = lines.provenance(texts)
	return err
}

func checkEnd(lines *snapshotLines, text string, version int) error {
	if !lines.done() {
		next := lines.lines[min(lines.index+1, len(lines.lines)):]
		if version < provenanceForm && len(next) > 0 && next[0] == "provenance:" {
			return formatProblem("it has a provenance section, which needs format 2 (its header says 1)")
		}
		return formatProblem("unexpected text at line %d", lines.index+1)
	}
	if version >= provenanceForm && !strings.HasSuffix(text, "\n") {
		last := text[strings.LastIndex(text, "\n")+1:]
		runes := []rune(last)
		return formatProblem("its last line %s has no line break: truncated?", pyRepr(string(runes[max(0, len(runes)-40):])))
	}
	return nil
}

func (l *snapshotLines) provenance(systemLines int) (*provenanceView, error) {
	if l.done() {
		return nil, formatProblem("it is in format 2 but ends before its provenance section (is it truncated?)")
	}
	if _, err := l.take(""); err != nil {
		return nil, err
	}
	if _, err := l.take("provenance:"); err != nil {
		return nil, err
	}
	if l.done() {
		return nil, formatProblem("its provenance section is empty (is it truncated?)")
	}
	found := &provenanceView{system: []string{}, tools: map[string]string{}}
	for offset, line := range l.block("  ") {
		if err := found.read(line, "provenance line "+strconv.Itoa(offset+1)); err != nil {
			return nil, err
		}
	}
	if len(found.system) > 0 && len(found.system) != systemLines {
		return nil, formatProblem("provenance covers %d system lines, the system section has %d text lines", len(found.system), systemLines)
	}
	return found, nil
}

func (p *provenanceView) read(line, where string) error {
	if tail, ok := strings.CutPrefix(line, "tool "); ok {
		name, events, err := provenanceTool(tail, where)
		if err != nil {
			return err
		}
		if _, seen := p.tools[name]; seen {
			return formatProblem("%s names tool %s a second time", where, name)
		}
		p.tools[name] = events
		return nil
	}
	match := provenancePattern.FindStringSubmatch(line)
	first := 0
	if match != nil {
		first = decimalValue(match[1])
	}
	if match == nil || first != len(p.system)+1 {
		return formatProblem("%s should be `system FIRST-LAST: origin`", where)
	}
	last := first
	if match[2] != "" {
		last = decimalValue(match[2])
	}
	for count := 0; count < last-first+1; count++ {
		p.system = append(p.system, match[3])
	}
	return nil
}

func provenanceTool(text, where string) (string, string, error) {
	var name, rest string
	if strings.HasPrefix(text, `"`) {
		scanner := &jsonScanner{text: []rune(text)}
		value, end, err := scanner.value(0)
		if err != nil {
			return "", "", formatProblem("%s has a badly quoted tool name", where)
		}
		name, rest = toolName(value.(string)), string(scanner.text[end:])
	} else {
		before, after, found := strings.Cut(text, ": ")
		name = before
		if found {
			rest = ": " + after
		}
	}
	if !strings.HasPrefix(rest, ": ") || name == "" {
		return "", "", formatProblem("%s should be `tool NAME: history`", where)
	}
	return name, rest[2:], nil
}
