package service

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/exchange"
)

// ExportConversation renders a conversation as "markdown" or "json".
func (s *Service) ExportConversation(ctx context.Context, id, format string) (string, error) {
	switch format {
	case "markdown", "md", "":
		return exchange.ExportMarkdown(ctx, s.store, id)
	case "json":
		b, err := exchange.ExportJSON(ctx, s.store, id)
		return string(b), err
	}
	return "", inputErrorf(`format must be "markdown" or "json"`)
}

// ImportConversation adds a conversation exported as JSON (with new ids).
func (s *Service) ImportConversation(ctx context.Context, data []byte) (*chat.Conversation, error) {
	if len(data) > MaxImportBytes {
		return nil, fmt.Errorf("the import is %w", ErrTooLarge)
	}
	c, err := exchange.ImportJSON(ctx, s.store, data)
	if errors.Is(err, exchange.ErrInvalidImport) {
		return nil, inputErrorf(err.Error())
	}
	if err != nil {
		return nil, err
	}
	s.ev.Emit(events.ConversationUpdated, events.TitleChanged(c.ID, c.Title))
	return c, nil
}

// unsafeFileChars are characters file systems refuse or treat specially.
var unsafeFileChars = regexp.MustCompile(`[\\/:*?"<>|\x00-\x1f\x7f]+`)

// ExportFileName suggests `<title>.md` or `<title>.json` for an export, safe
// as a file name on every OS (the browser UI uses the same rule).
func (s *Service) ExportFileName(ctx context.Context, id, format string) string {
	title := ""
	if c, err := s.store.GetConversation(ctx, id); err == nil {
		title = c.Title
	}
	return exportFileName(title, format)
}

func exportFileName(title, format string) string {
	base := strings.Join(strings.Fields(unsafeFileChars.ReplaceAllString(title, " ")), " ")
	base = strings.Trim(base, ". ")
	if r := []rune(base); len(r) > 100 {
		base = strings.TrimSpace(string(r[:100]))
	}
	if base == "" {
		base = "conversation"
	}
	if format == "json" {
		return base + ".json"
	}
	return base + ".md"
}
