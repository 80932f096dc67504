package service

import (
	"cmp"
	"context"
	"errors"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/parley-app/parley/backend/assistant"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/i18n"
	"github.com/parley-app/parley/backend/store"
)

// ToolInfo describes a tool a profile can opt in to. Description is for
// the user (Settings → Profiles): Parley's own entries say it in the
// interface's language, and Text again in an HTTP client's; the built-in
// tools' and MCP tools' descriptions are the ones the model reads.
type ToolInfo struct {
	Name        string       `json:"name"`
	Description string       `json:"description"`
	Text        i18n.Message `json:"-"`
}

// toolInfo is one of Parley's own entries, described from the catalogue.
func toolInfo(name, key string, args ...any) ToolInfo {
	text := i18n.M(key, args...)
	return ToolInfo{Name: name, Description: text.String(), Text: text}
}

var profileName = regexp.MustCompile(`^[\p{L}\p{N} _.-]{1,40}$`)

// AvailableTools lists the tools profiles may opt in to: the built-in ones,
// then the MCP entries: every enabled server's tools (mcp:*), each
// server's (mcp:<server>) and each listed tool (<server>__<tool>).
func (s *Service) AvailableTools() []ToolInfo {
	out := []ToolInfo{
		toolInfo(assistant.ToolAskUser, "service.tool.askUser"),
		toolInfo(assistant.ToolSpawnAgents, "service.tool.spawnAgents", strconv.Itoa(assistant.MaxSubAgents)),
		toolInfo(assistant.ToolRemember, "service.tool.remember"),
	}
	for _, t := range assistant.BuiltinTools(nil) {
		out = append(out, ToolInfo{Name: t.Name, Description: t.Description})
	}
	out = append(out, toolInfo(assistant.MCPAllTools, "service.tool.mcpAll"))
	for _, srv := range s.mcp.Servers() {
		out = append(out, toolInfo(assistant.MCPPrefix+srv.Name, "service.tool.mcpServer", srv.Name))
		for _, t := range srv.Tools {
			out = append(out, ToolInfo{Name: t.ModelName, Description: t.Description})
		}
	}
	return out
}

// mcpProfileEntry matches profile entries for MCP tools that may not be
// listed right now (a server still connecting, or removed for a while).
var mcpProfileEntry = regexp.MustCompile(`^(mcp:(\*|[A-Za-z0-9_-]{1,32})|[A-Za-z0-9_-]{1,32}__[A-Za-z0-9_-]{1,60})$`)

// Profiles lists assistant profiles; the default one is always there.
func (s *Service) Profiles(ctx context.Context) ([]assistant.Profile, error) {
	stored, err := s.store.Profiles(ctx)
	if err != nil {
		return nil, err
	}
	out := []assistant.Profile{s.profile(assistant.DefaultProfileName)}
	for _, p := range stored {
		if p.Name != assistant.DefaultProfileName {
			out = append(out, fromStoreProfile(p))
		}
	}
	return out, nil
}

// SaveProfile creates or replaces a profile after checking it.
func (s *Service) SaveProfile(ctx context.Context, p assistant.Profile) (assistant.Profile, error) {
	p.Name = strings.TrimSpace(p.Name)
	if !profileName.MatchString(p.Name) {
		return assistant.Profile{}, inputError(i18n.M("service.profileName"))
	}
	if utf8.RuneCountInString(p.SystemPrompt) > MaxSystemPromptChars {
		return assistant.Profile{}, inputError(i18n.M("service.systemPromptTooLong", MaxSystemPromptChars))
	}
	known := map[string]bool{}
	for _, t := range s.AvailableTools() {
		known[t.Name] = true
	}
	seen := map[string]bool{}
	tools := []string{}
	for _, t := range p.Tools {
		if !known[t] && !mcpProfileEntry.MatchString(t) {
			return assistant.Profile{}, inputError(i18n.M("service.unknownTool", t))
		}
		if !seen[t] {
			seen[t] = true
			tools = append(tools, t)
		}
	}
	p.Tools = tools
	p.Model = strings.TrimSpace(p.Model)
	if p.ToolCalling == "" {
		p.ToolCalling = assistant.ToolCallingAuto
	}
	if !slices.Contains(assistant.ToolCallingModes, p.ToolCalling) {
		return assistant.Profile{}, inputErrorf(`tool calling must be "auto", "native", "text" or "off"`)
	}
	if p.Thinking == "" {
		p.Thinking = chat.ThinkingAuto
	}
	if err := checkThinking(p.Thinking); err != nil {
		return assistant.Profile{}, err
	}
	knowledge, err := s.checkCollections(ctx, p.Knowledge)
	if err != nil {
		return assistant.Profile{}, err
	}
	p.Knowledge = knowledge
	if err := s.store.SaveProfile(ctx, store.Profile{Name: p.Name, SystemPrompt: p.SystemPrompt, Model: p.Model, Tools: p.Tools,
		ToolCalling: p.ToolCalling, Thinking: p.Thinking, Knowledge: p.Knowledge}); err != nil {
		return assistant.Profile{}, err
	}
	return p, nil
}

// DeleteProfile removes a profile; the default one resets to its defaults.
func (s *Service) DeleteProfile(ctx context.Context, name string) error {
	err := s.store.DeleteProfile(ctx, name)
	if errors.Is(err, chat.ErrNotFound) && name == assistant.DefaultProfileName {
		return nil
	}
	return err
}

func (s *Service) profile(name string) assistant.Profile {
	if name == "" || name == assistant.DefaultProfileName {
		if p, err := s.store.Profile(context.Background(), assistant.DefaultProfileName); err == nil {
			return fromStoreProfile(*p)
		}
		return assistant.DefaultProfile()
	}
	p, err := s.store.Profile(context.Background(), name)
	if err != nil {
		s.log.Warn("unknown assistant profile, using the default", "profile", name, "err", err)
		return assistant.DefaultProfile()
	}
	return fromStoreProfile(*p)
}

func fromStoreProfile(p store.Profile) assistant.Profile {
	toolCalling := p.ToolCalling
	if toolCalling == "" {
		toolCalling = assistant.ToolCallingAuto
	}
	return assistant.Profile{Name: p.Name, SystemPrompt: p.SystemPrompt, Model: p.Model, Tools: p.Tools, ToolCalling: toolCalling,
		Thinking: cmp.Or(p.Thinking, chat.ThinkingAuto), Knowledge: p.Knowledge}
}

// checkThinking refuses a thinking setting that is not one of SPEC §9's.
func checkThinking(setting string) error {
	if !slices.Contains(chat.ThinkingSettings, setting) {
		return valueErrorf(`thinking must be "auto", "off", "low", "medium" or "high" (not %q)`, setting)
	}
	return nil
}
