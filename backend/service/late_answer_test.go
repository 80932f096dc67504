package service

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/questions"
	"github.com/parley-app/parley/backend/store"
)

// A late answer delivered by an earlier version, whose user turn has the
// earlier wording, is not posted again when this version starts.
func TestLateAnswerInEarlierWordingIsNotPostedAgain(t *testing.T) {
	e := newEnv(t, askThenAnswer(), 30*time.Millisecond)
	ctx := context.Background()
	c, err := e.svc.CreateConversation(ctx, "Late, upgraded", "")
	require.NoError(t, err)
	_, err = e.svc.Send(ctx, c.ID, api.SendRequest{Content: "paint"})
	require.NoError(t, err)
	e.waitState(c.ID, chat.StateIdle)
	cards, err := e.svc.ConversationQuestions(ctx, c.ID)
	require.NoError(t, err)
	require.Len(t, cards, 1)
	require.Equal(t, questions.StatusTimedOut, cards[0].Status)
	e.close()

	// What an earlier version stored: the card answered late and its turn.
	db, err := store.Open(e.dbPath)
	require.NoError(t, err)
	card := cards[0]
	now := time.Now().UTC()
	card.Status, card.Answers, card.AnsweredAt = questions.StatusAnsweredLate, map[string]string{"Which colour?": "Blue"}, &now
	require.NoError(t, db.SaveCard(ctx, card))
	earlier := "Here are my answers to your earlier questions (they arrived after the question timed out):\n\nQ: Which colour?\nA: Blue\n"
	require.NoError(t, db.AppendMessage(ctx, &chat.Message{ConversationID: c.ID, Role: chat.RoleUser, Content: earlier}))
	require.NoError(t, db.Close())
	requests := len(e.model.Requests())

	e.open()
	d := e.waitState(c.ID, chat.StateIdle)
	n := 0
	for _, m := range d.Messages {
		if m.Role == chat.RoleUser && strings.Contains(m.Content, "Q: Which colour?\nA: Blue") {
			n++
		}
	}
	assert.Equal(t, 1, n, "late-answer turns after the upgrade")
	assert.Equal(t, requests, len(e.model.Requests()), "no new run for an answer already delivered")
}
