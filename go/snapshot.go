package hookproof

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Environment variables the snapshot helper reads.
const (
	// SnapshotDirEnv overrides the directory snapshots are written under (default
	// "snapshots", relative to the package directory go test runs in).
	SnapshotDirEnv = "HOOKPROOF_SNAPSHOT_DIR"
	// SnapshotUpdateEnv set to 1 writes every snapshot instead of comparing: the Go
	// counterpart of pytest --snapshot-update.
	SnapshotUpdateEnv = "HOOKPROOF_SNAPSHOT_UPDATE"
)

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// SnapshotPath is where Snapshot keeps the snapshot called name of test testName:
// <dir>/<test name>/<name>.txt, subtests as subdirectories.
func SnapshotPath(testName, name string) string {
	dir := os.Getenv(SnapshotDirEnv)
	if dir == "" {
		dir = "snapshots"
	}
	parts := []string{dir}
	for _, part := range strings.Split(testName, "/") {
		parts = append(parts, unsafeName.ReplaceAllString(part, "_"))
	}
	return filepath.Join(append(parts, unsafeName.ReplaceAllString(name, "_")+".txt")...)
}

// Snapshot compares the rendered request with its snapshot file, in the format Python's
// hookproof writes, so `hookproof gate BASELINE CANDIDATE` gates two runs of a Go suite.
// A missing or different snapshot fails the test, unless HOOKPROOF_SNAPSHOT_UPDATE=1, which
// writes it.
func Snapshot(t testing.TB, request *FinalRequest, name string) {
	t.Helper()
	if request == nil {
		t.Fatalf("hookproof: Snapshot(%q) got no request: did the model run? (RecordingChatModel.Last() is nil before the first call)", name)
		return
	}
	path := SnapshotPath(t.Name(), name)
	text := Render(request)
	if os.Getenv(SnapshotUpdateEnv) == "1" {
		if err := writeAtomically(path, text); err != nil {
			t.Fatalf("hookproof: could not write snapshot %s: %v", path, err)
		}
		return
	}
	stored, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		t.Fatalf("hookproof: no snapshot %s yet. Review the request below, then write it with %s=1 go test ./...\n%s", path, SnapshotUpdateEnv, text)
		return
	}
	if err != nil {
		t.Fatalf("hookproof: could not read snapshot %s: %v", path, err)
		return
	}
	expected := strings.ReplaceAll(string(stored), "\r\n", "\n")
	if expected != text {
		t.Fatalf("hookproof: the final request differs from snapshot %s (%s). Accept it with %s=1 go test ./..., or compare two snapshot directories with `hookproof gate`.",
			path, firstDifference(text, expected), SnapshotUpdateEnv)
	}
}

func writeAtomically(path, text string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	temporary, err := os.CreateTemp(filepath.Dir(path), ".hookproof-*")
	if err != nil {
		return err
	}
	defer os.Remove(temporary.Name())
	if _, err := temporary.WriteString(text); err != nil {
		temporary.Close()
		return err
	}
	if err := temporary.Close(); err != nil {
		return err
	}
	return os.Rename(temporary.Name(), path)
}

// firstDifference names the first line where got and expected differ.
func firstDifference(got, expected string) string {
	gotLines, expectedLines := strings.Split(got, "\n"), strings.Split(expected, "\n")
	for index := 0; index < len(gotLines) || index < len(expectedLines); index++ {
		var left, right string
		if index < len(gotLines) {
			left = gotLines[index]
		}
		if index < len(expectedLines) {
			right = expectedLines[index]
		}
		if left != right {
			return "first at line " + itoa(index+1) + ": got " + compactJSON(left) + ", snapshot has " + compactJSON(right)
		}
	}
	return "same lines"
}

func itoa(value int) string { return compactJSON(value) }
