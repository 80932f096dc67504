package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/questions"
)

func TestLoadMigrationsChecksNumbering(t *testing.T) {
	if latestVersion() < 2 {
		t.Fatalf("latestVersion = %d; the upgrade tests need at least two migrations", latestVersion())
	}
	good := fstest.MapFS{
		"migrations/0001_a.sql": {Data: []byte("CREATE TABLE a(x);")},
		"migrations/0002_b.sql": {Data: []byte("CREATE TABLE b(x);")},
	}
	ms, err := loadMigrations(good)
	if err != nil || len(ms) != 2 || ms[1].version != 2 || ms[1].name != "0002_b.sql" {
		t.Fatalf("good list: %v %+v", err, ms)
	}
	for name, fsys := range map[string]fstest.MapFS{
		"gap":      {"migrations/0001_a.sql": {}, "migrations/0003_c.sql": {}},
		"no start": {"migrations/0002_b.sql": {}},
		"bad name": {"migrations/1_a.sql": {}},
		"empty":    {},
	} {
		if _, err := loadMigrations(fsys); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestOpenCreatesFolderAndConfiguresDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nested", "data", "parley.db")
	s := openAt(t, path, 0)
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	var journal string
	var fk, version, appID, busy int
	row := s.writer.QueryRow("SELECT * FROM pragma_journal_mode, pragma_foreign_keys, pragma_user_version, pragma_application_id, pragma_busy_timeout")
	if err := row.Scan(&journal, &fk, &version, &appID, &busy); err != nil {
		t.Fatal(err)
	}
	if journal != "wal" || fk != 1 || version != latestVersion() || appID != parleyApplicationID || busy != int(DefaultBusyTimeout.Milliseconds()) {
		t.Errorf("journal=%s foreign_keys=%d user_version=%d application_id=%d busy_timeout=%d",
			journal, fk, version, appID, busy)
	}
	// Readers cannot write, even by mistake.
	if _, err := s.readers.Exec("DELETE FROM settings"); err == nil {
		t.Error("reader pool accepted a write")
	}
	if backups, _ := filepath.Glob(path + ".bak*"); len(backups) != 0 {
		t.Errorf("a new database got backups: %v", backups)
	}
}

func TestReopenLatestMakesNoBackup(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	s := openAt(t, path, 0)
	c := mustConversation(t, s, "kept")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := openAt(t, path, 0)
	if _, err := s2.GetConversation(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	if backups, _ := filepath.Glob(path + ".bak*"); len(backups) != 0 {
		t.Errorf("reopening at the latest version made backups: %v", backups)
	}
}

// fillVersion stores data of every table that exists at version v, through
// the Store where it can (the tables of later migrations do not exist yet).
func fillVersion(t *testing.T, s *Store, v int) (convID string) {
	t.Helper()
	c := mustConversation(t, s, "Zeppelin restoration notes")
	mustAppend(t, s, c.ID, chat.RoleUser, "How do I patch a hydrogen cell?")
	mustAppend(t, s, c.ID, chat.RoleAssistant, "Use vulcanised rubber patches.")
	mustAppend(t, s, c.ID, chat.RoleTool, "toolnoise output")
	if err := s.SaveRun(ctx, &chat.Run{ID: "run-1", ConversationID: c.ID, Status: chat.RunCompleted}); err != nil {
		t.Fatal(err)
	}
	card := &questions.Card{ID: "card-1", ConversationID: c.ID, RunID: "run-1", Status: questions.StatusAnswered,
		Questions: []questions.Question{{Question: "Which cell?"}}, Answers: map[string]string{"Which cell?": "3"}}
	if err := s.SaveCard(ctx, card); err != nil {
		t.Fatal(err)
	}
	if v >= 2 {
		if err := s.SetSetting(ctx, "theme", "dark"); err != nil {
			t.Fatal(err)
		}
		if err := s.SaveProfile(ctx, Profile{Name: "coder", Tools: []string{"calculator"}}); err != nil {
			t.Fatal(err)
		}
	}
	return c.ID
}

func TestMigrateFromEveryEarlierVersion(t *testing.T) {
	for v := 1; v < latestVersion(); v++ {
		t.Run(fmt.Sprintf("from_v%d", v), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "parley.db")
			old := openAt(t, path, v)
			if got := count(t, old, "SELECT user_version FROM pragma_user_version"); got != v {
				t.Fatalf("built version %d, want %d", got, v)
			}
			convID := fillVersion(t, old, v)
			if err := old.Close(); err != nil {
				t.Fatal(err)
			}
			oldHash := fileHash(t, path)

			s := openAt(t, path, 0)
			if got := count(t, s, "SELECT user_version FROM pragma_user_version"); got != latestVersion() {
				t.Errorf("user_version after migrating = %d, want %d", got, latestVersion())
			}

			// Data intact.
			msgs, err := s.Messages(ctx, convID)
			if err != nil || len(msgs) != 3 || msgs[0].Content != "How do I patch a hydrogen cell?" || msgs[2].Role != chat.RoleTool {
				t.Fatalf("messages after migration: %v %+v", err, msgs)
			}
			if r, err := s.Run(ctx, "run-1"); err != nil || r.Status != chat.RunCompleted {
				t.Errorf("run after migration: %v %+v", err, r)
			}
			if c, err := s.Card(ctx, "card-1"); err != nil || c.Answers["Which cell?"] != "3" {
				t.Errorf("card after migration: %v %+v", err, c)
			}
			if v >= 2 {
				var theme string
				if ok, err := s.GetSetting(ctx, "theme", &theme); !ok || err != nil || theme != "dark" {
					t.Errorf("setting after migration: %v %v %q", ok, err, theme)
				}
				if p, err := s.Profile(ctx, "coder"); err != nil || p.Tools[0] != "calculator" {
					t.Errorf("profile after migration: %v %+v", err, p)
				}
			}
			// Rows stored before the search index existed are searchable.
			for _, q := range []string{"zeppelin", "vulcanised", "hydrogen"} {
				page, _, err := s.ListConversations(ctx, ListOptions{Query: q})
				if err != nil || len(page) != 1 || page[0].ID != convID {
					t.Errorf("search %q after migration: %v %+v", q, err, page)
				}
			}
			if page, _, _ := s.ListConversations(ctx, ListOptions{Query: "toolnoise"}); len(page) != 0 {
				t.Errorf("tool output got indexed by the backfill: %+v", page)
			}
			// New writes work and are indexed.
			mustAppend(t, s, convID, chat.RoleUser, "aftermigration word")
			if page, _, _ := s.ListConversations(ctx, ListOptions{Query: "aftermigration"}); len(page) != 1 {
				t.Error("message appended after migration not found")
			}

			// The backup is the old database.
			backup := fmt.Sprintf("%s.bak-v%d", path, v)
			if _, err := os.Stat(backup); err != nil {
				t.Fatalf("backup: %v", err)
			}
			bdb := rawDB(t, backup)
			var bVersion, bConvs, bMsgs, bSearch int
			if err := bdb.QueryRow(`SELECT (SELECT user_version FROM pragma_user_version),
				(SELECT count(*) FROM conversations), (SELECT count(*) FROM messages),
				(SELECT count(*) FROM sqlite_master WHERE name = 'message_search')`).Scan(&bVersion, &bConvs, &bMsgs, &bSearch); err != nil {
				t.Fatal(err)
			}
			if bVersion != v || bConvs != 1 || bMsgs != 3 || bSearch != 0 {
				t.Errorf("backup: version %d conversations %d messages %d search tables %d; want %d 1 3 0",
					bVersion, bConvs, bMsgs, bSearch, v)
			}
			if err := s.Close(); err != nil { // checkpoints the WAL into the file
				t.Fatal(err)
			}
			if oldHash == fileHash(t, path) {
				t.Error("database file unchanged by a migration")
			}
		})
	}
}

func TestBackupNeverOverwritesAnOlderBackup(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	old := openAt(t, path, 1)
	mustConversation(t, old, "one")
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	taken := path + ".bak-v1"
	if err := os.WriteFile(taken, []byte("an older backup"), 0o600); err != nil {
		t.Fatal(err)
	}
	openAt(t, path, 0)
	if b, _ := os.ReadFile(taken); string(b) != "an older backup" {
		t.Error("existing backup overwritten")
	}
	if _, err := os.Stat(path + ".bak-v1-2"); err != nil {
		t.Errorf("second backup not written beside it: %v", err)
	}
}

func TestMigrationFailureRollsBackThatStep(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	old := openAt(t, path, 1)
	mustConversation(t, old, "one")
	// Sabotage: a table migration 0002 creates already exists.
	if _, err := old.writer.Exec("CREATE TABLE settings (x)"); err != nil {
		t.Fatal(err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := OpenWith(path, quietOptions())
	if err == nil || !strings.Contains(err.Error(), "migrate to version 2") {
		t.Fatalf("err = %v, want a migration error", err)
	}
	if errors.Is(err, ErrNotParleyDatabase) {
		t.Errorf("a failed migration is not a foreign file: %v", err)
	}
	db := rawDB(t, path)
	var v int
	if err := db.QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != 1 {
		t.Errorf("user_version after failed migration = %d (%v), want 1", v, err)
	}
}
