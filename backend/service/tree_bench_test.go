package service

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/config"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/modelserver"
	"github.com/parley-app/parley/backend/store"
)

// BenchmarkSendWith1MBTextFile: sending a message with a 1 MB text file
// until the reply is stored (checked, stored, sent to a scripted model
// server and answered), next to the same message without the file.
func BenchmarkSendWith1MBTextFile(b *testing.B) {
	file := bytes.Repeat([]byte("log line with some words in it\n"), (1<<20)/31)
	for _, withFile := range []bool{false, true} {
		name := "plain"
		if withFile {
			name = "1MB-file"
		}
		b.Run(name, func(b *testing.B) {
			model := modelserver.New(modelserver.Turns())
			b.Cleanup(model.Close)
			db, err := store.Open(filepath.Join(b.TempDir(), "parley.db"))
			require.NoError(b, err)
			b.Cleanup(func() { _ = db.Close() })
			cfg := config.Config{BaseURL: model.URL(), Model: "scripted", QuestionTimeout: time.Minute,
				Set: map[string]bool{"base-url": true, "model": true, "question-timeout": true}}
			svc, err := New(context.Background(), Options{Store: db, Events: events.Discard, Config: cfg, Version: "bench"})
			require.NoError(b, err)
			b.Cleanup(svc.Close)
			ctx := context.Background()
			for b.Loop() {
				// A new conversation each time: one file in the history, not b.N of them.
				c, err := svc.CreateConversation(ctx, "bench", "")
				require.NoError(b, err)
				req := api.SendRequest{Content: "What is wrong here?"}
				if withFile {
					req.Attachments = []chat.Attachment{{Name: "app.log", MIMEType: "text/plain", Data: file}}
				}
				_, err = svc.Send(ctx, c.ID, req)
				require.NoError(b, err)
				<-svc.rt.Done(c.ID)
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/send")
		})
	}
}
