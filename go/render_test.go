package hookproof

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const vectorDir = "../testdata/vectors"

func TestRenderMatchesPythonOnNamedVectors(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(vectorDir, "render", "*.json"))
	if len(paths) == 0 {
		t.Fatal("no render vectors found under testdata/vectors/render")
	}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			expected, err := os.ReadFile(strings.TrimSuffix(path, ".json") + ".expected")
			if err != nil {
				t.Fatal(err)
			}
			request, err := ParseFinalRequest(data)
			if err != nil {
				t.Fatal(err)
			}
			assertSameText(t, Render(request), string(expected))
		})
	}
}

func TestRenderMatchesPythonOnRandomVectors(t *testing.T) {
	checkRandomVectors(t, "random.jsonl", 100)
}

func TestRenderMatchesPythonOnRandomVectorsWithProvenance(t *testing.T) {
	checkRandomVectors(t, "random_provenance.jsonl", 100)
}

func checkRandomVectors(t *testing.T, name string, least int) {
	t.Helper()
	eachVector(t, name, least, func(index int, item struct {
		Request  json.RawMessage `json:"request"`
		Expected string          `json:"expected"`
	}) {
		request, err := ParseFinalRequest(item.Request)
		if err != nil {
			t.Fatal(err)
		}
		if got := Render(request); got != item.Expected {
			t.Errorf("%s vector %d differs:\n%s", name, index, firstDifference(got, item.Expected))
		}
	})
}

// eachVector hands check each line of the JSON-lines file render/name of the Python vectors,
// decoded, with its index; it fails when the file holds fewer than least lines.
func eachVector[Item any](t *testing.T, name string, least int, check func(index int, item Item)) {
	t.Helper()
	file, err := os.Open(filepath.Join(vectorDir, "render", name))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	scanner := bufio.NewScanner(file)
	scanner.Buffer(make([]byte, 1<<20), 1<<24)
	count := 0
	for ; scanner.Scan(); count++ {
		var item Item
		if err := json.Unmarshal(scanner.Bytes(), &item); err != nil {
			t.Fatal(err)
		}
		check(count, item)
	}
	if err := scanner.Err(); err != nil {
		t.Fatal(err)
	}
	if count < least {
		t.Fatalf("only %d vectors in %s", count, name)
	}
}

func assertSameText(t *testing.T, got, expected string) {
	t.Helper()
	if got != expected {
		t.Errorf("rendered text differs from Python's:\n%s", firstDifference(got, expected))
	}
}
