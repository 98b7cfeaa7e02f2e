package hookproof

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A snapshot linked from outside its directory is not read: a pull request could otherwise
// make the gate print any file's first line into a CI log. Paths resolve as Python's
// pathlib.Path.resolve() does (links followed as far as they exist), so the gate refuses
// exactly what Python's refuses.

func absolutePath(path string) string {
	if !filepath.IsAbs(path) {
		working, _ := os.Getwd()
		path = working + "/" + path
	}
	return filepath.Clean(path)
}

// realPath is os.path.realpath(path) without strict checks.
func realPath(path string) string {
	resolved, _ := joinRealPath("", path, map[string]*string{})
	return absolutePath(resolved)
}

func joinRealPath(path, rest string, seen map[string]*string) (string, bool) {
	if strings.HasPrefix(rest, "/") {
		rest, path = rest[1:], "/"
	}
	for rest != "" {
		var name string
		name, rest, _ = strings.Cut(rest, "/")
		if name == "" || name == "." {
			continue
		}
		if name == ".." {
			path = parentOf(path)
			continue
		}
		next := joinName(path, name)
		info, err := os.Lstat(next)
		if err != nil || info.Mode()&os.ModeSymlink == 0 {
			path = next
			continue
		}
		if known, ok := seen[next]; ok {
			if known != nil {
				path = *known
				continue
			}
			return joinName(next, rest), false
		}
		seen[next] = nil
		target, _ := os.Readlink(next)
		resolved, ok := joinRealPath(path, target, seen)
		if !ok {
			return joinName(resolved, rest), false
		}
		path = resolved
		seen[next] = &resolved
	}
	return path, true
}

func joinName(path, name string) string {
	switch {
	case path == "":
		return name
	case name == "":
		return path + "/"
	case strings.HasSuffix(path, "/"):
		return path + name
	}
	return path + "/" + name
}

// parentOf is the ".." step of realpath: the last part removed, or ".." added.
func parentOf(path string) string {
	if path == "" {
		return ".."
	}
	head, name := filepath.Split(path)
	if trimmed := strings.TrimRight(head, "/"); trimmed != "" {
		head = trimmed
	}
	if name == ".." {
		return joinName(joinName(head, ".."), "..")
	}
	return head
}

func isRelativeTo(path, root string) bool {
	return path == root || strings.HasPrefix(path, strings.TrimSuffix(root, "/")+"/")
}

// outsideProblem is why path may not be read as a snapshot of directory, or "".
func outsideProblem(path, directory string) string {
	root, resolved := realPath(directory), realPath(path)
	lexical := absolutePath(path)
	inside := isRelativeTo(lexical, absolutePath(directory)) || isRelativeTo(lexical, root)
	if inside && isRelativeTo(resolved, root) {
		return ""
	}
	return fmt.Sprintf("resolves to %s, outside %s", pyRepr(resolved), pyRepr(root))
}
