package hookproof

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// RequestFromEino is the FinalRequest for an Eino model call, shaped as hookproof.eino
// shapes it: a leading system message becomes the system message; the options' tools (else
// the bound ones) are the tools; every other option set is a setting.
func RequestFromEino(name string, input []*schema.Message, bound []*schema.ToolInfo, opts ...model.Option) *FinalRequest {
	options := model.GetCommonOptions(&model.Options{}, opts...)
	request := &FinalRequest{Model: name, ModelSettings: settingsOf(options)}
	if options.Model != nil {
		request.Model = *options.Model
	}
	if len(input) > 0 && input[0] != nil && input[0].Role == schema.System {
		system := MessageFromEino(input[0])
		request.SystemMessage = &system
		input = input[1:]
	}
	for _, message := range input {
		if message != nil {
			request.Messages = append(request.Messages, MessageFromEino(message))
		}
	}
	tools := bound
	if options.Tools != nil {
		tools = options.Tools
	}
	for _, info := range tools {
		request.Tools = append(request.Tools, ToolFromEino(info))
	}
	return request
}

func float32Value(value float32) json.Number {
	// float32 -> shortest decimal: 0.7 stays 0.7 rather than 0.699999988079071.
	text := strconv.FormatFloat(float64(value), 'g', -1, 32)
	parsed, _ := strconv.ParseFloat(text, 64)
	return json.Number(pythonFloat(parsed))
}

func settingsOf(options *model.Options) *Object {
	settings := NewObject()
	if options.Temperature != nil {
		settings.Set("temperature", float32Value(*options.Temperature))
	}
	if options.TopP != nil {
		settings.Set("top_p", float32Value(*options.TopP))
	}
	if options.MaxTokens != nil {
		settings.Set("max_tokens", *options.MaxTokens)
	}
	if options.Stop != nil {
		stop := []any{}
		for _, item := range options.Stop {
			stop = append(stop, item)
		}
		settings.Set("stop", stop)
	}
	if options.ToolChoice != nil {
		settings.Set("tool_choice", string(*options.ToolChoice))
	}
	return settings
}

// MessageFromEino converts an Eino message: reasoning, then text, then multi-content text
// and image URLs as blocks; tool calls with their JSON arguments; a tool message's tool name
// as its name; Extra (where Eino keeps the message id) as additional_kwargs, as
// hookproof.eino does.
func MessageFromEino(message *schema.Message) Message {
	converted := Message{Role: string(message.Role)}
	if message.ReasoningContent != "" {
		converted.Content = append(converted.Content, NewObject("type", "reasoning", "reasoning", message.ReasoningContent))
	}
	if message.Content != "" {
		converted.Content = append(converted.Content, TextBlock(message.Content))
	}
	for _, part := range message.MultiContent {
		if part.Type == schema.ChatMessagePartTypeText {
			converted.Content = append(converted.Content, TextBlock(part.Text))
		} else if part.Type == schema.ChatMessagePartTypeImageURL && part.ImageURL != nil {
			converted.Content = append(converted.Content, NewObject("type", "image", "url", part.ImageURL.URL))
		}
	}
	name := message.Name
	if message.Role == schema.Tool {
		converted.ToolCallID = message.ToolCallID
		if message.ToolName != "" {
			name = message.ToolName
		}
	}
	if name != "" {
		converted.Name = &name
	}
	if len(message.Extra) > 0 {
		converted.AdditionalKwargs = objectOf(message.Extra)
	}
	for _, call := range message.ToolCalls {
		id := call.ID
		converted.ToolCalls = append(converted.ToolCalls, ToolCall{Name: call.Function.Name, Args: argumentsOf(call.Function.Arguments), ID: &id})
	}
	return converted
}

// objectOf is a Go map as an Object, keys sorted (a map has no order of its own); values
// that JSON cannot hold are shown as text.
func objectOf(values map[string]any) *Object {
	keys := make([]string, 0, len(values))
	for key := range values {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	object := NewObject()
	for _, key := range keys {
		data, err := json.Marshal(values[key])
		if err != nil {
			object.Set(key, fmt.Sprint(values[key]))
			continue
		}
		value, _ := DecodeJSON(data)
		object.Set(key, value)
	}
	return object
}

// argumentsOf reads a call's JSON arguments; text that is not a JSON object is kept whole
// under "__arguments__", so a malformed call still shows in the snapshot.
func argumentsOf(arguments string) *Object {
	if arguments == "" {
		return NewObject()
	}
	value, err := DecodeJSON([]byte(arguments))
	if object, ok := value.(*Object); err == nil && ok {
		return object
	}
	return NewObject("__arguments__", arguments)
}

// ToolFromEino is the schema the model is shown of an Eino tool.
func ToolFromEino(info *schema.ToolInfo) ToolSchema {
	tool := ToolSchema{Name: info.Name, Description: info.Desc, Parameters: NewObject("type", "object", "properties", NewObject())}
	if info.ParamsOneOf == nil {
		return tool
	}
	jsonSchema, err := info.ParamsOneOf.ToJSONSchema()
	if err != nil || jsonSchema == nil {
		return tool
	}
	data, err := json.Marshal(jsonSchema)
	if err != nil {
		return tool
	}
	if value, err := DecodeJSON(data); err == nil {
		if object, ok := value.(*Object); ok {
			tool.Parameters = object
		}
	}
	return tool
}
