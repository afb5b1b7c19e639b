package accounts

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sessionWriters names, for each way of writing a session row or signing
// an access token, the only functions of the module allowed to call it
// (package directory, then the receiver type of a method, then function). Opening a session anywhere else
// would skip the completion step, which decides whether a second factor
// is owed.
var sessionWriters = map[string][]string{
	// A new chain only through a grant; a continued one from its live row;
	// an OAuth session with the assurance of the live session that
	// approved it (which went through the completion step).
	"Sessions.Create": {"accounts.Service.openSession", "accounts.Service.continueSession", "accounts.OAuthSessions.Open"},
	// Rotations copy the assurance of the row they replace, in SQL.
	"Sessions.Rotate":          {"accounts.Service.decide", "accounts.OAuthSessions.refreshLocked"},
	"Sessions.RotateLive":      {"accounts.Service.rotateLive"},
	"Sessions.RotateLiveOAuth": {"accounts.OAuthSessions.Refresh"},
	// Access tokens only for a committed row.
	"Tokens.Issue":              {"accounts.Service.issue"},
	"Tokens.IssueAuthenticated": {"accounts.Service.issue"},
	"models.NewSessionStore":    {"accounts.NewService"},
}

// TestSessionsOpenOnlyThroughCompletion reads every non-test Go file of
// the module and fails when a session row is written, or an access token
// signed, outside the functions allowed to.
func TestSessionsOpenOnlyThroughCompletion(t *testing.T) {
	root := filepath.Join("..")
	found := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() && path != root {
			// A folder with a go.mod of its own is another module (the
			// load tool's baselines, under bench/, rotate sessions on
			// purpose): not the product's.
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		return scanWriters(path, found)
	})
	if err != nil {
		t.Fatal(err)
	}
	for call, callers := range found {
		for _, c := range callers {
			if !slices.Contains(sessionWriters[call], c) {
				t.Errorf("%s is called by %s; only %v may: a session opened elsewhere skips the completion step", call, c, sessionWriters[call])
			}
		}
	}
	if len(found["Sessions.Create"]) == 0 || len(found["Tokens.IssueAuthenticated"]) == 0 {
		t.Errorf("the scan found none of the known writers (%v): it reads nothing", found)
	}
}

// scanWriters records in found, by call, the functions of the file at path
// that make one of the calls of sessionWriters.
func scanWriters(path string, found map[string][]string) error {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return err
	}
	pkg := filepath.Base(filepath.Dir(path))
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		caller := pkg + "." + fn.Name.Name
		if recv := receiverType(fn); recv != "" {
			caller = pkg + "." + recv + "." + fn.Name.Name
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			if name := writerCall(n); name != "" {
				found[name] = append(found[name], caller)
			}
			return true
		})
	}
	return nil
}

// receiverType returns the name of the receiver's type of the method fn,
// "" for a function.
func receiverType(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return ""
	}
	t := fn.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// writerCall names the call n makes when it is one of sessionWriters:
// "<last name of the receiver>.<method>", such as Sessions.Create for
// s.Sessions.Create(...) or Tokens.Issue for t.Issue(...) on a value
// named like tokens.
func writerCall(n ast.Node) string {
	call, ok := n.(*ast.CallExpr)
	if !ok {
		return ""
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	var recv string
	switch x := sel.X.(type) {
	case *ast.Ident:
		recv = x.Name
	case *ast.SelectorExpr:
		recv = x.Sel.Name
	}
	if strings.Contains(strings.ToLower(recv), "token") {
		recv = "Tokens"
	}
	name := recv + "." + sel.Sel.Name
	if _, watched := sessionWriters[name]; watched {
		return name
	}
	return ""
}
