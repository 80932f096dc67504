package update

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
)

// BinaryName is the program's file in a tarball.
const BinaryName = "parley"

// ApplyTar replaces binary in place with the parley binary of the staged
// tarball, keeping the previous one beside it (<binary>.old). It returns
// the backup's path. On any failure the previous binary stays in place.
func ApplyTar(staged, binary string) (string, error) {
	f, err := os.Open(staged)
	if err != nil {
		return "", err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return "", fmt.Errorf("the tarball: %w", err)
	}
	tr := tar.NewReader(gz)
	next := binary + ".new"
	found := false
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", fmt.Errorf("the tarball: %w", err)
		}
		// parley_<ver>_linux_amd64/parley, or parley at the top.
		clean := path.Clean(h.Name)
		if h.Typeflag != tar.TypeReg || path.Base(clean) != BinaryName || len(splitPath(clean)) > 2 {
			continue
		}
		out, err := os.OpenFile(next, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
		if err != nil {
			return "", err
		}
		if _, err := io.Copy(out, tr); err != nil {
			out.Close()
			os.Remove(next)
			return "", err
		}
		if err := out.Close(); err != nil {
			os.Remove(next)
			return "", err
		}
		found = true
		break
	}
	if !found {
		return "", errors.New("the tarball holds no parley binary")
	}
	if err := os.Chmod(next, 0o755); err != nil {
		os.Remove(next)
		return "", err
	}
	backup := BackupPath(binary)
	os.RemoveAll(backup)
	if err := os.Rename(binary, backup); err != nil {
		os.Remove(next)
		return "", fmt.Errorf("keep the previous binary: %w", err)
	}
	if err := os.Rename(next, binary); err != nil {
		os.Rename(backup, binary)
		os.Remove(next)
		return "", fmt.Errorf("put the new binary in place: %w", err)
	}
	return backup, nil
}

// BackupPath is where the previous binary or bundle is kept.
func BackupPath(binary string) string {
	if filepath.Ext(binary) == ".app" {
		return binary[:len(binary)-len(".app")] + ".old.app"
	}
	return binary + ".old"
}

func splitPath(p string) []string {
	var parts []string
	for p != "." && p != "/" && p != "" {
		dir, file := path.Split(p)
		parts = append(parts, file)
		p = path.Clean(dir)
		if dir == "" {
			break
		}
	}
	return parts
}

// Command is one program run with its arguments.
type Command struct {
	Path string
	Args []string
	// Wait: Parley waits for it to finish (the package manager); else it
	// is started and Parley quits (the NSIS installer).
	Wait bool
}

// DebCommand hands the verified .deb to the package manager through the
// system's own authorisation prompt (pkexec); Parley waits for it, as a
// package manager interrupted half-way leaves a broken install.
func DebCommand(deb string, lookPath func(string) (string, error)) (Command, error) {
	abs, err := filepath.Abs(deb)
	if err != nil {
		return Command{}, err
	}
	if _, err := lookPath("pkexec"); err != nil {
		return Command{}, errors.New("pkexec is not installed: install the update with: sudo apt-get install " + abs)
	}
	if _, err := lookPath("apt-get"); err == nil {
		return Command{Path: "pkexec", Args: []string{"apt-get", "install", "-y", abs}, Wait: true}, nil
	}
	return Command{Path: "pkexec", Args: []string{"dpkg", "-i", abs}, Wait: true}, nil
}

// NSISCommand runs the verified installer silently; Parley quits so the
// installer can replace it.
func NSISCommand(installer string) Command {
	return Command{Path: installer, Args: []string{"/S"}, Wait: false}
}

// MacCommands unpack the verified zipped app beside the installed bundle
// and check its signature and team before the swap (SwapBundle).
func MacCommands(zip, unpackDir, team string) []Command {
	app := filepath.Join(unpackDir, "Parley.app")
	return []Command{
		{Path: "/usr/bin/ditto", Args: []string{"-x", "-k", zip, unpackDir}, Wait: true},
		{Path: "/usr/bin/codesign", Args: []string{"--verify", "--deep", "--strict", "-R=anchor apple generic and certificate leaf[subject.OU] = \"" + team + "\"", app}, Wait: true},
	}
}

// SwapBundle puts the unpacked bundle in place of the installed one,
// keeping the old one (Parley.old.app) until the new one starts.
func SwapBundle(unpacked, installed string) (string, error) {
	backup := BackupPath(installed)
	os.RemoveAll(backup)
	if err := os.Rename(installed, backup); err != nil {
		return "", err
	}
	if err := os.Rename(unpacked, installed); err != nil {
		os.Rename(backup, installed)
		return "", err
	}
	return backup, nil
}
