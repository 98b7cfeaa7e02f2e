package hookproof_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/schema"

	hookproof "github.com/hookproof/hookproof/go"
	"github.com/hookproof/hookproof/go/example/tripplanner"
)

// planTrip runs the trip planner (go/example/tripplanner, an app with no test code) on a
// scripted model, instrumented from the test: its trace and its model's requests.
func planTrip(ctx context.Context) (*hookproof.Trace, *hookproof.RecordingChatModel, error) {
	recorder := hookproof.NewRecordingChatModel(hookproof.NewScriptedChatModel(
		hookproof.Calls(hookproof.Call{Name: "get_weather", Args: hookproof.NewObject("city", "Lisbon")}),
		hookproof.Calls(hookproof.Call{Name: "search_flights", Args: hookproof.NewObject("from", "CDG", "to", "LIS")}),
		hookproof.Text("Fly TP433 for 89 EUR: Lisbon will be sunny."),
	))
	trace := hookproof.NewTrace()
	agent, err := adk.NewChatModelAgent(ctx, trace.Instrument(tripplanner.AgentConfig(recorder)))
	if err != nil {
		return nil, nil, err
	}
	iterator := adk.NewRunner(ctx, adk.RunnerConfig{Agent: agent}).
		Run(ctx, []adk.Message{schema.UserMessage("A weekend in Lisbon from Paris?")})
	for event, ok := iterator.Next(); ok; event, ok = iterator.Next() {
		if event.Err != nil {
			return nil, nil, event.Err
		}
	}
	return trace, recorder, nil
}

// A test instruments the configuration an app builds, then builds the agent from it: the
// trace shows each hook the app's handlers define, and nothing they only inherit.
func ExampleTrace_Instrument() {
	trace, recorder, err := planTrip(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(trace.Format())
	fmt.Println(recorder.Last().Messages[len(recorder.Last().Messages)-1].Text())
	// Output:
	// Persona.before_agent:enter
	// Persona.before_agent:exit
	// Budget.before_model_rewrite_state:enter
	// Budget.before_model_rewrite_state:exit
	// model:enter (model='scripted', tools=('get_weather', 'search_flights'))
	// model:exit (model='scripted', tool_calls=('get_weather',))
	// SourceTags.tool_wrapper:enter (tool='get_weather', call_id='call_0')
	// SourceTags.tool_wrapper:exit (tool='get_weather', call_id='call_0')
	// Budget.before_model_rewrite_state:enter
	// Budget.before_model_rewrite_state:exit
	// model:enter (model='scripted', tools=('get_weather', 'search_flights'))
	// model:exit (model='scripted', tool_calls=('search_flights',))
	// SourceTags.tool_wrapper:enter (tool='search_flights', call_id='call_1')
	// SourceTags.tool_wrapper:exit (tool='search_flights', call_id='call_1')
	// Budget.before_model_rewrite_state:enter
	// Budget.before_model_rewrite_state:exit
	// model:enter (model='scripted', tools=('get_weather', 'search_flights'))
	// model:exit (model='scripted', tool_calls=())
	// Budget: 400 EUR for the whole trip.
}

// The app's final request, snapshotted with the provenance its handlers' changes left.
func TestTripPlannerFinalRequestWithProvenance(t *testing.T) {
	_, recorder, err := planTrip(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(recorder.Requests()) != 3 {
		t.Fatalf("expected three model calls, got %d", len(recorder.Requests()))
	}
	final := hookproof.Render(recorder.Last())
	for _, expected := range []string{"system 3: Persona", "Budget: 400 EUR for the whole trip."} {
		if !strings.Contains(final, expected) {
			t.Errorf("the final request lacks %q:\n%s", expected, final)
		}
	}
	hookproof.Snapshot(t, recorder.Last(), "final_request")
}

// Instrument copies: the app's own configuration keeps its handlers and model unwrapped.
func TestInstrumentLeavesTheAppsConfigurationAsItWas(t *testing.T) {
	recorder := hookproof.NewRecordingChatModel(hookproof.NewScriptedChatModel(hookproof.Text("hi")))
	config := tripplanner.AgentConfig(recorder)
	handlers := append([]adk.ChatModelAgentMiddleware(nil), config.Handlers...)
	instrumented := hookproof.NewTrace().Instrument(config)
	if config.Model != recorder || instrumented.Model == recorder {
		t.Fatal("the model: the app's config changed, or the copy's is not traced")
	}
	for index := range handlers {
		if config.Handlers[index] != handlers[index] || instrumented.Handlers[index] == handlers[index] {
			t.Fatalf("handler %d: the app's config changed, or the copy's is not traced", index)
		}
	}
	if hookproof.NewTrace().Instrument(nil) != nil {
		t.Fatal("a nil config should give nil")
	}
}

// Handlers are named by their Go type, numbered where a type repeats, as Python names them.
func TestInstrumentNamesHandlersByTheirType(t *testing.T) {
	ctx := context.Background()
	recorder := hookproof.NewRecordingChatModel(hookproof.NewScriptedChatModel(hookproof.Text("hi")))
	trace := hookproof.NewTrace()
	config := trace.Instrument(&adk.ChatModelAgentConfig{
		Name: "twice", Description: "two personas", Instruction: "Hi.", Model: recorder,
		Handlers: []adk.ChatModelAgentMiddleware{
			&tripplanner.Persona{Tone: "calm"}, &tripplanner.Budget{EUR: 1}, &tripplanner.Persona{Tone: "brief"},
		},
	})
	agent, err := adk.NewChatModelAgent(ctx, config)
	if err != nil {
		t.Fatal(err)
	}
	runToEnd(ctx, t, agent)
	got := strings.Join(trace.Labels(), "\n")
	expected := strings.Join([]string{
		"Persona#1.before_agent:enter", "Persona#1.before_agent:exit",
		"Persona#2.before_agent:enter", "Persona#2.before_agent:exit",
		"Budget.before_model_rewrite_state:enter", "Budget.before_model_rewrite_state:exit",
		"model:enter", "model:exit",
	}, "\n")
	if got != expected {
		t.Fatalf("trace:\n%s\nexpected:\n%s", got, expected)
	}
	if !strings.Contains(recorder.Last().SystemMessage.Text(), "Be calm.\nBe brief.") {
		t.Fatalf("system message: %q", recorder.Last().SystemMessage.Text())
	}
}
