//go:build !linux

package yield

// lowerThreadPriority does nothing here: the lane runs at normal priority
// (macOS and Windows set priorities differently; the gate still paces).
func lowerThreadPriority(int) error { return nil }

func threadNice() (int, error) { return 0, nil }
