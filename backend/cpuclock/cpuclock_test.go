//go:build unix

package cpuclock

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The clock moves with work the process does, and never backwards.
func TestProcessCountsWork(t *testing.T) {
	before := Process()
	require.Positive(t, before, "a running process has used some CPU")
	x := 0
	for Process()-before == 0 { // the kernel's clock advances in ticks
		for i := range 1_000_000 {
			x += i % 7
		}
	}
	require.Greater(t, Process(), before, "busy work (%d) shows on the clock", x)
}
