package desktop

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/wailsapp/wails/v2/pkg/menu"
	"github.com/wailsapp/wails/v2/pkg/menu/keys"
)

// The Chat menu lists the shortcuts with their accelerators; choosing an
// item sends its action to the window.
func TestAppMenuSendsShortcutActions(t *testing.T) {
	var got []any
	m := appMenu("en", func(event string, data ...any) {
		assert.Equal(t, menuShortcutEvent, event)
		got = append(got, data...)
	})
	var chat *menu.Menu
	for _, it := range m.Items {
		if it.Label == "Chat" {
			chat = it.SubMenu
		}
	}
	require.NotNil(t, chat, "no Chat menu")
	accel := map[string]*keys.Accelerator{}
	for _, it := range chat.Items {
		if it.Click == nil {
			continue
		}
		accel[it.Label] = it.Accelerator
		it.Click(&menu.CallbackData{MenuItem: it})
	}
	assert.Equal(t, []any{"new-chat", "search", "settings", "regenerate", "edit-last", "stop", "help"}, got)
	assert.Equal(t, keys.CmdOrCtrl("n"), accel["New chat"])
	assert.Equal(t, keys.CmdOrCtrl("k"), accel["Search conversations"])
	assert.Equal(t, keys.CmdOrCtrl(","), accel["Settings"])
	assert.Equal(t, keys.Combo("r", keys.CmdOrCtrlKey, keys.ShiftKey), accel["Regenerate last reply"])
	assert.Nil(t, accel["Keyboard shortcuts (?)"], "? must stay with the page")
}

// The menu speaks the interface's language: built for German, its items are
// the German catalogue's (backend/i18n), with the same accelerators.
func TestAppMenuInGerman(t *testing.T) {
	m := appMenu("de", func(string, ...any) {})
	var chat *menu.Menu
	for _, it := range m.Items {
		if it.Label == "Chat" && it.SubMenu != nil {
			chat = it.SubMenu
		}
	}
	require.NotNil(t, chat, "no Chat menu")
	labels := map[string]*keys.Accelerator{}
	for _, it := range chat.Items {
		labels[it.Label] = it.Accelerator
	}
	assert.Contains(t, labels, "Neuer Chat")
	assert.Equal(t, keys.CmdOrCtrl("n"), labels["Neuer Chat"])
	assert.Contains(t, labels, "Tastenkürzel (?)")
	assert.NotContains(t, labels, "New chat")
}
