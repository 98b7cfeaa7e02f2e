package hookproof

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
	"syscall"
	"unicode/utf8"
)

// GateError is bad input to the gate (an unreadable snapshot, a side without snapshots, an
// unknown class): what happened, why it matters, how to fix it. The command exits 2.
type GateError struct{ Message string }

func (e *GateError) Error() string { return e.Message }

func gateError(format string, args ...any) error {
	return &GateError{RedactText(fmt.Sprintf(format, args...))}
}

const maxSnapshotBytes = 64 * 1024 * 1024

var byteOrderMark = []byte{0xef, 0xbb, 0xbf}

type unreadable struct{ path, reason string }

// pyPath is str(pathlib.Path(text)): empty and "." parts and trailing slashes dropped, "//"
// kept at the start as POSIX allows.
func pyPath(text string) string {
	if text == "" {
		return "."
	}
	root := ""
	switch {
	case strings.HasPrefix(text, "//") && !strings.HasPrefix(text, "///"):
		root = "//"
	case strings.HasPrefix(text, "/"):
		root = "/"
	}
	var parts []string
	for _, part := range strings.Split(text, "/") {
		if part != "" && part != "." {
			parts = append(parts, part)
		}
	}
	joined := root + strings.Join(parts, "/")
	if joined == "" {
		return "."
	}
	return joined
}

func joinPath(directory, name string) string {
	if directory == "." {
		return name
	}
	if strings.HasSuffix(directory, "/") {
		return directory + name
	}
	return directory + "/" + name
}

func isSnapshotName(name string) bool { return strings.HasSuffix(strings.ToLower(name), ".txt") }

// strerror is an errno's text as C's strerror gives it (Go's starts lower case).
func strerror(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		text := errno.Error()
		return strings.ToUpper(text[:1]) + text[1:]
	}
	return err.Error()
}

// candidatePaths is every entry named *.txt under directory, of any kind, and every link
// to a directory (not entered), as Python's os.walk finds them.
func candidatePaths(directory string, problems *[]unreadable) []string {
	entries, err := os.ReadDir(directory)
	if err != nil {
		*problems = append(*problems, unreadable{directory, fmt.Sprintf("cannot be listed (%s)", strerror(err))})
		return nil
	}
	var found []string
	for _, entry := range entries {
		path := joinPath(directory, entry.Name())
		link := entry.Type()&fs.ModeSymlink != 0
		info, statErr := os.Stat(path)
		isDir := statErr == nil && info.IsDir()
		switch {
		case isDir && !link:
			if isSnapshotName(entry.Name()) {
				found = append(found, path)
			}
			found = append(found, candidatePaths(path, problems)...)
		case isDir || isSnapshotName(entry.Name()):
			found = append(found, path)
		}
	}
	return found
}

var specialKinds = []struct {
	mode fs.FileMode
	name string
}{
	{fs.ModeDir, "a directory"},
	{fs.ModeNamedPipe, "a named pipe (FIFO)"},
	{fs.ModeSocket, "a socket"},
	{fs.ModeCharDevice, "a character device"},
	{fs.ModeDevice, "a block device"},
}

// kindOf is what a path that is not a regular file is, links followed.
func kindOf(path string) string {
	link := ""
	if info, err := os.Lstat(path); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		link = "a symbolic link to "
	}
	info, err := os.Stat(path)
	switch {
	case err != nil && link != "":
		return link + "a missing file"
	case err != nil:
		return "missing"
	case info.Mode().IsRegular():
		return link + "a regular file"
	}
	for _, kind := range specialKinds {
		if info.Mode()&kind.mode != 0 {
			return link + kind.name
		}
	}
	return link + "a special file"
}

func readSnapshotBytes(path, directory string) ([]byte, string) {
	if problem := outsideProblem(path, directory); problem != "" {
		return nil, problem
	}
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if kind := kindOf(path); kind != "missing" {
			return nil, "is " + kind
		}
		return nil, "is gone (removed while the gate ran)"
	}
	if err != nil {
		return nil, fmt.Sprintf("cannot be read (%s)", strerror(err))
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Sprintf("is %s, not a regular file", kindOf(path))
	}
	data, err := readAtMost(path, maxSnapshotBytes+1)
	if err != nil {
		return nil, fmt.Sprintf("cannot be read (%s)", strerror(err))
	}
	if len(data) > maxSnapshotBytes {
		return nil, fmt.Sprintf("is larger than %d bytes (is it corrupted?)", maxSnapshotBytes)
	}
	return data, ""
}

func readAtMost(path string, limit int64) ([]byte, error) {
	file, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	return io.ReadAll(io.LimitReader(file, limit))
}

// loadSnapshot is the snapshot at path, or why it cannot be read as one.
func loadSnapshot(path, directory string) (*snapshotView, string) {
	data, problem := readSnapshotBytes(path, directory)
	if problem != "" {
		return nil, problem
	}
	if bytes.HasPrefix(data, byteOrderMark) {
		return nil, "starts with a byte-order mark (U+FEFF), which hookproof never writes"
	}
	if at := invalidUTF8(data); at >= 0 {
		return nil, fmt.Sprintf("is not UTF-8 text (byte %d is 0x%02x)", at, data[at])
	}
	text := strings.ReplaceAll(strings.ReplaceAll(string(data), "\r\n", "\n"), "\r", "\n")
	view, err := parseSnapshot(text)
	if err != nil {
		return nil, err.Error()
	}
	return view, ""
}

func invalidUTF8(data []byte) int {
	for at := 0; at < len(data); {
		char, size := utf8.DecodeRune(data[at:])
		if char == utf8.RuneError && size <= 1 {
			return at
		}
		at += size
	}
	return -1
}

func loadDirectory(directory string, problems *[]unreadable) map[string]*snapshotView {
	views := map[string]*snapshotView{}
	for _, path := range candidatePaths(directory, problems) {
		view, problem := loadSnapshot(path, directory)
		if problem != "" {
			*problems = append(*problems, unreadable{path, problem})
			continue
		}
		views[strings.TrimPrefix(path, joinPath(directory, ""))] = view
	}
	return views
}

func unreadableError(problems []unreadable) error {
	sort.SliceStable(problems, func(i, j int) bool { return problems[i].path < problems[j].path })
	listing := make([]string, len(problems))
	for index, problem := range problems {
		listing[index] = fmt.Sprintf("  %s: %s", problem.path, problem.reason)
	}
	count := plural(len(problems), "file")
	return gateError("hookproof: %s in the snapshot directories cannot be read as hookproof snapshots:\n%s\n"+
		"The gate fails closed: an unread snapshot could hide a removed tool or a newly visible one. "+
		"Every *.txt file under both directories must be a snapshot in this hookproof's format: "+
		"regenerate them with `pytest --snapshot-update`, copy linked directories in as real ones, "+
		"and give other files another extension (README.md or .gitkeep are never read).", count, strings.Join(listing, "\n"))
}
