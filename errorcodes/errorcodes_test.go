package errorcodes

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestFrameworkCodes: the framework's codes are well formed, distinct,
// and have a message in every built-in locale, whose files agree on their
// keys; a missing message is named.
func TestFrameworkCodes(t *testing.T) {
	all := append(Framework(), Later()...)
	for _, c := range all {
		if err := c.Check(); err != nil {
			t.Error(err)
		}
	}
	msgs, err := LoadMessages(builtin, "messages")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"en", "es", "zh-TW"} {
		if _, ok := msgs[want]; !ok {
			t.Errorf("locale %s has no message file", want)
		}
	}
	for _, err := range CheckMessages(msgs, all) {
		t.Error(err)
	}
	if _, err := NewCatalog([]string{"en", "es", "zh-TW"}, all); err != nil {
		t.Error(err)
	}
	delete(msgs["es"], NotFound.Key())
	if errs := CheckMessages(msgs, Framework()); len(errs) == 0 || !strings.Contains(errs[0].Error(), "es: no message for NOT_FOUND") {
		t.Errorf("a missing message is not named: %v", errs)
	}
}

// TestCodeCheck: a code is "<ID> <status> <key>", and its parts read back.
func TestCodeCheck(t *testing.T) {
	c := Code("TEAPOT_REFUSED 418 teapot.refused")
	if c.Check() != nil || c.ID() != "TEAPOT_REFUSED" || c.Status() != 418 || c.Key() != "teapot.refused" {
		t.Errorf("%q: %v %q %d %q", c, c.Check(), c.ID(), c.Status(), c.Key())
	}
	for _, bad := range []Code{"", "TEAPOT", "TEAPOT 418", "teapot 418 teapot.x", "TEAPOT 200 teapot.x",
		"TEAPOT 4180 teapot.x", "TEAPOT 418 Teapot", "TEAPOT  418 teapot.x", "TEAPOT 418 teapot.x extra"} {
		if bad.Check() == nil {
			t.Errorf("%q passes Check", bad)
		}
	}
	if Code("BROKEN").Status() != 500 {
		t.Error("a malformed code's status is not 500")
	}
}

// TestNewCatalogRefusesClashes: an application code that reuses an ID or a
// message key, or is malformed, fails at start.
func TestNewCatalogRefusesClashes(t *testing.T) {
	extra := Messages{"en": {"mine.gone": "Gone.", "not_found": "Not found."}}
	for name, codes := range map[string][]Code{
		"same ID":     append(Framework(), "NOT_FOUND 410 mine.gone"),
		"same key":    append(Framework(), "MINE_GONE 410 not_found"),
		"malformed":   append(Framework(), "MINE_GONE 41 mine.gone"),
		"given twice": append(Framework(), "MINE_GONE 410 mine.gone", "MINE_GONE 410 mine.gone"),
	} {
		if _, err := NewCatalog([]string{"en"}, codes, extra); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := NewCatalog([]string{"en"}, append(Framework(), "MINE_GONE 410 mine.gone"), extra); err != nil {
		t.Errorf("a fitting code: %v", err)
	}
}

func TestNewCatalogRefusesIncompleteLocale(t *testing.T) {
	if _, err := NewCatalog([]string{"en", "fr"}, Framework()); err == nil {
		t.Error("got no error for a locale without messages, want one")
	}
	extra := Messages{"en": {"custom.code": "Custom."}}
	custom := Code("CUSTOM 418 custom.code")
	if _, err := NewCatalog([]string{"en", "es"}, append(Framework(), custom), extra); err == nil {
		t.Error("got no error for a code missing in es, want one")
	}
	c, err := NewCatalog([]string{"en"}, append(Framework(), custom), extra)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Message("en", custom); got != "Custom." {
		t.Errorf("got %q, want %q", got, "Custom.")
	}
}

func TestCatalogLocaleSelection(t *testing.T) {
	c, err := NewCatalog([]string{"en", "es", "zh-TW"}, Framework())
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
	if got := c.Message("es", NotFound); got != "No se encontró el recurso solicitado." {
		t.Errorf("es message = %q", got)
	}
	if got := c.Message("xx", NotFound); got != "The requested resource was not found." {
		t.Errorf("unknown locale falls back to en: got %q", got)
	}
}

func TestFieldMessages(t *testing.T) {
	c, err := NewCatalog([]string{"en", "es"}, Framework())
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
