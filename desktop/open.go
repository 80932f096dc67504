package desktop

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// OpenURL opens a link in the system browser: a link in a reply, or the
// page an MCP server's URL elicitation asks the user to visit (only after
// the user clicked "Open"). Only http, https and mailto links are opened.
func (d *DesktopService) OpenURL(link string) error {
	if err := checkOpenURL(link); err != nil {
		return err
	}
	if d.ctx == nil {
		return errors.New("open link: the window is not ready")
	}
	runtime.BrowserOpenURL(d.ctx, link)
	return nil
}

// checkOpenURL refuses what the system browser should not be handed: other
// schemes (file:, javascript:, custom handlers) and malformed links.
func checkOpenURL(link string) error {
	u, err := url.Parse(link)
	if err != nil {
		return fmt.Errorf("open link: %w", err)
	}
	if strings.TrimSpace(link) != link || strings.ContainsAny(link, "\x00\r\n") {
		return fmt.Errorf("open link %q: it contains spaces or control characters", link)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if u.Host == "" {
			return fmt.Errorf("open link %q: it has no host", link)
		}
		return nil
	case "mailto":
		if u.Opaque == "" {
			return fmt.Errorf("open link %q: it has no address", link)
		}
		return nil
	default:
		return fmt.Errorf("open link %q: only http, https and mailto links are opened", link)
	}
}
