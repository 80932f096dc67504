//go:build desktop

package desktop

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestDisplayAcceptsClientsWhileOthersLeave checks the display the tests
// run on. They start and stop X clients one after another (the app,
// xdotool, import), and an X server by default resets itself whenever its
// last client leaves, dropping any client that connects during the reset
// (https://gitlab.freedesktop.org/xorg/xserver/-/issues/1102). On a busy
// machine that reset is slow, and a freshly launched app died with
// "failed to init GTK". scripts/lib.sh starts Xvfb with -noreset; without
// it, a quarter to half of these connections fail here.
func TestDisplayAcceptsClientsWhileOthersLeave(t *testing.T) {
	display := os.Getenv("DISPLAY")
	require.NotEmpty(t, display, "DISPLAY must be set (run scripts/test.sh)")
	number, _, _ := strings.Cut(strings.TrimPrefix(display, ":"), ".")
	socket := "/tmp/.X11-unix/X" + number

	const clients, connections = 4, 300
	var (
		mu       sync.Mutex
		failures []string
		wg       sync.WaitGroup
	)
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range connections {
				if err := openAndCloseX(socket); err != nil {
					mu.Lock()
					failures = append(failures, err.Error())
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	require.Zero(t, len(failures), "%d of %d connections to %s failed (first: %v); is Xvfb running with -noreset?",
		len(failures), clients*connections, display, failures[:min(len(failures), 3)])
}

// openAndCloseX connects to the X server on its Unix socket, completes the
// connection setup (X11 protocol, chapter 8: a 12-byte request without
// authorisation; the reply's first byte is 1 on success, then its length in
// 4-byte units at offset 6) and hangs up.
func openAndCloseX(socket string) error {
	conn, err := net.Dial("unix", socket)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close()
	// A generous bound for a broken server only: the reply normally takes
	// well under a millisecond.
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	request := make([]byte, 12)
	request[0] = 'l' // little-endian
	binary.LittleEndian.PutUint16(request[2:], 11)
	if _, err := conn.Write(request); err != nil {
		return fmt.Errorf("send setup: %w", err)
	}
	head := make([]byte, 8)
	if _, err := io.ReadFull(conn, head); err != nil {
		return fmt.Errorf("read setup reply: %w", err)
	}
	if head[0] != 1 {
		return fmt.Errorf("setup refused (status %d)", head[0])
	}
	if _, err := io.CopyN(io.Discard, conn, int64(binary.LittleEndian.Uint16(head[6:]))*4); err != nil {
		return fmt.Errorf("read setup data: %w", err)
	}
	return nil
}
