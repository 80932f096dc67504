package i18n

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// verbRE finds the formatting verbs of a message (%s, %d, %q, %[2]s; %%
// is no verb).
var verbRE = regexp.MustCompile(`%(\[\d+\])?[-+# 0]*\d*(\.\d+)?[a-zA-Z%]`)

// placeholders lists the arguments a format uses and how, in argument
// order, so "%[2]s … %[1]s" in a translation matches "%s … %s" in English
// only when each argument keeps its verb.
func placeholders(format string) []string {
	var out []string
	next := 1
	for _, v := range verbRE.FindAllStringSubmatch(format, -1) {
		if strings.HasSuffix(v[0], "%") {
			continue
		}
		arg := next
		if v[1] != "" {
			arg, _ = strconv.Atoi(strings.Trim(v[1], "[]"))
		}
		next = arg + 1
		verb := v[0][len(v[0])-1:]
		out = append(out, strconv.Itoa(arg)+verb)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Every catalogue has exactly English's keys, each with English's
// placeholders (the same arguments, with the same verbs).
func TestCataloguesMatchEnglish(t *testing.T) {
	en, err := Catalogue(English)
	require.NoError(t, err)
	require.NotEmpty(t, en)
	files, err := fs.Glob(localeFiles, "locales/*.json")
	require.NoError(t, err)
	require.Len(t, files, len(Languages), "one catalogue per language: %v", files)
	for _, code := range Languages[1:] {
		cat, err := Catalogue(code)
		require.NoError(t, err, code)
		for key, text := range en {
			tr, ok := cat[key]
			if !assert.True(t, ok, "%s lacks %q", code, key) {
				continue
			}
			assert.NotEmpty(t, strings.TrimSpace(tr), "%s %q is empty", code, key)
			assert.Equal(t, placeholders(text), placeholders(tr), "%s %q: placeholders differ:\n en: %s\n %s: %s", code, key, text, code, tr)
		}
		for key := range cat {
			_, ok := en[key]
			assert.True(t, ok, "%s has %q, which English lacks", code, key)
		}
	}
}

// The checker itself tells a changed placeholder from a reordered one.
func TestPlaceholdersCompareArgumentsAndVerbs(t *testing.T) {
	assert.Equal(t, placeholders("%s at %d"), placeholders("%[2]d bei %[1]s"))
	assert.NotEqual(t, placeholders("%s at %d"), placeholders("%s bei %s"))
	assert.NotEqual(t, placeholders("%s"), placeholders("kein Platzhalter"))
	assert.Equal(t, placeholders("100%% of %s"), placeholders("%s zu 100 %%"))
}

// Every key the Go code asks for (i18n.T, i18n.In, i18n.M, and t(…) in the
// menu) is in the English catalogue: a typo would show the key to the user.
func TestKeysUsedInCodeExist(t *testing.T) {
	en, err := Catalogue(English)
	require.NoError(t, err)
	root := filepath.Join("..", "..")
	used := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "node_modules" || d.Name() == "frontend" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, src, 0)
		require.NoError(t, err, path)
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			keyArg := -1
			switch fn := call.Fun.(type) {
			case *ast.SelectorExpr:
				if id, ok := fn.X.(*ast.Ident); ok && id.Name == "i18n" {
					switch fn.Sel.Name {
					case "T", "M":
						keyArg = 0
					case "In":
						keyArg = 1
					}
				}
				// The packages' own error helpers take a key too.
				if fn.Sel.Name == "Invalid" || fn.Sel.Name == "NewError" {
					checkKeyLiterals(t, en, path, call, &used)
				}
			case *ast.Ident:
				if fn.Name == "t" && strings.HasSuffix(path, "menu.go") {
					keyArg = 0
				}
				if fn.Name == "inputErr" || fn.Name == "Invalid" || fn.Name == "fileErr" || fn.Name == "answerErr" || fn.Name == "embedErr" || fn.Name == "NewError" {
					checkKeyLiterals(t, en, path, call, &used)
				}
			}
			if keyArg < 0 || len(call.Args) <= keyArg {
				return true
			}
			lit, ok := call.Args[keyArg].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			key, _ := strconv.Unquote(lit.Value)
			used++
			_, ok = en[key]
			assert.True(t, ok, "%s uses %q, which the English catalogue lacks", path, key)
			return true
		})
		return nil
	})
	require.NoError(t, err)
	assert.Greater(t, used, 30, "the scan found the keys the code uses")
}

func TestMatchPicksALanguageOfTheInterface(t *testing.T) {
	for in, want := range map[string]string{
		"de_DE.UTF-8":               "de",
		"de-AT":                     "de",
		"ja_JP.UTF-8":               "ja",
		"zh_CN.UTF-8":               "zh-CN",
		"zh-Hans":                   "zh-CN",
		"pt_BR.UTF-8":               "pt-BR",
		"pt-PT":                     "pt-BR",
		"fr-CA":                     "fr",
		"es-MX":                     "es",
		"en_GB.UTF-8":               "en",
		"fr-CH, fr;q=0.9, en;q=0.8": "fr",
		"ko;q=1, ja;q=0.5":          "ja",
		"C":                         "",
		"ko-KR":                     "",
		"":                          "",
	} {
		assert.Equal(t, want, Match(in), "Match(%q)", in)
	}
}

func TestSystemReadsThePOSIXVariablesInOrder(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	assert.Equal(t, "de", System(env(map[string]string{"LANG": "de_DE.UTF-8"})))
	assert.Equal(t, "ja", System(env(map[string]string{"LANG": "de_DE.UTF-8", "LC_MESSAGES": "ja_JP.UTF-8"})))
	assert.Equal(t, "fr", System(env(map[string]string{"LANG": "de_DE.UTF-8", "LC_MESSAGES": "ja_JP.UTF-8", "LC_ALL": "fr_FR.UTF-8"})))
	assert.Equal(t, English, System(env(map[string]string{"LANG": "ko_KR.UTF-8"})))
	assert.Equal(t, English, System(env(nil)))
}

func TestMessagesAreSaidInTheChosenLanguage(t *testing.T) {
	t.Cleanup(func() { SetCurrent(English) })
	url := "http://127.0.0.1:9/v1"
	assert.Equal(t, "Cannot reach the model server at "+url+". Is your model server running?", T("llm.unreachable", url))
	SetCurrent("de")
	assert.Equal(t, "de", Current())
	assert.Equal(t, "Der Modellserver unter "+url+" ist nicht erreichbar. Läuft dein Modellserver?", T("llm.unreachable", url))
	assert.Equal(t, "モデル qwen3 が http://x に見つかりません。先にダウンロードするか（ollama pull qwen3）、設定で別のモデルを選んでください。",
		In("ja", "llm.modelNotFound", "qwen3", "http://x"), "reordered arguments")
	SetCurrent("xx")
	assert.Equal(t, English, Current(), "an unknown language means English")
	assert.Equal(t, "de", Choose("de"))
}

type testLocalized struct{ m Message }

func (e testLocalized) Error() string      { return e.m.In(English) }
func (e testLocalized) Localized() Message { return e.m }

func TestLocalizeSaysAnErrorInTheRequestsLanguage(t *testing.T) {
	err := testLocalized{M("llm.noModel")}
	assert.Equal(t, "Es ist kein Modell ausgewählt. Wähle eines in den Einstellungen.", Localize(err, "de"))
	wrapped := &wrapErr{err, "list: "}
	assert.Equal(t, wrapped.Error(), Localize(wrapped, "de"), "words outside the catalogue stay as they are")
	assert.Equal(t, "plain", Localize(&wrapErr{nil, "plain"}, "de"))
}

func TestStoredTextsAreSaidInTheLanguageShown(t *testing.T) {
	unreadable := testLocalized{M("knowledge.fileUnreadable", "permission denied")}
	badName := testLocalized{M("knowledge.badName", 80)}
	stored := Store(
		unreadable,
		errors.New("pdf: bad xref table"), // a library's words
		&wrapErr{testLocalized{M("knowledge.fileEmpty")}, "doc: "}, // wrapped with words
		badName, // a whole number: said again
		testLocalized{M("knowledge.fileUnreadable", time.Second)}, // a duration: kept as words
	)
	english := "cannot read the file: permission denied; pdf: bad xref table; doc: no text to index: the file is empty; " +
		"a collection's name must be 1 to 80 characters; cannot read the file: 1s"
	assert.Equal(t, english, ShowStored(stored, English))
	german := In("de", "knowledge.fileUnreadable", "permission denied")
	require.NotEqual(t, unreadable.Error(), german, "the catalogue has German for it")
	germanName := In("de", "knowledge.badName", 80)
	require.NotEqual(t, badName.Error(), germanName, "the catalogue has German for it")
	require.Contains(t, germanName, "80")
	assert.Equal(t, german+"; pdf: bad xref table; doc: no text to index: the file is empty; "+germanName+"; cannot read the file: 1s",
		ShowStored(stored, "de"), "the messages in the language shown; other words as they were")
	assert.Equal(t, english, ShowStored(stored, "xx"), "an unknown language reads English")

	assert.Equal(t, "", Store())
	assert.Equal(t, "cannot read the file: x", ShowStored("cannot read the file: x", "de"), "a text stored as words before")
	assert.Equal(t, "i18n:{", ShowStored("i18n:{", "de"), "not what Store writes")
	assert.Equal(t, "the words of then", ShowStored(`i18n:[{"k":"knowledge.noLongerAKey","a":["x"],"t":"the words of then"}]`, "de"),
		"a key gone from the catalogue shows the words it was stored with")
	assert.Equal(t, "the words of then", ShowStored(`i18n:[{"k":"knowledge.badName","a":[1.5],"t":"the words of then"}]`, "de"),
		"an argument Store does not write shows the words")
}

type wrapErr struct {
	inner  error
	prefix string
}

func (w *wrapErr) Error() string {
	if w.inner == nil {
		return w.prefix
	}
	return w.prefix + w.inner.Error()
}
func (w *wrapErr) Unwrap() error { return w.inner }

// keyRE is what a catalogue key looks like (mcp.badName, questions.rule.count).
var keyRE = regexp.MustCompile(`^(mcp|agents|agent|questions|knowledge|llm|service)\.[A-Za-z.]+$`)

// checkKeyLiterals checks the string literals of a call that look like keys.
func checkKeyLiterals(t *testing.T, en map[string]string, path string, call *ast.CallExpr, used *int) {
	t.Helper()
	for _, a := range call.Args {
		lit, ok := a.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			continue
		}
		key, _ := strconv.Unquote(lit.Value)
		if !keyRE.MatchString(key) {
			continue
		}
		*used++
		_, ok = en[key]
		assert.True(t, ok, "%s uses %q, which the English catalogue lacks", path, key)
	}
}
