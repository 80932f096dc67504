package config

import (
	"io"
	"path/filepath"
	"testing"
	"time"
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
		if err != nil {
			t.Fatalf("Parse(%v): %v", c.args, err)
		}
		if cfg.Command != c.want {
			t.Errorf("Parse(%v).Command = %q, want %q", c.args, cfg.Command, c.want)
		}
		if cfg.BaseURL != DefaultBaseURL || cfg.QuestionTimeout != DefaultQuestionTimeout || cfg.Addr != DefaultAddr {
			t.Errorf("defaults not applied: %+v", cfg)
		}
	}
}

func TestFlagsOverrideEnvironment(t *testing.T) {
	e := env(map[string]string{
		"PARLEY_DATA_DIR": "/env/dir", "PARLEY_BASE_URL": "http://env/v1", "PARLEY_MODEL": "env-model",
		"PARLEY_API_KEY": "env-key", "PARLEY_QUESTION_TIMEOUT": "90s",
	})
	cfg, err := Parse(nil, e, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DataDir != filepath.Clean("/env/dir") || cfg.BaseURL != "http://env/v1" || cfg.Model != "env-model" ||
		cfg.APIKey != "env-key" || cfg.QuestionTimeout != 90*time.Second {
		t.Fatalf("environment not used: %+v", cfg)
	}
	if !cfg.Set["model"] || cfg.Set["addr"] {
		t.Fatalf("Set = %v", cfg.Set)
	}
	cfg, err = Parse([]string{"serve", "--data-dir", "/flag/dir", "--base-url", "http://flag/v1", "--model", "flag-model",
		"--api-key", "flag-key", "--question-timeout", "0", "--addr", "127.0.0.1:9000", "--token", "tok"}, e, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.DataDir != filepath.Clean("/flag/dir") || cfg.BaseURL != "http://flag/v1" || cfg.Model != "flag-model" ||
		cfg.APIKey != "flag-key" || cfg.QuestionTimeout != 0 || cfg.Addr != "127.0.0.1:9000" || cfg.Token != "tok" {
		t.Fatalf("flags did not override: %+v", cfg)
	}
}

func TestParseErrors(t *testing.T) {
	for _, args := range [][]string{
		{"frobnicate"},
		{"--question-timeout", "soon"},
		{"--question-timeout", "-1s"},
		{"--no-such-flag"},
		{"serve", "extra"},
	} {
		if _, err := Parse(args, env(nil), io.Discard); err == nil {
			t.Errorf("Parse(%v) succeeded, want an error", args)
		}
	}
}

func TestEnsureDataDirCreatesPrivateFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	if err := EnsureDataDir(dir); err != nil {
		t.Fatal(err)
	}
	if err := EnsureDataDir(dir); err != nil {
		t.Fatalf("second call: %v", err)
	}
}
