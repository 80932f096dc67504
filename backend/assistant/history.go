package assistant

import (
	"context"
	"fmt"

	"github.com/parley-app/parley/backend/chat"
)

// How the loop uses what the History can do beyond chat.History (the store
// can all of it; the in-memory history of tests cannot): keep the history
// between model calls, store several messages or a run with messages in one
// commit.

// leafReader is the History that tells a conversation's leaf (the store):
// the loop then keeps the history between model calls.
type leafReader interface {
	Leaf(ctx context.Context, conversationID string) (string, error)
}

// history is the conversation's visible path for the next model call.
// Reading and decoding a long conversation for every call was most of the
// time from an answer to the next model request, so the loop keeps what it
// read and what it stored since, and reads the store again only when the
// conversation's leaf is not the last message it knows: someone else
// appended (a late answer) or moved the path.
func (l *runLoop) history() ([]chat.Message, error) {
	conv := l.run.ConversationID
	lr, ok := l.rt.opt.History.(leafReader)
	if ok && len(l.known) > 0 {
		if leaf, err := lr.Leaf(l.ctx, conv); err == nil && leaf == l.known[len(l.known)-1].ID {
			return l.known, nil
		}
	}
	history, err := l.rt.opt.History.Messages(l.ctx, conv)
	if err != nil {
		return nil, fmt.Errorf("load conversation %s: %w", conv, err)
	}
	if ok && attachmentBytes(history) <= maxKeptAttachmentBytes {
		l.known = history
	} else {
		l.known = nil
	}
	return history, nil
}

// maxKeptAttachmentBytes bounds the attachments a run keeps in memory with
// its history (while a card waits, maybe for hours); a history with more is
// read again for each model call.
var maxKeptAttachmentBytes = 4 << 20

func attachmentBytes(msgs []chat.Message) int {
	n := 0
	for _, m := range msgs {
		for _, a := range m.Attachments {
			n += len(a.Data)
		}
	}
	return n
}

// remember adds a message the loop stored to the history it keeps, when it
// was stored right after the last one the loop knows.
func (l *runLoop) remember(m *chat.Message) {
	if len(l.known) == 0 {
		return
	}
	if m.ParentID != l.known[len(l.known)-1].ID {
		l.known = nil // something came in between: read it all next time
		return
	}
	l.known = append(l.known, *m)
	if len(m.Attachments) > 0 && attachmentBytes(l.known) > maxKeptAttachmentBytes {
		l.known = nil
	}
}

// runAppender is the History that saves a run and appends messages in one
// transaction (the store).
type runAppender interface {
	SaveRunAndAppend(ctx context.Context, r *chat.Run, msgs []*chat.Message) error
}

// saveRunWithNext saves the run's status with the next message the loop
// stores, in one commit, when the History can (else now). Only for a card
// answered: its tool result is the next message, and until it is stored a
// restart finds the run awaiting with its card answered, and continues it
// with that answer.
func (l *runLoop) saveRunWithNext() {
	if _, ok := l.rt.opt.History.(runAppender); ok {
		l.runUnsaved = true
		return
	}
	_ = l.rt.opt.History.SaveRun(context.WithoutCancel(l.ctx), l.run)
}

// batchAppender is the History that stores several messages in one
// transaction (the store).
type batchAppender interface {
	AppendMessages(ctx context.Context, msgs []*chat.Message) error
}

// appendMessages stores msgs in order, in one transaction when the
// History can (else one by one).
func appendMessages(ctx context.Context, h chat.History, msgs []*chat.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	if b, ok := h.(batchAppender); ok {
		return b.AppendMessages(ctx, msgs)
	}
	for _, m := range msgs {
		if err := h.AppendMessage(ctx, m); err != nil {
			return err
		}
	}
	return nil
}
