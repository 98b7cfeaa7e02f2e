package hookproof

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
)

type gateRun struct {
	Code    int     `json:"code"`
	Stdout  string  `json:"stdout"`
	Stderr  string  `json:"stderr"`
	Written *string `json:"written"`
}

type gateVector struct {
	Name string                     `json:"name"`
	Tree map[string]json.RawMessage `json:"tree"`
	Args []string                   `json:"args"`
	Runs map[string]gateRun         `json:"runs"`
}

func readGateVectors(t *testing.T) []gateVector {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "vectors", "gate.jsonl"))
	if err != nil {
		t.Fatalf("the gate's shared vectors cannot be read (%v): regenerate them with python -m tests.go.gate_vectors", err)
	}
	var vectors []gateVector
	for _, line := range bytes.Split(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var vector gateVector
		if err := json.Unmarshal(line, &vector); err != nil {
			t.Fatalf("a gate vector is not JSON: %v", err)
		}
		vectors = append(vectors, vector)
	}
	return vectors
}

func materialise(t *testing.T, root string, tree map[string]json.RawMessage) {
	t.Helper()
	names := make([]string, 0, len(tree))
	for name := range tree {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := writeEntry(path, tree[name]); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

func writeEntry(path string, raw json.RawMessage) error {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return os.WriteFile(path, []byte(text), 0o644)
	}
	var entry struct {
		Hex  *string `json:"hex"`
		Link *string `json:"link"`
		Dir  bool    `json:"dir"`
		Fifo bool    `json:"fifo"`
	}
	if err := json.Unmarshal(raw, &entry); err != nil {
		return err
	}
	switch {
	case entry.Hex != nil:
		data, err := hex.DecodeString(*entry.Hex)
		if err != nil {
			return err
		}
		return os.WriteFile(path, data, 0o644)
	case entry.Link != nil:
		return os.Symlink(*entry.Link, path)
	case entry.Dir:
		return os.MkdirAll(path, 0o755)
	case entry.Fifo:
		return syscall.Mkfifo(path, 0o644)
	}
	return nil
}

// runIn runs the Go command in directory, its absolute path written $ROOT, as the vectors are.
func runIn(t *testing.T, directory string, args []string) gateRun {
	t.Helper()
	previous, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(directory); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = os.Chdir(previous) }()
	var stdout, stderr bytes.Buffer
	code := RunCommand(append([]string{"gate"}, args...), &stdout, &stderr)
	resolved, _ := filepath.EvalSymlinks(directory)
	run := gateRun{code, strings.ReplaceAll(stdout.String(), resolved, "$ROOT"), strings.ReplaceAll(stderr.String(), resolved, "$ROOT"), nil}
	if written, err := os.ReadFile("report.txt"); err == nil { // -o report.txt, gone before the next run
		text := string(written)
		run.Written = &text
		_ = os.Remove("report.txt")
	}
	return run
}

func TestGateMatchesPythonOnTheSharedVectors(t *testing.T) {
	vectors := readGateVectors(t)
	if len(vectors) < 330 {
		t.Fatalf("only %d gate vectors: the file is cut short", len(vectors))
	}
	for _, vector := range vectors {
		t.Run(vector.Name, func(t *testing.T) {
			root := t.TempDir()
			materialise(t, root, vector.Tree)
			for _, format := range []string{"text", "markdown", "json"} {
				expected, ok := vector.Runs[format]
				if !ok {
					t.Fatalf("the vector has no %s run", format)
				}
				got := runIn(t, root, append(append([]string{}, vector.Args...), "--format", format))
				if got.Code != expected.Code {
					t.Errorf("%s: exit code %d, Python's %d\n%s%s", format, got.Code, expected.Code, got.Stdout, got.Stderr)
				}
				assertSameOutput(t, format+" stdout", got.Stdout, expected.Stdout)
				assertSameOutput(t, format+" stderr", got.Stderr, expected.Stderr)
				if (got.Written == nil) != (expected.Written == nil) {
					t.Errorf("%s: wrote a report: %v, Python's: %v", format, got.Written != nil, expected.Written != nil)
				} else if got.Written != nil {
					assertSameOutput(t, format+" report file", *got.Written, *expected.Written)
				}
			}
		})
	}
}

func assertSameOutput(t *testing.T, what, got, expected string) {
	t.Helper()
	if got == expected {
		return
	}
	t.Errorf("%s differs from Python's, %s", what, firstDifference(got, expected))
}

func TestTheGoCommandRefusesWhatItDoesNotOffer(t *testing.T) {
	for _, args := range [][]string{
		{"gate", "--format", "html", "a", "b"},
		{"gate", "a"},
		{"gate", "--fail", "review", "a", "b"},
		{"review"},
	} {
		var stdout, stderr bytes.Buffer
		if code := RunCommand(args, &stdout, &stderr); code != 2 || stdout.Len() != 0 || !strings.Contains(stderr.String(), "usage: hookproof gate") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; expected exit 2 and a usage message", args, code, stdout.String(), stderr.String())
		}
	}
}
