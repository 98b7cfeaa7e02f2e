// Package tripplanner is a small Eino app, written as a team writes one for production: a
// ChatModelAgent with two tools and three handlers. It knows nothing of hookproof; its
// tests (go/instrument_example_test.go) trace and snapshot it from the outside, by
// instrumenting the configuration AgentConfig returns.
package tripplanner

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"
)

// AgentConfig is the trip planner's configuration on chatModel.
func AgentConfig(chatModel model.ToolCallingChatModel) *adk.ChatModelAgentConfig {
	return &adk.ChatModelAgentConfig{
		Name:        "trip_planner",
		Description: "plans weekend trips",
		Instruction: "You plan weekend trips.\nCheck the weather before suggesting flights.",
		Model:       chatModel,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{
			Tools:               []tool.BaseTool{weather{}, flights{}},
			ExecuteSequentially: true,
		}},
		Handlers: []adk.ChatModelAgentMiddleware{&Persona{Tone: "cheerful"}, &SourceTags{}, &Budget{EUR: 400}},
	}
}

// New is the trip planner's agent.
func New(ctx context.Context, chatModel model.ToolCallingChatModel) (adk.Agent, error) {
	return adk.NewChatModelAgent(ctx, AgentConfig(chatModel))
}

type weather struct{}

func (weather) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "get_weather", Desc: "The weekend forecast for a city.",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"city": {Type: schema.String, Desc: "city name", Required: true},
		})}, nil
}

func (weather) InvokableRun(_ context.Context, arguments string, _ ...tool.Option) (string, error) {
	var args struct{ City string }
	if err := json.Unmarshal([]byte(arguments), &args); err != nil {
		return "", err
	}
	return "sunny in " + args.City, nil
}

type flights struct{}

func (flights) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "search_flights", Desc: "Flights between two airports, cheapest first.",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"from": {Type: schema.String, Desc: "IATA code of the departure airport", Required: true},
			"to":   {Type: schema.String, Desc: "IATA code of the arrival airport", Required: true},
		})}, nil
}

func (flights) InvokableRun(context.Context, string, ...tool.Option) (string, error) {
	return "TP433 89 EUR; AF1024 132 EUR", nil
}

// Persona sets the planner's tone, in the instruction, once per run.
type Persona struct {
	*adk.BaseChatModelAgentMiddleware
	Tone string
}

func (p *Persona) BeforeAgent(ctx context.Context, run *adk.ChatModelAgentContext) (context.Context, *adk.ChatModelAgentContext, error) {
	changed := *run
	changed.Instruction = run.Instruction + "\nBe " + p.Tone + "."
	return ctx, &changed, nil
}

// SourceTags prefixes each tool result with the tool's name.
type SourceTags struct {
	*adk.BaseChatModelAgentMiddleware
}

func (*SourceTags) WrapInvokableToolCall(_ context.Context, endpoint adk.InvokableToolCallEndpoint, call *adk.ToolContext) (adk.InvokableToolCallEndpoint, error) {
	return func(ctx context.Context, arguments string, opts ...tool.Option) (string, error) {
		result, err := endpoint(ctx, arguments, opts...)
		return "[" + call.Name + "] " + result, err
	}, nil
}

// Budget reminds the model of the budget after flights were searched.
type Budget struct {
	*adk.BaseChatModelAgentMiddleware
	EUR int
}

func (b *Budget) BeforeModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	last := state.Messages[len(state.Messages)-1]
	if last.Role == schema.Tool && last.ToolName == "search_flights" {
		state.Messages = append(state.Messages, schema.UserMessage("Budget: "+strconv.Itoa(b.EUR)+" EUR for the whole trip."))
	}
	return ctx, state, nil
}
