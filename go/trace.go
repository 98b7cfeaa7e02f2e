package hookproof

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// TraceEvent is one step of a run, with the fields of Python's hookproof.trace.TraceEvent:
// kind is hook (BeforeAgent, the rewrite-state hooks, AfterAgent), layer (WrapModel and the
// tool wrappers), model or tool; phase is enter, exit or error.
type TraceEvent struct {
	Seq        int     `json:"seq"`
	Kind       string  `json:"kind"`
	Hook       string  `json:"hook"`
	Phase      string  `json:"phase"`
	Middleware string  `json:"middleware,omitempty"`
	Depth      int     `json:"depth"`
	Data       *Object `json:"data,omitempty"`
}

// Label is "middleware.hook:phase", as in Python.
func (e TraceEvent) Label() string {
	owner := ""
	if e.Middleware != "" {
		owner = e.Middleware + "."
	}
	return owner + e.Hook + ":" + e.Phase
}

// Describe is the event's line in Trace.Format (Python's TraceEvent.describe).
func (e TraceEvent) Describe() string {
	line := strings.Repeat("  ", e.Depth) + e.Label()
	if e.Data.Len() == 0 {
		return line
	}
	details := make([]string, 0, e.Data.Len())
	for _, key := range e.Data.Keys {
		details = append(details, key+"="+pythonRepr(e.Data.Values[key]))
	}
	return line + " (" + strings.Join(details, ", ") + ")"
}

// Trace records the middleware calls of a run in hookproof's trace format. Tools run in
// parallel by default in Eino; set ToolsConfig.ExecuteSequentially for a deterministic trace.
type Trace struct {
	mu     sync.Mutex
	events []TraceEvent
	depth  int
}

// NewTrace starts an empty trace.
func NewTrace() *Trace { return &Trace{} }

func (t *Trace) record(kind, hook, phase, owner string, data *Object) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if phase != "enter" {
		t.depth--
	}
	t.events = append(t.events, TraceEvent{len(t.events), kind, hook, phase, owner, t.depth, data})
	if phase == "enter" {
		t.depth++
	}
}

// Events are the events so far.
func (t *Trace) Events() []TraceEvent {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]TraceEvent(nil), t.events...)
}

// Labels are the events' labels.
func (t *Trace) Labels() []string {
	var labels []string
	for _, event := range t.Events() {
		labels = append(labels, event.Label())
	}
	return labels
}

// Format is one indented line per event, as Python's Trace.format.
func (t *Trace) Format() string {
	var lines []string
	for _, event := range t.Events() {
		lines = append(lines, event.Describe())
	}
	return strings.Join(lines, "\n")
}

// pythonRepr writes a value as Python's repr would: strings quoted, lists as tuples.
func pythonRepr(value any) string {
	switch typed := value.(type) {
	case nil:
		return "None"
	case bool:
		if typed {
			return "True"
		}
		return "False"
	case int:
		return strconv.Itoa(typed)
	case string:
		return pythonStringRepr(typed)
	case []string:
		items := make([]string, len(typed))
		for index, item := range typed {
			items[index] = pythonStringRepr(item)
		}
		if len(items) == 1 {
			return "(" + items[0] + ",)"
		}
		return "(" + strings.Join(items, ", ") + ")"
	}
	return pythonStringRepr(fmt.Sprint(value))
}

func pythonStringRepr(text string) string {
	quote := "'"
	if strings.Contains(text, "'") && !strings.Contains(text, `"`) {
		quote = `"`
	}
	var out strings.Builder
	out.WriteString(quote)
	for _, char := range text {
		if char == '\\' || string(char) == quote {
			out.WriteString(`\` + string(char))
		} else if !writeEscape(&out, char, isASCIIControl) {
			out.WriteRune(char)
		}
	}
	out.WriteString(quote)
	return out.String()
}
