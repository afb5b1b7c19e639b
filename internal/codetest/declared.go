package codetest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/actionkit/actionkit/errorcodes"
)

// errorcodesPath is the import path of the package that defines Code.
const errorcodesPath = "github.com/actionkit/actionkit/errorcodes"

// Listed fails t for each error code declared in the package in dir (see
// Declared) that list lacks, naming it: a code added beside the others
// but not to the package's ErrorCodes would have no message checked and
// no place in the catalog.
func Listed(t testing.TB, dir string, list []errorcodes.Code) {
	t.Helper()
	declared, err := Declared(dir)
	if err != nil {
		t.Fatal(err)
	}
	pkg := dir
	if abs, err := filepath.Abs(dir); err == nil {
		pkg = filepath.Base(abs)
	}
	for _, name := range unlisted(declared, list) {
		t.Errorf("%s (%s) is declared in package %s but missing from its list of error codes", name, declared[name].ID(), pkg)
	}
}

// Unlisted returns, sorted, the names of the codes declared in the
// package in dir whose values list lacks.
func Unlisted(dir string, list []errorcodes.Code) ([]string, error) {
	declared, err := Declared(dir)
	if err != nil {
		return nil, err
	}
	return unlisted(declared, list), nil
}

func unlisted(declared map[string]errorcodes.Code, list []errorcodes.Code) []string {
	var missing []string
	for name, c := range declared {
		if !slices.Contains(list, c) {
			missing = append(missing, name)
		}
	}
	slices.Sort(missing)
	return missing
}

// Declared reads the Go files of the package in dir (its tests excluded)
// and returns, by name, every package-level constant or variable of type
// errorcodes.Code (declared with the type, or converted to it). A code's
// value must be a string literal, which is how codes are declared; any
// other value is an error, since it could not be read.
func Declared(dir string) (map[string]errorcodes.Code, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	out := map[string]errorcodes.Code{}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		if err := declaredIn(fset, f, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// declaredIn adds the codes declared at the top level of f to out.
func declaredIn(fset *token.FileSet, f *ast.File, out map[string]errorcodes.Code) error {
	isCode := codeType(f)
	for _, d := range f.Decls {
		gen, ok := d.(*ast.GenDecl)
		if !ok || (gen.Tok != token.CONST && gen.Tok != token.VAR) {
			continue
		}
		var typ ast.Expr
		var values []ast.Expr
		for _, spec := range gen.Specs {
			vs := spec.(*ast.ValueSpec)
			if gen.Tok == token.VAR || vs.Type != nil || len(vs.Values) > 0 {
				typ, values = vs.Type, vs.Values // a constant without either repeats the one before
			}
			for i, name := range vs.Names {
				if err := addCode(fset, name, typ, values, i, isCode, out); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// addCode adds name, the i-th name of a declaration of type typ with
// values, to out when it is a code.
func addCode(fset *token.FileSet, name *ast.Ident, typ ast.Expr, values []ast.Expr, i int, isCode func(ast.Expr) bool, out map[string]errorcodes.Code) error {
	var value ast.Expr
	if i < len(values) {
		value = values[i]
	}
	if conv, ok := value.(*ast.CallExpr); ok && typ == nil && isCode(conv.Fun) && len(conv.Args) == 1 {
		typ, value = conv.Fun, conv.Args[0]
	}
	if typ == nil || !isCode(typ) || name.Name == "_" {
		return nil
	}
	lit, ok := value.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return fmt.Errorf("%s: the value of error code %s is not a string literal", fset.Position(name.Pos()), name.Name)
	}
	s, err := strconv.Unquote(lit.Value)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", fset.Position(lit.Pos()), name.Name, err)
	}
	out[name.Name] = errorcodes.Code(s)
	return nil
}

// codeType returns the test of whether a type expression of f names
// errorcodes.Code: by its import name, or as Code inside package
// errorcodes itself.
func codeType(f *ast.File) func(ast.Expr) bool {
	local := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == errorcodesPath {
			local = "errorcodes"
			if imp.Name != nil {
				local = imp.Name.Name
			}
		}
	}
	inside := f.Name.Name == "errorcodes"
	return func(e ast.Expr) bool {
		switch e := e.(type) {
		case *ast.Ident:
			return inside && e.Name == "Code"
		case *ast.SelectorExpr:
			x, ok := e.X.(*ast.Ident)
			return ok && local != "" && x.Name == local && e.Sel.Name == "Code"
		}
		return false
	}
}
