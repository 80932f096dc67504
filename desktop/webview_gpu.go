package desktop

import (
	"log/slog"
	"strings"

	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

// webviewGPUEnv picks WebKitGTK's hardware acceleration policy on Linux:
// "never" (the default), "always" or "on-demand".
const webviewGPUEnv = "PARLEY_WEBVIEW_GPU"

// webviewGPUPolicy is the Wails value that gives WebKitGTK the policy asked
// for in PARLEY_WEBVIEW_GPU (empty: never).
//
// Why never by default: Wails v2 turns acceleration off when an app passes no
// Linux options, but Parley passes them (for its program name), and Wails
// v2.16's C side maps the Go constants one off: linux.WebviewGpuPolicyOnDemand
// (0, the zero value) becomes ALWAYS and linux.WebviewGpuPolicyAlways (1)
// becomes ON_DEMAND; only Never (2) maps to itself. ALWAYS cost about 95 MB
// more at start than the Wails template and, on machines that render GL in
// software, crashed WebKit's compositor in a soak (ThreadedCompositor in
// swrast_dri.so) — the crash for which Evolution and Eclipse also turn it off.
// A chat window does not need the GPU to be smooth.
func webviewGPUPolicy(value string) linux.WebviewGpuPolicy {
	switch strings.ToLower(strings.TrimSpace(value)) {
	case "", "never", "off":
		return linux.WebviewGpuPolicyNever
	case "always", "on":
		return linux.WebviewGpuPolicyOnDemand // becomes ALWAYS (see above)
	case "on-demand", "ondemand":
		return linux.WebviewGpuPolicyAlways // becomes ON_DEMAND (see above)
	default:
		slog.Warn("unknown value, hardware acceleration stays off", "env", webviewGPUEnv, "value", value)
		return linux.WebviewGpuPolicyNever
	}
}
