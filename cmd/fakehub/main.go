// Command fakehub serves GGUF files the way the Hugging Face hub does
// (backend/engine/hubtest), for end-to-end and desktop tests of the model
// library (SPEC §12): start it, point Parley's HF_ENDPOINT at the URL it
// prints, and download from it.
//
//	fakehub [-listen 127.0.0.1:0] [-fixtures] [-catalog] [-dir DIR] [-redirect] [-slow BYTES_PER_SECOND]
//
// -fixtures serves generated models (backend/engine/ggufgen) as the
// repository parley/fixtures-GGUF: fixed.gguf (writes enginetest.Answer),
// card.gguf (asks a question card, then says enginetest.CardFollowUp once
// answered), random.gguf. -catalog serves card.gguf under the repository
// and file of every chat model of Parley's curated catalogue, so that the
// model onboarding suggests can be downloaded as a new user would (no
// real weights are reachable here). -dir serves every
// DIR/<owner>/<name>/<file>.gguf as repository <owner>/<name>. The first
// line on standard output is {"url":"http://127.0.0.1:<port>"}; it serves
// until its standard input closes or it is stopped.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parley-app/parley/backend/engine/enginetest"
	"github.com/parley-app/parley/backend/engine/ggufgen"
	"github.com/parley-app/parley/backend/engine/hubtest"
	"github.com/parley-app/parley/backend/engine/library"
)

// FixturesRepo is the repository of -fixtures.
const FixturesRepo = "parley/fixtures-GGUF"

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "fakehub:", err)
		os.Exit(1)
	}
}

func run(args []string, stdin io.Reader, stdout io.Writer) error {
	fset := flag.NewFlagSet("fakehub", flag.ContinueOnError)
	listen := fset.String("listen", "127.0.0.1:0", "address to listen on")
	fixtures := fset.Bool("fixtures", false, "serve generated fixture models as "+FixturesRepo)
	catalog := fset.Bool("catalog", false, "serve card.gguf as every chat model of the curated catalogue")
	dir := fset.String("dir", "", "serve DIR/<owner>/<name>/<file>.gguf as repository <owner>/<name>")
	redirect := fset.Bool("redirect", false, "answer resolve with a redirect to a CDN-like path, as the hub does for large files")
	slow := fset.Int("slow", 0, "bytes per second of each body (0: full speed)")
	if err := fset.Parse(args); err != nil {
		return err
	}
	mode := hubtest.Mode{Redirect: *redirect, BytesPerSecond: *slow}
	hub := hubtest.NewUnstarted()
	if *fixtures || *catalog {
		tmp, err := os.MkdirTemp("", "fakehub-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		specs := map[string]ggufgen.Spec{
			"fixed.gguf":  {Name: "Parley fixture", Answer: enginetest.Answer},
			"card.gguf":   enginetest.CardSpec("Parley card fixture"),
			"random.gguf": {Name: "Parley random fixture", Seed: 7},
		}
		for name, spec := range specs {
			p := filepath.Join(tmp, name)
			if err := ggufgen.Write(p, spec); err != nil {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if *fixtures {
				hub.Add(FixturesRepo, name, b, mode)
			}
			if *catalog && name == "card.gguf" {
				for _, e := range library.Catalog() {
					if !slices.Contains(e.Capabilities, "embedding") {
						hub.Add(e.Repo, e.File, b, mode)
					}
				}
			}
		}
	}
	if *dir != "" {
		err := filepath.WalkDir(*dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(strings.ToLower(p), ".gguf") {
				return err
			}
			rel, err := filepath.Rel(*dir, p)
			if err != nil {
				return err
			}
			parts := strings.SplitN(filepath.ToSlash(rel), "/", 3)
			if len(parts) < 3 {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			hub.Add(parts[0]+"/"+parts[1], parts[2], b, mode)
			return nil
		})
		if err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: hub}
	go func() { _ = srv.Serve(ln) }()
	line, _ := json.Marshal(map[string]string{"url": "http://" + ln.Addr().String()})
	fmt.Fprintln(stdout, string(line))
	_, _ = io.Copy(io.Discard, stdin) // until stdin closes
	return srv.Close()
}
