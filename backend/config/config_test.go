package config

import (
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestParseCommandsAndDefaults(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{nil, CommandDesktop},
		{[]string{"--data-dir", dir}, CommandDesktop},
		{[]string{"serve", "--data-dir", dir}, CommandServe},
		{[]string{"version"}, CommandVersion},
	}
	for _, c := range cases {
		cfg, err := Parse(c.args, env(map[string]string{"PARLEY_DATA_DIR": dir}), io.Discard)
		require.NoError(t, err, "Parse(%v)", c.args)
		assert.Equal(t, c.want, cfg.Command, "Parse(%v).Command", c.args)
		assert.Equal(t, DefaultBaseURL, cfg.BaseURL, "defaults not applied: %+v", cfg)
		assert.Equal(t, DefaultQuestionTimeout, cfg.QuestionTimeout, "defaults not applied: %+v", cfg)
		assert.Equal(t, DefaultAddr, cfg.Addr, "defaults not applied: %+v", cfg)
	}
}

func TestFlagsOverrideEnvironment(t *testing.T) {
	e := env(map[string]string{
		"PARLEY_DATA_DIR": "/env/dir", "PARLEY_BASE_URL": "http://env/v1", "PARLEY_MODEL": "env-model",
		"PARLEY_API_KEY": "env-key", "PARLEY_QUESTION_TIMEOUT": "90s",
	})
	cfg, err := Parse(nil, e, io.Discard)
	require.NoError(t, err)
	require.Equal(t, filepath.Clean("/env/dir"), cfg.DataDir, "environment not used: %+v", cfg)
	require.Equal(t, "http://env/v1", cfg.BaseURL, "environment not used: %+v", cfg)
	require.Equal(t, "env-model", cfg.Model, "environment not used: %+v", cfg)
	require.Equal(t, "env-key", cfg.APIKey, "environment not used: %+v", cfg)
	require.Equal(t, 90*time.Second, cfg.QuestionTimeout, "environment not used: %+v", cfg)
	require.True(t, cfg.Set["model"], "Set = %v", cfg.Set)
	require.False(t, cfg.Set["addr"], "Set = %v", cfg.Set)

	cfg, err = Parse([]string{"serve", "--data-dir", "/flag/dir", "--base-url", "http://flag/v1", "--model", "flag-model",
		"--api-key", "flag-key", "--question-timeout", "0", "--addr", "127.0.0.1:9000", "--token", "tok"}, e, io.Discard)
	require.NoError(t, err)
	require.Equal(t, filepath.Clean("/flag/dir"), cfg.DataDir, "flags did not override: %+v", cfg)
	require.Equal(t, "http://flag/v1", cfg.BaseURL, "flags did not override: %+v", cfg)
	require.Equal(t, "flag-model", cfg.Model, "flags did not override: %+v", cfg)
	require.Equal(t, "flag-key", cfg.APIKey, "flags did not override: %+v", cfg)
	require.Zero(t, cfg.QuestionTimeout, "flags did not override: %+v", cfg)
	require.Equal(t, "127.0.0.1:9000", cfg.Addr, "flags did not override: %+v", cfg)
	require.Equal(t, "tok", cfg.Token, "flags did not override: %+v", cfg)
}

func TestParseErrors(t *testing.T) {
	for _, args := range [][]string{
		{"frobnicate"},
		{"--question-timeout", "soon"},
		{"--question-timeout", "-1s"},
		{"--no-such-flag"},
		{"serve", "extra"},
	} {
		_, err := Parse(args, env(nil), io.Discard)
		assert.Error(t, err, "Parse(%v) succeeded, want an error", args)
	}
}

func TestEnsureDataDirCreatesPrivateFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	require.NoError(t, EnsureDataDir(dir))
	require.NoError(t, EnsureDataDir(dir), "second call")
}

func TestDemoFlagAndEnvironment(t *testing.T) {
	dir := t.TempDir()
	cfg, err := Parse([]string{"serve", "--data-dir", dir}, env(nil), io.Discard)
	require.NoError(t, err)
	assert.False(t, cfg.Demo)
	assert.False(t, cfg.Set["demo"], "no demo override unless asked: %v", cfg.Set)

	cfg, err = Parse([]string{"serve", "--data-dir", dir, "--demo"}, env(nil), io.Discard)
	require.NoError(t, err)
	assert.True(t, cfg.Demo)
	assert.True(t, cfg.Set["demo"])

	cfg, err = Parse([]string{"serve", "--data-dir", dir}, env(map[string]string{"PARLEY_DEMO": "1"}), io.Discard)
	require.NoError(t, err)
	assert.True(t, cfg.Demo, "PARLEY_DEMO=1")
	assert.True(t, cfg.Set["demo"])

	cfg, err = Parse([]string{"serve", "--data-dir", dir, "--demo=false"}, env(map[string]string{"PARLEY_DEMO": "1"}), io.Discard)
	require.NoError(t, err)
	assert.False(t, cfg.Demo, "the flag overrides the environment")
	assert.True(t, cfg.Set["demo"])

	_, err = Parse([]string{"serve", "--data-dir", dir}, env(map[string]string{"PARLEY_DEMO": "maybe"}), io.Discard)
	assert.ErrorContains(t, err, "PARLEY_DEMO")
}

func TestModelsDirAndHubEndpoint(t *testing.T) {
	data := t.TempDir()
	cfg, err := Parse(nil, env(map[string]string{"PARLEY_DATA_DIR": data}), io.Discard)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(data, "models"), cfg.ModelsDir, "default: <data dir>/models")
	assert.False(t, cfg.Set["models-dir"])
	assert.Empty(t, cfg.HFEndpoint, "the real hub")

	cfg, err = Parse(nil, env(map[string]string{"PARLEY_DATA_DIR": data, "PARLEY_MODELS_DIR": "/env/models", "HF_ENDPOINT": "http://127.0.0.1:9/"}), io.Discard)
	require.NoError(t, err)
	assert.Equal(t, filepath.Clean("/env/models"), cfg.ModelsDir)
	assert.True(t, cfg.Set["models-dir"])
	assert.Equal(t, "http://127.0.0.1:9", cfg.HFEndpoint)

	cfg, err = Parse([]string{"--models-dir", "/flag/models"}, env(map[string]string{"PARLEY_DATA_DIR": data, "PARLEY_MODELS_DIR": "/env/models"}), io.Discard)
	require.NoError(t, err)
	assert.Equal(t, filepath.Clean("/flag/models"), cfg.ModelsDir, "the flag wins")

	_, err = Parse(nil, env(map[string]string{"PARLEY_DATA_DIR": data, "HF_ENDPOINT": "huggingface.co"}), io.Discard)
	assert.ErrorContains(t, err, "HF_ENDPOINT")
}

func TestMachineMemoryOverride(t *testing.T) {
	data := t.TempDir()
	cfg, err := Parse(nil, env(map[string]string{"PARLEY_DATA_DIR": data}), io.Discard)
	require.NoError(t, err)
	assert.Zero(t, cfg.MachineMemory, "default: ask the system")
	cfg, err = Parse(nil, env(map[string]string{"PARLEY_DATA_DIR": data, "PARLEY_MACHINE_MEMORY": "8589934592"}), io.Discard)
	require.NoError(t, err)
	assert.Equal(t, uint64(8<<30), cfg.MachineMemory)
	for _, bad := range []string{"8GB", "0", "-1"} {
		_, err = Parse(nil, env(map[string]string{"PARLEY_DATA_DIR": data, "PARLEY_MACHINE_MEMORY": bad}), io.Discard)
		assert.ErrorContains(t, err, "PARLEY_MACHINE_MEMORY", bad)
	}
}

func TestUpdateCommandKeepsItsArguments(t *testing.T) {
	env := map[string]string{"PARLEY_DATA_DIR": t.TempDir()}
	cfg, err := Parse([]string{"update", "--check", "--yes"}, func(k string) string { return env[k] }, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, CommandUpdate, cfg.Command)
	assert.Equal(t, []string{"--check", "--yes"}, cfg.Args)
	assert.Equal(t, env["PARLEY_DATA_DIR"], cfg.DataDir)
}

func TestUpdateCommandTakesTheDataDir(t *testing.T) {
	dir := t.TempDir()
	env := func(string) string { return "/from/env" }
	for _, args := range [][]string{{"update", "--data-dir", dir, "--yes"}, {"update", "--yes", "--data-dir=" + dir}, {"update", "-data-dir", dir, "--yes"}} {
		cfg, err := Parse(args, env, io.Discard)
		require.NoError(t, err)
		assert.Equal(t, dir, cfg.DataDir, "the flag wins over the environment")
		assert.Equal(t, []string{"--yes"}, cfg.Args)
	}
	_, err := Parse([]string{"update", "--data-dir"}, env, io.Discard)
	require.Error(t, err)
}
