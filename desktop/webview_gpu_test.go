package desktop

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
)

// The Wails values are the ones its C side turns into the WebKit policy the
// user asked for (window.c in Wails v2.16: 0 -> ALWAYS, 1 -> ON_DEMAND, 2 -> NEVER).
func TestWebviewGPUPolicy(t *testing.T) {
	cases := map[string]linux.WebviewGpuPolicy{
		"":          2,
		"never":     2,
		" Never ":   2,
		"off":       2,
		"always":    0,
		"on":        0,
		"on-demand": 1,
		"ondemand":  1,
		"bogus":     2,
	}
	for in, want := range cases {
		assert.Equal(t, want, webviewGPUPolicy(in), "PARLEY_WEBVIEW_GPU=%q", in)
	}
	assert.Equal(t, linux.WebviewGpuPolicyNever, webviewGPUPolicy(""), "the default is no hardware acceleration")
}
