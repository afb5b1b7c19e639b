package v1

import (
	"unicode"

	"github.com/invopop/validation"

	"github.com/actionkit/actionkit/auth"
	"github.com/actionkit/actionkit/errorcodes"
)

// Rules are the named validation rules the v1 actions use in their
// declarations ("password", "locale", "passkeyName"); pass them to
// framework.Config.Rules.
func Rules(catalog *errorcodes.Catalog) map[string]validation.Rule {
	return map[string]validation.Rule{
		"password":    passwordRule{},
		"locale":      localeRule{catalog},
		"passkeyName": displayNameRule{},
	}
}

// displayNameRule refuses control characters (NUL included, which
// PostgreSQL cannot store) in a name shown in lists.
type displayNameRule struct{}

func (displayNameRule) Validate(v any) error {
	s, _ := v.(string)
	for _, r := range s {
		if unicode.IsControl(r) {
			return validation.NewError("control_characters", "must not contain control characters")
		}
	}
	return nil
}

// Mods are the named modifiers the v1 actions use ("locale", which turns a
// locale code into its configured spelling: zh-tw becomes zh-TW); pass them
// to framework.Config.Mods.
func Mods(catalog *errorcodes.Catalog) map[string]func(string) string {
	return map[string]func(string) string{
		"locale": func(s string) string {
			if loc, ok := catalog.Match(s); ok {
				return loc
			}
			return s
		},
	}
}

type passwordRule struct{}

func (passwordRule) Validate(v any) error {
	s, _ := v.(string)
	if s == "" || auth.CheckPasswordPolicy(s) == nil {
		return nil
	}
	return validation.NewError("password", "must be 12 to 128 characters with a lowercase letter, an uppercase letter, a digit and a symbol")
}

type localeRule struct{ catalog *errorcodes.Catalog }

func (r localeRule) Validate(v any) error {
	s, _ := v.(string)
	if s == "" {
		return nil
	}
	if _, ok := r.catalog.Match(s); ok {
		return nil
	}
	return validation.NewError("one_of", "must be one of: {{.values}}").
		SetParams(map[string]any{"values": joinLocales(r.catalog.Locales())})
}

func joinLocales(l []string) string {
	out := ""
	for i, s := range l {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}
