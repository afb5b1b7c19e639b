package errorcodes

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
)

// TestCodesGolden pins every released code: its identifier, status and
// message key, in order. Codes are append-only: a change to a released line
// fails here; a new code must be appended both to all and to the golden file.
func TestCodesGolden(t *testing.T) {
	raw, err := os.ReadFile("testdata/codes.golden")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSpace(string(raw)), "\n")
	got := All()
	if len(got) != len(want) {
		t.Errorf("got %d codes, want %d (append new codes to testdata/codes.golden too)", len(got), len(want))
	}
	for i := 0; i < len(got) && i < len(want); i++ {
		line := fmt.Sprintf("%s %d %s", got[i].ID, got[i].Status, got[i].Key)
		if line != want[i] {
			t.Errorf("code %d: got %q, want %q", i, line, want[i])
		}
	}
	seen := map[string]bool{}
	for _, c := range got {
		if seen[c.ID] {
			t.Errorf("code %s registered twice", c.ID)
		}
		seen[c.ID] = true
	}
}

// TestEveryLocaleHasEveryMessage fails when a locale file lacks the message
// of a code, or any message key that the default locale has.
func TestEveryLocaleHasEveryMessage(t *testing.T) {
	files, err := fs.Glob(builtin, "messages/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no message files: %v", err)
	}
	all := map[string]map[string]string{}
	for _, name := range files {
		raw, _ := builtin.ReadFile(name)
		var m map[string]string
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		all[name] = m
	}
	en := all["messages/en.json"]
	for name, msgs := range all {
		for _, c := range All() {
			if strings.TrimSpace(msgs[c.Key]) == "" {
				t.Errorf("%s: no message for %s (key %s)", name, c.ID, c.Key)
			}
		}
		for key := range en {
			if strings.TrimSpace(msgs[key]) == "" {
				t.Errorf("%s: no message for key %s", name, key)
			}
		}
		for key := range msgs {
			if _, ok := en[key]; !ok {
				t.Errorf("%s: key %s is not in en.json", name, key)
			}
		}
	}
	for _, want := range []string{"en", "es", "zh-TW"} {
		if _, ok := all["messages/"+want+".json"]; !ok {
			t.Errorf("locale %s has no message file", want)
		}
	}
}

func TestNewCatalogRefusesIncompleteLocale(t *testing.T) {
	if _, err := NewCatalog([]string{"en", "fr"}, All()); err == nil {
		t.Error("got no error for a locale without messages, want one")
	}
	extra := Messages{"en": {"custom.code": "Custom."}}
	custom := Code{ID: "CUSTOM", Status: 418, Key: "custom.code"}
	if _, err := NewCatalog([]string{"en", "es"}, append(All(), custom), extra); err == nil {
		t.Error("got no error for a code missing in es, want one")
	}
	c, err := NewCatalog([]string{"en"}, append(All(), custom), extra)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Message("en", custom); got != "Custom." {
		t.Errorf("got %q, want %q", got, "Custom.")
	}
}

func TestCatalogLocaleSelection(t *testing.T) {
	c, err := NewCatalog([]string{"en", "es", "zh-TW"}, All())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, header, want string
	}{
		{"exact", "es", "es"},
		{"case-insensitive", "zh-tw", "zh-TW"},
		{"q-values", "es;q=0.2, zh-TW;q=0.9", "zh-TW"},
		{"region falls back to language", "es-MX,en;q=0.5", "es"},
		{"exact beats base at equal q", "zh-CN, es", "es"},
		{"nothing fits", "fr, de;q=0.8", ""},
		{"malformed q", "es;q=abc", ""},
		{"wildcard ignored", "*", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := c.Negotiate(tc.header); got != tc.want {
				t.Errorf("Negotiate(%q) = %q, want %q", tc.header, got, tc.want)
			}
		})
	}
	if got, ok := c.Match("ZH-tw"); !ok || got != "zh-TW" {
		t.Errorf("Match(ZH-tw) = %q, %v; want zh-TW, true", got, ok)
	}
	if got := c.Message("es", PostNotFound); got != "No se encontró la publicación." {
		t.Errorf("es message = %q", got)
	}
	if got := c.Message("xx", PostNotFound); got != "The post was not found." {
		t.Errorf("unknown locale falls back to en: got %q", got)
	}
}

func TestFieldMessages(t *testing.T) {
	c, err := NewCatalog([]string{"en", "es"}, All())
	if err != nil {
		t.Fatal(err)
	}
	e := BadRequestInvalidArguments.WithFields(map[string]FieldError{
		"password":  {Code: "required", Message: "is required"},
		"firstName": {Code: "length_too_long", Message: "too long", Params: map[string]any{"max": 64}},
		"odd":       {Code: "no_such_code", Message: "is odd"},
	})
	fields, msg := c.FieldMessages("es", e)
	if got, want := fields["firstName"], "debe tener como máximo 64 caracteres"; got != want {
		t.Errorf("firstName: got %q, want %q", got, want)
	}
	if got, want := fields["odd"], "is odd"; got != want {
		t.Errorf("unknown code falls back to its message: got %q, want %q", got, want)
	}
	want := "Los argumentos de la solicitud no son válidos: firstName: debe tener como máximo 64 caracteres; odd: is odd; password: es obligatorio"
	if msg != want {
		t.Errorf("summary:\n got %q\nwant %q", msg, want)
	}
}

func TestErrorHelpers(t *testing.T) {
	cause := errors.New("boom")
	err := fmt.Errorf("outer: %w", InternalServerError.Wrap(cause))
	if !Is(err, InternalServerError) {
		t.Error("Is(wrapped, INTERNAL_SERVER_ERROR) = false, want true")
	}
	if Is(err, NotFound) {
		t.Error("Is(wrapped, NOT_FOUND) = true, want false")
	}
	if !errors.Is(err, cause) {
		t.Error("the cause is not in the chain")
	}
	if e, ok := As(err); !ok || e.Code != InternalServerError {
		t.Errorf("As = %v, %v", e, ok)
	}
	if _, ok := As(cause); ok {
		t.Error("As(plain error) = true, want false")
	}
}
