package desktop

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCheckOpenURLAcceptsOnlyWebAndMailLinks(t *testing.T) {
	for _, ok := range []string{"https://example.com/a?b=c#d", "http://127.0.0.1:8765/x", "HTTPS://EXAMPLE.COM", "mailto:me@example.com"} {
		assert.NoError(t, checkOpenURL(ok), ok)
	}
	for _, bad := range []string{
		"", "javascript:alert(1)", "file:///etc/passwd", "ftp://example.com", "example.com", "https://", "mailto:",
		" https://example.com", "https://example.com/\nx", "data:text/html,<b>x</b>", "vscode://open",
	} {
		assert.Error(t, checkOpenURL(bad), bad)
	}
}

func TestOpenURLRefusesBeforeTheWindowExists(t *testing.T) {
	d := &DesktopService{}
	assert.ErrorContains(t, d.OpenURL("file:///etc/passwd"), "only http, https and mailto")
	assert.ErrorContains(t, d.OpenURL("https://example.com"), "not ready")
}
