package memory

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The index gives exactly what the straightforward assembly
// (referencePrompt over memory.Scoped) gives, for random memory sets,
// scopes, messages, budgets, vectors and memories marked used.
func TestIndexPromptIsTheStraightforwardPrompt(t *testing.T) {
	vocab := strings.Fields("cat dog zephyr salmon tea coffee project deploy friday monday rust golang " +
		"猫が好き the and prefers options topic biscuit garden piano violin cycling")
	scopes := []Scope{{}, {Conversation: "c1"}, {Conversation: "c2", Project: "p1"}, {Project: "p1"}, {Project: "p2"}, {Conversation: "c3", Project: "p2"}}
	defer func(chunk int32, front int) { touchedChunk, maxFront = chunk, front }(touchedChunk, maxFront)
	for seed := range uint64(120) {
		rng := rand.New(rand.NewPCG(seed, 41))
		// Small chunks of times and a short front: several chunks, and
		// fronts folded into their base, in a few hundred memories.
		touchedChunk, maxFront = []int32{512, 16, 7}[seed%3], []int{512, 8, 2}[seed%3]
		text := func(words int) string {
			var b strings.Builder
			for k := range words {
				if k > 0 {
					b.WriteString([]string{" ", " ", ", ", "\n", "s "}[rng.IntN(5)])
				}
				b.WriteString(vocab[rng.IntN(len(vocab))])
			}
			return b.String()
		}
		n := rng.IntN(300)
		ms := make([]Memory, n)
		for i := range ms {
			m := Memory{ID: fmt.Sprintf("m%04d", rng.IntN(100_000)*10+i%10) + fmt.Sprint(i),
				Text:      text(1 + rng.IntN(30)),
				CreatedAt: t0.Add(time.Duration(rng.IntN(50)) * time.Minute)} // ties in time: ids decide
			if rng.IntN(3) == 0 {
				m.UsedAt = ptr(t0.Add(time.Duration(rng.IntN(80)) * time.Minute))
			}
			switch rng.IntN(6) {
			case 0:
				m.ProjectID = ptr([]string{"p1", "p2", ""}[rng.IntN(3)])
			case 1:
				m.ScopeConversationID = ptr([]string{"c1", "c2", "c3", ""}[rng.IntN(4)])
				if rng.IntN(2) == 0 {
					m.ProjectID = ptr("p1")
				}
			}
			ms[i] = m
		}
		x := NewIndex(slices.Clone(ms))
		for round := range 10 {
			sc := scopes[rng.IntN(len(scopes))]
			msg := text(rng.IntN(30))
			if rng.IntN(10) == 0 {
				var words []string
				for k := range 60 { // the message's words past the 64th distinct one do not count
					words = append(words, fmt.Sprintf("word%d", k))
				}
				msg = strings.Join(words, " ") + " " + msg
			}
			budget := []int{PromptBudget, 0, 40, 60, 200, 500, rng.IntN(3000)}[rng.IntN(7)]
			// Nearest by meaning: a choice of the scope's memories fixed by their ids.
			byMeaning := func(scoped []Memory) []int {
				var out []int
				for i, m := range scoped {
					if h := fnv.New32a(); true {
						h.Write([]byte(m.ID + msg))
						if h.Sum32()%4 == 0 {
							out = append(out, i)
						}
					}
				}
				slices.SortFunc(out, func(a, b int) int { return strings.Compare(scoped[b].ID, scoped[a].ID) })
				return out[:min(len(out), MaxNearbyByMeaning)]
			}
			scoped := Scoped(ms, sc)
			var askedRef, askedIdx int
			var ref func() []int
			var idx func([]Memory) []int
			if rng.IntN(2) == 0 {
				ref = func() []int { askedRef++; return byMeaning(scoped) }
				idx = func(got []Memory) []int {
					askedIdx++
					require.Equal(t, ids(scoped), ids(got), "seed %d: the scope's memories, in order", seed)
					return byMeaning(got)
				}
			}
			wantText, wantIDs := referencePrompt(scoped, msg, budget, ref)
			gotText, gotIDs := x.Prompt(sc, msg, budget, idx)
			require.Equal(t, wantIDs, gotIDs, "seed %d round %d scope %+v budget %d message %q", seed, round, sc, budget, msg)
			require.Equal(t, wantText, gotText, "seed %d round %d", seed, round)
			require.Equal(t, askedRef, askedIdx, "seed %d round %d: vectors asked for alike", seed, round)

			// Everything in scope: Prompt over a plain list agrees too.
			wantText, wantIDs = referencePrompt(scoped, msg, budget, nil)
			gotText, gotIDs = Prompt(scoped, msg, budget, nil)
			require.Equal(t, wantIDs, gotIDs, "seed %d round %d: Prompt", seed, round)
			require.Equal(t, wantText, gotText)

			// Some used now (or at another time): both move them.
			var used []string
			used = append(used, gotIDs[:min(len(gotIDs), rng.IntN(4))]...)
			for range rng.IntN(4) {
				if n > 0 {
					used = append(used, ms[rng.IntN(n)].ID)
				}
			}
			used = append(used, "unknown")
			at := t0.Add(time.Duration(rng.IntN(100)) * time.Minute)
			x = x.Touched(used, at)
			for i := range ms {
				if slices.Contains(used, ms[i].ID) {
					ms[i].UsedAt = ptr(at)
				}
			}
		}
	}
}

func ids(ms []Memory) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// Touched leaves the index it was called on as it was: runs holding it
// read on while a run marks memories used.
func TestIndexTouchedLeavesTheOldIndex(t *testing.T) {
	ms := []Memory{
		{ID: "a", Text: "first", CreatedAt: t0},
		{ID: "b", Text: "second", CreatedAt: t0.Add(time.Minute)},
	}
	x := NewIndex(ms)
	_, before := x.Prompt(Scope{}, "", PromptBudget, nil)
	y := x.Touched([]string{"a"}, t0.Add(time.Hour))
	_, after := y.Prompt(Scope{}, "", PromptBudget, nil)
	_, again := x.Prompt(Scope{}, "", PromptBudget, nil)
	require.Equal(t, []string{"b", "a"}, before)
	require.Equal(t, []string{"a", "b"}, after, "used: first")
	require.Equal(t, before, again, "the old index unchanged")
	require.Same(t, y, y.Touched([]string{"unknown"}, t0), "nothing it holds: the same index")
}
