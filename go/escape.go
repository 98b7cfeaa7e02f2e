package hookproof

import (
	"fmt"
	"strings"
)

// writeEscape writes char as Python's repr does when it escapes it: tab, newline and carriage
// return by name, any other rune hexEscaped selects as \xNN. It reports whether it wrote char.
func writeEscape(out *strings.Builder, char rune, hexEscaped func(rune) bool) bool {
	switch {
	case char == '\t':
		out.WriteString(`\t`)
	case char == '\n':
		out.WriteString(`\n`)
	case char == '\r':
		out.WriteString(`\r`)
	case hexEscaped(char):
		fmt.Fprintf(out, `\x%02x`, char)
	default:
		return false
	}
	return true
}

func isASCIIControl(char rune) bool { return char < 0x20 || char == 0x7f }

func isC0OrC1Control(char rune) bool { return char <= 0x1f || (char >= 0x7f && char <= 0x9f) }
