package architecture

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The backend has one error type, fault.Error: it alone says its message
// from the catalogue (a Localized method, which i18n.Localize asks for), so
// per-package error types with their own kinds do not come back.
func TestOnlyFaultErrorIsLocalized(t *testing.T) {
	root := repoRoot(t)
	var found []string
	methods := 0
	err := filepath.WalkDir(filepath.Join(root, "backend"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		require.NoError(t, err, path)
		rel, _ := filepath.Rel(root, path)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Name.Name != "Localized" {
				continue
			}
			methods++
			recv := types(fn.Recv.List[0].Type)
			if filepath.ToSlash(filepath.Dir(rel)) == "backend/fault" && recv == "Error" {
				continue
			}
			found = append(found, rel+": ("+recv+").Localized")
		}
		return nil
	})
	require.NoError(t, err)
	assert.Empty(t, found, "error types other than fault.Error say catalogue messages: return a *fault.Error instead")
	assert.Equal(t, 1, methods, "the scan found fault.Error's Localized")
}

// types is the name of a method's receiver type.
func types(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return types(x.X)
	case *ast.Ident:
		return x.Name
	case *ast.IndexExpr:
		return types(x.X)
	}
	return "?"
}

// backend/fault is a leaf every backend package can import: the standard
// library and backend/i18n only (which imports nothing of Parley's).
func TestFaultIsALeaf(t *testing.T) {
	pkgs := listPackages(t)
	for _, name := range []string{"backend/fault", "backend/i18n"} {
		p, ok := pkgs[module+"/"+name]
		require.True(t, ok, "go list did not list %s", name)
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module+"/") {
				assert.Equal(t, module+"/backend/i18n", imp, "%s imports %s", name, imp)
				assert.NotEqual(t, "backend/i18n", name, "i18n imports %s", imp)
			} else if name == "backend/fault" {
				assert.NotContains(t, strings.Split(imp, "/")[0], ".", "fault imports %s, not of the standard library", imp)
			}
		}
	}
}
