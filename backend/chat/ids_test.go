package chat

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// drawIDs calls next 500 times on each of four goroutines at once and
// checks that every id is a UUID of the version asked for, all different.
func drawIDs(t *testing.T, next func() string, version uuid.Version) []string {
	t.Helper()
	var mu sync.Mutex
	seen := map[string]bool{}
	var all []string
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			// assert, not require: these are not the test's goroutine.
			for range 500 {
				id := next()
				u, err := uuid.Parse(id)
				if !assert.NoError(t, err, id) {
					return
				}
				assert.Equal(t, version, u.Version(), id)
				assert.Equal(t, uuid.RFC4122, u.Variant(), id)
				mu.Lock()
				assert.False(t, seen[id], "id %s twice", id)
				seen[id] = true
				all = append(all, id)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	require.Len(t, seen, 2000)
	return all
}

// NewID makes version 4 UUIDs, all different, also drawn from several
// goroutines at once.
func TestNewIDIsARandomUUID(t *testing.T) {
	drawIDs(t, NewID, 4)
}

// NewMessageID makes version 7 UUIDs, all different, that sort in the
// order of the milliseconds they were made in (the store's indexes grow at
// their end).
func TestNewMessageIDIsATimeOrderedUUID(t *testing.T) {
	ids := drawIDs(t, NewMessageID, 7)
	msOf := func(id string) int64 {
		sec, nsec := uuid.MustParse(id).Time().UnixTime()
		return sec*1000 + nsec/1_000_000
	}
	first := NewMessageID()
	slices.Sort(ids)
	for i := 1; i < len(ids); i++ {
		require.LessOrEqual(t, msOf(ids[i-1]), msOf(ids[i]), "ids sorted as text are in the order of their time")
	}
	require.Eventually(t, func() bool { return msOf(NewMessageID()) > msOf(first) }, time.Second, time.Millisecond,
		"an id made a millisecond later sorts after")
	require.Greater(t, NewMessageID(), first, "an id made later sorts after as text")
}
