package store

import (
	"reflect"
	"testing"
)

func TestSettings(t *testing.T) {
	s := newStore(t)
	type prefs struct {
		Model   string  `json:"model"`
		Timeout int     `json:"timeout"`
		Rate    float64 `json:"rate"`
	}
	dst := prefs{Model: "default"}
	if found, err := s.GetSetting(ctx, "prefs", &dst); found || err != nil || dst.Model != "default" {
		t.Fatalf("missing key: found=%v err=%v dst=%+v", found, err, dst)
	}
	want := prefs{Model: "qwen3", Timeout: 300, Rate: 2.5}
	if err := s.SetSetting(ctx, "prefs", want); err != nil {
		t.Fatal(err)
	}
	var got prefs
	if found, err := s.GetSetting(ctx, "prefs", &got); !found || err != nil || got != want {
		t.Errorf("got %+v (found=%v err=%v)", got, found, err)
	}
	if err := s.SetSetting(ctx, "prefs", prefs{Model: "llama"}); err != nil {
		t.Fatal(err)
	}
	_, _ = s.GetSetting(ctx, "prefs", &got)
	if got.Model != "llama" {
		t.Errorf("overwrite: %+v", got)
	}
	var wrongType []int
	if found, err := s.GetSetting(ctx, "prefs", &wrongType); !found || err == nil {
		t.Errorf("decoding into the wrong type: found=%v err=%v", found, err)
	}
	if err := s.SetSetting(ctx, "bad", func() {}); err == nil {
		t.Error("unencodable value accepted")
	}
	if err := s.SetSetting(ctx, "", 1); err == nil {
		t.Error("empty key accepted")
	}
}

func TestProfiles(t *testing.T) {
	s := newStore(t)
	coder := Profile{Name: "coder", SystemPrompt: "You write Go.", Model: "qwen3-coder", Tools: []string{"calculator", "ask_user_question"}}
	plain := Profile{Name: "plain"}
	for _, p := range []Profile{coder, plain} {
		if err := s.SaveProfile(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Profile(ctx, "coder")
	if err != nil || !reflect.DeepEqual(*got, coder) {
		t.Errorf("coder = %+v (%v)", got, err)
	}
	got, _ = s.Profile(ctx, "plain")
	if got.Tools == nil || len(got.Tools) != 0 {
		t.Errorf("nil tools should come back as an empty list: %#v", got.Tools)
	}
	coder.Tools = []string{"current_time"}
	if err := s.SaveProfile(ctx, coder); err != nil {
		t.Fatal(err)
	}
	all, err := s.Profiles(ctx)
	if err != nil || len(all) != 2 || all[0].Name != "coder" || all[1].Name != "plain" || all[0].Tools[0] != "current_time" {
		t.Errorf("profiles = %+v (%v)", all, err)
	}
	if err := s.DeleteProfile(ctx, "plain"); err != nil {
		t.Fatal(err)
	}
	_, err = s.Profile(ctx, "plain")
	wantNotFound(t, err)
	wantNotFound(t, s.DeleteProfile(ctx, "plain"))
	if err := s.SaveProfile(ctx, Profile{Name: "  "}); err == nil {
		t.Error("blank name accepted")
	}
}
