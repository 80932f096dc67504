//go:build !linux && !windows && !darwin

package ram

import "errors"

func read() (Machine, error) {
	return Machine{}, errors.New("read the machine's memory: not supported on this system")
}
