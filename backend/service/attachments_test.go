package service

import (
	"bytes"
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/modelserver"
)

// pngBytes is a 1x1 PNG.
var pngBytes, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")

func TestImagesGoToAVisionModelAsImageParts(t *testing.T) {
	e := newEnvModel(t, echo(), "llava", modelserver.WithModels([]string{"llava", "scripted"}),
		modelserver.WithModelDetails("llava", true, 8192))
	ctx := context.Background()
	c, _ := e.svc.CreateConversation(ctx, "", "")
	d := e.send(c.ID, api.SendRequest{Content: "What is in these?", Attachments: []chat.Attachment{
		{Name: "notes.md", MIMEType: "text/markdown", Data: []byte("# Notes\nbuy milk")},
		{Name: "dot.png", MIMEType: "image/png", Data: pngBytes},
	}})
	user := lastRequest(t, e).LastMessage()
	assert.Equal(t, "user", user.Role)
	assert.Equal(t, "What is in these?\n\n<file name=\"notes.md\">\n# Notes\nbuy milk\n</file>", user.Content,
		"the text file goes as context with its name")
	assert.Equal(t, []string{"data:image/png;base64," + base64.StdEncoding.EncodeToString(pngBytes)}, user.ImageURLs)

	// Stored with the message and returned.
	require.Len(t, d.Messages, 2)
	require.Len(t, d.Messages[0].Attachments, 2)
	assert.Equal(t, chat.Attachment{Name: "dot.png", MIMEType: "image/png", Size: int64(len(pngBytes)), Data: pngBytes}, d.Messages[0].Attachments[1])
	assert.Equal(t, "What is in these?", d.Messages[0].Content, "the message keeps the user's own text")
	// The reply's figures, with the context length Ollama tells.
	st := d.Messages[1].Stats
	require.NotNil(t, st)
	assert.Equal(t, chat.MessageStats{Model: "llava", PromptTokens: 5, CompletionTokens: 7, ContextLength: 8192},
		chat.MessageStats{Model: st.Model, PromptTokens: st.PromptTokens, CompletionTokens: st.CompletionTokens, ContextLength: st.ContextLength})
	assert.False(t, st.Estimated)
	assert.GreaterOrEqual(t, st.DurationMs, st.TimeToFirstTokenMs)

	// Regenerating with a model that cannot see the image is refused.
	_, err := e.svc.Regenerate(ctx, c.ID, d.Messages[1].ID, "scripted")
	require.Error(t, err)
	assert.Equal(t, fault.Validation, fault.KindOf(err))
	assert.Contains(t, err.Error(), "The model scripted cannot read images")
}

func TestImagesAreRefusedForAModelWithoutVision(t *testing.T) {
	e := newEnvModel(t, echo(), "scripted", modelserver.WithModels([]string{"scripted"}))
	ctx := context.Background()
	c, _ := e.svc.CreateConversation(ctx, "", "")
	_, err := e.svc.Send(ctx, c.ID, api.SendRequest{Content: "look", Attachments: []chat.Attachment{{Name: "dot.png", MIMEType: "image/png", Data: pngBytes}}})
	require.Error(t, err)
	assert.Equal(t, fault.Validation, fault.KindOf(err))
	assert.Equal(t, `The model scripted cannot read images. Choose a vision model (with Ollama, one whose details list "vision", such as qwen2.5vl or llava), or send the message without the image.`, err.Error())
	d, err := e.svc.GetConversation(ctx, c.ID)
	require.NoError(t, err)
	assert.Empty(t, d.Messages, "nothing stored")
	assert.Empty(t, e.model.Requests(), "nothing sent")

	// A text file goes to any model.
	d = e.send(c.ID, api.SendRequest{Attachments: []chat.Attachment{{Name: "app.log", Data: []byte("ERROR disk full\n")}}})
	assert.Equal(t, "\n\n<file name=\"app.log\">\nERROR disk full\n</file>", lastRequest(t, e).LastMessage().Content)
	assert.Equal(t, "text/plain", d.Messages[0].Attachments[0].MIMEType)
	assert.Equal(t, "app.log", d.Title, "a message of only a file is titled by it")
}

func TestAttachmentLimitsHaveClearMessages(t *testing.T) {
	e := newEnv(t, modelserver.Turns(), time.Minute)
	ctx := context.Background()
	c, _ := e.svc.CreateConversation(ctx, "Limits", "")
	for name, tc := range map[string]struct {
		atts []chat.Attachment
		kind fault.Kind
		msg  string
	}{
		"text too large": {[]chat.Attachment{{Name: "big.txt", Data: bytes.Repeat([]byte("a"), api.MaxTextFileBytes+1)}}, fault.TooLarge,
			"big.txt is 1 MB; a text file can be at most 1 MB"},
		"binary": {[]chat.Attachment{{Name: "app.zip", MIMEType: "application/zip", Data: []byte("PK\x03\x04\x00\x00")}}, fault.Validation,
			"app.zip is neither a text file nor an image (PNG, JPEG, GIF or WebP): Parley sends text files (code, Markdown, CSV, JSON, logs) and images to the model"},
		"fake image": {[]chat.Attachment{{Name: "x.png", MIMEType: "image/png", Data: []byte("not an image")}}, fault.Validation,
			"x.png is not a PNG, JPEG, GIF or WebP image, which is what models can read"},
		"no name":  {[]chat.Attachment{{Data: []byte("a")}}, fault.Validation, "attachments[0] has no name"},
		"too many": {make([]chat.Attachment, api.MaxAttachments+1), fault.Validation, "a message can carry at most 8 files (got 9)"},
	} {
		_, err := e.svc.Send(ctx, c.ID, api.SendRequest{Content: "files", Attachments: tc.atts})
		if assert.Error(t, err, name) {
			assert.Equal(t, tc.kind, fault.KindOf(err), name)
			assert.Equal(t, tc.msg, err.Error(), name)
		}
	}
	// Exactly 1 MB is fine.
	e.send(c.ID, api.SendRequest{Content: "ok", Attachments: []chat.Attachment{{Name: "max.txt", Data: bytes.Repeat([]byte("a"), api.MaxTextFileBytes)}}})
	assert.True(t, strings.HasSuffix(lastRequest(t, e).LastMessage().Content, "</file>"))
}

func TestReplyFiguresAreCountedWhenTheServerSendsNoUsage(t *testing.T) {
	e := newEnv(t, modelserver.Turns(modelserver.Turn{Text: "twelve chars", NoUsage: true}), time.Minute)
	ctx := context.Background()
	c, _ := e.svc.CreateConversation(ctx, "Figures", "")
	d := e.send(c.ID, api.SendRequest{Content: "hi"})
	st := d.Messages[1].Stats
	require.NotNil(t, st)
	assert.True(t, st.Estimated)
	assert.Equal(t, 3, st.CompletionTokens, "12 characters, about 4 a token")
	assert.Positive(t, st.PromptTokens)
	assert.Equal(t, "scripted", st.Model)
	assert.Zero(t, st.ContextLength, "the server does not tell it")
	assert.Nil(t, d.Messages[0].Stats, "no figures on the user's message")
}
