//go:build desktop && bench

package desktop

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/modelserver"
)

// TestStartupMemoryVsTemplate measures the memory of Parley's window right
// after start (idle, UI shown) next to the window of the Wails template
// (`wails init -t vanilla`, built by bench/soak.sh with the same WebKitGTK
// 4.1) on the same display: RSS and PSS of each app and all its processes,
// the median of BENCH_STARTUP_RUNS (default 3) starts of each, alternating.
// The template as generated has no Linux options, and then Wails turns
// hardware acceleration off, as Parley does (PARLEY_WEBVIEW_GPU unset). The
// template is also measured given Linux options, which Wails v2.16 turns
// into acceleration ALWAYS (its zero GPU policy, meant as on-demand, is
// mapped one off): what Parley's window cost before it asked for "never".
func TestStartupMemoryVsTemplate(t *testing.T) {
	bin, tmpl, tmplGPU := os.Getenv("PARLEY_BIN"), os.Getenv("WAILS_TEMPLATE_BIN"), os.Getenv("WAILS_TEMPLATE_GPU_BIN")
	require.True(t, bin != "" && tmpl != "" && tmplGPU != "" && os.Getenv("DISPLAY") != "",
		"PARLEY_BIN, WAILS_TEMPLATE_BIN, WAILS_TEMPLATE_GPU_BIN and DISPLAY must be set (run bench/soak.sh)")
	runs := envInt(t, "BENCH_STARTUP_RUNS", 3)
	require.Positive(t, runs, "BENCH_STARTUP_RUNS")
	srv := modelserver.New(modelserver.Demo())
	defer srv.Close()

	var parley, template, templateGPU []treeMem
	for i := 0; i < runs; i++ {
		parley = append(parley, startupSample(t, "Parley", fmt.Sprintf("startup-parley-%d", i),
			bin, "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--base-url", srv.URL(), "--model", "scripted"))
		template = append(template, startupSample(t, "tmpl", fmt.Sprintf("startup-template-%d", i), tmpl))
		templateGPU = append(templateGPU, startupSample(t, "tmpl", fmt.Sprintf("startup-template-linux-options-%d", i), tmplGPU))
	}
	pr, pp := medianTotals(parley)
	tr, tp := medianTotals(template)
	gr, gp := medianTotals(templateGPU)

	t.Logf("\n%-16s %9s %9s | %s\n%s\n%s\n%s\nParley / template:                                  RSS %.2fx, PSS %.2fx\nParley / template with acceleration on (informative): RSS %.2fx, PSS %.2fx",
		"startup", "RSS MB", "PSS MB", "by process (RSS/PSS MB, last run)",
		startupRow("Parley", pr, pp, parley[len(parley)-1]), startupRow("template", tr, tp, template[len(template)-1]),
		startupRow("template+accel", gr, gp, templateGPU[len(templateGPU)-1]),
		ratio(pr, tr), ratio(pp, tp), ratio(pr, gr), ratio(pp, gp))

	how := fmt.Sprintf("median of %d starts each, idle 5 s after the UI shows, window 1100x800 under Xvfb (no GPU); "+
		"all processes of each (the app, WebKitWebProcess, WebKitNetworkProcess)", runs)
	stock := how + "; template = wails init -t vanilla as generated: without Linux options Wails turns hardware acceleration off, as Parley does"
	accel := how + "; template given linux.Options{}, which Wails v2.16 turns into hardware acceleration ALWAYS (what Parley had before it asked for never)"
	recordMemFigure(t, memFigure{ID: "startup.rss.ratio", Label: "startup RSS, Parley / Wails template", Value: ratio(pr, tr), Unit: "x", Note: stock})
	recordMemFigure(t, memFigure{ID: "startup.pss.ratio", Label: "startup PSS, Parley / Wails template", Value: ratio(pp, tp), Unit: "x", Note: stock})
	recordMemFigure(t, memFigure{ID: "startup.rss.ratio.template_accelerated", Label: "startup RSS, Parley / Wails template with acceleration on", Value: ratio(pr, gr), Unit: "x", Note: accel})
	recordMemFigure(t, memFigure{ID: "startup.pss.ratio.template_accelerated", Label: "startup PSS, Parley / Wails template with acceleration on", Value: ratio(pp, gp), Unit: "x", Note: accel})
	recordMemFigure(t, memFigure{ID: "startup.parley.rss", Label: "startup RSS, Parley", Value: round1(mb(pr)), Unit: "MB", Note: how})
	recordMemFigure(t, memFigure{ID: "startup.parley.pss", Label: "startup PSS, Parley", Value: round1(mb(pp)), Unit: "MB", Note: how})
	recordMemFigure(t, memFigure{ID: "startup.template.rss", Label: "startup RSS, Wails template", Value: round1(mb(tr)), Unit: "MB", Note: stock})
	recordMemFigure(t, memFigure{ID: "startup.template.pss", Label: "startup PSS, Wails template", Value: round1(mb(tp)), Unit: "MB", Note: stock})
	recordMemFigure(t, memFigure{ID: "startup.template_accelerated.rss", Label: "startup RSS, Wails template with acceleration on", Value: round1(mb(gr)), Unit: "MB", Note: accel})
	recordMemFigure(t, memFigure{ID: "startup.template_accelerated.pss", Label: "startup PSS, Wails template with acceleration on", Value: round1(mb(gp)), Unit: "MB", Note: accel})
}

func ratio(a, b int64) float64 { return round2(float64(a) / float64(b)) }

// startupSample starts an app, waits for its window (title) and UI, sizes
// the window, lets it idle for 5 s, samples it and quits it.
func startupSample(t *testing.T, title, name, bin string, args ...string) treeMem {
	t.Helper()
	cmd := exec.Command(bin, args...)
	_, stop := startLogged(t, cmd, name+".log")
	defer stop()
	waitForWindow(t, title, 60*time.Second)
	waitForUI(t, name+".png")
	win := waitForWindow(t, title, 10*time.Second)
	xdotool(t, "windowsize", "--sync", win, "1100", "800")
	time.Sleep(5 * time.Second)
	s, err := sampleTree(cmd.Process.Pid)
	require.NoError(t, err, "sample %s", name)
	require.GreaterOrEqual(t, len(s.Procs), 3, "%s: the app and WebKit's web and network processes: %+v", name, s.Procs)
	return s
}

func medianTotals(samples []treeMem) (rss, pss int64) {
	var rs, ps []int64
	for _, s := range samples {
		r, p := s.total()
		rs, ps = append(rs, r), append(ps, p)
	}
	slices.Sort(rs)
	slices.Sort(ps)
	return rs[len(rs)/2], ps[len(ps)/2]
}

func startupRow(label string, rss, pss int64, last treeMem) string {
	row := fmt.Sprintf("%-10s %9.1f %9.1f |", label, mb(rss), mb(pss))
	for _, p := range last.Procs {
		row += fmt.Sprintf(" %s %.0f/%.0f", p.Name, mb(p.RSS), mb(p.PSS))
	}
	return row
}

func round2(v float64) float64 { return float64(int64(v*100+0.5)) / 100 }
