package hookproof

import (
	"strings"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
)

// Redacted replaces every secret hookproof finds, as in Python's hookproof.redaction.
const Redacted = "[REDACTED]"

// The built-in redaction of hookproof.redaction, rule for rule, in the syntax of a
// backtracking engine: the rules need look-behind and back-references, which Go's regexp
// lacks. A Go snapshot must hide the same secrets as a Python one, byte for byte.

var exactFields = map[string]bool{
	"token": true, "authorization": true, "proxyauthorization": true, "cookie": true,
	"setcookie": true, "passwd": true, "credentials": true, "subscriptionkey": true,
	"ocpapimsubscriptionkey": true,
}

var fieldSuffixes = []string{
	"apikey", "secret", "password", "token", "secretkey", "secretaccesskey", "privatekey",
	"accountkey", "signingkey", "encryptionkey",
}

// ordinaryTokenFields end in "token" but name no credential: a model's or tokenizer's
// control tokens and pagination cursors, compared whole, as in Python.
var ordinaryTokenFields = map[string]bool{
	"eostoken": true, "bostoken": true, "padtoken": true, "unktoken": true, "septoken": true,
	"clstoken": true, "masktoken": true, "stoptoken": true, "starttoken": true,
	"endtoken": true, "decoderstarttoken": true, "forcedbostoken": true,
	"forcedeostoken": true, "pagetoken": true, "nextpagetoken": true,
	"continuationtoken": true,
}

// IsSensitiveField says whether a data key names a secret (api_key, Authorization, ...):
// case-insensitive, "-" and "_" ignored, as in Python.
func IsSensitiveField(name string) bool {
	key := fieldKey(name)
	return exactFields[key] || (hasSuffix(key, fieldSuffixes) && !ordinaryTokenFields[key])
}

// fieldKey is Python's _field_key: lower case, "-" and "_" removed.
func fieldKey(name string) string {
	return strings.NewReplacer("-", "", "_", "").Replace(pythonLower(name))
}

func hasSuffix(key string, suffixes []string) bool {
	for _, suffix := range suffixes {
		if strings.HasSuffix(key, suffix) {
			return true
		}
	}
	return false
}

const (
	wordChars       = "A-Za-z0-9_-"
	awsIDPrefix     = "(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|AROA|ANPA|ANVA)"
	credentialNames = `api[_-]?key|api[_-]?token|access[_-]?token|auth[_-]?token|refresh[_-]?token` +
		`|session[_-]?token|client[_-]?secret|secret(?:[_-]?access)?[_-]?key` +
		`|private[_-]?key|password|passwd|authorization|subscription[_-]?key`
	quotedValue = `\\?(?<q>["'])(?:(?:bearer|basic|token|digest)\s+)?` +
		`(?<s>(?:(?!\\?\k<q>)[^\r\n])+)\\?\k<q>`
	valueChar = "[^\\s\"'`,;{}\\[\\]<>()\\\\]"
)

func notAfter(characters, prefix string) string {
	return "(?:(?<![" + characters + "]" + prefix + ")|(?<=\\\\[nrt]" + prefix + "))"
}

func token(prefix, tail string) string {
	return prefix + notAfter(wordChars, prefix) + tail
}

type gate func(text, lowered string) bool

type rule struct {
	pattern *regexp2.Regexp
	gate    gate
	// replace, when set, replaces a match instead of keepAround: it may keep a match that
	// turns out not to be a secret.
	replace func(regexp2.Match) string
}

func newRule(pattern string, check gate) rule {
	return rule{regexp2.MustCompile(pythonPattern(pattern), regexp2.None), check, nil}
}

// pythonPattern rewrites a pattern written as in Python's re into one regexp2 matches the
// same way. Python's \s also holds the separators U+001C..U+001F, which regexp2's lacks.
// Under (?i), Python folds "ſ" (U+017F) with "s" and "ı" (U+0131) with "i", where regexp2
// only compares lower cases (which already folds "K" U+212A with "k" and "İ" U+0130 with
// "i"): a literal s or i becomes a class holding both, and a class with a letter range
// gains both (first: a class may end in "-"). The patterns here use (?i) at their start
// or (?i:...) and (?-i:...) groups.
func pythonPattern(pattern string) string {
	const space = `\s\x1c-\x1f`
	runes := []rune(pattern)
	var out strings.Builder
	var scopes []bool
	folding := false
	for index := 0; index < len(runes); index++ {
		char := runes[index]
		switch {
		case char == '\\' && index+1 < len(runes):
			index++
			switch runes[index] {
			case 's':
				out.WriteString("[" + space + "]")
			case 'k':
				end := index
				for end < len(runes) && runes[end] != '>' {
					end++
				}
				out.WriteString("\\" + string(runes[index:end+1]))
				index = end
			default:
				out.WriteString("\\" + string(runes[index]))
			}
		case char == '[':
			end := index + 1
			if end < len(runes) && runes[end] == '^' {
				end++
			}
			var body strings.Builder
			for ; end < len(runes) && runes[end] != ']'; end++ {
				if runes[end] == '\\' && end+1 < len(runes) {
					end++
					if runes[end] == 's' {
						body.WriteString(space)
					} else {
						body.WriteString("\\" + string(runes[end]))
					}
					continue
				}
				body.WriteRune(runes[end])
			}
			class := body.String()
			if folding && (strings.Contains(class, "a-z") || strings.Contains(class, "A-Z")) {
				class = "\u017F\u0131" + class
			}
			open := "["
			if index+1 < len(runes) && runes[index+1] == '^' {
				open = "[^"
			}
			out.WriteString(open + class + "]")
			index = end
		case char == '(':
			rest := string(runes[index:])
			if group, found := flagGroupAt(rest); found {
				if group.opens {
					scopes = append(scopes, folding)
				}
				folding = group.folding
				out.WriteString(group.text)
				index += len(group.text) - 1
				continue
			}
			scopes = append(scopes, folding)
			if strings.HasPrefix(rest, "(?<") && !strings.HasPrefix(rest, "(?<=") &&
				!strings.HasPrefix(rest, "(?<!") {
				end := strings.IndexRune(rest, '>')
				out.WriteString(rest[:end+1])
				index += utf8.RuneCountInString(rest[:end+1]) - 1
				continue
			}
			out.WriteRune(char)
		case char == ')':
			if len(scopes) > 0 {
				folding, scopes = scopes[len(scopes)-1], scopes[:len(scopes)-1]
			}
			out.WriteRune(char)
		case folding && (char == 's' || char == 'S'):
			out.WriteString("[s\u017F]")
		case folding && (char == 'i' || char == 'I'):
			out.WriteString("[i\u0131]")
		default:
			out.WriteRune(char)
		}
	}
	return out.String()
}

// flagGroup is one of the case-folding switches the patterns use: what it sets folding to,
// and whether it opens a group whose ")" restores the folding before it.
type flagGroup struct {
	text           string
	folding, opens bool
}

var flagGroups = []flagGroup{{"(?i)", true, false}, {"(?i:", true, true}, {"(?-i:", false, true}}

func flagGroupAt(rest string) (flagGroup, bool) {
	for _, group := range flagGroups {
		if strings.HasPrefix(rest, group.text) {
			return group, true
		}
	}
	return flagGroup{}, false
}

// pythonLower is Python's str.lower() for what the rules look for: Go lowers "İ" (U+0130)
// to "i", Python to "i" and a combining dot above, which a search for "sig" must not find.
func pythonLower(text string) string {
	lowered := strings.ToLower(text)
	if strings.ContainsRune(text, '\u0130') {
		var out strings.Builder
		for _, char := range text {
			if char == '\u0130' {
				out.WriteString("i\u0307")
			} else {
				out.WriteString(strings.ToLower(string(char)))
			}
		}
		return out.String()
	}
	return lowered
}

var awsID = regexp2.MustCompile(awsIDPrefix, regexp2.None)

func namesAWS(text, lowered string) bool {
	found, _ := awsID.MatchString(text)
	return strings.Contains(lowered, "secret") || strings.Contains(lowered, "aws") || found
}

var credentialHeads = []struct {
	word  string
	heads []string
}{
	{"key", []string{"api", "secret", "access", "private", "subscription"}},
	{"token", []string{"api", "access", "auth", "refresh", "session"}},
	{"secret", []string{"client"}},
}

func namesCredential(_, lowered string) bool {
	if strings.Contains(lowered, "passw") || strings.Contains(lowered, "authorization") {
		return true
	}
	runes := []rune(lowered)
	for _, item := range credentialHeads {
		if preceded(runes, item.word, item.heads) {
			return true
		}
	}
	return false
}

func indexesOf(runes []rune, word string) []int {
	target := []rune(word)
	var found []int
	for index := 0; index+len(target) <= len(runes); index++ {
		if string(runes[index:index+len(target)]) == word {
			found = append(found, index)
		}
	}
	return found
}

func preceded(runes []rune, word string, heads []string) bool {
	for _, index := range indexesOf(runes, word) {
		window := strings.TrimRight(string(runes[max(0, index-14):index]), "_-")
		for _, head := range heads {
			if strings.HasSuffix(window, head) {
				return true
			}
		}
	}
	return false
}

func namesQuotedCredential(text, lowered string) bool {
	if namesCredential(text, lowered) {
		return true
	}
	runes := []rune(lowered)
	for _, word := range []string{"token", "secret", "credentials"} {
		for _, index := range indexesOf(runes, word) {
			next := index + len([]rune(word))
			if next < len(runes) && strings.ContainsRune("\"'\\=:", runes[next]) {
				return true
			}
		}
	}
	return false
}

// The spellings of a URL's authority and userinfo, as in Python.
const (
	urlAuthority = `(?://|\\{1,2}/\\{1,2}/)` // "\/" in JSON, "\\/" in its repr
	urlUser      = `[^\s/?#@:\[\]"'<>\\]*`
	urlPassword  = `[^\s/?#"'<>]+`
	urlHost      = `(?=\[|[A-Za-z0-9][A-Za-z0-9.-]*(?::[0-9]+)?(?:[/?#\s"'\\,;)]|$))`
	// Only names holding a word of a credential name are looked at. A value ends at "?"
	// too: a URL in a value has its own query, each parameter judged by its own name.
	queryParameter = `[?&#](?<n>[A-Za-z0-9_.\[\]-]{0,40}?` +
		`(?i:key|token|secret|pass|pw|auth|sig|session|credential|cookie)[A-Za-z0-9_.\[\]-]{0,40})` +
		`=(?<s>[^?&#\s"'<>\\]+)`
)

// Names that are secrets in a URL's query though not as a data key ("key" is a map's key).
var (
	queryExact = map[string]bool{
		"key": true, "sig": true, "pwd": true, "pass": true, "pw": true, "auth": true,
		"sessionid": true, "accesskey": true,
	}
	querySuffixes = []string{"signature", "securitytoken", "credential"}
)

// replaceQuery redacts a query parameter's value when its name names a credential, and
// keeps the match otherwise.
func replaceQuery(match regexp2.Match) string {
	name := match.GroupByName("n").String()
	key := fieldKey(strings.ReplaceAll(name, "[]", ""))
	if queryExact[key] || hasSuffix(key, querySuffixes) || IsSensitiveField(name) {
		return keepAround(match)
	}
	return match.String()
}

func holdsAt(text, _ string) bool { return strings.Contains(text, "@") }

var builtinRules = []rule{
	newRule(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----`+
		`(?<s>[\s\S]+?)(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|\z)`, nil),
	newRule(token("eyJ", `[`+wordChars+`]{8,}\.eyJ[`+wordChars+`]{8,}\.[`+wordChars+`]*`), nil),
	newRule(token("sk-", `(?=[`+wordChars+`]*[0-9])[`+wordChars+`]{20,}`), nil),
	newRule(token("AIza", `[`+wordChars+`]{35}`), nil),
	newRule(awsIDPrefix+`(?<![A-Z0-9]`+awsIDPrefix+`)[A-Z0-9]{16}(?![A-Z0-9])`, nil),
	newRule(token("gh[pousr]_", `[A-Za-z0-9]{30,}`), nil),
	newRule(token("github_pat_", `[A-Za-z0-9_]{22,}`), nil),
	newRule(token("(?:xox[abposer]|xapp)-", `[A-Za-z0-9-]{10,}`), nil),
	newRule(token("[sr]k_(?:live|test)_", `[A-Za-z0-9]{10,}`), func(text, _ string) bool {
		return strings.Contains(text, "k_live_") || strings.Contains(text, "k_test_")
	}),
	newRule(token("hf_", `[A-Za-z0-9]{30,}`), nil),
	newRule(token("gsk_", `[A-Za-z0-9]{20,}`), nil),
	newRule(notAfter("A-Za-z0-9/+=_-", "")+`(?=[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=_-]))`+
		`(?=[A-Za-z0-9/+]*[a-z])(?=[A-Za-z0-9/+]*[A-Z])(?=[A-Za-z0-9/+]*[0-9/+])`+
		`[A-Za-z0-9/+]{40}`, namesAWS),
	// A query or fragment parameter named like a credential: its value, whatever it looks
	// like. Before the assignments below, which would take the rest of the query.
	{
		regexp2.MustCompile(pythonPattern(queryParameter), regexp2.None),
		func(text, _ string) bool { return strings.Contains(text, "=") },
		replaceQuery,
	},
	newRule(`(?i)`+notAfter(wordChars, "")+`(?:set-)?cookie["']?\s*[:=]\s*["']?`+
		"(?<s>[^\\r\\n\"'\\\\=`]+=[^\\r\\n\"'\\\\]*)", func(_, lowered string) bool {
		return strings.Contains(lowered, "cookie")
	}),
	newRule(`(?i)(?:`+notAfter("A-Za-z0-9", "")+`(?:`+credentialNames+`)`+
		`|`+notAfter(wordChars, "")+`(?:token|secret|credentials))`+
		`(?:\\?["'])?\s*[:=]\s*`+quotedValue, namesQuotedCredential),
	newRule(`(?i)`+notAfter("A-Za-z0-9", "")+`(?:`+credentialNames+`)["']?\s*[:=]\s*["']?`+
		`(?:(?:bearer|basic|token|digest)\s+)?(?!-----)`+
		"(?<s>(?-i:(?="+valueChar+"*[^a-z\\s\"'`,;{}\\[\\]<>\\\\]))"+valueChar+"{8,})",
		namesCredential),
	newRule(`[Bb]earer`+notAfter("A-Za-z0-9", "[Bb]earer")+`\s+`+
		`(?<s>(?=[A-Za-z0-9._~+/-]*[0-9._~+/-])[A-Za-z0-9._~+/-]{8,}=*)`,
		func(text, _ string) bool { return strings.Contains(text, "earer") }),
	// A URL's user:password, in every spelling: any scheme or none, escaped slashes, an
	// empty user, "@" or ":" in the password (the userinfo ends at the authority's last
	// "@"), or "/" in it when a host follows the "@". "user:@host" holds no password.
	newRule(urlAuthority+`(?<s>`+urlUser+`:(?:[^\s?#"'<>]+(?=@`+urlHost+`)|`+urlPassword+`(?=@)))@`,
		holdsAt),
	// A bare user that looks like a token: 20+ characters with a digit.
	newRule(urlAuthority+`(?<s>(?=[^\s/?#@:]*[0-9])[A-Za-z0-9._~%+=-]{20,})@`, holdsAt),
	// The same inside a percent-encoded URL (a redirect target in a query string).
	newRule(`(?i)%2F%2F(?<s>(?:(?!%3A|%40|%2F)[^\s/?#&"'<>])*%3A`+
		`(?:(?!%2F)[^\s/?#&"'<>])+)%40`, func(_, lowered string) bool {
		return strings.Contains(lowered, "%2f%2f")
	}),
}

// No built-in rule matches text shorter than this ("?key=a" is the shortest match).
const shortestMatch = 6

// Texts up to this many characters are first searched once for anything a rule needs.
const shortText = 512

var anyTrigger = regexp2.MustCompile(strings.Join([]string{
	"-----begin", "eyj", "sk-",
	"a(?:iza|kia|sia|bia|cca|gpa|ida|ipa|roa|npa|nva|ws|uth)",
	"g(?:h[pousr]_|ithub_pat_|sk_)", "x(?:ox|app-)", "k(?:_live_|_test_|ey)", "hf_",
	"s(?:ecret|ig|ession)", "cookie", "credential", "p(?:ass|w)", "token", "earer",
	"//", `\\/\\/`, "%2f%2f",
}, "|"), regexp2.None)

// RedactText replaces every secret the built-in rules know in text by [REDACTED].
func RedactText(text string) string {
	length := utf8.RuneCountInString(text)
	if length < shortestMatch {
		return text
	}
	lowered := pythonLower(text)
	if length <= shortText {
		if found, _ := anyTrigger.MatchString(lowered); !found {
			return text
		}
	}
	for _, item := range builtinRules {
		if item.gate != nil && !item.gate(text, lowered) {
			continue
		}
		replace := item.replace
		if replace == nil {
			replace = keepAround
		}
		redacted, err := item.pattern.ReplaceFunc(text, replace, -1, -1)
		if err == nil && redacted != text {
			text, lowered = redacted, pythonLower(redacted)
		}
	}
	return text
}

// keepAround replaces the group named s when it matched, else the whole match.
func keepAround(match regexp2.Match) string {
	secret := match.GroupByName("s")
	if secret == nil || len(secret.Captures) == 0 {
		return Redacted
	}
	whole := match.Runes()
	start, end := secret.Index-match.Index, secret.Index-match.Index+secret.Length
	return string(whole[:start]) + Redacted + string(whole[end:])
}
