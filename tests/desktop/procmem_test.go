//go:build desktop

package desktop

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// procMem is the memory of one process: resident (RSS) and proportional
// (PSS: shared pages divided among the processes sharing them) set sizes,
// from /proc/<pid>/smaps_rollup, in kB.
type procMem struct {
	PID  int
	Name string // comm, as the kernel keeps it (15 bytes: "WebKitWebProces")
	RSS  int64
	PSS  int64
	// Anon is the anonymous part of PSS (heaps, JIT code, layers): unlike
	// the file part, it does not change when other processes on the machine
	// map the same libraries (other WebKit apps), so growth shows best here.
	Anon int64
}

// treeMem is one sample of a process and all its descendants (for Parley:
// the app, its WebKitWebProcess and WebKitNetworkProcess, and any sandbox
// helpers between them).
type treeMem struct {
	At    time.Time
	Procs []procMem
}

func (s treeMem) total() (rss, pss int64) {
	for _, p := range s.Procs {
		rss += p.RSS
		pss += p.PSS
	}
	return rss, pss
}

// anon is the anonymous PSS of all the processes, or of those named name.
func (s treeMem) anon(name string) (kb int64) {
	for _, p := range s.Procs {
		if name == "" || p.Name == name {
			kb += p.Anon
		}
	}
	return kb
}

// byKind sums the sample by process name.
func (s treeMem) byKind(name string) (rss, pss int64) {
	for _, p := range s.Procs {
		if p.Name == name {
			rss += p.RSS
			pss += p.PSS
		}
	}
	return rss, pss
}

// descendants returns root and every process below it, by the parent links
// in /proc/<pid>/stat, root first.
func descendants(root int) ([]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list /proc: %w", err)
	}
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		end := bytes.LastIndexByte(stat, ')')
		if end < 0 {
			continue
		}
		fields := strings.Fields(string(stat[end+1:]))
		if len(fields) < 2 {
			continue
		}
		ppid, err := strconv.Atoi(fields[1])
		if err != nil {
			continue
		}
		children[ppid] = append(children[ppid], pid)
	}
	if _, err := os.Stat(filepath.Join("/proc", strconv.Itoa(root))); err != nil {
		return nil, fmt.Errorf("process %d: %w", root, err)
	}
	out := []int{root}
	for i := 0; i < len(out); i++ {
		kids := children[out[i]]
		sort.Ints(kids)
		out = append(out, kids...)
	}
	return out, nil
}

// readProcMem reads one process's RSS and PSS from smaps_rollup.
func readProcMem(pid int) (procMem, error) {
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	comm, err := os.ReadFile(filepath.Join(dir, "comm"))
	if err != nil {
		return procMem{}, fmt.Errorf("process %d: %w", pid, err)
	}
	f, err := os.Open(filepath.Join(dir, "smaps_rollup"))
	if err != nil {
		return procMem{}, fmt.Errorf("process %d smaps_rollup: %w", pid, err)
	}
	defer f.Close()
	m := procMem{PID: pid, Name: strings.TrimSpace(string(comm))}
	var seenRSS, seenPSS, seenAnon bool
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var kb int64
		switch {
		case strings.HasPrefix(sc.Text(), "Rss:"):
			_, err = fmt.Sscanf(sc.Text(), "Rss: %d kB", &kb)
			m.RSS, seenRSS = kb, err == nil
		case strings.HasPrefix(sc.Text(), "Pss:"):
			_, err = fmt.Sscanf(sc.Text(), "Pss: %d kB", &kb)
			m.PSS, seenPSS = kb, err == nil
		case strings.HasPrefix(sc.Text(), "Pss_Anon:"):
			_, err = fmt.Sscanf(sc.Text(), "Pss_Anon: %d kB", &kb)
			m.Anon, seenAnon = kb, err == nil
		}
	}
	if err := sc.Err(); err != nil {
		return procMem{}, fmt.Errorf("process %d smaps_rollup: %w", pid, err)
	}
	if !seenRSS || !seenPSS || !seenAnon {
		return procMem{}, fmt.Errorf("process %d smaps_rollup: no Rss/Pss/Pss_Anon lines", pid)
	}
	return m, nil
}

// sampleTree measures root and its descendants. A child that exits while
// being read is left out; the root must be readable.
func sampleTree(root int) (treeMem, error) {
	pids, err := descendants(root)
	if err != nil {
		return treeMem{}, err
	}
	s := treeMem{At: time.Now()}
	for i, pid := range pids {
		m, err := readProcMem(pid)
		if err != nil {
			if i == 0 {
				return treeMem{}, err
			}
			continue
		}
		s.Procs = append(s.Procs, m)
	}
	return s, nil
}

func mb(kb int64) float64 { return float64(kb) / 1024 }

// TestSampleTreeCountsChildren: the sampler finds a child of the process it
// measures (as WebKit's processes are children of Parley) and reads sane
// figures for both.
func TestSampleTreeCountsChildren(t *testing.T) {
	child := exec.Command("sleep", "30")
	require.NoError(t, child.Start())
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })

	s, err := sampleTree(os.Getpid())
	require.NoError(t, err)
	require.NotEmpty(t, s.Procs)
	assert.Equal(t, os.Getpid(), s.Procs[0].PID, "the root comes first")
	var found *procMem
	for i := range s.Procs {
		if s.Procs[i].PID == child.Process.Pid {
			found = &s.Procs[i]
		}
	}
	require.NotNil(t, found, "child %d among %+v", child.Process.Pid, s.Procs)
	assert.Equal(t, "sleep", found.Name)
	for _, p := range s.Procs {
		assert.Greater(t, p.RSS, int64(0), "%+v", p)
		assert.Greater(t, p.PSS, int64(0), "%+v", p)
		assert.GreaterOrEqual(t, p.RSS, p.PSS, "PSS divides shared pages, so it is at most RSS: %+v", p)
		assert.Greater(t, p.Anon, int64(0), "%+v", p)
		assert.GreaterOrEqual(t, p.PSS, p.Anon, "anonymous PSS is part of PSS: %+v", p)
	}
	assert.Equal(t, found.Anon, s.anon("sleep"))
	assert.Greater(t, s.anon(""), found.Anon, "the total includes the root")
	rss, pss := s.total()
	assert.Greater(t, rss, s.Procs[0].RSS, "the total includes the child")
	assert.Greater(t, pss, s.Procs[0].PSS, "the total includes the child")
	sr, sp := s.byKind("sleep")
	assert.Equal(t, found.RSS, sr)
	assert.Equal(t, found.PSS, sp)

	_, err = sampleTree(1 << 30)
	assert.Error(t, err, "a process that does not exist")
}
