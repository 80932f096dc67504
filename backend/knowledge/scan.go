package knowledge

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// skippedDir tells whether a folder under a collection's path is left out:
// hidden folders, node_modules and .git (SPEC §11).
func skippedDir(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules"
}

// foundFile is a file a scan found.
type foundFile struct {
	path    string
	size    int64
	mtimeNs int64
	// named: the path was given itself (not found in a folder): a kind
	// Parley cannot read is an error then, not skipped.
	named bool
}

// walkRoot calls fn for every file under root (or root itself when it is a
// file) that may be a document, skipping hidden files and folders,
// node_modules, .git, files over MaxFileBytes and files that are never
// documents (images, archives...). dir is called for every folder walked
// (for the watcher). Symbolic links to folders are not followed (no
// cycles). It returns an error only when root itself cannot be read.
func walkRoot(root string, fn func(foundFile), dir func(string)) error {
	info, err := os.Stat(root)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fileErr("knowledge.rootGone", nil, root)
		}
		return fileErr("knowledge.rootUnreadable", err, root)
	}
	if !info.IsDir() {
		if info.Mode().IsRegular() && info.Size() <= MaxFileBytes {
			fn(foundFile{path: root, size: info.Size(), mtimeNs: info.ModTime().UnixNano(), named: true})
		}
		return nil
	}
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root {
				return fileErr("knowledge.rootUnreadable", err, root)
			}
			return nil // an unreadable folder inside is left out
		}
		if d.IsDir() {
			if path != root && skippedDir(d.Name()) {
				return filepath.SkipDir
			}
			if dir != nil {
				dir(path)
			}
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") || !maybeDocument(path) {
			return nil
		}
		info, err := os.Stat(path) // follows a link to a file
		if err != nil || !info.Mode().IsRegular() || info.Size() > MaxFileBytes {
			return nil
		}
		fn(foundFile{path: path, size: info.Size(), mtimeNs: info.ModTime().UnixNano()})
		return nil
	})
}

// under tells whether path is root or inside it.
func under(path, root string) bool {
	if path == root {
		return true
	}
	return strings.HasPrefix(path, strings.TrimRight(root, string(filepath.Separator))+string(filepath.Separator))
}

// statDir tells whether path is a folder.
func statDir(path string) (bool, error) {
	info, err := os.Stat(path)
	if err != nil {
		return false, err
	}
	return info.IsDir(), nil
}
