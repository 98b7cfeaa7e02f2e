package hookproof

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// Call is one scripted tool call; an empty ID is filled with call_0, call_1, ... in the order
// calls are played, as Python's ScriptedModel does.
type Call struct {
	Name string  `json:"call"`
	Args *Object `json:"args,omitempty"`
	ID   string  `json:"id,omitempty"`
}

// Turn is one answer of the script: a text, tool calls, or an error to return.
//
// In JSON (the Python script's shape): "text" is a text turn; {"call": "search", "args":
// {...}} one tool call; a list of those several calls in one message; {"error": "..."} a
// model error.
type Turn struct {
	Text  string
	Calls []Call
	Error string
}

// UnmarshalJSON reads a turn in any of its JSON shapes.
func (t *Turn) UnmarshalJSON(data []byte) error {
	var text string
	if json.Unmarshal(data, &text) == nil {
		*t = Turn{Text: text}
		return nil
	}
	var calls []Call
	if json.Unmarshal(data, &calls) == nil {
		*t = Turn{Calls: calls}
		return nil
	}
	var shape struct {
		Call  *string `json:"call"`
		Error *string `json:"error"`
	}
	if err := json.Unmarshal(data, &shape); err != nil {
		return fmt.Errorf("hookproof: a script turn is a string, a call, a list of calls or an error: %w", err)
	}
	switch {
	case shape.Error != nil:
		*t = Turn{Error: *shape.Error}
	case shape.Call != nil:
		var one Call
		if err := json.Unmarshal(data, &one); err != nil {
			return err
		}
		*t = Turn{Calls: []Call{one}}
	default:
		return fmt.Errorf(`hookproof: the script turn %s is neither {"call": name, ...} nor {"error": text}`, data)
	}
	return nil
}

// ParseScript reads a JSON list of turns.
func ParseScript(data []byte) ([]Turn, error) {
	var turns []Turn
	if err := json.Unmarshal(data, &turns); err != nil {
		return nil, fmt.Errorf("hookproof: a script is a JSON list of turns: %w", err)
	}
	return turns, nil
}

// LoadScript reads a script file (a JSON list of turns).
func LoadScript(path string) ([]Turn, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseScript(data)
}

// ErrScriptExhausted is returned (wrapped) when the model is called after its last turn.
var ErrScriptExhausted = errors.New("hookproof: the script is exhausted")

type script struct {
	mu     sync.Mutex
	turns  []Turn
	calls  int
	nextID int
}

// ScriptedChatModel plays a fixed script of turns, one per Generate or Stream, and
// implements Eino's model.ToolCallingChatModel. Safe for concurrent use.
type ScriptedChatModel struct {
	Name   string
	script *script
	tools  []*schema.ToolInfo
}

// NewScriptedChatModel plays turns in order; its name (the snapshot's model) is "scripted".
func NewScriptedChatModel(turns ...Turn) *ScriptedChatModel {
	return &ScriptedChatModel{Name: "scripted", script: &script{turns: turns}}
}

// Text is a text turn; Calls a turn of tool calls; Fail an error turn.
func Text(text string) Turn { return Turn{Text: text} }

// Calls is a turn of tool calls: Calls(Call{Name: "search", Args: NewObject("q", "x")}).
func Calls(calls ...Call) Turn { return Turn{Calls: calls} }

// Fail is a turn on which the model returns an error with this text.
func Fail(text string) Turn { return Turn{Error: text} }

// Calls reports how many times the model was called.
func (m *ScriptedChatModel) Calls() int {
	m.script.mu.Lock()
	defer m.script.mu.Unlock()
	return m.script.calls
}

// Remaining is how many turns are left.
func (m *ScriptedChatModel) Remaining() int {
	m.script.mu.Lock()
	defer m.script.mu.Unlock()
	return max(len(m.script.turns)-m.script.calls, 0)
}

// ModelName is the name snapshots show.
func (m *ScriptedChatModel) ModelName() string { return m.Name }

// WithTools returns a model bound to tools that plays the same script.
func (m *ScriptedChatModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	bound := *m
	bound.tools = tools
	return &bound, nil
}

// Generate answers with the next turn.
func (m *ScriptedChatModel) Generate(_ context.Context, input []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	return m.next(len(input))
}

// Stream answers with the next turn, in one chunk.
func (m *ScriptedChatModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	message, err := m.Generate(ctx, input, opts...)
	if err != nil {
		return nil, err
	}
	return schema.StreamReaderFromArray([]*schema.Message{message}), nil
}

func (m *ScriptedChatModel) next(inputLength int) (*schema.Message, error) {
	s := m.script
	s.mu.Lock()
	defer s.mu.Unlock()
	index := s.calls
	s.calls++
	if index >= len(s.turns) {
		return nil, fmt.Errorf("%w: ScriptedChatModel %q was called a %s time with %d input messages but its script has %d turns; add a turn for this call, or find out why the agent called the model again",
			ErrScriptExhausted, m.Name, ordinal(index+1), inputLength, len(s.turns))
	}
	turn := s.turns[index]
	if turn.Error != "" {
		return nil, errors.New(turn.Error)
	}
	message := &schema.Message{Role: schema.Assistant, Content: turn.Text}
	for _, call := range turn.Calls {
		id := call.ID
		if id == "" {
			id = "call_" + strconv.Itoa(s.nextID)
			s.nextID++
		}
		args := "{}"
		if call.Args != nil {
			args = compactJSON(call.Args)
		}
		message.ToolCalls = append(message.ToolCalls, schema.ToolCall{
			ID: id, Type: "function", Function: schema.FunctionCall{Name: call.Name, Arguments: args},
		})
	}
	return message, nil
}

func ordinal(number int) string {
	suffix := "th"
	if number%100 < 11 || number%100 > 13 {
		switch number % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return strconv.Itoa(number) + suffix
}

// RecordingChatModel records the FinalRequest of every call, then lets the inner model
// answer. It implements model.ToolCallingChatModel. In a run whose handlers are wrapped by
// Trace.Handler, each request carries its Provenance (which handler changed which tool and
// wrote which system-prompt line); otherwise it has none.
type RecordingChatModel struct {
	Inner    model.BaseChatModel
	tools    []*schema.ToolInfo
	recorded *recorded
}

type recorded struct {
	mu       sync.Mutex
	requests []*FinalRequest
}

// NewRecordingChatModel records the requests inner receives.
func NewRecordingChatModel(inner model.BaseChatModel) *RecordingChatModel {
	return &RecordingChatModel{Inner: inner, recorded: &recorded{}}
}

// WithTools binds tools to the recorder and, when it can, to the inner model; the
// recordings stay shared.
func (m *RecordingChatModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	bound := *m
	bound.tools = tools
	if inner, ok := m.Inner.(model.ToolCallingChatModel); ok {
		withTools, err := inner.WithTools(tools)
		if err != nil {
			return nil, err
		}
		bound.Inner = withTools
	}
	return &bound, nil
}

// Generate records the request and returns the inner model's answer.
func (m *RecordingChatModel) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	m.record(ctx, input, opts)
	return m.Inner.Generate(ctx, input, opts...)
}

// Stream records the request and returns the inner model's stream.
func (m *RecordingChatModel) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	m.record(ctx, input, opts)
	return m.Inner.Stream(ctx, input, opts...)
}

// record keeps the request, with its provenance when the run's handlers are wrapped by
// Trace.Handler (see record.go).
func (m *RecordingChatModel) record(ctx context.Context, input []*schema.Message, opts []model.Option) {
	request := RequestFromEino(modelName(m.Inner), input, m.tools, opts...)
	if rec := recordOf(ctx, callKey{}); rec != nil {
		request.Provenance = rec.provenance(requestShapeOf(request))
	}
	m.recorded.mu.Lock()
	defer m.recorded.mu.Unlock()
	m.recorded.requests = append(m.recorded.requests, request)
}

// Requests are the FinalRequests recorded so far, in call order.
func (m *RecordingChatModel) Requests() []*FinalRequest {
	m.recorded.mu.Lock()
	defer m.recorded.mu.Unlock()
	return append([]*FinalRequest(nil), m.recorded.requests...)
}

// Last is the last FinalRequest recorded, or nil before the first call.
func (m *RecordingChatModel) Last() *FinalRequest {
	requests := m.Requests()
	if len(requests) == 0 {
		return nil
	}
	return requests[len(requests)-1]
}

func modelName(inner any) string {
	if named, ok := inner.(interface{ ModelName() string }); ok {
		return named.ModelName()
	}
	return fmt.Sprintf("%T", inner)
}

// ModelName is the inner model's name.
func (m *RecordingChatModel) ModelName() string { return modelName(m.Inner) }
