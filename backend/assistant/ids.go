package assistant

import (
	"bufio"
	"crypto/rand"
	"sync"

	"github.com/google/uuid"
)

// idSource is crypto/rand read 16 ids at a time: a read for every run's
// and reply's id was a system call on the path of every exchange (issue
// #42). The ids are as random as uuid.NewString's.
var idSource = &lockedReader{r: bufio.NewReaderSize(rand.Reader, 16*16)}

type lockedReader struct {
	mu sync.Mutex
	r  *bufio.Reader
}

func (l *lockedReader) Read(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Read(p)
}

// newID is a random (version 4) UUID, as uuid.NewString makes.
func newID() string {
	u, err := uuid.NewRandomFromReader(idSource)
	if err != nil {
		return uuid.NewString()
	}
	return u.String()
}
