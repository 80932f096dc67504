package store

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/parley-app/parley/backend/chat"
	"github.com/parley-app/parley/backend/questions"
)

func TestLoadMigrationsChecksNumbering(t *testing.T) {
	require.GreaterOrEqual(t, latestVersion(), 2, "the upgrade tests need at least two migrations")
	good := fstest.MapFS{
		"migrations/0001_a.sql": {Data: []byte("CREATE TABLE a(x);")},
		"migrations/0002_b.sql": {Data: []byte("CREATE TABLE b(x);")},
	}
	ms, err := loadMigrations(good)
	require.NoError(t, err, "good list")
	// A number handed to a branch that has not landed yet may be missing.
	gap, err := loadMigrations(fstest.MapFS{"migrations/0001_a.sql": {}, "migrations/0003_c.sql": {}})
	require.NoError(t, err, "list with a reserved number missing")
	require.Equal(t, 3, gap[1].version)
	require.Len(t, ms, 2, "good list: %+v", ms)
	require.Equal(t, 2, ms[1].version, "good list: %+v", ms)
	require.Equal(t, "0002_b.sql", ms[1].name, "good list: %+v", ms)
	for name, fsys := range map[string]fstest.MapFS{
		"duplicate": {"migrations/0001_a.sql": {}, "migrations/0002_b.sql": {}, "migrations/0002_c.sql": {}},
		"no start":  {"migrations/0002_b.sql": {}},
		"bad name":  {"migrations/1_a.sql": {}},
		"empty":     {},
	} {
		_, err := loadMigrations(fsys)
		assert.Error(t, err, "%s: accepted", name)
	}
}

func TestOpenCreatesFolderAndConfiguresDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nested", "data", "parley.db")
	s := openAt(t, path, 0)
	_, err := os.Stat(path)
	require.NoError(t, err)
	var journal string
	var fk, version, appID, busy int
	row := s.writer.QueryRow("SELECT * FROM pragma_journal_mode, pragma_foreign_keys, pragma_user_version, pragma_application_id, pragma_busy_timeout")
	require.NoError(t, row.Scan(&journal, &fk, &version, &appID, &busy))
	assert.Equal(t, "wal", journal, "journal_mode")
	assert.Equal(t, 1, fk, "foreign_keys")
	assert.Equal(t, latestVersion(), version, "user_version")
	assert.Equal(t, parleyApplicationID, appID, "application_id")
	assert.Equal(t, int(DefaultBusyTimeout.Milliseconds()), busy, "busy_timeout")
	// Readers cannot write, even by mistake.
	_, err = s.readers.Exec("DELETE FROM settings")
	assert.Error(t, err, "reader pool accepted a write")
	backups, _ := filepath.Glob(path + ".bak*")
	assert.Empty(t, backups, "a new database got backups")
}

func TestReopenLatestMakesNoBackup(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	s := openAt(t, path, 0)
	c := mustConversation(t, s, "kept")
	require.NoError(t, s.Close())
	s2 := openAt(t, path, 0)
	_, err := s2.GetConversation(ctx, c.ID)
	require.NoError(t, err)
	backups, _ := filepath.Glob(path + ".bak*")
	assert.Empty(t, backups, "reopening at the latest version made backups")
}

// fillVersion stores data of every table that exists at version v, through
// the Store where it can (the tables of later migrations do not exist yet).
func fillVersion(t *testing.T, s *Store, v int) (convID string) {
	t.Helper()
	c := mustConversation(t, s, "Zeppelin restoration notes")
	for _, m := range []chat.Message{{Role: chat.RoleUser, Content: "How do I patch a hydrogen cell?"},
		{Role: chat.RoleAssistant, Content: "Use vulcanised rubber patches."}, {Role: chat.RoleTool, Content: "toolnoise output"}} {
		switch {
		case v >= 14: // the store indexes what it inserts (0014; before, a trigger did)
			m.ConversationID = c.ID
			require.NoError(t, s.AppendMessage(ctx, &m))
		case v >= 6: // conversations are trees: each message is linked to the one before
			insertTreeMessage(t, s, c.ID, m)
		default:
			insertOldMessage(t, s, c.ID, oldMessage{Role: m.Role, Content: m.Content})
		}
	}
	require.NoError(t, s.SaveRun(ctx, &chat.Run{ID: "run-1", ConversationID: c.ID, Status: chat.RunCompleted}))
	if v < 4 { // before card kinds: the columns of 0001
		_, err := s.writer.ExecContext(ctx, `INSERT INTO cards (id, conversation_id, run_id, status, questions, answers, created_at)
			VALUES ('card-1', ?, 'run-1', 'answered', '[{"question":"Which cell?"}]', '{"Which cell?":"3"}', '2026-01-02T03:04:05.000000000Z')`, c.ID)
		require.NoError(t, err)
	} else if v < 11 { // before memory: the columns of 0004
		_, err := s.writer.ExecContext(ctx, `INSERT INTO cards (id, conversation_id, run_id, status, questions, answers, created_at, kind, source)
			VALUES ('card-1', ?, 'run-1', 'answered', '[{"question":"Which cell?"}]', '{"Which cell?":"3"}', '2026-01-02T03:04:05.000000000Z',
			'question', '{"type":"model"}')`, c.ID)
		require.NoError(t, err)
	} else {
		card := &questions.Card{ID: "card-1", ConversationID: c.ID, RunID: "run-1", Status: questions.StatusAnswered,
			Questions: []questions.Question{{Question: "Which cell?"}}, Answers: map[string]string{"Which cell?": "3"}}
		require.NoError(t, s.SaveCard(ctx, card))
	}
	if v >= 2 {
		require.NoError(t, s.SetSetting(ctx, "theme", "dark"))
		// As version 2 stores a profile (later versions add columns).
		_, err := s.writer.ExecContext(ctx, `INSERT INTO profiles (name, system_prompt, model, tools, created_at, updated_at)
			VALUES ('coder', '', '', '["calculator"]', ?, ?)`, formatTime(now()), formatTime(now()))
		require.NoError(t, err)
	}
	return c.ID
}

func TestMigrateFromEveryEarlierVersion(t *testing.T) {
	for _, m := range migrations[:len(migrations)-1] {
		v := m.version
		t.Run(fmt.Sprintf("from_v%d", v), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "parley.db")
			old := openAt(t, path, v)
			require.Equal(t, v, count(t, old, "SELECT user_version FROM pragma_user_version"), "built version")
			convID := fillVersion(t, old, v)
			require.NoError(t, old.Close())
			oldHash := fileHash(t, path)

			s := openAt(t, path, 0)
			assert.Equal(t, latestVersion(), count(t, s, "SELECT user_version FROM pragma_user_version"), "user_version after migrating")

			// Data intact.
			msgs, err := s.Messages(ctx, convID)
			require.NoError(t, err, "messages after migration")
			require.Len(t, msgs, 3, "messages after migration: %+v", msgs)
			require.Equal(t, "How do I patch a hydrogen cell?", msgs[0].Content, "messages after migration: %+v", msgs)
			require.Equal(t, chat.RoleTool, msgs[2].Role, "messages after migration: %+v", msgs)
			r, err := s.Run(ctx, "run-1")
			if assert.NoError(t, err, "run after migration") {
				assert.Equal(t, chat.RunCompleted, r.Status, "run after migration: %+v", r)
			}
			c, err := s.Card(ctx, "card-1")
			if assert.NoError(t, err, "card after migration") {
				assert.Equal(t, "3", c.Answers["Which cell?"], "card after migration: %+v", c)
				assert.Equal(t, questions.KindQuestion, c.Kind, "kind after migration")
				assert.Equal(t, &questions.Source{Type: questions.SourceModel}, c.Source, "source after migration")
			}
			if v >= 2 {
				var theme string
				ok, err := s.GetSetting(ctx, "theme", &theme)
				assert.NoError(t, err, "setting after migration")
				assert.True(t, ok, "setting after migration not found")
				assert.Equal(t, "dark", theme, "setting after migration")
				p, err := s.Profile(ctx, "coder")
				if assert.NoError(t, err, "profile after migration") {
					assert.Equal(t, "calculator", p.Tools[0], "profile after migration: %+v", p)
					assert.Empty(t, p.ToolCalling, "tool calling after migration: automatic")
				}
			}
			// Rows stored before the search index existed are searchable.
			for _, q := range []string{"zeppelin", "vulcanised", "hydrogen"} {
				page, _, err := s.ListConversations(ctx, ListOptions{Query: q})
				if assert.NoError(t, err, "search %q after migration", q) && assert.Len(t, page, 1, "search %q after migration: %+v", q, page) {
					assert.Equal(t, convID, page[0].ID, "search %q after migration: %+v", q, page)
				}
			}
			page, _, _ := s.ListConversations(ctx, ListOptions{Query: "toolnoise"})
			assert.Empty(t, page, "tool output got indexed by the backfill")
			// New writes work and are indexed.
			mustAppend(t, s, convID, chat.RoleUser, "aftermigration word")
			page, _, _ = s.ListConversations(ctx, ListOptions{Query: "aftermigration"})
			assert.Len(t, page, 1, "message appended after migration not found")
			// Each message is in the index once: the rows an older version's
			// trigger indexed, and those the store indexes itself since 0014.
			for _, idx := range []string{"message_search", "conversation_search"} {
				_, err := s.writer.Exec("INSERT INTO " + idx + "(" + idx + ") VALUES ('integrity-check')")
				assert.NoError(t, err, "%s integrity after migration", idx)
			}
			require.NoError(t, s.DeleteConversation(ctx, convID))
			_, err = s.writer.Exec(`INSERT INTO message_search (message_search) VALUES ('integrity-check')`)
			assert.NoError(t, err, "message_search integrity after the migrated conversation is deleted")

			// The backup is the old database.
			backup := fmt.Sprintf("%s.bak-v%d", path, v)
			_, err = os.Stat(backup)
			require.NoError(t, err, "backup")
			bdb := rawDB(t, backup)
			var bVersion, bConvs, bMsgs, bSearch int
			require.NoError(t, bdb.QueryRow(`SELECT (SELECT user_version FROM pragma_user_version),
				(SELECT count(*) FROM conversations), (SELECT count(*) FROM messages),
				(SELECT count(*) FROM sqlite_master WHERE name = 'message_search')`).Scan(&bVersion, &bConvs, &bMsgs, &bSearch))
			assert.Equal(t, v, bVersion, "backup: version")
			assert.Equal(t, 1, bConvs, "backup: conversations")
			assert.Equal(t, 3, bMsgs, "backup: messages")
			wantSearch := 0
			if v >= 3 { // 0003 made the search tables
				wantSearch = 1
			}
			assert.Equal(t, wantSearch, bSearch, "backup: search tables")
			require.NoError(t, s.Close()) // checkpoints the WAL into the file
			assert.NotEqual(t, oldHash, fileHash(t, path), "database file unchanged by a migration")
		})
	}
}

func TestBackupNeverOverwritesAnOlderBackup(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	old := openAt(t, path, 1)
	mustConversation(t, old, "one")
	require.NoError(t, old.Close())
	taken := path + ".bak-v1"
	require.NoError(t, os.WriteFile(taken, []byte("an older backup"), 0o600))
	openAt(t, path, 0)
	b, _ := os.ReadFile(taken)
	assert.Equal(t, "an older backup", string(b), "existing backup overwritten")
	_, err := os.Stat(path + ".bak-v1-2")
	assert.NoError(t, err, "second backup not written beside it")
}

func TestMigrationFailureRollsBackThatStep(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	old := openAt(t, path, 1)
	mustConversation(t, old, "one")
	// Sabotage: a table migration 0002 creates already exists.
	_, err := old.writer.Exec("CREATE TABLE settings (x)")
	require.NoError(t, err)
	require.NoError(t, old.Close())
	_, err = OpenWith(path, quietOptions())
	require.Error(t, err, "want a migration error")
	require.Contains(t, err.Error(), "migrate to version 2", "want a migration error")
	assert.NotErrorIs(t, err, ErrNotParleyDatabase, "a failed migration is not a foreign file")
	db := rawDB(t, path)
	var v int
	assert.NoError(t, db.QueryRow("PRAGMA user_version").Scan(&v), "user_version after failed migration")
	assert.Equal(t, 1, v, "user_version after failed migration")
}
