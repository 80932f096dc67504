//go:build !unix && !windows

package update

import "errors"

// freeSpace is unknown here: downloads are not refused for want of space.
func freeSpace(string) (uint64, error) { return 0, errors.New("free space unknown on this platform") }
