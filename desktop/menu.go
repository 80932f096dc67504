package desktop

import (
	"runtime"

	"github.com/wailsapp/wails/v2/pkg/menu"
	"github.com/wailsapp/wails/v2/pkg/menu/keys"
)

// menuShortcutEvent carries the action of a chosen menu item to the window,
// which runs it as it runs the same key press (frontend lib/shortcuts).
const menuShortcutEvent = "menu:shortcut"

// appMenu is the desktop window's menu: a Chat menu listing the shortcuts
// (with their accelerators) whose items emit menuShortcutEvent. Escape,
// Up and ? are left to the page (an accelerator would take them from
// text fields), so those items only name their key.
func appMenu(emit func(event string, data ...any)) *menu.Menu {
	m := menu.NewMenu()
	if runtime.GOOS == "darwin" {
		m.Append(menu.AppMenu())
		m.Append(menu.EditMenu())
	}
	send := func(action string) menu.Callback {
		return func(*menu.CallbackData) { emit(menuShortcutEvent, action) }
	}
	chat := m.AddSubmenu("Chat")
	chat.AddText("New chat", keys.CmdOrCtrl("n"), send("new-chat"))
	chat.AddText("Search conversations", keys.CmdOrCtrl("k"), send("search"))
	chat.AddText("Settings", keys.CmdOrCtrl(","), send("settings"))
	chat.AddSeparator()
	chat.AddText("Regenerate last reply", keys.Combo("r", keys.CmdOrCtrlKey, keys.ShiftKey), send("regenerate"))
	chat.AddText("Edit last message (↑ in an empty message box)", nil, send("edit-last"))
	chat.AddText("Stop the reply (Escape)", nil, send("stop"))
	chat.AddSeparator()
	chat.AddText("Keyboard shortcuts (?)", nil, send("help"))
	return m
}
