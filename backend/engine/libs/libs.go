// Package libs finds the built-in engine's llama.cpp libraries (SPEC §12).
//
// In order: PARLEY_ENGINE_DIR; where the installers put them, relative to
// the running binary (Installed); then build/engine/<platform> of a
// checkout set up by scripts/setup.sh (scripts/engine-libs.sh), looked for
// above the working directory and above the executable, which is how
// tests and a plain `go build` of a set-up checkout find them. When none
// holds them, the error names every folder it looked in.
//
// Not done yet: embedding the libraries in the binary and unpacking them
// once into the user's cache folder (<cache>/parley/engine/<sha256>/,
// checked against the hash at each start), so that a `go build` binary
// copied elsewhere runs the engine too. Dir is the one place that will
// look there, after the installers' folders.
package libs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// EnvVar points at a set of libraries.
const EnvVar = "PARLEY_ENGINE_DIR"

// Platform is the @node-llama-cpp platform name of this build (the folder
// under build/engine), "" when none is known.
func Platform() string {
	switch runtime.GOOS + "/" + runtime.GOARCH {
	case "linux/amd64":
		return "linux-x64"
	case "linux/arm64":
		return "linux-arm64"
	case "windows/amd64":
		return "win-x64"
	case "darwin/arm64":
		return "mac-arm64-metal"
	case "darwin/amd64":
		return "mac-x64"
	}
	return ""
}

// LibraryFile is the file yzma loads first: a folder holding it is a set.
func LibraryFile() string {
	switch runtime.GOOS {
	case "windows":
		return "llama.dll"
	case "darwin":
		return "libllama.dylib"
	}
	return "libllama.so"
}

// ErrNotFound: no set of libraries was found.
var ErrNotFound = errors.New("the built-in engine's libraries were not found")

// Installed are the folders the installers put the libraries in, for the
// binary at exe (symbolic links resolved), in the order they are tried:
//   - engine/ beside it: the Linux tarball;
//   - ../lib/parley/engine: the .deb (/usr/bin/parley,
//     /usr/lib/parley/engine/);
//   - ../Frameworks: the macOS app bundle (Contents/MacOS/Parley,
//     Contents/Frameworks/);
//   - the binary's own folder: Windows, the DLLs beside Parley.exe.
func Installed(exe string) []string {
	dir := filepath.Dir(exe)
	return []string{
		filepath.Join(dir, "engine"),
		filepath.Clean(filepath.Join(dir, "..", "lib", "parley", "engine")),
		filepath.Clean(filepath.Join(dir, "..", "Frameworks")),
		dir,
	}
}

// Dir returns the folder of the libraries to use.
func Dir(getenv func(string) string) (string, error) {
	exe, _ := os.Executable()
	if exe != "" {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
	}
	wd, _ := os.Getwd()
	return dir(getenv, exe, wd)
}

// dir is Dir for the binary at exe (resolved; "" when unknown) run in wd.
func dir(getenv func(string) string, exe, wd string) (string, error) {
	if d := getenv(EnvVar); d != "" {
		if !isSet(d) {
			return "", fmt.Errorf("%s=%s holds no %s", EnvVar, d, LibraryFile())
		}
		return filepath.Abs(d)
	}
	var tried []string
	try := func(d string) bool {
		tried = append(tried, d)
		return isSet(d)
	}
	if exe != "" {
		for _, d := range Installed(exe) {
			if try(d) {
				return d, nil
			}
		}
	}
	if p := Platform(); p != "" {
		var starts []string
		if wd != "" {
			starts = append(starts, wd)
		}
		if exe != "" {
			starts = append(starts, filepath.Dir(exe))
		}
		for _, start := range starts {
			if d, ok := inCheckout(start, p, try); ok {
				return d, nil
			}
		}
	}
	return "", fmt.Errorf("%w: no %s in %s (reinstall Parley, or in a checkout run scripts/engine-libs.sh; %s points at another set)",
		ErrNotFound, LibraryFile(), strings.Join(tried, ", "), EnvVar)
}

// inCheckout looks for build/engine/<platform> in start and its parents,
// up to the folder that holds go.mod.
func inCheckout(start, platform string, try func(string) bool) (string, bool) {
	for d := start; ; {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			c := filepath.Join(d, "build", "engine", platform)
			return c, try(c)
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

func isSet(d string) bool {
	_, err := os.Stat(filepath.Join(d, LibraryFile()))
	return err == nil
}
