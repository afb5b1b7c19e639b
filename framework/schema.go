package framework

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/uuid"
	"github.com/invopop/validation"
	"github.com/invopop/validation/is"
)

// argKind is the declared type of an argument, which drives coercion.
type argKind uint8

const (
	kindString argKind = iota
	kindBool
	kindInt
	kindUint
	kindFloat
	kindUUID
	kindObject
	// kindStrings is a list of strings ([]string): a JSON array.
	kindStrings
)

var (
	uuidType    = reflect.TypeOf(uuid.UUID{})
	stringsType = reflect.TypeOf([]string(nil))
)

// ArgInfo describes one declared argument, for documentation generators.
type ArgInfo struct {
	Name     string
	Type     string // "string", "boolean", "integer", "number", "uuid", "object" or "array" (of strings)
	Required bool
	Nullable bool // a pointer field: absent stays nil
	Default  string
	HasDef   bool
	Min, Max *float64 // string length or numeric bounds
	OneOf    []string
	Pattern  string
	Format   string // "email", "uuid7" or a named rule
	Mods     []string
	Lenient  bool // an unusable value counts as absent instead of refused
	Secret   bool // a credential: its value never reaches a log
	// AllowNUL lets a string holding a NUL character reach the action,
	// whose own rule must refuse it; otherwise such a string is invalid.
	AllowNUL bool
}

// field is the compiled plan of one argument: where it lives in the
// argument struct, how to coerce it and which rules it must pass.
type field struct {
	ArgInfo
	index    []int
	kind     argKind
	bits     int
	ptr      bool
	mods     []func(string) string
	rules    []validation.Rule
	defValue reflect.Value // coerced default, valid when HasDef
}

// schema is the compiled plan of an argument struct, built once at
// registration.
type schema struct {
	typ    reflect.Type
	fields []field
	// logged holds the declared arguments whose values the access log
	// may show: every one not marked secret. Others are redacted.
	logged map[string]bool
}

// compileSchema reflects over the argument struct t once. It panics on a
// declaration error: a field without an arg tag, an unsupported type, an
// unknown tag option, or a default that does not satisfy its own rules.
func compileSchema(t reflect.Type, rules map[string]validation.Rule, mods map[string]func(string) string) *schema {
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("framework: arguments %v must be a struct", t))
	}
	s := &schema{typ: t, logged: map[string]bool{}}
	seen := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		tag, ok := sf.Tag.Lookup("arg")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !sf.IsExported() || !ok || name == "" {
			panic(fmt.Sprintf("framework: %v.%s needs an exported field with an arg tag (or arg:\"-\")", t, sf.Name))
		}
		if seen[name] {
			panic(fmt.Sprintf("framework: %v declares argument %q twice", t, name))
		}
		seen[name] = true
		fl := compileField(t, sf, name, rules, mods)
		for _, opt := range splitList(opts) {
			switch {
			case opt == "secret":
				fl.Secret = true
			case opt == "lenient" && !fl.Required:
				fl.Lenient = true
			case opt == "allownul" && fl.kind == kindString:
				fl.AllowNUL = true
			default:
				panic(fmt.Sprintf("framework: %v.%s: arg option %q is unknown, contradicts required or does not fit the type", t, sf.Name, opt))
			}
		}
		if !fl.Secret {
			s.logged[name] = true
		}
		s.fields = append(s.fields, fl)
	}
	return s
}

func compileField(t reflect.Type, sf reflect.StructField, name string, rules map[string]validation.Rule, mods map[string]func(string) string) field {
	where := fmt.Sprintf("%v.%s", t, sf.Name)
	f := field{ArgInfo: ArgInfo{Name: name}, index: sf.Index}
	ft := sf.Type
	if ft.Kind() == reflect.Pointer {
		f.ptr, f.Nullable, ft = true, true, ft.Elem()
	}
	f.kind, f.bits, f.Type = kindOf(ft, where)
	for _, m := range splitList(sf.Tag.Get("mod")) {
		if f.kind != kindString {
			panic(fmt.Sprintf("framework: %s: mod %q applies to strings only", where, m))
		}
		f.mods = append(f.mods, modFunc(m, mods, where))
		f.Mods = append(f.Mods, m)
	}
	for _, v := range splitList(sf.Tag.Get("validate")) {
		f.addRule(v, rules, where)
	}
	if def, ok := sf.Tag.Lookup("default"); ok {
		f.Default, f.HasDef = def, true
		val, ferr := f.coerce(def)
		if ferr != nil {
			panic(fmt.Sprintf("framework: %s: default %q: %s", where, def, ferr.Message))
		}
		if err := validation.Validate(val.Interface(), f.rules...); err != nil {
			panic(fmt.Sprintf("framework: %s: default %q breaks its own rules: %v", where, def, err))
		}
		f.defValue = val
	}
	for key := range parseTagKeys(sf.Tag) {
		if key != "arg" && key != "mod" && key != "validate" && key != "default" && key != "json" && key != "doc" {
			panic(fmt.Sprintf("framework: %s: unknown tag %q", where, key))
		}
	}
	return f
}

func kindOf(t reflect.Type, where string) (argKind, int, string) {
	if t == uuidType {
		return kindUUID, 0, "uuid"
	}
	if t == rawMessageType {
		return kindObject, 0, "object"
	}
	if t == stringsType {
		return kindStrings, 0, "array"
	}
	switch t.Kind() {
	case reflect.String:
		return kindString, 0, "string"
	case reflect.Bool:
		return kindBool, 0, "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return kindInt, t.Bits(), "integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return kindUint, t.Bits(), "integer"
	case reflect.Float32, reflect.Float64:
		return kindFloat, t.Bits(), "number"
	}
	panic(fmt.Sprintf("framework: %s: unsupported argument type %v", where, t))
}

func modFunc(name string, named map[string]func(string) string, where string) func(string) string {
	switch name {
	case "trim":
		return strings.TrimSpace
	case "lower":
		return strings.ToLower
	case "upper":
		return strings.ToUpper
	}
	if fn, ok := named[name]; ok {
		return fn
	}
	panic(fmt.Sprintf("framework: %s: unknown mod %q", where, name))
}

// addRule compiles one validate option.
func (f *field) addRule(opt string, named map[string]validation.Rule, where string) {
	key, val, hasVal := strings.Cut(opt, "=")
	switch {
	case key == "required" && !hasVal:
		f.Required = true
	case key == "email" && !hasVal && f.kind == kindString:
		f.Format = "email"
		f.rules = append(f.rules, is.EmailFormat)
	case key == "uuid7" && !hasVal && f.kind == kindUUID:
		f.Format = "uuid7"
		f.rules = append(f.rules, uuid7Rule{})
	case (key == "min" || key == "max") && hasVal:
		f.addBound(key, val, where)
	case key == "oneof" && hasVal && f.kind == kindString:
		f.OneOf = strings.Split(val, "|")
		f.rules = append(f.rules, oneOfRule(f.OneOf))
	case key == "pattern" && hasVal && f.kind == kindString:
		re, err := regexp.Compile(val)
		if err != nil {
			panic(fmt.Sprintf("framework: %s: pattern: %v", where, err))
		}
		f.Pattern = val
		f.rules = append(f.rules, validation.Match(re).ErrorObject(validation.NewError("match_invalid", "has an invalid format")))
	default:
		rule, ok := named[opt]
		if !ok {
			panic(fmt.Sprintf("framework: %s: unknown or misplaced validate option %q", where, opt))
		}
		f.Format = opt
		f.rules = append(f.rules, rule)
	}
}

func (f *field) addBound(key, val, where string) {
	n, err := strconv.ParseFloat(val, 64)
	if err != nil {
		panic(fmt.Sprintf("framework: %s: %s=%q is not a number", where, key, val))
	}
	if key == "min" {
		f.Min = &n
	} else {
		f.Max = &n
	}
	switch f.kind {
	case kindString:
		lo, hi := 0, 0
		if f.Min != nil {
			lo = int(*f.Min)
		}
		if f.Max != nil {
			hi = int(*f.Max)
		}
		f.replaceRule(func(r validation.Rule) bool { _, ok := r.(validation.LengthRule); return ok }, validation.RuneLength(lo, hi))
	case kindInt, kindUint, kindFloat:
		f.rules = append(f.rules, bound{min: key == "min", n: n})
	default:
		panic(fmt.Sprintf("framework: %s: %s does not apply to %s", where, key, f.Type))
	}
}

// bound is an inclusive numeric limit. Unlike validation.Min it also
// checks zero values: a present 0 is a value like any other.
type bound struct {
	min bool
	n   float64
}

func (b bound) Validate(v any) error {
	var x float64
	switch n := v.(type) {
	case int64:
		x = float64(n)
	case uint64:
		x = float64(n)
	case float64:
		x = n
	default:
		return nil
	}
	params := map[string]any{"threshold": strconv.FormatFloat(b.n, 'f', -1, 64)}
	if b.min && x < b.n {
		return validation.NewError("min_greater_equal_than_required", "must be at least {{.threshold}}").SetParams(params)
	}
	if !b.min && x > b.n {
		return validation.NewError("max_less_equal_than_required", "must be at most {{.threshold}}").SetParams(params)
	}
	return nil
}

// replaceRule swaps the first rule matching is for r, or appends r.
func (f *field) replaceRule(is func(validation.Rule) bool, r validation.Rule) {
	for i, old := range f.rules {
		if is(old) {
			f.rules[i] = r
			return
		}
	}
	f.rules = append(f.rules, r)
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// parseTagKeys returns the keys of a conventional struct tag.
func parseTagKeys(tag reflect.StructTag) map[string]bool {
	keys := map[string]bool{}
	s := string(tag)
	for s != "" {
		s = strings.TrimLeft(s, " ")
		i := strings.IndexByte(s, ':')
		if i <= 0 {
			break
		}
		keys[s[:i]] = true
		s = s[i+1:]
		if len(s) == 0 || s[0] != '"' {
			break
		}
		unq, err := strconv.QuotedPrefix(s)
		if err != nil {
			break
		}
		s = s[len(unq):]
	}
	return keys
}

// uuid7Rule accepts only version 7 UUIDs.
type uuid7Rule struct{}

func (uuid7Rule) Validate(v any) error {
	if id, ok := v.(uuid.UUID); ok && id.Version() == 7 && id.Variant() == uuid.RFC4122 {
		return nil
	}
	return validation.NewError("uuid7", "must be a UUID version 7")
}

// oneOfRule accepts one of a fixed list of strings.
type oneOfRule []string

func (r oneOfRule) Validate(v any) error {
	s, _ := v.(string)
	if s == "" {
		return nil
	}
	for _, ok := range r {
		if s == ok {
			return nil
		}
	}
	return validation.NewError("one_of", "must be one of: {{.values}}").
		SetParams(map[string]any{"values": strings.Join(r, ", ")})
}
