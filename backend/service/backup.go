package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/parley-app/parley/backend/memory"
	"github.com/parley-app/parley/backend/store"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/events"
	"github.com/parley-app/parley/backend/exchange"
	"github.com/parley-app/parley/backend/fault"
	"github.com/parley-app/parley/backend/i18n"
)

// The full backup (SPEC §14): see backend/exchange/backup.go for its
// format and how a restore keeps ids.

// ErrBackupTooLarge is returned for a backup larger than
// api.MaxBackupBytes (HTTP 413).
var ErrBackupTooLarge = fault.New(fault.TooLarge, i18n.M("service.backupTooLarge"))

// backupParts are the backup's sections beside projects and conversations,
// each written and restored by the area that owns it.
func (s *Service) backupParts() []exchange.BackupPart {
	return []exchange.BackupPart{s.memoriesPart()}
}

// backupMemory is a memory as a backup keeps it: with the answer an
// auto-answer needs, which the API does not show.
type backupMemory struct {
	memory.Memory
	Answer *memory.Answer `json:"answer,omitempty"`
}

// memoriesPart is the backup's "memories" (SPEC §14): every memory, with
// where it came from and its scope; restored under its own id, so a second
// import adds nothing.
func (s *Service) memoriesPart() exchange.BackupPart {
	decode := func(section json.RawMessage) ([]backupMemory, error) {
		var ms []backupMemory
		if err := json.Unmarshal(section, &ms); err != nil {
			return nil, &exchange.InvalidBackupError{Reason: "memories: " + err.Error()}
		}
		for _, m := range ms {
			if _, _, err := memory.CheckText(m.Text); err != nil || m.ID == "" {
				return nil, &exchange.InvalidBackupError{Reason: fmt.Sprintf("memories: %q is not a memory", m.Text)}
			}
			if m.AutoAnswer && m.Answer == nil {
				return nil, &exchange.InvalidBackupError{Reason: fmt.Sprintf("memories: %q answers cards without an answer", m.Text)}
			}
		}
		return ms, nil
	}
	return exchange.BackupPart{
		Name: "memories",
		Export: func(ctx context.Context) (any, error) {
			ms, err := s.store.Memories(ctx, store.MemoryFilter{All: true})
			if err != nil {
				return nil, err
			}
			out := make([]backupMemory, len(ms))
			for i, m := range ms {
				out[i] = backupMemory{Memory: m, Answer: m.Answer}
			}
			return out, nil
		},
		Check: func(section json.RawMessage) error { _, err := decode(section); return err },
		Import: func(ctx context.Context, section json.RawMessage) (added, skipped int, err error) {
			ms, err := decode(section)
			if err != nil {
				return 0, 0, err
			}
			for _, m := range ms {
				m.Memory.Answer = m.Answer
				ok, err := s.store.RestoreMemory(ctx, m.Memory)
				if err != nil {
					return added, skipped, err
				}
				if ok {
					added++
				} else {
					skipped++
				}
			}
			if added > 0 {
				s.memoryChanged("", true)
				s.vectors.kick()
			}
			return added, skipped, nil
		},
	}
}

// ExportBackup writes every project and conversation (not agents') as one
// JSON file.
func (s *Service) ExportBackup(ctx context.Context) (string, error) {
	b, err := exchange.ExportBackup(ctx, s.store, s.backupParts()...)
	return string(b), err
}

// BackupFileName is the name offered for a backup made now.
func BackupFileName(now time.Time) string {
	return fmt.Sprintf("parley-backup-%s.json", now.Format("2006-01-02"))
}

// ImportBackup restores a backup ExportBackup wrote; what is here already
// is left as it is. A project's collections that are not here are dropped,
// and so is its profile when there is no profile of that name here.
func (s *Service) ImportBackup(ctx context.Context, data []byte) (api.BackupImported, error) {
	if len(data) > api.MaxBackupBytes {
		return api.BackupImported{}, fmt.Errorf("the backup is %w", ErrBackupTooLarge)
	}
	before, err := s.store.UserConversationIDs(ctx)
	if err != nil {
		return api.BackupImported{}, err
	}
	had := map[string]bool{}
	for _, id := range before {
		had[id] = true
	}
	projects, err := s.store.Projects(ctx)
	if err != nil {
		return api.BackupImported{}, err
	}
	for _, p := range projects {
		had[p.ID] = true
	}
	res, err := exchange.ImportBackup(ctx, s.store, data, exchange.BackupOptions{Project: s.fitProject, Parts: s.backupParts()})
	var invalid *exchange.InvalidBackupError
	if errors.As(err, &invalid) {
		return res, inputError(i18n.M("service.invalidBackup", invalid.Reason))
	}
	// Tell the lists what came, even after a failure part of the way.
	if res.Added[exchange.SectionProjects] > 0 {
		if projects, perr := s.store.Projects(ctx); perr == nil {
			for i := range projects {
				if !had[projects[i].ID] {
					s.emitProject(&projects[i])
				}
			}
		}
	}
	if res.Added[exchange.SectionConversations] > 0 {
		if after, aerr := s.store.UserConversationIDs(ctx); aerr == nil {
			for _, id := range after {
				if had[id] {
					continue
				}
				if c, gerr := s.store.GetConversation(ctx, id); gerr == nil {
					s.ev.Emit(events.ConversationUpdated, events.TitleChanged(c.ID, c.Title))
				}
			}
		}
	}
	return res, err
}

// fitProject drops what a restored project names that is not here.
func (s *Service) fitProject(ctx context.Context, p *chat.Project) {
	var kept []string
	for _, id := range p.Knowledge {
		if s.knowledge.Exists(ctx, id) {
			kept = append(kept, id)
		}
	}
	p.Knowledge = kept
	if p.Profile != "" {
		if _, err := s.checkAssistant(ctx, p.Profile); err != nil {
			p.Profile = ""
		}
	}
}
