package exchange

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/parley-app/parley/backend/api"
	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/store"
)

// The full backup (SPEC §14): every project and conversation (agents'
// conversations excepted: they hold the cards of this machine's agents),
// in one versioned JSON file that moves a user's Parley to another
// machine. Each conversation is in the conversation export's format.
// Restoring keeps ids: what is here already (the same id) is left as it
// is, so restoring one backup twice adds nothing twice, and sections that
// refer to conversations or projects by id stay right.
//
// Sections beside projects and conversations are BackupParts: each is a
// key of the file's top object, written and read by its own code (memories
// are one). A file without a part's key imports without that part.
const (
	BackupFormat  = "parley.backup"
	BackupVersion = 1
)

// The backup's sections of its own.
const (
	SectionProjects      = "projects"
	SectionConversations = "conversations"
)

// ErrInvalidBackup is matched (errors.Is) by ImportBackup's error for data
// it refuses, an *InvalidBackupError.
var ErrInvalidBackup = errors.New("invalid backup")

// InvalidBackupError says why a backup is refused.
type InvalidBackupError struct{ Reason string }

func (e *InvalidBackupError) Error() string { return "invalid backup: " + e.Reason }

// Is makes the error match ErrInvalidBackup.
func (e *InvalidBackupError) Is(target error) bool { return target == ErrInvalidBackup }

func invalidBackup(format string, args ...any) error {
	return &InvalidBackupError{Reason: fmt.Sprintf(format, args...)}
}

// BackupPart is a section of the full backup beside projects and
// conversations. Parts are restored after projects and conversations, in
// order, so they may refer to both by id.
type BackupPart struct {
	// Name is the section's key in the file.
	Name string
	// Export returns the section's value (marshalled as JSON); nil leaves
	// the section out.
	Export func(ctx context.Context) (any, error)
	// Check refuses a section Import could not store faithfully, before
	// anything is stored; nil = no check.
	Check func(section json.RawMessage) error
	// Import stores the section and counts what it added and what it left
	// because it was here already.
	Import func(ctx context.Context, section json.RawMessage) (added, skipped int, err error)
}

type backupDoc struct {
	Format        string          `json:"format"`
	Version       int             `json:"version"`
	ExportedAt    time.Time       `json:"exported_at"`
	Projects      []backupProject `json:"projects"`
	Conversations []*exportDoc    `json:"conversations"`
}

type backupProject struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	Instructions string    `json:"instructions,omitempty"`
	Knowledge    []string  `json:"knowledge,omitempty"`
	Profile      string    `json:"profile,omitempty"`
	Model        string    `json:"model,omitempty"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// ExportBackup writes every project and conversation, and each part's
// section.
func ExportBackup(ctx context.Context, s *store.Store, parts ...BackupPart) ([]byte, error) {
	doc := backupDoc{Format: BackupFormat, Version: BackupVersion, ExportedAt: time.Now().UTC().Round(0),
		Projects: []backupProject{}, Conversations: []*exportDoc{}}
	projects, err := s.Projects(ctx)
	if err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	for _, p := range projects {
		doc.Projects = append(doc.Projects, backupProject{ID: p.ID, Name: p.Name, Instructions: p.Instructions, Knowledge: p.Knowledge,
			Profile: p.Profile, Model: p.Model, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt})
	}
	ids, err := s.UserConversationIDs(ctx)
	if err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	for _, id := range ids {
		d, err := exportDocOf(ctx, s, id)
		if errors.Is(err, chat.ErrNotFound) {
			continue // deleted while the backup was made
		}
		if err != nil {
			return nil, fmt.Errorf("backup: %w", err)
		}
		doc.Conversations = append(doc.Conversations, d)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	var out bytes.Buffer
	out.Write(b[:len(b)-1]) // without the closing brace: the parts follow
	for _, part := range parts {
		v, err := part.Export(ctx)
		if err != nil {
			return nil, fmt.Errorf("backup: %s: %w", part.Name, err)
		}
		if v == nil {
			continue
		}
		section, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("backup: %s: %w", part.Name, err)
		}
		name, _ := json.Marshal(part.Name)
		out.WriteByte(',')
		out.Write(name)
		out.WriteByte(':')
		out.Write(section)
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

// BackupOptions adapt a restore to this Parley.
type BackupOptions struct {
	// Project, when set, fits a project of the backup to this Parley
	// before it is stored (say, drops collections that are not here).
	Project func(ctx context.Context, p *chat.Project)
	Parts   []BackupPart
}

// ImportBackup restores a backup ExportBackup wrote. The whole file is
// checked first: a refused file stores nothing. Then each project, each
// conversation and each part's section is stored in its own transaction,
// those here already left as they are, so an import cut short (the app
// killed) keeps what it stored and an import of the same file again
// completes it.
func ImportBackup(ctx context.Context, s *store.Store, data []byte, opt BackupOptions) (api.BackupImported, error) {
	res := api.BackupImported{Added: map[string]int{SectionProjects: 0, SectionConversations: 0}, Skipped: map[string]int{SectionProjects: 0, SectionConversations: 0}}
	doc, sections, err := decodeBackup(data, opt.Parts)
	if err != nil {
		return res, fmt.Errorf("import backup: %w", err)
	}
	for _, bp := range doc.Projects {
		p := chat.Project{ID: bp.ID, Name: bp.Name, Instructions: bp.Instructions, Knowledge: bp.Knowledge, Profile: bp.Profile, Model: bp.Model,
			CreatedAt: bp.CreatedAt, UpdatedAt: bp.UpdatedAt}
		if opt.Project != nil {
			opt.Project(ctx, &p)
		}
		added, err := s.ImportProject(ctx, p)
		if err != nil {
			return res, fmt.Errorf("import backup: %w", err)
		}
		tally(res, SectionProjects, added)
	}
	for _, d := range doc.Conversations {
		_, added, err := s.RestoreTranscript(ctx, d.transcript())
		if err != nil {
			return res, fmt.Errorf("import backup: conversation %s: %w", d.Conversation.ID, err)
		}
		tally(res, SectionConversations, added)
	}
	for _, part := range opt.Parts {
		section, ok := sections[part.Name]
		if !ok {
			continue
		}
		added, skipped, err := part.Import(ctx, section)
		if err != nil {
			return res, fmt.Errorf("import backup: %s: %w", part.Name, err)
		}
		res.Added[part.Name] += added
		res.Skipped[part.Name] += skipped
	}
	return res, nil
}

func tally(res api.BackupImported, section string, added bool) {
	if added {
		res.Added[section]++
	} else {
		res.Skipped[section]++
	}
}

// decodeBackup reads and checks a backup, and returns the parts' sections
// found in it.
func decodeBackup(data []byte, parts []BackupPart) (*backupDoc, map[string]json.RawMessage, error) {
	var doc backupDoc
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return nil, nil, invalidBackup("%v", err)
	}
	if dec.More() {
		return nil, nil, invalidBackup("data after the JSON object")
	}
	if err := validateBackup(&doc); err != nil {
		return nil, nil, invalidBackup("%v", err)
	}
	sections := map[string]json.RawMessage{}
	if len(parts) > 0 {
		var all map[string]json.RawMessage
		if err := json.Unmarshal(data, &all); err != nil {
			return nil, nil, invalidBackup("%v", err)
		}
		for _, part := range parts {
			section, ok := all[part.Name]
			if !ok || bytes.Equal(bytes.TrimSpace(section), []byte("null")) {
				continue
			}
			if part.Check != nil {
				if err := part.Check(section); err != nil {
					return nil, nil, invalidBackup("%s: %v", part.Name, err)
				}
			}
			sections[part.Name] = section
		}
	}
	return &doc, sections, nil
}

func validateBackup(doc *backupDoc) error {
	switch {
	case doc.Format != BackupFormat:
		return fmt.Errorf("format is %q, want %q", doc.Format, BackupFormat)
	case doc.Version > BackupVersion:
		return fmt.Errorf("version %d was written by a newer Parley (this one reads up to %d)", doc.Version, BackupVersion)
	case doc.Version < 1:
		return fmt.Errorf("version %d is not valid", doc.Version)
	}
	projects := map[string]bool{}
	for i, p := range doc.Projects {
		switch {
		case p.ID == "":
			return fmt.Errorf("projects[%d].id is missing", i)
		case projects[p.ID]:
			return fmt.Errorf("projects[%d].id %q is repeated", i, p.ID)
		case p.Name == "":
			return fmt.Errorf("projects[%d].name is missing", i)
		case p.CreatedAt.IsZero() || p.UpdatedAt.IsZero():
			return fmt.Errorf("projects[%d]: created_at and updated_at are required", i)
		}
		projects[p.ID] = true
	}
	conversations := map[string]bool{}
	for i, d := range doc.Conversations {
		if d == nil {
			return fmt.Errorf("conversations[%d] is null", i)
		}
		if err := validateExport(d); err != nil {
			return fmt.Errorf("conversations[%d]: %v", i, err)
		}
		switch id := d.Conversation.ID; {
		case id == "":
			return fmt.Errorf("conversations[%d].conversation.id is missing", i)
		case conversations[id]:
			return fmt.Errorf("conversations[%d].conversation.id %q is repeated", i, id)
		default:
			conversations[id] = true
		}
	}
	return nil
}
