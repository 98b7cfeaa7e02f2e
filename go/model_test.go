package hookproof

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

func TestAScriptReadsEveryTurnShapeFromJSON(t *testing.T) {
	turns, err := ParseScript([]byte(`["hello", {"call": "search", "args": {"q": "x", "a": 1}},
		[{"call": "a"}, {"call": "b", "id": "mine"}], {"error": "rate limited"}]`))
	if err != nil {
		t.Fatal(err)
	}
	scripted := NewScriptedChatModel(turns...)
	ctx := context.Background()
	first, _ := scripted.Generate(ctx, nil)
	second, _ := scripted.Generate(ctx, nil)
	third, _ := scripted.Generate(ctx, nil)
	_, failure := scripted.Generate(ctx, nil)
	if first.Content != "hello" || len(first.ToolCalls) != 0 {
		t.Fatalf("text turn: %+v", first)
	}
	if call := second.ToolCalls[0]; call.ID != "call_0" || call.Function.Arguments != `{"a": 1, "q": "x"}` {
		t.Fatalf("call turn: %+v", call)
	}
	if third.ToolCalls[0].ID != "call_1" || third.ToolCalls[1].ID != "mine" {
		t.Fatalf("calls turn: %+v", third.ToolCalls)
	}
	if failure == nil || failure.Error() != "rate limited" {
		t.Fatalf("error turn: %v", failure)
	}
	_, exhausted := scripted.Generate(ctx, []*schema.Message{schema.UserMessage("x")})
	if !errors.Is(exhausted, ErrScriptExhausted) || !strings.Contains(exhausted.Error(), "called a 5th time") {
		t.Fatalf("exhausted: %v", exhausted)
	}
}

func TestABadTurnIsRefusedSayingWhatATurnIs(t *testing.T) {
	_, err := ParseScript([]byte(`[{"text": "x"}]`))
	if err == nil || !strings.Contains(err.Error(), `neither {"call"`) {
		t.Fatalf("got %v", err)
	}
}

func TestTheRecorderTakesToolsFromTheOptionsElseTheBoundOnes(t *testing.T) {
	bound := []*schema.ToolInfo{{Name: "bound", Desc: "b"}}
	recorder, _ := NewRecordingChatModel(NewScriptedChatModel(Text("a"), Text("b"))).WithTools(bound)
	ctx := context.Background()
	input := []*schema.Message{schema.SystemMessage("sys"), schema.UserMessage("hi")}
	temperature := float32(0.7)
	_, _ = recorder.Generate(ctx, input, model.WithTemperature(temperature))
	_, _ = recorder.Generate(ctx, input, model.WithTools([]*schema.ToolInfo{{Name: "option"}}))
	requests := recorder.(*RecordingChatModel).Requests()
	if requests[0].Tools[0].Name != "bound" || requests[1].Tools[0].Name != "option" {
		t.Fatalf("tools: %+v / %+v", requests[0].Tools, requests[1].Tools)
	}
	if requests[0].SystemMessage == nil || len(requests[0].Messages) != 1 {
		t.Fatal("a leading system message becomes the system message")
	}
	if got := compactJSON(requests[0].ModelSettings); got != `{"temperature": 0.7}` {
		t.Fatalf("settings: %s", got)
	}
}

func TestSnapshotFailsOnAMissingOrChangedFileAndWritesOnUpdate(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(SnapshotDirEnv, dir)
	request := &FinalRequest{Model: "m"}
	probe := &fakeT{TB: t}
	Snapshot(probe, request, "one")
	if !strings.Contains(probe.failure, "no snapshot") {
		t.Fatalf("missing: %q", probe.failure)
	}
	t.Setenv(SnapshotUpdateEnv, "1")
	Snapshot(t, request, "one")
	path := SnapshotPath(t.Name(), "one")
	if !strings.HasPrefix(path, dir) || filepath.Base(path) != "one.txt" {
		t.Fatalf("path %s", path)
	}
	t.Setenv(SnapshotUpdateEnv, "")
	Snapshot(t, request, "one")
	probe = &fakeT{TB: t}
	Snapshot(probe, &FinalRequest{Model: "other"}, "one")
	if !strings.Contains(probe.failure, `first at line 2: got "model: \"other\""`) {
		t.Fatalf("changed: %q", probe.failure)
	}
	stored, _ := os.ReadFile(path)
	if string(stored) != Render(request) {
		t.Fatal("a failed comparison must leave the snapshot as it was")
	}
}

type fakeT struct {
	testing.TB
	failure string
}

func (f *fakeT) Fatalf(format string, args ...any) {
	f.failure = strings.TrimSpace(strings.ReplaceAll(sprintf(format, args...), "\n", " "))
}

func (f *fakeT) Helper() {}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

func TestTextIsTheTextBlocksJoinedAsInPython(t *testing.T) {
	message := MessageFromEino(&schema.Message{
		Role: schema.Assistant, ReasoningContent: "thinking", Content: "first",
		MultiContent: []schema.ChatMessagePart{
			{Type: schema.ChatMessagePartTypeImageURL, ImageURL: &schema.ChatMessageImageURL{URL: "u"}},
			{Type: schema.ChatMessagePartTypeText, Text: "second"},
		},
	})
	if got := message.Text(); got != "first\nsecond" {
		t.Fatalf("Text() = %q, expected the two text blocks joined", got)
	}
	if got := (Message{Role: "tool"}).Text(); got != "" {
		t.Fatalf("Text() of a message without text = %q", got)
	}
}
