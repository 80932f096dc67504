package trace

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// on turns tracing on with no records for one test.
func on(t *testing.T) {
	t.Helper()
	Reset()
	SetEnabled(true)
	t.Cleanup(func() {
		SetEnabled(false)
		SetFile("")
		Reset()
	})
}

func find(t *testing.T, key string) CardRecord {
	t.Helper()
	for _, r := range Snapshot() {
		for _, k := range r.Keys {
			if k == key {
				return r
			}
		}
	}
	require.Failf(t, "no record", "no record has key %q", key)
	return CardRecord{}
}

func TestOffRecordsNothing(t *testing.T) {
	Reset()
	SetEnabled(false)
	Begin("call_1", HopChunk)
	Mark("call_1", HopParsed)
	Link("call_1", "card-1")
	assert.Empty(t, Snapshot())
	assert.ErrorIs(t, Report([]PageMark{{Key: "card-1", Hop: HopPageDOM, At: Now()}}), ErrDisabled)
	ctx := WithKey(context.Background(), "card-1")
	assert.Equal(t, "", KeyFrom(ctx))
}

func TestOnRecordsHopsInOrderOfTime(t *testing.T) {
	on(t)
	Begin("call_1", HopChunk)
	Mark("call_1", HopParsed)
	Mark("call_1", HopParsed) // the first time wins
	r := find(t, "call_1")
	require.Contains(t, r.Marks, HopChunk)
	require.Contains(t, r.Marks, HopParsed)
	assert.LessOrEqual(t, r.Marks[HopChunk], r.Marks[HopParsed])
	// Epoch milliseconds: comparable with the page's clock.
	assert.InDelta(t, float64(time.Now().UnixMilli()), r.Marks[HopParsed], 1000)
}

func TestLinkJoinsToolCallAndCard(t *testing.T) {
	on(t)
	Begin("call_1", HopChunk)
	Mark("call_1", HopValidated)
	Link("call_1", "card-1")
	Mark("card-1", HopStored)
	// The page's marks: the send before the card and its steps, then the card's.
	page := []PageMark{}
	for _, hop := range []string{HopPageSend, HopPageEnterDone, HopPageFrameStart, HopPageFrameEnd, HopPagePaint} {
		page = append(page, PageMark{Key: "card-1", Hop: hop, At: Now()})
	}
	require.NoError(t, Report(page))
	recs := Snapshot()
	require.Len(t, recs, 1)
	assert.ElementsMatch(t, []string{"call_1", "card-1"}, recs[0].Keys)
	for _, hop := range []string{HopChunk, HopValidated, HopStored, HopPageSend, HopPageEnterDone, HopPageFrameStart, HopPageFrameEnd, HopPagePaint} {
		assert.Contains(t, recs[0].Marks, hop)
	}
}

func TestReusedToolCallIDStartsANewRecord(t *testing.T) {
	on(t)
	Begin("call_1", HopChunk)
	Link("call_1", "card-1")
	Begin("call_1", HopChunk) // the next turn's call with the same id
	Mark("call_1", HopParsed)
	recs := Snapshot()
	require.Len(t, recs, 2)
	assert.Equal(t, []string{"card-1"}, recs[0].Keys)
	assert.NotContains(t, recs[0].Marks, HopParsed)
	assert.Contains(t, recs[1].Marks, HopParsed)
}

func TestBounded(t *testing.T) {
	on(t)
	for i := 0; i < MaxRecords+100; i++ {
		Begin(fmt.Sprintf("call_%d", i), HopChunk)
		Link(fmt.Sprintf("call_%d", i), fmt.Sprintf("card_%d", i))
	}
	recs := Snapshot()
	require.Len(t, recs, MaxRecords)
	assert.Equal(t, []string{"call_100", "card_100"}, recs[0].Keys)
	state.mu.Lock()
	keys := len(state.byKey)
	state.mu.Unlock()
	assert.Equal(t, 2*MaxRecords, keys, "the dropped records' keys are forgotten")
}

func TestReportRefusesBadMarksAndKeepsNone(t *testing.T) {
	on(t)
	good := PageMark{Key: "card-1", Hop: HopPageDOM, At: Now()}
	for name, bad := range map[string]PageMark{
		"unknown hop":  {Key: "card-1", Hop: HopStored, At: Now()},
		"empty key":    {Key: "", Hop: HopPageDOM, At: Now()},
		"not epoch ms": {Key: "card-1", Hop: HopPageDOM, At: 1234.5},
	} {
		err := Report([]PageMark{good, bad})
		assert.Error(t, err, name)
	}
	assert.Error(t, Report(make([]PageMark, MaxPageMarks+1)))
	assert.Empty(t, Snapshot())
}

func TestContextKey(t *testing.T) {
	on(t)
	ctx := WithKey(context.Background(), "card-1")
	assert.Equal(t, "card-1", KeyFrom(ctx))
	assert.Equal(t, "", KeyFrom(context.Background()))
}

func TestFileIsWrittenAfterMarks(t *testing.T) {
	on(t)
	path := filepath.Join(t.TempDir(), "trace.json")
	SetFile(path)
	Begin("call_1", HopChunk)
	Link("call_1", "card-1")
	require.NoError(t, Report([]PageMark{{Key: "card-1", Hop: HopPagePaint, At: Now()}}))
	var recs []CardRecord
	require.Eventually(t, func() bool {
		data, err := os.ReadFile(path)
		if err != nil || json.Unmarshal(data, &recs) != nil || len(recs) != 1 {
			return false
		}
		_, ok := recs[0].Marks[HopPagePaint]
		return ok
	}, 5*time.Second, 10*time.Millisecond)
	assert.ElementsMatch(t, []string{"call_1", "card-1"}, recs[0].Keys)
}

func TestConcurrentMarks(t *testing.T) {
	on(t)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				call, card := fmt.Sprintf("call_%d_%d", g, i), fmt.Sprintf("card_%d_%d", g, i)
				Begin(call, HopChunk)
				Mark(call, HopParsed)
				Link(call, card)
				Mark(card, HopStored)
				_ = Report([]PageMark{{Key: card, Hop: HopPageDOM, At: Now()}})
				_ = Snapshot()
			}
		}()
	}
	wg.Wait()
	recs := Snapshot()
	require.Len(t, recs, 8*200)
	for _, r := range recs {
		assert.Len(t, r.Keys, 2)
		assert.Len(t, r.Marks, 4)
	}
}
