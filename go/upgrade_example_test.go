package hookproof_test

// The Eino upgrade example: a trip-planning agent whose three model requests are
// snapshotted, so that `hookproof gate` can compare them across two Eino versions
// (tests/go/test_eino_upgrade_gate.py builds this file under each). It uses only the API
// Eino v0.8.x and v0.9.x share, and nothing of this package's Trace (its AfterAgent needs
// Eino v0.9), so the same source builds under both.

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	hookproof "github.com/hookproof/hookproof/go"
)

// weatherTool declares its parameters by hand, as many Eino tools do.
type weatherTool struct{}

func (weatherTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{
		Name: "get_weather",
		Desc: "The forecast for a city on a date.",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"city": {Type: schema.String, Desc: "city name", Required: true},
			"date": {Type: schema.String, Desc: "ISO date, e.g. 2026-05-02", Required: true},
			"unit": {Type: schema.String, Desc: "temperature unit", Enum: []string{"celsius", "fahrenheit"}},
		}),
	}, nil
}

func (weatherTool) InvokableRun(_ context.Context, arguments string, _ ...tool.Option) (string, error) {
	return "sunny, 24 degrees for " + arguments, nil
}

// flightSearch declares nested and numeric parameters by hand.
type flightSearch struct{}

func (flightSearch) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{
		Name: "search_flights",
		Desc: "Flights between two airports on a date, cheapest first.",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"route": {Type: schema.Object, Desc: "where from and to", Required: true,
				SubParams: map[string]*schema.ParameterInfo{
					"from": {Type: schema.String, Desc: "IATA code of the departure airport", Required: true},
					"to":   {Type: schema.String, Desc: "IATA code of the arrival airport", Required: true},
				}},
			"date":      {Type: schema.String, Desc: "ISO date of departure", Required: true},
			"max_price": {Type: schema.Number, Desc: "upper bound in EUR"},
			"cabins": {Type: schema.Array, Desc: "acceptable cabins",
				ElemInfo: &schema.ParameterInfo{Type: schema.String, Enum: []string{"economy", "business"}}},
		}),
	}, nil
}

func (flightSearch) InvokableRun(_ context.Context, arguments string, _ ...tool.Option) (string, error) {
	return "TP433 07:05 89 EUR; AF1024 12:40 132 EUR for " + arguments, nil
}

// hotelBooking is the third way: parameters inferred from a Go struct's tags.
type hotelBooking struct {
	City      string   `json:"city" jsonschema:"required,description=city to stay in"`
	Nights    int      `json:"nights" jsonschema:"required,description=number of nights,minimum=1"`
	Amenities []string `json:"amenities,omitempty" jsonschema:"description=wanted amenities"`
}

func bookHotel(_ context.Context, booking *hotelBooking) (string, error) {
	return fmt.Sprintf("booked %d nights in %s (ref H-17)", booking.Nights, booking.City), nil
}

// adminTool is configured on the agent but never offered to the model: the policy
// handler removes it before the run starts.
type adminTool struct{}

func (adminTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "refund_booking", Desc: "Refund any booking."}, nil
}

func (adminTool) InvokableRun(context.Context, string, ...tool.Option) (string, error) {
	return "refunded", nil
}

// travelPolicy is the example's ChatModelAgentMiddleware: it appends the company policy to
// the instruction, hides the admin tool, and tags every tool result with its source.
type travelPolicy struct {
	*adk.BaseChatModelAgentMiddleware
}

func (travelPolicy) BeforeAgent(ctx context.Context, run *adk.ChatModelAgentContext) (context.Context, *adk.ChatModelAgentContext, error) {
	allowed := make([]tool.BaseTool, 0, len(run.Tools))
	for _, each := range run.Tools {
		info, err := each.Info(ctx)
		if err != nil {
			return ctx, nil, err
		}
		if info.Name != "refund_booking" {
			allowed = append(allowed, each)
		}
	}
	changed := *run
	changed.Instruction = run.Instruction + "\n\nPolicy: economy cabins only; hotels under 150 EUR a night."
	changed.Tools = allowed
	return ctx, &changed, nil
}

func (travelPolicy) WrapInvokableToolCall(_ context.Context, endpoint adk.InvokableToolCallEndpoint, call *adk.ToolContext) (adk.InvokableToolCallEndpoint, error) {
	return func(ctx context.Context, arguments string, opts ...tool.Option) (string, error) {
		result, err := endpoint(ctx, arguments, opts...)
		return "[" + call.Name + "] " + result, err
	}, nil
}

// budgetGuard is a second handler, written as a team on Eino v0.8 writes it: after each
// tool round it reminds the model of the budget, returning a fresh state with the messages
// (v0.8's ChatModelAgentState has no other field), and it calls the model at a low
// temperature. Under v0.9 the fresh state's ToolInfos is nil, and the model is then offered
// no tools at all: the BREAKING change the upgrade gate reports. Kept so, on purpose;
// appending to state.Messages and returning state is the form both versions agree on.
type budgetGuard struct {
	*adk.BaseChatModelAgentMiddleware
}

func (budgetGuard) BeforeModelRewriteState(ctx context.Context, state *adk.ChatModelAgentState, _ *adk.ModelContext) (context.Context, *adk.ChatModelAgentState, error) {
	messages := state.Messages
	if len(messages) == 0 || messages[len(messages)-1].Role != schema.Tool {
		return ctx, state, nil
	}
	reminder := schema.UserMessage("Reminder: the whole trip must stay under 600 EUR.")
	return ctx, &adk.ChatModelAgentState{Messages: append(messages[:len(messages):len(messages)], reminder)}, nil
}

func (budgetGuard) WrapModel(_ context.Context, inner model.BaseChatModel, _ *adk.ModelContext) (model.BaseChatModel, error) {
	return lowTemperature{inner}, nil
}

type lowTemperature struct{ inner model.BaseChatModel }

func (m lowTemperature) Generate(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	return m.inner.Generate(ctx, input, append(opts, model.WithTemperature(0.2))...)
}

func (m lowTemperature) Stream(ctx context.Context, input []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	return m.inner.Stream(ctx, input, append(opts, model.WithTemperature(0.2))...)
}

// runTripPlanner runs the agent on a three-turn script, streaming or not, and returns its
// model's requests.
func runTripPlanner(t *testing.T, streaming bool) []*hookproof.FinalRequest {
	t.Helper()
	ctx := context.Background()
	hotel, err := utils.InferTool("book_hotel", "Book a hotel room.", bookHotel)
	if err != nil {
		t.Fatal(err)
	}
	recorder := hookproof.NewRecordingChatModel(hookproof.NewScriptedChatModel(
		hookproof.Calls(
			hookproof.Call{Name: "get_weather", Args: hookproof.NewObject("city", "Lisbon", "date", "2026-05-02", "unit", "celsius")},
			hookproof.Call{Name: "search_flights", Args: hookproof.NewObject(
				"route", hookproof.NewObject("from", "CDG", "to", "LIS"), "date", "2026-05-02", "cabins", []any{"economy"})},
		),
		hookproof.Calls(hookproof.Call{Name: "book_hotel", Args: hookproof.NewObject("city", "Lisbon", "nights", 3)}),
		hookproof.Text("Booked: TP433 on 2 May and three nights in Lisbon (ref H-17). Expect sun."),
	))
	agent, err := adk.NewChatModelAgent(ctx, &adk.ChatModelAgentConfig{
		Name:        "trip_planner",
		Description: "plans and books trips",
		Instruction: "You plan trips for {traveller}. Check the weather before booking anything.",
		Model:       recorder,
		ToolsConfig: adk.ToolsConfig{ToolsNodeConfig: compose.ToolsNodeConfig{
			Tools:               []tool.BaseTool{weatherTool{}, flightSearch{}, hotel, adminTool{}},
			ExecuteSequentially: true,
		}},
		Handlers: []adk.ChatModelAgentMiddleware{&travelPolicy{}, &budgetGuard{}},
	})
	if err != nil {
		t.Fatal(err)
	}
	iterator := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent, EnableStreaming: streaming}).Run(ctx,
		[]adk.Message{schema.UserMessage("Plan a weekend in Lisbon from Paris on 2 May.")},
		adk.WithSessionValues(map[string]any{"traveller": "Ada"}))
	for event, ok := iterator.Next(); ok; event, ok = iterator.Next() {
		if event.Err != nil {
			t.Fatalf("the trip planner's run failed: %v", event.Err)
		}
	}
	return recorder.Requests()
}

func TestTripPlannerRequests(t *testing.T) {
	for _, mode := range []string{"generate", "stream"} {
		t.Run(mode, func(t *testing.T) {
			requests := runTripPlanner(t, mode == "stream")
			if len(requests) != 3 {
				t.Fatalf("expected three model calls, got %d", len(requests))
			}
			for index, name := range []string{"first_request", "second_request", "final_request"} {
				hookproof.Snapshot(t, requests[index], name)
			}
			if first := hookproof.Render(requests[0]); !strings.Contains(first, "You plan trips for Ada.") {
				t.Fatalf("the session value did not reach the instruction:\n%s", first)
			}
		})
	}
}
