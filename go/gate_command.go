package hookproof

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

const gateUsage = `usage: hookproof gate [-h] [--fail-on FAIL_ON] [--format {text,markdown,json}] [-o FILE] [--allow-empty-baseline] BASELINE_DIR CANDIDATE_DIR

Compare the snapshots of the same suite before (BASELINE) and after (CANDIDATE) an
upgrade. Exit 1 when a change of a failing class is found, 0 otherwise, 2 on bad input
(an unreadable *.txt, a side without snapshots).

  --fail-on FAIL_ON     comma-separated classes that fail the gate: breaking, security,
                        review, cosmetic, or none (default: breaking,security)
  --format FORMAT       text: the findings with indented diffs, a count per class, the
                        verdict last (default); markdown: a pull-request comment, cut at
                        65,536 characters; json: the verdict, counts, findings and files
                        as data (Python's hookproof also offers html)
  -o FILE, --output FILE
                        write the report here, not stdout
  --allow-empty-baseline
                        accept a baseline without snapshots (the first run of a new
                        suite); without it an empty baseline or candidate exits 2
`

type gateArguments struct {
	failOn, format, output string
	allowEmptyBaseline     bool
	directories            []string
}

func usageError(format string, args ...any) error {
	return &GateError{fmt.Sprintf("usage: hookproof gate [options] BASELINE_DIR CANDIDATE_DIR\nhookproof gate: error: "+format, args...)}
}

func parseGateArguments(args []string) (*gateArguments, error) {
	parsed := &gateArguments{failOn: "breaking,security", format: "text"}
	options := map[string]*string{"--fail-on": &parsed.failOn, "--format": &parsed.format, "-o": &parsed.output, "--output": &parsed.output}
	for index := 0; index < len(args); index++ {
		arg := args[index]
		name, value, inline := strings.Cut(arg, "=")
		if target, ok := options[name]; ok && strings.HasPrefix(arg, "-") {
			if !inline {
				if index+1 >= len(args) {
					return nil, usageError("argument %s: expected one argument", name)
				}
				index++
				value = args[index]
			}
			*target = value
			continue
		}
		switch {
		case arg == "--allow-empty-baseline":
			parsed.allowEmptyBaseline = true
		case arg == "--":
			parsed.directories = append(parsed.directories, args[index+1:]...)
			index = len(args)
		case strings.HasPrefix(arg, "-") && arg != "-":
			return nil, usageError("unrecognized arguments: %s", arg)
		default:
			parsed.directories = append(parsed.directories, arg)
		}
	}
	if len(parsed.directories) != 2 {
		return nil, usageError("expected BASELINE_DIR and CANDIDATE_DIR, got %d paths", len(parsed.directories))
	}
	return parsed, nil
}

// reportFormats are the formats the Go command renders, as Python's registry names them.
var reportFormats = map[string]func(*GateReport) string{
	"text":     (*GateReport).Text,
	"markdown": (*GateReport).Markdown,
	"json":     (*GateReport).JSON,
}

func checkFormat(format string) error {
	if reportFormats[format] != nil {
		return nil
	}
	return usageError("argument --format: invalid choice: %s (choose from 'text', 'markdown', 'json'; the html report needs Python's hookproof)", pyRepr(format))
}

// RunCommand runs `hookproof ARGS` (only the gate command is in Go) and returns its exit
// code: 0 passed, 1 a change of a failing class, 2 bad input or usage.
func RunCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "gate" {
		fmt.Fprint(stderr, "usage: hookproof gate [options] BASELINE_DIR CANDIDATE_DIR\n(the Go command runs the gate only; the others need Python's hookproof)\n")
		return 2
	}
	for _, arg := range args[1:] {
		if arg == "-h" || arg == "--help" {
			fmt.Fprint(stdout, gateUsage)
			return 0
		}
	}
	code, err := runGate(args[1:], stdout)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 2
	}
	return code
}

func runGate(args []string, stdout io.Writer) (int, error) {
	parsed, err := parseGateArguments(args)
	if err != nil {
		return 2, err
	}
	failOn, err := ParseFailOn(parsed.failOn)
	if err != nil {
		return 2, err
	}
	if err := checkFormat(parsed.format); err != nil {
		return 2, err
	}
	report, err := Gate(parsed.directories[0], parsed.directories[1], GateOptions{FailOn: failOn, AllowEmptyBaseline: parsed.allowEmptyBaseline})
	if err != nil {
		return 2, err
	}
	text := reportFormats[parsed.format](report)
	if parsed.output == "" {
		fmt.Fprintln(stdout, text)
		return report.ExitCode(), nil
	}
	return report.ExitCode(), writeReport(parsed.output, text+"\n")
}

func writeReport(output, text string) error {
	problem := ""
	parent := filepath.Dir(output)
	if info, err := os.Stat(parent); err != nil || !info.IsDir() {
		problem = fmt.Sprintf("is %s, not a directory", kindOf(parent))
	} else if info, err := os.Lstat(output); err == nil && info.IsDir() {
		problem = "is a directory, which hookproof will not replace"
	} else if err := writeAtomically(output, text); err != nil {
		problem = err.Error()
	}
	if problem == "" {
		return nil
	}
	return gateError("hookproof: cannot write the report to %s (%s). Nothing was written; pass -o a path in an existing, writable directory.", pyRepr(output), problem)
}
