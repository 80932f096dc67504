package desktop

import (
	"runtime"

	"github.com/wailsapp/wails/v2/pkg/menu"
	"github.com/wailsapp/wails/v2/pkg/menu/keys"

	"github.com/parley-app/parley/backend/i18n"
)

// menuShortcutEvent carries the action of a chosen menu item to the window,
// which runs it as it runs the same key press (frontend lib/shortcuts).
const menuShortcutEvent = "menu:shortcut"

// appMenu is the desktop window's menu: a Chat menu listing the shortcuts
// (with their accelerators) whose items emit menuShortcutEvent. Escape,
// Up and ? are left to the page (an accelerator would take them from
// text fields), so those items only name their key.
// Its labels are in lang (i18n.Languages); the window builds it again when
// the language changes.
func appMenu(lang string, emit func(event string, data ...any)) *menu.Menu {
	t := func(key string) string { return i18n.In(lang, key) }
	m := menu.NewMenu()
	if runtime.GOOS == "darwin" {
		m.Append(menu.AppMenu())
		m.Append(menu.EditMenu())
	}
	send := func(action string) menu.Callback {
		return func(*menu.CallbackData) { emit(menuShortcutEvent, action) }
	}
	chat := m.AddSubmenu(t("menu.chat"))
	chat.AddText(t("menu.newChat"), keys.CmdOrCtrl("n"), send("new-chat"))
	chat.AddText(t("menu.search"), keys.CmdOrCtrl("k"), send("search"))
	chat.AddText(t("menu.settings"), keys.CmdOrCtrl(","), send("settings"))
	chat.AddSeparator()
	chat.AddText(t("menu.regenerate"), keys.Combo("r", keys.CmdOrCtrlKey, keys.ShiftKey), send("regenerate"))
	chat.AddText(t("menu.editLast"), nil, send("edit-last"))
	chat.AddText(t("menu.stop"), nil, send("stop"))
	chat.AddSeparator()
	chat.AddText(t("menu.shortcuts"), nil, send("help"))
	return m
}
