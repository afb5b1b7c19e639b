package errorcodes

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
)

//go:embed messages/*.json
var builtin embed.FS

// DefaultLocale is the locale used when no other applies.
const DefaultLocale = "en"

// Messages maps a locale code to its messages, each keyed by message key.
type Messages map[string]map[string]string

// Catalog holds the translated messages of the configured locales. It is
// immutable once built and safe for concurrent use.
type Catalog struct {
	locales  []string
	byLower  map[string]string
	byBase   map[string]string
	messages map[string]map[string]string
}

// checkCodes refuses a malformed code, and two codes of one ID or of one
// message key: an application's codes must not clash with the
// framework's or with each other's.
func checkCodes(codes []Code) error {
	ids, keys := map[string]Code{}, map[string]Code{}
	for _, c := range codes {
		if err := c.Check(); err != nil {
			return err
		}
		if prev, dup := ids[c.ID()]; dup {
			return fmt.Errorf("errorcodes: code %s is registered twice (%q and %q)", c.ID(), string(prev), string(c))
		}
		if prev, dup := keys[c.Key()]; dup {
			return fmt.Errorf("errorcodes: codes %s and %s share the message key %q", prev.ID(), c.ID(), c.Key())
		}
		ids[c.ID()], keys[c.Key()] = c, c
	}
	return nil
}

// NewCatalog builds a catalog for locales (such as "en", "es", "zh-TW") from
// the built-in messages and extra, whose entries are added to (or override)
// the built-in ones. codes are every code the application answers: the
// framework's (Framework) and its own. It fails when a code is malformed or
// given twice (by ID or by message key), when a locale has no messages at
// all, or when it lacks a message for one of codes; the default locale is
// always included.
func NewCatalog(locales []string, codes []Code, extra ...Messages) (*Catalog, error) {
	if err := checkCodes(codes); err != nil {
		return nil, err
	}
	c := &Catalog{byLower: map[string]string{}, byBase: map[string]string{}, messages: map[string]map[string]string{}}
	if err := c.load(extra); err != nil {
		return nil, err
	}
	if !containsFold(locales, DefaultLocale) {
		locales = append([]string{DefaultLocale}, locales...)
	}
	for _, loc := range locales {
		loc = strings.TrimSpace(loc)
		msgs, ok := c.messages[loc]
		if !ok {
			return nil, fmt.Errorf("errorcodes: no messages for locale %q", loc)
		}
		for _, code := range codes {
			if msgs[code.Key()] == "" {
				return nil, fmt.Errorf("errorcodes: locale %q has no message for %s (key %q)", loc, code.ID(), code.Key())
			}
		}
		if _, dup := c.byLower[strings.ToLower(loc)]; dup {
			continue
		}
		c.locales = append(c.locales, loc)
		c.byLower[strings.ToLower(loc)] = loc
		base := strings.ToLower(strings.SplitN(loc, "-", 2)[0])
		if _, taken := c.byBase[base]; !taken {
			c.byBase[base] = loc
		}
	}
	for loc := range c.messages {
		if _, ok := c.byLower[strings.ToLower(loc)]; !ok {
			delete(c.messages, loc)
		}
	}
	return c, nil
}

// LoadMessages reads the messages of every locale from the files
// dir/<locale>.json of fsys (each a JSON object of key to message), as an
// application embeds them beside its codes.
func LoadMessages(fsys fs.FS, dir string) (Messages, error) {
	files, err := fs.Glob(fsys, path.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	out := Messages{}
	for _, name := range files {
		raw, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		var msgs map[string]string
		if err := json.Unmarshal(raw, &msgs); err != nil {
			return nil, fmt.Errorf("errorcodes: %s: %w", name, err)
		}
		out[strings.TrimSuffix(path.Base(name), ".json")] = msgs
	}
	return out, nil
}

// MustLoadMessages is LoadMessages for files embedded in the binary, whose
// failure is a programming error: it panics.
func MustLoadMessages(fsys fs.FS, dir string) Messages {
	m, err := LoadMessages(fsys, dir)
	if err != nil {
		panic(err)
	}
	return m
}

// CheckMessages lists what msgs lacks: in each locale, a message for every
// one of codes and for every key the default locale has, and no key the
// default locale lacks. Each error names the locale and the key. An
// application's test runs it on the messages it ships beside its codes.
func CheckMessages(msgs Messages, codes []Code) []error {
	var errs []error
	en, ok := msgs[DefaultLocale]
	if !ok {
		return []error{fmt.Errorf("errorcodes: no %s messages", DefaultLocale)}
	}
	locales := make([]string, 0, len(msgs))
	for loc := range msgs {
		locales = append(locales, loc)
	}
	sort.Strings(locales)
	for _, loc := range locales {
		m := msgs[loc]
		for _, c := range codes {
			if strings.TrimSpace(m[c.Key()]) == "" {
				errs = append(errs, fmt.Errorf("%s: no message for %s (key %s)", loc, c.ID(), c.Key()))
			}
		}
		for _, key := range sortedKeys(en) {
			if strings.TrimSpace(m[key]) == "" {
				errs = append(errs, fmt.Errorf("%s: no message for key %s", loc, key))
			}
		}
		for _, key := range sortedKeys(m) {
			if _, ok := en[key]; !ok {
				errs = append(errs, fmt.Errorf("%s: key %s is not in %s", loc, key, DefaultLocale))
			}
		}
	}
	return errs
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (c *Catalog) load(extra []Messages) error {
	own, err := LoadMessages(builtin, "messages")
	if err != nil {
		return err
	}
	for _, m := range append([]Messages{own}, extra...) {
		for loc, msgs := range m {
			if c.messages[loc] == nil {
				c.messages[loc] = map[string]string{}
			}
			for k, v := range msgs {
				c.messages[loc][k] = v
			}
		}
	}
	return nil
}

// Locales returns the configured locale codes in their canonical spelling.
func (c *Catalog) Locales() []string { return append([]string(nil), c.locales...) }

// Match returns the configured locale equal to tag, ignoring case.
func (c *Catalog) Match(tag string) (string, bool) {
	loc, ok := c.byLower[strings.ToLower(strings.TrimSpace(tag))]
	return loc, ok
}

// Negotiate picks the configured locale that best fits an Accept-Language
// header, honouring q-values; an exact tag beats a language-only match. It
// returns "" when nothing fits.
func (c *Catalog) Negotiate(acceptLanguage string) string {
	best, bestQ := "", 0.0
	for _, part := range strings.Split(acceptLanguage, ",") {
		tag, q := parseLanguageRange(part)
		if tag == "" || q <= bestQ {
			continue
		}
		if loc, ok := c.Match(tag); ok {
			best, bestQ = loc, q
			continue
		}
		base := strings.ToLower(strings.SplitN(tag, "-", 2)[0])
		if loc, ok := c.byBase[base]; ok && q > bestQ {
			best, bestQ = loc, q-0.0001
		}
	}
	return best
}

func parseLanguageRange(part string) (string, float64) {
	tag, params, _ := strings.Cut(strings.TrimSpace(part), ";")
	q := 1.0
	if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 || f > 1 {
			return "", 0
		}
		q = f
	}
	if len(tag) > 35 || tag == "*" {
		return "", 0
	}
	return strings.TrimSpace(tag), q
}

// Message returns the message of code in locale, falling back to the
// default locale and finally to the code's identifier.
func (c *Catalog) Message(locale string, code Code) string {
	if m := c.text(locale, code.Key()); m != "" {
		return m
	}
	return code.ID()
}

// FieldMessage renders a field error in locale: the catalog's
// "field.<code>" message when there is one, else its English message, with
// {name} placeholders replaced by the error's params.
func (c *Catalog) FieldMessage(locale string, fe FieldError) string {
	msg := c.text(locale, "field."+fe.Code)
	if msg == "" {
		msg = fe.Message
	}
	if len(fe.Params) == 0 || !strings.Contains(msg, "{") {
		return msg
	}
	pairs := make([]string, 0, 2*len(fe.Params))
	for k, v := range fe.Params {
		pairs = append(pairs, "{"+k+"}", fmt.Sprint(v))
	}
	return strings.NewReplacer(pairs...).Replace(msg)
}

// FieldMessages renders every field error of e in locale, and the summary
// message listing them ("<message>: email: ...; password: ...").
func (c *Catalog) FieldMessages(locale string, e *Error) (map[string]string, string) {
	msg := c.Message(locale, e.Code)
	if len(e.Fields) == 0 {
		return nil, msg
	}
	names := make([]string, 0, len(e.Fields))
	out := make(map[string]string, len(e.Fields))
	for name, fe := range e.Fields {
		names = append(names, name)
		out[name] = c.FieldMessage(locale, fe)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString(strings.TrimSuffix(msg, "."))
	for i, name := range names {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(name + ": " + out[name])
	}
	return out, b.String()
}

func (c *Catalog) text(locale, key string) string {
	if m := c.messages[locale][key]; m != "" {
		return m
	}
	return c.messages[DefaultLocale][key]
}

func containsFold(list []string, s string) bool {
	for _, v := range list {
		if strings.EqualFold(strings.TrimSpace(v), s) {
			return true
		}
	}
	return false
}
