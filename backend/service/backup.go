package service

import (
	"context"
	"errors"
	"fmt"
	"time"

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
// each written and restored by the area that owns it (memories, SPEC §14,
// join here as one exchange.BackupPart).
func (s *Service) backupParts() []exchange.BackupPart { return nil }

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
