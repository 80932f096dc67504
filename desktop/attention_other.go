//go:build !linux

package desktop

// setWindowUrgency is a no-op outside Linux for now: Wails v2 exposes no
// window handle for FlashWindowEx (Windows) or requestUserAttention (macOS);
// the notification and the "(N)" title prefix still draw attention there.
func setWindowUrgency(bool) {}
