package desktop

import (
	"fmt"
	"log/slog"
)

// jscForceRAMSize is the JavaScriptCore option (read from the environment,
// which WebKitGTK's web process inherits from Parley) that sizes the JS
// engine's garbage collector as if the machine had this much memory.
const jscForceRAMSize = "JSC_forceRAMSize"

// webviewHeapRAM is what the web view's JavaScript engine is told the
// machine has: 512 MB. JavaScriptCore lets its heap grow with the machine's
// memory before it collects; on a 24 GB machine the window's web process
// kept climbing for 20 minutes of use (peaks of 605-632 MB of all
// processes in a 30-minute soak) and with this setting it levelled off at
// about 560 MB. A chat page's JavaScript heap is a few tens of MB, so the
// collector runs a little more often and nothing else changes.
const webviewHeapRAM = 512 << 20

// limitWebviewHeap sets JSC_forceRAMSize for the Linux web view unless the
// user set it; it must run before the window (and its web process) starts.
func limitWebviewHeap(goos string, getenv func(string) string, setenv func(string, string) error) {
	if goos != "linux" || getenv(jscForceRAMSize) != "" {
		return
	}
	if err := setenv(jscForceRAMSize, fmt.Sprint(webviewHeapRAM)); err != nil {
		slog.Warn("could not size the web view's JavaScript heap", "err", err)
	}
}
