package hookproof

import (
	"fmt"
	"strings"
	"unicode"
)

// The gate report as a pull-request comment, every snapshot string inert: written only
// inside HTML block lines, HTML-escaped, line breaks shown as ⏎, and an invisible word
// joiner after whatever GitHub would turn into a mention, reference, emoji, link or commit
// link (as Python's hookproof.gate markdown format does, character for character).

const (
	markdownDiffLines = 40
	prCommentLimit    = 65536
	wordJoiner        = '\u2060'
)

func isWordChar(char rune) bool {
	return char == '_' || unicode.IsLetter(char) || unicode.IsNumber(char)
}

func oneLineShown(text string) string {
	text = RedactText(text)
	text = strings.ReplaceAll(text, "\r\n", " ⏎ ")
	text = strings.ReplaceAll(text, "\r", " ⏎ ")
	return strings.ReplaceAll(text, "\n", " ⏎ ")
}

func inertCode(text string) string {
	return "<code>" + escapeHTML(oneLineShown(text)) + "</code>"
}

func inertText(text string) string {
	return escapeHTML(breakHexRuns(breakLinkStarts(oneLineShown(text))))
}

var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&#x27;")

// escapeHTML is Python's html.escape: quotes escaped too.
func escapeHTML(text string) string { return htmlEscaper.Replace(text) }

func foldedPrefix(runes []rune, at int, word string) bool {
	if at+len(word) > len(runes) {
		return false
	}
	return strings.EqualFold(string(runes[at:at+len(word)]), word)
}

// breakLinkStarts puts a word joiner after @, # or : before a word or slash, after "www"
// before a dot, and after "gh-" before a digit, where nothing word-like comes before.
func breakLinkStarts(text string) string {
	runes := []rune(text)
	var out strings.Builder
	before := func(at int) rune {
		if at == 0 {
			return 0
		}
		return runes[at-1]
	}
	for at := 0; at < len(runes); {
		length := 0
		next := func(offset int) rune {
			if at+offset < len(runes) {
				return runes[at+offset]
			}
			return 0
		}
		switch {
		case strings.ContainsRune("@#:", runes[at]) && (isWordChar(next(1)) || next(1) == '/'):
			length = 1
		case foldedPrefix(runes, at, "www") && next(3) == '.' && !isWordChar(before(at)) && before(at) != '.':
			length = 3
		case foldedPrefix(runes, at, "gh-") && unicode.IsDigit(next(3)) && !isWordChar(before(at)) && before(at) != '-':
			length = 3
		}
		if length == 0 {
			out.WriteRune(runes[at])
			at++
			continue
		}
		out.WriteString(string(runes[at : at+length]))
		out.WriteRune(wordJoiner)
		at += length
	}
	return out.String()
}

func isHexDigit(char rune) bool {
	return (char >= '0' && char <= '9') || (char >= 'a' && char <= 'f') || (char >= 'A' && char <= 'F')
}

// breakHexRuns breaks a word of 7 to 40 hex digits (a commit SHA GitHub would link) after
// its first digit and then every six.
func breakHexRuns(text string) string {
	runes := []rune(text)
	var out strings.Builder
	for at := 0; at < len(runes); {
		if !isWordChar(runes[at]) {
			out.WriteRune(runes[at])
			at++
			continue
		}
		end := at
		for end < len(runes) && isWordChar(runes[end]) {
			end++
		}
		out.WriteString(brokenWord(runes[at:end]))
		at = end
	}
	return out.String()
}

func brokenWord(word []rune) string {
	if len(word) < 7 || len(word) > 40 {
		return string(word)
	}
	for _, char := range word {
		if !isHexDigit(char) {
			return string(word)
		}
	}
	pieces := []string{string(word[:1])}
	for at := 1; at < len(word); at += 6 {
		pieces = append(pieces, string(word[at:min(at+6, len(word))]))
	}
	return strings.Join(pieces, string(wordJoiner))
}

func longestBacktickRun(lines []string) int {
	longest := 0
	for _, line := range lines {
		run := 0
		for _, char := range line {
			if char == '`' {
				run++
				longest = max(longest, run)
			} else {
				run = 0
			}
		}
	}
	return longest
}

func markdownSummary(found finding) string {
	what := plural(len(found.changes), "change")
	if len(found.changes) == 1 {
		what = inertText(found.changes[0].explained())
	}
	where := ""
	if len(found.paths) > 1 {
		where = fmt.Sprintf(" (in %d snapshots)", len(found.paths))
	}
	kinds := strings.Join(found.kinds(), ", ")
	return fmt.Sprintf("<summary><b>%s</b> %s: %s%s</summary>", kinds, inertText(found.section.subject), what, where)
}

func markdownPaths(paths []string) string {
	shown := make([]string, 0, 20)
	for _, path := range paths[:min(20, len(paths))] {
		shown = append(shown, inertCode(path))
	}
	more := ""
	if len(paths) > 20 {
		more = fmt.Sprintf(" and %d more", len(paths)-20)
	}
	return fmt.Sprintf("<p>in %s%s</p>", strings.Join(shown, ", "), more)
}

func markdownFinding(found finding) string {
	lines := []string{"<details>" + markdownSummary(found), "", markdownPaths(found.paths), ""}
	if len(found.changes) >= 2 {
		lines = append(lines, "<ul>")
		for _, item := range found.changes {
			lines = append(lines, "<li>"+inertText(item.describe())+"</li>")
		}
		lines = append(lines, "</ul>", "")
	}
	if diff := diffLines(found, markdownDiffLines); len(diff) > 0 {
		fence := strings.Repeat("`", max(3, longestBacktickRun(diff)+1))
		lines = append(append(append(lines, fence+"diff"), diff...), fence, "")
	}
	lines = append(lines, "</details>")
	return RedactText(strings.Join(lines, "\n"))
}

func cutNote(left, shown int) string {
	return fmt.Sprintf("\n**Report cut** at 65,536 characters, the most a pull-request comment accepts: %s not shown after the %d above. "+
		"The text, JSON and HTML reports (`--format html -o report.html`) show every one.", plural(left, "more finding"), shown)
}

// Markdown is the report as a pull-request comment: the verdict, then each finding in a
// <details> block with its diff, within 65,536 characters (the rest counted, most severe kept).
func (r *GateReport) Markdown() string {
	icon := "✅"
	if !r.Passed() {
		icon = "❌"
	}
	text := strings.Join([]string{"### " + icon + " hookproof gate", "", r.verdict(), "", r.summary()}, "\n")
	length := runeCount(text)
	for index, found := range r.findings {
		block := markdownFinding(found)
		note := cutNote(len(r.findings)-index, index)
		if length+2+runeCount(block)+runeCount(note) > prCommentLimit {
			return text + note
		}
		text += "\n\n" + block
		length += 2 + runeCount(block)
	}
	return text
}
