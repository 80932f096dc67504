//go:build linux

package desktop

/*
#cgo pkg-config: gtk+-3.0
#include <gtk/gtk.h>

// Runs on the GTK main loop: the urgency hint ("demands attention") of
// Parley's visible top-level windows goes on or off.
static gboolean parley_set_urgency(gpointer data) {
	gboolean on = GPOINTER_TO_INT(data);
	GList *wins = gtk_window_list_toplevels();
	for (GList *l = wins; l != NULL; l = l->next) {
		GtkWindow *w = GTK_WINDOW(l->data);
		if (gtk_window_get_window_type(w) == GTK_WINDOW_TOPLEVEL)
			gtk_window_set_urgency_hint(w, on);
	}
	g_list_free(wins);
	return G_SOURCE_REMOVE;
}

static void parley_request_urgency(int on) {
	g_idle_add(parley_set_urgency, GINT_TO_POINTER(on));
}
*/
import "C"

// setWindowUrgency asks the window manager to draw attention to the window
// (a blinking task bar entry) or stops asking. Wails v2 has no API for it;
// GTK is already linked, and g_idle_add is safe from any thread.
func setWindowUrgency(on bool) {
	v := 0
	if on {
		v = 1
	}
	C.parley_request_urgency(C.int(v))
}
