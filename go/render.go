package hookproof

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/dlclark/regexp2"
)

// FormatVersion is the snapshot format written for a request with provenance, the one
// Python's hookproof.snapshot writes; a request without provenance is written as
// PlainFormatVersion (format 1's text exactly), as Python does.
const (
	FormatVersion      = 2
	PlainFormatVersion = 1
)

const (
	header      = "hookproof final request, format "
	noneLine    = "(none)"
	emptySystem = "(empty system message)"
)

type matcher struct {
	pattern *regexp2.Regexp
	label   string
}

// The default matchers of hookproof.snapshot._normalise, with the same Unicode \b and \d.
var defaultMatchers = []matcher{
	{regexp2.MustCompile(`\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b`, regexp2.None), "uuid"},
	{regexp2.MustCompile(`\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?\b`, regexp2.None), "timestamp"},
	{regexp2.MustCompile(`(?:/private)?(?:/tmp|/var/folders)(?:/[^\s"'/]+)+`, regexp2.None), "tmp-path"},
}

// normaliser gives each volatile value a placeholder numbered by first appearance in one
// rendering, so the order in which values are visited is part of the format.
type normaliser struct {
	seen   map[[2]string]string
	counts map[string]int
}

func newNormaliser() *normaliser {
	return &normaliser{seen: map[[2]string]string{}, counts: map[string]int{}}
}

func (n *normaliser) placeholder(label, value string) string {
	key := [2]string{label, value}
	if found, ok := n.seen[key]; ok {
		return found
	}
	number := n.counts[label]
	n.counts[label] = number + 1
	n.seen[key] = fmt.Sprintf("<%s-%d>", label, number)
	return n.seen[key]
}

// ident is a message or call id: nil stays nil.
func (n *normaliser) ident(label string, value *string) any {
	if value == nil {
		return nil
	}
	return n.placeholder(label, *value)
}

func (n *normaliser) text(value string) string {
	for _, item := range defaultMatchers {
		label := item.label
		replaced, err := item.pattern.ReplaceFunc(value, func(match regexp2.Match) string {
			return n.placeholder(label, match.String())
		}, -1, -1)
		if err == nil {
			value = replaced
		}
	}
	return value
}

// plain redacts and normalises every string; with fields, a value under a sensitive key is
// replaced whole (not in JSON schemas, whose "password" property holds no secret).
func (n *normaliser) plain(value any, fields bool) any {
	switch typed := value.(type) {
	case string:
		return n.text(RedactText(typed))
	case *Object:
		if typed == nil {
			return NewObject()
		}
		result := NewObject()
		for _, key := range typed.Keys {
			item := typed.Values[key]
			if fields && isSecret(key, item) {
				result.Set(key, Redacted)
			} else {
				result.Set(key, n.plain(item, fields))
			}
		}
		return result
	case []any:
		items := make([]any, len(typed))
		for index, item := range typed {
			items[index] = n.plain(item, fields)
		}
		return items
	default:
		return value
	}
}

func isSecret(key string, item any) bool {
	if _, isBool := item.(bool); item == nil || isBool {
		return false
	}
	return IsSensitiveField(key)
}

func visible(text string) string {
	return strings.ReplaceAll(text, "\r", `\r`)
}

func barLines(text string) []string {
	var lines []string
	for _, line := range strings.Split(text, "\n") {
		if line == "" {
			lines = append(lines, "|")
		} else {
			lines = append(lines, "| "+line)
		}
	}
	return lines
}

func (n *normaliser) textLines(text string) []string {
	return barLines(visible(n.text(RedactText(text))))
}

// blockFields is each block type's fields in the order Python dumps them, with defaults.
var blockFields = map[string][][2]any{
	"text":        {{"id", nil}, {"cache_control", nil}, {"extras", nil}, {"text", ""}},
	"image":       mediaFields(),
	"audio":       mediaFields(),
	"video":       mediaFields(),
	"file":        append(mediaFields(), [2]any{"name", nil}),
	"reasoning":   {{"id", nil}, {"cache_control", nil}, {"extras", nil}, {"reasoning", ""}},
	"tool_call":   {{"id", nil}, {"cache_control", nil}, {"extras", nil}, {"name", ""}, {"args", nil}},
	"tool_result": {{"id", nil}, {"cache_control", nil}, {"extras", nil}, {"tool_call_id", ""}, {"text", ""}, {"status", "success"}},
}

func mediaFields() [][2]any {
	return [][2]any{{"id", nil}, {"cache_control", nil}, {"extras", nil}, {"url", nil}, {"base64", nil}, {"file_id", nil}, {"mime_type", nil}}
}

func isEmpty(value any) bool {
	switch typed := value.(type) {
	case nil:
		return true
	case string:
		return typed == ""
	case *Object:
		return typed.Len() == 0
	}
	return false
}

func (n *normaliser) blockLines(block *Object) []string {
	kind, _ := block.Values["type"].(string)
	meta := NewObject()
	var text *string
	for _, field := range blockFields[kind] {
		name := field[0].(string)
		value, ok := block.Get(name)
		if !ok {
			value = field[1]
		}
		switch {
		case name == "text":
			textValue, _ := value.(string)
			text = &textValue
		case name == "id":
			if id, isString := value.(string); isString {
				meta.Set(name, n.placeholder("id", id))
			}
		case !isEmpty(value):
			meta.Set(name, value)
		}
	}
	head := "[" + kind + "]"
	if meta.Len() > 0 {
		head += " " + compactJSON(n.plain(meta, true))
	}
	lines := []string{head}
	if text != nil {
		lines = append(lines, n.textLines(*text)...)
	}
	return lines
}

func isPythonSpace(char rune) bool {
	return unicode.IsSpace(char) || (char >= 0x1c && char <= 0x1f)
}

func toolName(name string) string {
	if name == "" || strings.HasPrefix(name, `"`) || strings.IndexFunc(name, isPythonSpace) >= 0 {
		return compactJSON(name)
	}
	return name
}

func (n *normaliser) messageMeta(message *Message) *Object {
	meta := NewObject()
	setIf := func(key string, value any) {
		if !isEmpty(value) || value == "" && key == "name" {
			meta.Set(key, value)
		}
	}
	setIf("id", n.ident("id", message.ID))
	if message.Name != nil {
		setIf("name", *message.Name)
	}
	setIf("additional_kwargs", n.plain(orEmpty(message.AdditionalKwargs), true))
	setIf("response_metadata", n.plain(orEmpty(message.ResponseMetadata), true))
	if message.Role == "tool" {
		callID := message.ToolCallID
		setIf("tool_call_id", n.ident("call", &callID))
		setIf("status", orDefault(message.Status, "success"))
	}
	return meta
}

func orEmpty(object *Object) *Object {
	if object == nil {
		return NewObject()
	}
	return object
}

func orDefault(value, fallback string) string {
	if value == "" {
		return fallback
	}
	return value
}

func (n *normaliser) contentLines(message *Message) []string {
	var lines []string
	for _, block := range message.Content {
		lines = append(lines, n.blockLines(block)...)
	}
	if len(message.Content) == 1 && message.Content[0].Values["type"] == "text" && lines[0] == "[text]" {
		return lines[1:]
	}
	return lines
}

func (n *normaliser) messageLines(message *Message) []string {
	meta := n.messageMeta(message)
	head := "<" + message.Role + ">"
	if meta.Len() > 0 {
		head += " " + compactJSON(meta)
	}
	lines := append([]string{head}, n.contentLines(message)...)
	if message.Role == "assistant" {
		for _, call := range message.ToolCalls {
			callID := "None"
			if id := n.ident("call", call.ID); id != nil {
				callID = id.(string)
			}
			args := compactJSON(n.plain(orEmpty(call.Args), true))
			lines = append(lines, fmt.Sprintf("call %s %s %s", toolName(call.Name), callID, args))
		}
	}
	return lines
}

func (n *normaliser) systemLines(system *Message) []string {
	if system == nil {
		return nil
	}
	var lines []string
	for _, block := range system.Content {
		lines = append(lines, n.blockLines(block)...)
	}
	if len(lines) == 0 {
		lines = []string{emptySystem}
	}
	if meta := n.messageMeta(system); meta.Len() > 0 {
		lines = append(lines, "<metadata> "+compactJSON(meta))
	}
	return lines
}

func indented(lines []string) []string {
	if len(lines) == 0 {
		return []string{"  " + noneLine}
	}
	result := make([]string, len(lines))
	for index, line := range lines {
		result[index] = "  " + line
	}
	return result
}

func (n *normaliser) toolLines(tool ToolSchema) []string {
	description := visible(n.text(RedactText(tool.Description)))
	parameters := prettyJSON(n.plain(orEmpty(tool.Parameters), false))
	lines := []string{"  " + toolName(tool.Name), "    description:"}
	for _, line := range barLines(description) {
		lines = append(lines, "    "+line)
	}
	lines = append(lines, "    parameters:")
	for _, line := range strings.Split(parameters, "\n") {
		lines = append(lines, "    | "+line)
	}
	return lines
}

// Render is the canonical snapshot text of a request, byte-identical to Python's
// hookproof.snapshot.render for the same request (built-in redaction, default matchers).
func Render(request *FinalRequest) string {
	n := newNormaliser()
	system := n.systemLines(request.SystemMessage)
	var messages []string
	for index := range request.Messages {
		messages = append(messages, n.messageLines(&request.Messages[index])...)
	}
	tools := append([]ToolSchema(nil), request.Tools...)
	sort.SliceStable(tools, func(i, j int) bool { return tools[i].Name < tools[j].Name })
	var toolText []string
	for _, tool := range tools {
		toolText = append(toolText, n.toolLines(tool)...)
	}
	provenance := provenanceLines(request, system)
	version := PlainFormatVersion
	if provenance != nil {
		version = FormatVersion
	}
	lines := []string{
		fmt.Sprintf("%s%d", header, version),
		"model: " + compactJSON(RedactText(request.Model)),
		"tool_choice: " + compactJSON(n.plain(request.ToolChoice.Value, true)),
		"response_format: " + compactJSON(n.plain(request.ResponseFormat.Value, false)),
		"settings: " + compactJSON(n.plain(orEmpty(request.ModelSettings), true)),
		"", "system:",
	}
	lines = append(lines, indented(system)...)
	lines = append(lines, "", "messages:")
	lines = append(lines, indented(messages)...)
	lines = append(lines, "", fmt.Sprintf("tools: %d", len(tools)))
	lines = append(lines, toolText...)
	lines = append(lines, provenance...)
	return strings.Join(lines, "\n") + "\n"
}
