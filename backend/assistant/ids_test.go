package assistant

import (
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// newID makes version 4 UUIDs, all different, also drawn from several
// goroutines at once.
func TestNewIDIsARandomUUID(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 500 {
				id := newID()
				u, err := uuid.Parse(id)
				require.NoError(t, err, id)
				require.Equal(t, uuid.Version(4), u.Version(), id)
				require.Equal(t, uuid.RFC4122, u.Variant(), id)
				mu.Lock()
				require.False(t, seen[id], "id %s twice", id)
				seen[id] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	require.Len(t, seen, 2000)
}
