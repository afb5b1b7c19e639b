package framework

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/actionkit/actionkit/action"
)

var (
	timeType          = reflect.TypeOf(time.Time{})
	rawMessageType    = reflect.TypeOf(json.RawMessage(nil))
	jsonMarshalerType = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	textMarshalerType = reflect.TypeOf((*encoding.TextMarshaler)(nil)).Elem()
	statusCoderType   = reflect.TypeOf((*action.StatusCoder)(nil)).Elem()
	componentNameRe   = regexp.MustCompile(`[^A-Za-z0-9._-]+`)
)

// schemaKey names a reflected type in one role: as a success body (with
// status and success beside its fields) or as a value inside one.
type schemaKey struct {
	t    reflect.Type
	body bool
}

// argSchema documents one argument; in a JSON body a pointer argument also
// takes null (which counts as absent, like a missing argument).
func (g *openAPIGen) argSchema(a ArgInfo, inBody bool) Schema {
	s := argTypeSchema(a)
	var notes []string
	switch a.Format {
	case "":
	case "email":
		s["format"] = "email"
	case "uuid7":
		notes = append(notes, "a UUID of version 7")
	default:
		doc, ok := g.info.Rules[a.Format]
		if !ok {
			notes = append(notes, fmt.Sprintf("must pass the %q rule", a.Format))
		}
		for k, v := range doc {
			if k == "description" {
				notes = append(notes, fmt.Sprint(v))
				continue
			}
			s[k] = v
		}
	}
	if len(a.Mods) > 0 {
		notes = append(notes, "modified before validation by: "+strings.Join(a.Mods, ", "))
	}
	if a.Lenient {
		notes = append(notes, "a value that is not usable counts as absent")
	}
	if a.Type == "object" {
		notes = append(notes, "a JSON object: only a JSON body can carry it")
	}
	if a.Type == "array" {
		notes = append(notes, "a JSON array of strings: only a JSON body can carry it")
	}
	if len(notes) > 0 {
		s["description"] = strings.Join(notes, "; ")
	}
	if inBody && a.Nullable {
		return nullable(s)
	}
	return s
}

// argTypeSchema is an argument's type with its bounds, values and default.
func argTypeSchema(a ArgInfo) Schema {
	s := Schema{"type": a.Type}
	if a.Type == "uuid" {
		s["type"], s["format"] = "string", "uuid"
	}
	if a.Type == "array" {
		s["items"], s["maxItems"] = Schema{"type": "string"}, maxListItems
	}
	lo, hi := "minimum", "maximum"
	if a.Type == "string" {
		lo, hi = "minLength", "maxLength"
	}
	if a.Min != nil {
		s[lo] = boundValue(*a.Min, a.Type == "string")
	}
	if a.Max != nil {
		s[hi] = boundValue(*a.Max, a.Type == "string")
	}
	if len(a.OneOf) > 0 {
		s["enum"] = a.OneOf
	}
	if a.Pattern != "" {
		s["pattern"] = a.Pattern
	}
	if a.HasDef {
		s["default"] = defaultValue(a)
	}
	return s
}

// boundValue writes a bound as an integer where JSON Schema needs one.
func boundValue(n float64, length bool) any {
	if length || n == float64(int64(n)) {
		return int64(n)
	}
	return n
}

// defaultValue is the argument's default as a JSON value of its type. The
// default has passed coercion at registration, so parsing cannot fail.
func defaultValue(a ArgInfo) any {
	switch a.Type {
	case "boolean":
		b, _ := strconv.ParseBool(a.Default)
		return b
	case "integer":
		if n, err := strconv.ParseInt(a.Default, 10, 64); err == nil {
			return n
		}
		n, _ := strconv.ParseUint(a.Default, 10, 64)
		return n
	case "number":
		n, _ := strconv.ParseFloat(a.Default, 64)
		return n
	}
	return a.Default
}

// argsComponent registers the body schema of d's arguments and returns its
// component name, "<wire name>Arguments".
func (g *openAPIGen) argsComponent(d Descriptor) string {
	if name, ok := g.argsNames[d.Spec.Name]; ok {
		return name
	}
	name := g.uniqueName(d.Spec.Name+"Arguments", "")
	g.argsNames[d.Spec.Name] = name
	g.comp.Schemas[name] = g.argsSchema(d)
	return name
}

// argsSchema is the JSON Schema of d's arguments in a JSON body: the
// schema of its OpenAPI request body and of its MCP tool's input.
func (g *openAPIGen) argsSchema(d Descriptor) Schema {
	props := Schema{}
	var required []string
	for _, a := range d.Args {
		props[a.Name] = g.argSchema(a, true)
		if a.Required {
			required = append(required, a.Name)
		}
	}
	s := Schema{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// uniqueName returns base, or base with suffix, or with a number, whichever
// is first free among the component schemas, and takes it.
func (g *openAPIGen) uniqueName(base, suffix string) string {
	base = componentNameRe.ReplaceAllString(base, "_")
	candidates := []string{base, base + suffix}
	for i := 2; ; i++ {
		for _, c := range candidates {
			if !g.taken[c] {
				g.taken[c] = true
				return c
			}
		}
		candidates = []string{base + suffix + strconv.Itoa(i)}
	}
}

func implementsStatusCoder(t reflect.Type) bool {
	return t.Implements(statusCoderType) || reflect.PointerTo(t).Implements(statusCoderType)
}

// resultBody is the flat success body of result type t: status, success
// and t's JSON fields, as a component named after t (inline when t has no
// name).
func (g *openAPIGen) resultBody(t reflect.Type) Schema {
	return g.structRef(t, true)
}

// structRef returns a $ref to the component of struct t in a role,
// registering it first; anonymous structs are written inline.
func (g *openAPIGen) structRef(t reflect.Type, body bool) Schema {
	if t.Name() == "" {
		return g.structSchema(t, body)
	}
	key := schemaKey{t, body}
	name, ok := g.names[key]
	if !ok {
		suffix := "Value"
		if body {
			suffix = "Body"
		}
		name = g.uniqueName(t.Name(), suffix)
		g.names[key] = name
		g.comp.Schemas[name] = nil // placeholder: recursive types refer to it
		g.comp.Schemas[name] = g.structSchema(t, body)
	}
	return Schema{"$ref": "#/components/schemas/" + name}
}

// structSchema describes struct t as encoding/json writes it: a field with
// omitempty (not on a struct) or omitzero may be missing, others are
// required; fields of embedded structs are promoted unless an outer field
// has the same name.
func (g *openAPIGen) structSchema(t reflect.Type, body bool) Schema {
	props := Schema{}
	var required []string
	if body {
		props["status"] = Schema{"type": "integer", "description": "The HTTP status."}
		props["success"] = Schema{"const": true}
		required = append(required, "status", "success")
	}
	g.addFields(t, props, &required)
	s := Schema{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func (g *openAPIGen) addFields(t reflect.Type, props Schema, required *[]string) {
	for _, f := range jsonFields(t) {
		if _, dup := props[f.name]; dup {
			continue
		}
		ft, opts := f.typ, f.opts
		omit := hasOpt(opts, "omitzero") || hasOpt(opts, "omitempty") && ft.Kind() != reflect.Struct
		var fs Schema
		switch {
		case hasOpt(opts, "string") && isQuotable(ft):
			fs = Schema{"type": "string"}
		case omit && ft.Kind() == reflect.Pointer:
			fs = g.typeSchema(ft.Elem()) // nil is left out, never null
		case omit && (ft.Kind() == reflect.Slice || ft.Kind() == reflect.Map):
			fs = nonNull(g.typeSchema(ft))
		default:
			fs = g.typeSchema(ft)
		}
		props[f.name] = fs
		if !omit {
			*required = append(*required, f.name)
		}
	}
}

func hasOpt(opts, opt string) bool {
	for _, o := range strings.Split(opts, ",") {
		if o == opt {
			return true
		}
	}
	return false
}

// isQuotable reports whether the json ",string" option applies to t.
func isQuotable(t reflect.Type) bool {
	switch derefType(t).Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64, reflect.String:
		return true
	}
	return false
}

func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// typeSchema describes values of t as encoding/json writes them.
func (g *openAPIGen) typeSchema(t reflect.Type) Schema {
	switch {
	case t.Kind() == reflect.Pointer:
		return nullable(g.typeSchema(t.Elem()))
	case t == timeType:
		return Schema{"type": "string", "format": "date-time"}
	case t == uuidType:
		return Schema{"type": "string", "format": "uuid"}
	case t == rawMessageType || implements(t, jsonMarshalerType):
		return Schema{}
	case implements(t, textMarshalerType):
		return Schema{"type": "string"}
	}
	switch t.Kind() {
	case reflect.Bool:
		return Schema{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return Schema{"type": "integer"}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return Schema{"type": "integer", "minimum": 0}
	case reflect.Float32, reflect.Float64:
		return Schema{"type": "number"}
	case reflect.String:
		return Schema{"type": "string"}
	case reflect.Interface:
		return Schema{}
	case reflect.Struct:
		return g.structRef(t, false)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !implements(t.Elem(), jsonMarshalerType) && !implements(t.Elem(), textMarshalerType) {
			return Schema{"type": []string{"string", "null"}, "contentEncoding": "base64"}
		}
		return Schema{"type": []string{"array", "null"}, "items": g.typeSchema(t.Elem())}
	case reflect.Array:
		return Schema{"type": "array", "items": g.typeSchema(t.Elem()), "minItems": t.Len(), "maxItems": t.Len()}
	case reflect.Map:
		return Schema{"type": []string{"object", "null"}, "additionalProperties": g.typeSchema(t.Elem())}
	}
	g.fail("%v cannot be encoded as JSON", t)
	return Schema{}
}

func implements(t, iface reflect.Type) bool {
	return t.Implements(iface) || t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(iface)
}

// nullable lets s also be null: a type list gains "null", a reference is
// wrapped in anyOf.
func nullable(s Schema) Schema {
	switch typ := s["type"].(type) {
	case string:
		out := Schema{}
		for k, v := range s {
			out[k] = v
		}
		out["type"] = []string{typ, "null"}
		if enum, ok := s["enum"].([]string); ok {
			out["enum"] = append(append([]any{}, toAnys(enum)...), nil)
		}
		return out
	case []string:
		return s
	}
	if len(s) == 0 {
		return s
	}
	return Schema{"anyOf": []any{s, Schema{"type": "null"}}}
}

// nonNull drops "null" from a type list of two.
func nonNull(s Schema) Schema {
	if typ, ok := s["type"].([]string); ok && len(typ) == 2 && typ[1] == "null" {
		s["type"] = typ[0]
	}
	return s
}

func toAnys(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
