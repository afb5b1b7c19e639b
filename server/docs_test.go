package main

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/actionkit/actionkit/action"
)

// TestErrorsDocListsEveryCode: docs/errors.md has a row for every code the
// server answers, with its status, and no row for a code it does not, so
// the page cannot drift from testdata/codes.golden.
func TestErrorsDocListsEveryCode(t *testing.T) {
	golden, doc := readText(t, "testdata/codes.golden"), readText(t, "../docs/errors.md")
	rows := map[string]string{} // code -> status, from the tables
	for _, m := range regexp.MustCompile("(?m)^\\| `([A-Z_]+)` \\| ([0-9]{3}) \\|").FindAllStringSubmatch(doc, -1) {
		if _, dup := rows[m[1]]; dup {
			t.Errorf("docs/errors.md lists %s twice", m[1])
		}
		rows[m[1]] = m[2]
	}
	want := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(golden), "\n") {
		var id, key string
		var status int
		if _, err := fmt.Sscanf(line, "%s %d %s", &id, &status, &key); err != nil {
			t.Fatalf("codes.golden line %q: %v", line, err)
		}
		want[id] = true
		if got, ok := rows[id]; !ok {
			t.Errorf("docs/errors.md has no row for %s (%d)", id, status)
		} else if got != fmt.Sprint(status) {
			t.Errorf("docs/errors.md gives %s status %s, want %d", id, got, status)
		}
	}
	for id := range rows {
		if !want[id] {
			t.Errorf("docs/errors.md lists %s, which the server does not answer", id)
		}
	}
}

// readText returns the file's text, failing the test if it cannot be read.
func readText(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// apiRow matches a row of an action table of docs/api.md: its path, its
// access cell and its arguments cell.
var apiRow = regexp.MustCompile("(?m)^\\| `(/v[0-9]+/[a-z0-9/]+)` \\| ([^|]+) \\| ([^|]+) \\|")

// TestAPIDocListsEveryAction: docs/api.md has one row for every action the
// server registers and none for an action it does not, and each row gives
// the action's access rule (public, logged out, user or admin; sensitive
// exactly when the action needs a recent authentication) and exactly its
// declared arguments.
func TestAPIDocListsEveryAction(t *testing.T) {
	doc := readText(t, "../docs/api.md")
	rows := map[string][2]string{}
	for _, m := range apiRow.FindAllStringSubmatch(doc, -1) {
		if _, dup := rows[m[1]]; dup {
			t.Errorf("docs/api.md lists %s twice", m[1])
		}
		rows[m[1]] = [2]string{strings.TrimSpace(m[2]), strings.TrimSpace(m[3])}
	}
	// With the OAuth provider on, every action is registered.
	actions := appActions(t, testEnv(t, "OAUTH_PROVIDER=true", "ACCESS_TOKEN_ALG=EdDSA", "PUBLIC_URL=http://127.0.0.1:3000"))
	for _, d := range actions {
		row, ok := rows[d.Spec.Path]
		if !ok {
			t.Errorf("docs/api.md has no row for %s", d.Spec.Path)
			continue
		}
		delete(rows, d.Spec.Path)
		if want := accessWord(d.Spec.Auth); !strings.HasPrefix(row[0], want) {
			t.Errorf("docs/api.md: %s is %q, want %q", d.Spec.Path, row[0], want)
		}
		if sensitive := d.Spec.Reauth >= action.ReauthRecent; sensitive != strings.Contains(row[0], "sensitive") {
			t.Errorf("docs/api.md: %s is %q; sensitive: %v", d.Spec.Path, row[0], sensitive)
		}
		if got, want := oauthWords(row[0]), oauthDeclared(d.Spec); !slices.Equal(got, want) {
			t.Errorf("docs/api.md: %s names the OAuth scopes and tool %v, the action declares %v", d.Spec.Path, got, want)
		}
		var declared []string
		for _, a := range d.Args {
			declared = append(declared, a.Name)
		}
		if got := backticked(row[1]); !slices.Equal(got, declared) {
			t.Errorf("docs/api.md: %s takes %v, the action declares %v", d.Spec.Path, got, declared)
		}
	}
	for path := range rows {
		t.Errorf("docs/api.md lists %s, which the server does not register", path)
	}
}

// oauthWords are the OAuth scopes and the tool an access cell of
// docs/api.md names ("user; OAuth scope `a:b`, tool `x`").
func oauthWords(cell string) []string {
	_, rest, ok := strings.Cut(cell, "OAuth scope")
	if !ok {
		return nil
	}
	return backticked(rest)
}

// oauthDeclared are the scopes and the tool name an action declares.
func oauthDeclared(s action.Spec) []string {
	out := slices.Clone(s.Scopes)
	if s.Tool != nil {
		out = append(out, s.Tool.Name)
	}
	return out
}

// accessWord is how docs/api.md names an access rule.
func accessWord(a action.Auth) string {
	switch a.Kind {
	case action.KindPublic, action.KindOptional:
		return "public"
	case action.KindLoggedOut:
		return "logged out"
	default:
		return string(a.Owner)
	}
}

// backticked returns the code spans of s in order.
func backticked(s string) []string {
	var out []string
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// configName matches a variable named in the first cell of a row of
// docs/configuration.md (and the suffixes of a family, `_SCOPES`).
var configName = regexp.MustCompile("`(_?[A-Z][A-Z0-9_<>]*)`")

// TestConfigurationDocListsEveryVariable: docs/configuration.md names every
// environment variable the server reads, and none it does not. The
// variables read are recorded from loadConfig itself under environments
// that reach every branch (an identity provider with the id X, a key-pair
// algorithm, production).
func TestConfigurationDocListsEveryVariable(t *testing.T) {
	read := map[string]bool{}
	for _, env := range []map[string]string{
		{},
		{"OIDC_PROVIDERS": "x", "ACCESS_TOKEN_ALG": "EdDSA", "TRUST_PROXY": "true"},
		{"APP_ENV": "production"},
	} {
		_, _ = loadConfig(func(k string) string { read[k] = true; return env[k] })
	}
	documented := map[string]bool{}
	for _, line := range strings.Split(readText(t, "../docs/configuration.md"), "\n") {
		first, _, ok := strings.Cut(strings.TrimPrefix(line, "| "), " | ")
		if !ok || !strings.HasPrefix(line, "| `") {
			continue
		}
		family := ""
		for _, m := range configName.FindAllStringSubmatch(first, -1) {
			name := strings.ReplaceAll(m[1], "<ID>", "X")
			if strings.HasPrefix(name, "_") { // a suffix of the family named before it
				name = family + name
			} else if i := strings.Index(name, "_X_"); i >= 0 {
				family = name[:i+2]
			}
			documented[name] = true
		}
	}
	for name := range read {
		if !documented[name] {
			t.Errorf("docs/configuration.md does not name %s, which the server reads", name)
		}
	}
	for name := range documented {
		if !read[name] {
			t.Errorf("docs/configuration.md names %s, which the server does not read", name)
		}
	}
	if len(read) < 50 {
		t.Fatalf("recorded only %d variables", len(read))
	}
}
