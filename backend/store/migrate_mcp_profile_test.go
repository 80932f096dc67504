package store

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A default profile saved before MCP servers existed (version 3) offers
// their tools after the upgrade, as a new default profile does; other
// profiles keep exactly their tools.
func TestMigrationGivesTheSavedDefaultProfileMCPTools(t *testing.T) {
	path := filepath.Join(t.TempDir(), "parley.db")
	old := openAt(t, path, 3)
	for _, p := range []struct{ name, tools string }{
		{"default", `["ask_user_question","calculator"]`},
		{"coder", `["calculator"]`},
	} {
		_, err := old.writer.ExecContext(ctx, `INSERT INTO profiles (name, system_prompt, model, tools, created_at, updated_at)
			VALUES (?, '', '', ?, ?, ?)`, p.name, p.tools, formatTime(now()), formatTime(now()))
		require.NoError(t, err)
	}
	require.NoError(t, old.Close())

	s := openAt(t, path, 0)
	def, err := s.Profile(ctx, "default")
	require.NoError(t, err)
	assert.Equal(t, []string{"ask_user_question", "calculator", "mcp:*"}, def.Tools)
	coder, err := s.Profile(ctx, "coder")
	require.NoError(t, err)
	assert.Equal(t, []string{"calculator"}, coder.Tools)
}
