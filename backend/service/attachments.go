package service

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/assistant"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/llm"
)

// attachmentError refuses a file sent with a message, naming the file: too
// large (fault.TooLarge, HTTP 413) or of a kind Parley cannot send to the
// model (fault.Validation, HTTP 422).
func attachmentError(text i18n.Message, tooLarge bool) error {
	if tooLarge {
		return fault.New(fault.TooLarge, text)
	}
	return fault.New(fault.Validation, text)
}

// imageTypes are the pictures vision models take.
var imageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// checkAttachments refuses files Parley cannot send (with the file named)
// and returns them as stored: sizes from the data, types checked from the
// content (an image must be one; anything else must be UTF-8 text).
func checkAttachments(atts []chat.Attachment) ([]chat.Attachment, error) {
	if len(atts) > api.MaxAttachments {
		return nil, attachmentError(i18n.M("service.attach.tooMany", api.MaxAttachments, len(atts)), false)
	}
	out := make([]chat.Attachment, 0, len(atts))
	total := 0
	for i, a := range atts {
		a.Name = strings.TrimSpace(a.Name)
		if a.Name == "" {
			return nil, fault.Newf(fault.Validation, "attachments[%d] has no name", i)
		}
		if utf8.RuneCountInString(a.Name) > 255 {
			return nil, fault.Newf(fault.Validation, "attachments[%d]: the file name is longer than 255 characters", i)
		}
		a.Size = int64(len(a.Data))
		total += len(a.Data)
		sniffed := http.DetectContentType(a.Data)
		switch {
		case strings.HasPrefix(a.MIMEType, "image/") || strings.HasPrefix(sniffed, "image/"):
			if !slices.Contains(imageTypes, sniffed) {
				return nil, attachmentError(i18n.M("service.attach.notImage", a.Name), false)
			}
			if len(a.Data) > api.MaxImageBytes {
				return nil, attachmentError(i18n.M("service.attach.imageTooLarge", a.Name, sizeText(len(a.Data)), sizeText(api.MaxImageBytes)), true)
			}
			a.MIMEType = sniffed
		default:
			if !utf8.Valid(a.Data) || slices.Contains(a.Data, 0) {
				return nil, attachmentError(i18n.M("service.attach.unknownKind", a.Name), false)
			}
			if len(a.Data) > api.MaxTextFileBytes {
				return nil, attachmentError(i18n.M("service.attach.textTooLarge", a.Name, sizeText(len(a.Data)), sizeText(api.MaxTextFileBytes)), true)
			}
			if !strings.HasPrefix(a.MIMEType, "text/") && !strings.HasPrefix(a.MIMEType, "application/") {
				a.MIMEType = "text/plain"
			}
		}
		out = append(out, a)
	}
	if total > api.MaxAttachmentsBytes {
		return nil, attachmentError(i18n.M("service.attach.totalTooLarge", sizeText(total), sizeText(api.MaxAttachmentsBytes)), true)
	}
	return out, nil
}

func sizeText(n int) string {
	if n >= 1<<20 {
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<20)), ".0") + " MB"
	}
	if n >= 1<<10 {
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<10)), ".0") + " KB"
	}
	return fmt.Sprintf("%d bytes", n)
}

// hasImages tells whether any of msgs carries an image.
func hasImages(msgs ...[]chat.Attachment) bool {
	for _, atts := range msgs {
		if slices.ContainsFunc(atts, assistant.IsImage) {
			return true
		}
	}
	return false
}

// checkVision refuses images for a model that cannot see them. modelName ""
// is the conversation's model (the profile's, else the default).
func (s *Service) checkVision(ctx context.Context, assistant, modelName string) error {
	if modelName == "" {
		modelName = s.profile(assistant).Model
	}
	base, name, apiKey, err := s.modelTarget(modelName)
	if err != nil {
		return err
	}
	ok, err := s.seesImages(ctx, base, apiKey, name)
	if err != nil {
		return upstreamError(userMessage(err, base), err)
	}
	if !ok {
		return attachmentError(i18n.M("service.attach.noVision", name), false)
	}
	return nil
}

// seesImages asks the server whether the model reads images: Ollama's
// /api/show capabilities, else the model listing (no vision unless it says so).
func (s *Service) seesImages(ctx context.Context, base, apiKey, model string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	server, err := llm.ListModels(ctx, base, apiKey)
	if err != nil {
		return false, err
	}
	for _, m := range server.Models {
		if m.Name == model || withLatest(m.Name) == withLatest(model) {
			return m.SupportsVision, nil
		}
	}
	return false, nil
}

// withLatest is an Ollama model name with its default tag.
func withLatest(name string) string {
	if strings.Contains(name[strings.LastIndex(name, "/")+1:], ":") {
		return name
	}
	return name + ":latest"
}

// contextLength is the model's context window where Ollama tells it (0 =
// unknown); asked once per server and model.
func (s *Service) contextLength(ctx context.Context, model string) int {
	s.mu.Lock()
	base, demo := s.settings.BaseURL, s.settings.DemoMode
	key := base + "\x00" + model
	n, known := s.contextLengths[key]
	s.mu.Unlock()
	if known || demo {
		return n
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	d, err := llm.NewOllama(base).Details(ctx, model)
	if err != nil {
		s.log.Debug("no context length for the reply figures", "model", model, "err", err)
	}
	s.mu.Lock()
	if s.contextLengths == nil {
		s.contextLengths = map[string]int{}
	}
	s.contextLengths[key] = d.ContextLength
	s.mu.Unlock()
	return d.ContextLength
}
