package ram

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A real /proc/meminfo's first lines (Linux 6.1, 16 GB).
const meminfo = `MemTotal:       16318480 kB
MemFree:         1183524 kB
MemAvailable:    9876544 kB
Buffers:          412300 kB
Cached:          7993116 kB
SwapCached:        10240 kB
Active:          6642012 kB
HugePages_Total:       0
Hugepagesize:       2048 kB
`

func TestParseMeminfo(t *testing.T) {
	m, err := ParseMeminfo(strings.NewReader(meminfo))
	require.NoError(t, err)
	assert.Equal(t, uint64(16318480*1024), m.Total)
	assert.Equal(t, uint64(9876544*1024), m.Available, "MemAvailable, in bytes")

	// A kernel without MemAvailable (before 3.14): free + buffers + cache.
	old := strings.Replace(meminfo, "MemAvailable:    9876544 kB\n", "", 1)
	m, err = ParseMeminfo(strings.NewReader(old))
	require.NoError(t, err)
	assert.Equal(t, uint64((1183524+412300+7993116)*1024), m.Available)

	_, err = ParseMeminfo(strings.NewReader("MemFree: 12 kB\n"))
	assert.ErrorContains(t, err, "no MemTotal")
	_, err = ParseMeminfo(strings.NewReader("MemTotal: lots kB\n"))
	assert.ErrorContains(t, err, "MemTotal")
}

func TestReadThisMachine(t *testing.T) {
	m, err := Read()
	require.NoError(t, err)
	assert.Greater(t, m.Total, uint64(256<<20), "a machine has some memory")
	assert.LessOrEqual(t, m.Available, m.Total)
}
