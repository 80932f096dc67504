package yield

import (
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLaneRunsAtLowerPriority(t *testing.T) {
	l := NewLane(nil)
	defer l.Close()
	var nice int
	var err error
	l.Run(func() { nice, err = threadNice() })
	require.NoError(t, err)
	require.Equal(t, LowNice, nice, "the lane's thread")
	// Other goroutines keep their priority (the lane's thread is its own).
	done := make(chan int)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		n, _ := threadNice()
		done <- n
	}()
	require.Less(t, <-done, LowNice, "a thread outside the lane")
}
