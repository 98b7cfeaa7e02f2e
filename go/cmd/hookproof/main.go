// Command hookproof is the Go side of hookproof's command line: `hookproof gate BASELINE
// CANDIDATE` gates two snapshot directories with no Python installed, with the exit codes,
// classes, findings and text, markdown and JSON reports of Python's `hookproof gate`.
//
//	go run github.com/hookproof/hookproof/go/cmd/hookproof gate [--fail-on CLASSES] [--format text|markdown|json] [-o FILE] [--allow-empty-baseline] BASELINE CANDIDATE
//
// Exit 0 when no change of a failing class is found, 1 when one is, 2 on bad input.
package main

import (
	"os"

	hookproof "github.com/hookproof/hookproof/go"
)

func main() {
	os.Exit(hookproof.RunCommand(os.Args[1:], os.Stdout, os.Stderr))
}
