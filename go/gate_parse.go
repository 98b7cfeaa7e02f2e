package hookproof

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// decimalValue is int() of a run of decimal digits of any script: each script's digits are
// ten consecutive code points, zero first, so a digit's value is its distance from the
// start of its run, modulo ten.
func decimalValue(digits string) int {
	value := 0
	for _, digit := range digits {
		start := digit
		for unicode.IsDigit(start - 1) {
			start--
		}
		value = value*10 + int(digit-start)%10
	}
	return value
}

// snapshotFormatError is why a file is not a readable snapshot (Python's SnapshotFormatError
// problem): the gate lists it beside the file's path.
type snapshotFormatError struct{ problem string }

func (e *snapshotFormatError) Error() string { return e.problem }

func formatProblem(format string, args ...any) error {
	return &snapshotFormatError{fmt.Sprintf(format, args...)}
}

var (
	// \p{Nd}: Python's \d matches any decimal digit, and int() reads it ("１" is 1).
	headerPattern     = regexp.MustCompile(`^` + regexp.QuoteMeta(snapshotHeader) + `(\p{Nd}+)$`)
	senderPattern     = regexp.MustCompile(`^(.+) \(depth ([1-9]\p{Nd}{0,5})\)$`)
	provenancePattern = regexp.MustCompile(`^system (\p{Nd}{1,6})(?:-(\p{Nd}{1,6}))?: (.+)$`)
)

func checkVersion(text string) (int, error) {
	first, _, _ := strings.Cut(text, "\n")
	match := headerPattern.FindStringSubmatch(first)
	if match == nil {
		return 0, &snapshotFormatError{notAHeader(text, first)}
	}
	version := -1
	if runeCount(match[1]) < 6 {
		version = decimalValue(match[1])
	}
	if version < 1 || version > 3 {
		return 0, formatProblem("it was written in format %s, this hookproof reads formats 1, 2 and 3", runePrefix(match[1], 12))
	}
	return version, nil
}

func notAHeader(text, first string) string {
	switch {
	case text == "":
		return "it is empty (0 bytes), so it holds no reviewed request"
	case pyStrip(text) == "":
		return fmt.Sprintf("it holds only whitespace (%d characters), no reviewed request", runeCount(text))
	case strings.HasPrefix(snapshotHeader, strings.TrimRightFunc(first, isPythonSpace)) && pyStrip(first) != "":
		return fmt.Sprintf("it ends inside its header (%s): it is truncated", pyRepr(runePrefix(first, 60)))
	}
	return fmt.Sprintf("its first line is %s", pyRepr(runePrefix(first, 60)))
}

type snapshotLines struct {
	lines []string
	index int
}

func (l *snapshotLines) done() bool { return l.index >= len(l.lines) }

func (l *snapshotLines) take(prefix string) (string, error) {
	expected := "a blank line"
	if prefix != "" {
		expected = "a line starting with " + pyRepr(prefix)
	}
	if l.done() {
		return "", formatProblem("it ends after line %d, where %s should follow (is it truncated?)", l.index, expected)
	}
	line := l.lines[l.index]
	if !strings.HasPrefix(line, prefix) || (prefix == "" && line != "") {
		return "", formatProblem("line %d should be %s", l.index+1, expected)
	}
	l.index++
	return line[len(prefix):], nil
}

func (l *snapshotLines) block(indent string) []string {
	taken := []string{}
	for !l.done() && strings.HasPrefix(l.lines[l.index], indent) {
		taken = append(taken, l.lines[l.index][len(indent):])
		l.index++
	}
	return taken
}

func (l *snapshotLines) json(prefix string) (any, error) {
	raw, err := l.take(prefix)
	if err != nil {
		return nil, err
	}
	value, err := pythonJSON(raw)
	if err != nil {
		return nil, formatProblem("%s holds invalid JSON (%s)", pyStrip(prefix), err)
	}
	return value, nil
}

func (l *snapshotLines) section(name string) ([]string, error) {
	if _, err := l.take(name + ":"); err != nil {
		return nil, err
	}
	body := l.block("  ")
	if _, err := l.take(""); err != nil {
		return nil, err
	}
	if len(body) == 1 && body[0] == noneShown {
		return []string{}, nil
	}
	return body, nil
}

func (l *snapshotLines) bars() string {
	var lines []string
	for _, line := range l.block("    |") {
		lines = append(lines, strings.TrimPrefix(line, " "))
	}
	return strings.Join(lines, "\n")
}

func (l *snapshotLines) tool() (toolView, error) {
	name, err := l.take("  ")
	if err == nil {
		_, err = l.take("    description:")
	}
	if err != nil {
		return toolView{}, err
	}
	description := l.bars()
	if _, err := l.take("    parameters:"); err != nil {
		return toolView{}, err
	}
	if name == "" {
		return toolView{}, formatProblem("the tool at line %d has no name", l.index)
	}
	parameters, err := pythonJSON(l.bars())
	if err != nil {
		return toolView{}, formatProblem("tool %s has invalid parameters (%s)", pyRepr(name), err)
	}
	object, ok := parameters.(*Object)
	if !ok {
		return toolView{}, formatProblem("tool %s parameters are not a JSON object", pyRepr(name))
	}
	return toolView{name, description, object}, nil
}

func (l *snapshotLines) tools() ([]toolView, error) {
	raw, err := l.take("tools: ")
	if err != nil {
		return nil, err
	}
	if raw == "" || strings.Trim(raw, "0123456789") != "" {
		return nil, formatProblem("the tool count %s is not a number", pyRepr(raw))
	}
	if len(raw) > 4000 {
		return nil, formatProblem("the tool count (%d digits) is too large; is it corrupted?", len(raw))
	}
	count, err := strconv.Atoi(raw)
	if err != nil {
		count = int(^uint(0) >> 1) // the lines run out first
	}
	tools := []toolView{}
	firstLine := map[string]int{}
	for taken := 0; taken < count; taken++ {
		line := l.index + 1
		tool, err := l.tool()
		if err != nil {
			return nil, err
		}
		if earlier, ok := firstLine[tool.name]; ok {
			return nil, formatProblem("tool %s is listed twice (lines %d and %d)", pyRepr(tool.name), earlier, line)
		}
		firstLine[tool.name] = line
		tools = append(tools, tool)
	}
	return tools, nil
}

func (l *snapshotLines) sender() (*senderView, error) {
	raw, err := l.take("agent: ")
	if err != nil {
		return nil, err
	}
	match := senderPattern.FindStringSubmatch(raw)
	if match == nil {
		return nil, formatProblem("line %d should be `agent: NAME (depth N)`, N from 1", l.index)
	}
	depth := decimalValue(match[2])
	name := match[1]
	if name == unnamedAgent {
		return &senderView{depth: depth}, nil
	}
	if strings.HasPrefix(name, `"`) {
		value, err := pythonJSON(name)
		quoted, ok := value.(string)
		if err != nil || !ok {
			return nil, formatProblem("its agent line has a badly quoted name")
		}
		name = quoted
	}
	return &senderView{name: &name, depth: depth}, nil
}
