package hookproof_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	hookproof "github.com/hookproof/hookproof/go"
	"github.com/hookproof/hookproof/go/internal/tripplanner"
)

// runPlanner runs one release of the trip planner on a scripted model, recording what the
// model receives: the app is built as in production, only its model is the test's.
func runPlanner(t *testing.T, release int) *hookproof.RecordingChatModel {
	t.Helper()
	ctx := context.Background()
	recorder := hookproof.NewRecordingChatModel(hookproof.NewScriptedChatModel(
		hookproof.Calls(hookproof.Call{Name: "search_flights", Args: hookproof.NewObject("origin", "Paris", "destination", "Rome")}),
		hookproof.Text("Take AZ 203 at 9:40."),
	))
	agent, err := tripplanner.NewAgent(ctx, tripplanner.Config{Model: recorder, Release: release})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tripplanner.Plan(ctx, agent, "Three days in Rome from Paris"); err != nil {
		t.Fatalf("release %d failed: %v", release, err)
	}
	return recorder
}

// A Go suite snapshots each release's requests and gates the upgrade with no Python: the
// new release drops a tool (BREAKING, so the gate fails) and rewords its prompt (REVIEW).
func TestTheTripPlannersUpgradeIsGatedInGo(t *testing.T) {
	root := t.TempDir()
	t.Setenv(hookproof.SnapshotUpdateEnv, "1")
	for _, release := range []int{1, 2} {
		t.Setenv(hookproof.SnapshotDirEnv, filepath.Join(root, "release", string(rune('0'+release))))
		recorder := runPlanner(t, release)
		hookproof.Snapshot(t, recorder.Requests()[0], "first_request")
		hookproof.Snapshot(t, recorder.Last(), "final_request")
	}
	baseline, candidate := filepath.Join(root, "release", "1"), filepath.Join(root, "release", "2")
	report, err := hookproof.Gate(baseline, candidate, hookproof.GateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text := report.Text()
	for _, expected := range []string{
		"BREAKING tool book_hotel: removed\n  in 2 snapshots: ",
		"REVIEW   system prompt: lines changed\n",
		"\n2 snapshots, 0 unchanged; BREAKING 2, SECURITY 0, REVIEW 2, COSMETIC 0 (2 distinct findings)\n",
		"\nFAILED: 2 change(s) of a failing class (BREAKING, SECURITY)",
	} {
		if !strings.Contains(text, expected) {
			t.Errorf("the gate's report lacks %q:\n%s", expected, text)
		}
	}
	if report.ExitCode() != 1 || report.Passed() {
		t.Errorf("a removed tool must fail the gate (exit 1), got %d", report.ExitCode())
	}
}

func TestTheSameReleaseGatedAgainstItselfPasses(t *testing.T) {
	root := t.TempDir()
	t.Setenv(hookproof.SnapshotUpdateEnv, "1")
	for _, run := range []string{"first", "second"} {
		t.Setenv(hookproof.SnapshotDirEnv, filepath.Join(root, run))
		hookproof.Snapshot(t, runPlanner(t, 2).Last(), "final_request")
	}
	report, err := hookproof.Gate(filepath.Join(root, "first"), filepath.Join(root, "second"), hookproof.GateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(report.Text(), "\n1 snapshot, 1 unchanged; BREAKING 0, SECURITY 0, REVIEW 0, COSMETIC 0 (0 distinct findings)\nPASSED: no change of a failing class (BREAKING, SECURITY)") {
		t.Errorf("two runs of one release differ:\n%s", report.Text())
	}
	if report.ExitCode() != 0 {
		t.Errorf("exit code %d", report.ExitCode())
	}
}

// The gate fails closed in Go too: a snapshot it cannot read stops it, naming the file.
func TestAGateOverAnUnreadableSnapshotIsAnError(t *testing.T) {
	root := t.TempDir()
	t.Setenv(hookproof.SnapshotUpdateEnv, "1")
	t.Setenv(hookproof.SnapshotDirEnv, filepath.Join(root, "baseline"))
	hookproof.Snapshot(t, runPlanner(t, 1).Last(), "final_request")
	damaged := filepath.Join(root, "candidate", "final_request.txt")
	if err := os.MkdirAll(filepath.Dir(damaged), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(damaged, []byte("hookproof final req"), 0o644); err != nil {
		t.Fatal(err)
	}
	report, err := hookproof.Gate(filepath.Join(root, "baseline"), filepath.Join(root, "candidate"), hookproof.GateOptions{})
	var gateErr *hookproof.GateError
	if report != nil || !errors.As(err, &gateErr) {
		t.Fatalf("an unreadable snapshot must stop the gate with a GateError, got %v", err)
	}
	if !strings.Contains(err.Error(), "candidate/final_request.txt: it ends inside its header ('hookproof final req'): it is truncated") {
		t.Errorf("the error does not name the file and its problem:\n%v", err)
	}
}
