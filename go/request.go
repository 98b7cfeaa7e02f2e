package hookproof

import (
	"encoding/json"
	"fmt"
	"strings"
)

// FinalRequest is exactly what the innermost model received, in hookproof's vocabulary: the
// same fields as Python's hookproof.vocabulary.FinalRequest, and the same JSON form (the
// shared test vectors are written in it).
type FinalRequest struct {
	Model          string       `json:"model"`
	SystemMessage  *Message     `json:"system_message,omitempty"`
	Messages       []Message    `json:"messages"`
	Tools          []ToolSchema `json:"tools"`
	ToolChoice     JSONValue    `json:"tool_choice"`
	ResponseFormat JSONValue    `json:"response_format"`
	ModelSettings  *Object      `json:"model_settings,omitempty"`
	// Provenance is where each tool and system-prompt line came from (nil: not recorded);
	// it is shown in the snapshot, not sent to the model.
	Provenance *Provenance `json:"provenance,omitempty"`
}

// Message is one message: role system, user, assistant or tool; content blocks are JSON
// objects with a "type" (text, image, audio, video, file, reasoning, tool_call, tool_result)
// and that block type's fields, as in hookproof.messages.
type Message struct {
	Role             string     `json:"role"`
	Content          []*Object  `json:"content"`
	ID               *string    `json:"id,omitempty"`
	Name             *string    `json:"name,omitempty"`
	AdditionalKwargs *Object    `json:"additional_kwargs,omitempty"`
	ResponseMetadata *Object    `json:"response_metadata,omitempty"`
	ToolCalls        []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID       string     `json:"tool_call_id,omitempty"`
	Status           string     `json:"status,omitempty"`
}

// Text is the message's text blocks joined by newlines (other blocks are left out), as
// Python's Message.text: what a test asserts on, e.g. recorder.Last().Messages[0].Text().
func (m Message) Text() string {
	var texts []string
	for _, block := range m.Content {
		if block != nil && block.Values["type"] == "text" {
			text, _ := block.Values["text"].(string)
			texts = append(texts, text)
		}
	}
	return strings.Join(texts, "\n")
}

// UnmarshalJSON also takes a plain string as content, as Python's coerce_message does.
func (m *Message) UnmarshalJSON(data []byte) error {
	type plain Message
	var raw struct {
		plain
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*m = Message(raw.plain)
	m.Content = nil
	if len(raw.Content) == 0 || string(raw.Content) == "null" {
		return nil
	}
	var text string
	if json.Unmarshal(raw.Content, &text) == nil {
		if text != "" {
			m.Content = []*Object{TextBlock(text)}
		}
		return nil
	}
	return json.Unmarshal(raw.Content, &m.Content)
}

// TextBlock is a text content block.
func TextBlock(text string) *Object {
	return NewObject("type", "text", "text", text)
}

// ToolCall is one tool call the model asked for; Args keep their key order.
type ToolCall struct {
	Name string  `json:"name"`
	Args *Object `json:"args,omitempty"`
	ID   *string `json:"id,omitempty"`
}

// ToolSchema is what the model is shown of a tool.
type ToolSchema struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Parameters  *Object `json:"parameters"`
}

// JSONValue holds any JSON value, objects in key order (see DecodeJSON).
type JSONValue struct {
	Value any
}

// UnmarshalJSON decodes keeping key order and the integer / float distinction.
func (v *JSONValue) UnmarshalJSON(data []byte) error {
	value, err := DecodeJSON(data)
	if err != nil {
		return fmt.Errorf("hookproof: %w", err)
	}
	v.Value = value
	return nil
}

// MarshalJSON writes the value back.
func (v JSONValue) MarshalJSON() ([]byte, error) {
	return []byte(compactJSON(v.Value)), nil
}

// ParseFinalRequest reads a FinalRequest from its JSON form.
func ParseFinalRequest(data []byte) (*FinalRequest, error) {
	var request FinalRequest
	if err := json.Unmarshal(data, &request); err != nil {
		return nil, fmt.Errorf("hookproof: not a FinalRequest in JSON: %w", err)
	}
	return &request, nil
}
