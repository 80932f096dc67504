// Command release-feed writes a release's update feed (SPEC §13):
// stable.json with the size and sha256 of each artifact, signed with a
// minisign secret key when one is given (stable.json.minisig).
//
//	release-feed -version 1.4.0 -out dist -key release.key \
//	  -notes en=notes/en.md -notes de=notes/de.md \
//	  -artifact tar:linux:amd64:dist/parley_1.4.0_linux_amd64.tar.gz \
//	  -artifact deb:linux:amd64:dist/parley_1.4.0_amd64.deb
//
// The artifacts' URLs are relative to the feed (served beside it), or
// under -base-url (e.g. the release's download folder).
//
// An encrypted key's password is read from PARLEY_RELEASE_KEY_PASSWORD.
//
//	release-feed -genkey DIR
//
// makes a key pair: DIR/parley-release.key (the secret key, encrypted with
// PARLEY_RELEASE_KEY_PASSWORD when it is set) and DIR/parley-release.pub;
// it prints the public key's line, the value main.updateKeys takes.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"crypto/rand"
	"path/filepath"

	"aead.dev/minisign"

	"github.com/parley-app/parley/backend/update"
)

func main() { os.Exit(run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr)) }

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

func run(args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("release-feed", flag.ContinueOnError)
	fs.SetOutput(stderr)
	version := fs.String("version", "", "the release's version (required)")
	out := fs.String("out", ".", "folder stable.json is written to")
	keyFile := fs.String("key", "", "minisign secret key file (none: the feed is written unsigned, and Parley will refuse it)")
	validFor := fs.Duration("valid-for", 90*24*time.Hour, "how long the feed stays valid")
	baseURL := fs.String("base-url", "", "where the artifacts are served (none: beside the feed, relative URLs)")
	var notes, artifacts list
	fs.Var(&notes, "notes", "lang=file: the release notes in one language (repeatable; en is the fallback)")
	fs.Var(&artifacts, "artifact", "kind:os:arch:path (repeatable), e.g. tar:linux:amd64:dist/parley_1.4.0_linux_amd64.tar.gz")
	genkey := fs.String("genkey", "", "make a key pair in this folder (parley-release.key, parley-release.pub) and print the public key")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fail := func(err error) int { fmt.Fprintln(stderr, "release-feed:", err); return 1 }
	if *genkey != "" {
		if err := genKey(*genkey, getenv("PARLEY_RELEASE_KEY_PASSWORD"), stdout, stderr); err != nil {
			return fail(err)
		}
		return 0
	}
	if *version == "" || len(artifacts) == 0 {
		return fail(errors.New("-version and at least one -artifact are required"))
	}
	texts := map[string]string{}
	for _, n := range notes {
		lang, file, ok := strings.Cut(n, "=")
		if !ok {
			return fail(fmt.Errorf("-notes %q: want lang=file", n))
		}
		b, err := os.ReadFile(file)
		if err != nil {
			return fail(err)
		}
		texts[lang] = strings.TrimSpace(string(b))
	}
	var arts []update.ReleaseArtifact
	for _, a := range artifacts {
		parts := strings.SplitN(a, ":", 4)
		if len(parts) != 4 {
			return fail(fmt.Errorf("-artifact %q: want kind:os:arch:path", a))
		}
		a := update.ReleaseArtifact{Kind: parts[0], OS: parts[1], Arch: parts[2], Path: parts[3]}
		if *baseURL != "" {
			a.URL = strings.TrimRight(*baseURL, "/") + "/" + filepath.Base(a.Path)
		}
		arts = append(arts, a)
	}
	feed, err := update.MakeFeed(*version, time.Now(), *validFor, texts, arts)
	if err != nil {
		return fail(err)
	}
	var key *minisign.PrivateKey
	if *keyFile != "" {
		raw, err := os.ReadFile(*keyFile)
		if err != nil {
			return fail(err)
		}
		var k minisign.PrivateKey
		if minisign.IsEncrypted(raw) {
			k, err = minisign.DecryptKey(getenv("PARLEY_RELEASE_KEY_PASSWORD"), raw)
		} else {
			err = k.UnmarshalText(raw)
		}
		if err != nil {
			return fail(fmt.Errorf("the key %s: %w", *keyFile, err))
		}
		key = &k
	}
	if err := update.WriteSignedFeed(*out, feed, key); err != nil {
		return fail(err)
	}
	state := "signed"
	if key == nil {
		state = "UNSIGNED"
		fmt.Fprintln(stderr, "release-feed: warning: no -key, the feed is unsigned and Parley will refuse it")
	}
	fmt.Fprintf(stdout, "wrote %s/%s (%s, %d artifacts)\n", *out, update.FeedFile, state, len(feed.Artifacts))
	return 0
}

// Key files -genkey writes.
const (
	SecretKeyFile = "parley-release.key"
	PublicKeyFile = "parley-release.pub"
)

// genKey writes a new key pair into dir, never over an existing key.
func genKey(dir, password string, stdout, stderr io.Writer) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	pub, priv, err := minisign.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	var secret []byte
	if password != "" {
		secret, err = minisign.EncryptKey(password, priv)
	} else {
		fmt.Fprintln(stderr, "release-feed: warning: PARLEY_RELEASE_KEY_PASSWORD is not set, the secret key is written unencrypted (fine for tests, not for a release key)")
		secret, err = priv.MarshalText()
	}
	if err != nil {
		return err
	}
	pubText, _ := pub.MarshalText()
	for _, f := range []struct {
		name string
		data []byte
		mode os.FileMode
	}{{SecretKeyFile, secret, 0o600}, {PublicKeyFile, append(pubText, '\n'), 0o644}} {
		file, err := os.OpenFile(filepath.Join(dir, f.name), os.O_CREATE|os.O_EXCL|os.O_WRONLY, f.mode)
		if err != nil {
			return err
		}
		_, werr := file.Write(f.data)
		if cerr := file.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return werr
		}
	}
	fmt.Fprintln(stdout, pub.String())
	return nil
}
