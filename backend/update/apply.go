package update

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
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
	// Env is added to Parley's environment (nil: Parley's as it is).
	Env []string
	// Wait: Parley waits for it to finish (the package manager); else it
	// is started and Parley quits (the NSIS installer).
	Wait bool
	// WindowsCmdLine, when set, is the whole command line on Windows,
	// unquoted as it is (NSIS's /D= must not be quoted).
	WindowsCmdLine string
}

// AptLockWait is how long apt-get waits for another package manager to
// finish (dpkg's lock) before giving up.
const AptLockWait = "300"

// DebCommand hands the verified .deb to the package manager and waits
// for it, as a package manager interrupted half-way leaves a broken
// install. Who may install is the system's to say: as root (CI, a root
// shell) apt-get runs as it is, non-interactively; otherwise through the
// system's own consent prompt, pkexec (polkit's dialog on a desktop, or
// its text prompt in a terminal), else sudo in a terminal.
func DebCommand(deb string, root bool, lookPath func(string) (string, error)) (Command, error) {
	abs, err := filepath.Abs(deb)
	if err != nil {
		return Command{}, err
	}
	args := []string{"dpkg", "-i", abs}
	if _, err := lookPath("apt-get"); err == nil {
		args = []string{"apt-get", "-o", "DPkg::Lock::Timeout=" + AptLockWait, "install", "-y", abs}
	}
	if root {
		return Command{Path: args[0], Args: args[1:], Env: []string{"DEBIAN_FRONTEND=noninteractive"}, Wait: true}, nil
	}
	for _, elevate := range []string{"pkexec", "sudo"} {
		if _, err := lookPath(elevate); err == nil {
			return Command{Path: elevate, Args: args, Wait: true}, nil
		}
	}
	return Command{}, errors.New("neither pkexec nor sudo is installed: install the update as root with: apt-get install " + abs)
}

// NSISCommand runs the verified installer silently into the folder
// Parley is installed in (installDir; "" = the installer's default);
// Parley quits so the installer can replace it. The installer asks for
// administrator rights, so it is started through the shell (cmd's start,
// ShellExecute), which shows Windows' own consent prompt (UAC): a plain
// CreateProcess would fail with "elevation required".
func NSISCommand(installer, installDir string) Command {
	c := Command{Path: "cmd.exe", Args: []string{"/c", "start", "", installer, "/S"}}
	c.WindowsCmdLine = `cmd.exe /c start "" "` + installer + `" /S`
	if installDir != "" {
		// /D= is the last parameter, unquoted even with spaces (NSIS's rule).
		c.Args = append(c.Args, "/D="+installDir)
		c.WindowsCmdLine += " /D=" + installDir
	}
	return c
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

// BundleExecutable is the program inside a macOS app bundle, the one to
// start (Parley.app/Contents/MacOS/parley).
func BundleExecutable(bundle string) string {
	return filepath.Join(bundle, "Contents", "MacOS", BinaryName)
}

// CodesignTeam reads the team identifier of a signed bundle (codesign -dv);
// "" with an error for an unsigned one.
func CodesignTeam(bundle string) (string, error) {
	out, err := exec.Command("/usr/bin/codesign", "-dv", "--verbose=2", bundle).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("codesign: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return ParseTeam(string(out))
}

// ParseTeam finds TeamIdentifier=… in codesign -dv's output.
func ParseTeam(out string) (string, error) {
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "TeamIdentifier="); ok {
			if v = strings.TrimSpace(v); v != "" && v != "not set" {
				return v, nil
			}
		}
	}
	return "", errors.New("the app is not signed by a team")
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
