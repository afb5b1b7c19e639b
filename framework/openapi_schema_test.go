package framework

import (
	"encoding/json"
	"net"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// asJSON renders v as canonical JSON (sorted keys), for comparisons.
func asJSON(t testing.TB, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

type (
	schemaLeaf struct {
		N int `json:"n"`
	}
	schemaTree struct {
		Kids []*schemaTree `json:"kids"`
	}
	schemaBase struct {
		ID    string `json:"id"`
		Shade string `json:"shade"`
	}
	schemaEmbeds struct {
		schemaBase
		Shade  int    `json:"shade"`
		hidden string // unexported: not encoded
		Skip   string `json:"-"`
		Plain  bool
	}
	schemaOptions struct {
		Ptr    *string           `json:"ptr,omitempty"`
		Count  int64             `json:"count,string"`
		List   []int             `json:"list,omitempty"`
		Zero   time.Time         `json:"zero,omitzero"`
		Leaf   schemaLeaf        `json:"leaf,omitempty"`
		Labels map[string]string `json:"labels"`
	}
	schemaLevel int
)

func (l schemaLevel) MarshalText() ([]byte, error) { return []byte("high"), nil }

func TestOpenAPITypeSchemas(t *testing.T) {
	leafRef := `{"$ref":"#/components/schemas/schemaLeaf"}`
	for _, tc := range []struct {
		name string
		v    any
		want string
		comp string // the component registered for the named struct, if any
	}{
		{"string", "", `{"type":"string"}`, ""},
		{"bool", false, `{"type":"boolean"}`, ""},
		{"int", 0, `{"type":"integer"}`, ""},
		{"int8", int8(0), `{"type":"integer"}`, ""},
		{"uint16", uint16(0), `{"minimum":0,"type":"integer"}`, ""},
		{"float32", float32(0), `{"type":"number"}`, ""},
		{"float64", 0.0, `{"type":"number"}`, ""},
		{"time", time.Time{}, `{"format":"date-time","type":"string"}`, ""},
		{"time pointer", (*time.Time)(nil), `{"format":"date-time","type":["string","null"]}`, ""},
		{"uuid", uuid.UUID{}, `{"format":"uuid","type":"string"}`, ""},
		{"uuid pointer", (*uuid.UUID)(nil), `{"format":"uuid","type":["string","null"]}`, ""},
		{"string pointer", (*string)(nil), `{"type":["string","null"]}`, ""},
		{"text marshaler", schemaLevel(0), `{"type":"string"}`, ""},
		{"json marshaler", json.RawMessage(nil), `{}`, ""},
		{"ip (text marshaler)", net.IP{}, `{"type":"string"}`, ""},
		{"interface", (*any)(nil), `{}`, ""},
		{"bytes", []byte(nil), `{"contentEncoding":"base64","type":["string","null"]}`, ""},
		{"slice", []string(nil), `{"items":{"type":"string"},"type":["array","null"]}`, ""},
		{"array", [2]int{}, `{"items":{"type":"integer"},"maxItems":2,"minItems":2,"type":"array"}`, ""},
		{"map", map[string]float64(nil), `{"additionalProperties":{"type":"number"},"type":["object","null"]}`, ""},
		{"struct", schemaLeaf{}, leafRef, `{"properties":{"n":{"type":"integer"}},"required":["n"],"type":"object"}`},
		{"struct pointer", (*schemaLeaf)(nil), `{"anyOf":[` + leafRef + `,{"type":"null"}]}`, ""},
		{"anonymous struct", struct {
			A string `json:"a"`
		}{}, `{"properties":{"a":{"type":"string"}},"required":["a"],"type":"object"}`, ""},
		{"recursive", schemaTree{}, `{"$ref":"#/components/schemas/schemaTree"}`,
			`{"properties":{"kids":{"items":{"anyOf":[{"$ref":"#/components/schemas/schemaTree"},{"type":"null"}]},"type":["array","null"]}},"required":["kids"],"type":"object"}`},
		{"embedded", schemaEmbeds{}, `{"$ref":"#/components/schemas/schemaEmbeds"}`,
			`{"properties":{"Plain":{"type":"boolean"},"id":{"type":"string"},"shade":{"type":"integer"}},"required":["id","shade","Plain"],"type":"object"}`},
		{"options", schemaOptions{}, `{"$ref":"#/components/schemas/schemaOptions"}`,
			`{"properties":{"count":{"type":"string"},"labels":{"additionalProperties":{"type":"string"},"type":["object","null"]},` +
				`"leaf":` + leafRef + `,"list":{"items":{"type":"integer"},"type":"array"},"ptr":{"type":"string"},` +
				`"zero":{"format":"date-time","type":"string"}},"required":["count","leaf","labels"],"type":"object"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newOpenAPIGen(New(Config{}), OpenAPIInfo{})
			typ := reflect.TypeOf(tc.v)
			if typ.Kind() == reflect.Pointer && typ.Elem().Kind() == reflect.Interface {
				typ = typ.Elem()
			}
			if got := asJSON(t, g.typeSchema(typ)); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
			if tc.comp != "" {
				if got := asJSON(t, g.comp.Schemas[typ.Name()]); got != tc.comp {
					t.Errorf("component: got %s, want %s", got, tc.comp)
				}
			}
			if g.err != nil {
				t.Errorf("got error %v", g.err)
			}
		})
	}
}

func TestOpenAPITypeSchemaRefusesUnencodable(t *testing.T) {
	g := newOpenAPIGen(New(Config{}), OpenAPIInfo{})
	g.typeSchema(reflect.TypeOf(struct {
		C chan int `json:"c"`
	}{}))
	if g.err == nil || !strings.Contains(g.err.Error(), "chan int") {
		t.Errorf("got %v, want an error naming chan int", g.err)
	}
}

func TestOpenAPIComponentNames(t *testing.T) {
	g := newOpenAPIGen(New(Config{}), OpenAPIInfo{})
	leaf := reflect.TypeOf(schemaLeaf{})
	body := asJSON(t, g.structRef(leaf, true))
	value := asJSON(t, g.structRef(leaf, false))
	again := asJSON(t, g.structRef(leaf, true))
	if body != `{"$ref":"#/components/schemas/schemaLeaf"}` || value != `{"$ref":"#/components/schemas/schemaLeafValue"}` || again != body {
		t.Errorf("got %s, %s, %s", body, value, again)
	}
	if got := asJSON(t, g.comp.Schemas["schemaLeaf"]["required"]); got != `["status","success","n"]` {
		t.Errorf("body component requires %s", got)
	}
	if got := g.uniqueName("Page[v1.Post]", "Body"); got != "Page_v1.Post_" {
		t.Errorf("got %q, want a name OpenAPI accepts", got)
	}
}

func TestOpenAPIArgSchemas(t *testing.T) {
	f := func(n float64) *float64 { return &n }
	rules := map[string]Schema{"password": {"format": "password", "minLength": 12, "description": "strong enough"}}
	for _, tc := range []struct {
		name   string
		arg    ArgInfo
		inBody bool
		want   string
	}{
		{"string bounds", ArgInfo{Type: "string", Min: f(1), Max: f(64)}, false, `{"maxLength":64,"minLength":1,"type":"string"}`},
		{"email", ArgInfo{Type: "string", Format: "email", Max: f(254), Mods: []string{"trim", "lower"}}, false,
			`{"description":"modified before validation by: trim, lower","format":"email","maxLength":254,"type":"string"}`},
		{"uuid7", ArgInfo{Type: "uuid", Format: "uuid7", Required: true}, false, `{"description":"a UUID of version 7","format":"uuid","type":"string"}`},
		{"integer bounds and default", ArgInfo{Type: "integer", Min: f(1), Max: f(100), Default: "3", HasDef: true}, false,
			`{"default":3,"maximum":100,"minimum":1,"type":"integer"}`},
		{"number bounds", ArgInfo{Type: "number", Min: f(0.5)}, false, `{"minimum":0.5,"type":"number"}`},
		{"boolean default", ArgInfo{Type: "boolean", Default: "false", HasDef: true}, false, `{"default":false,"type":"boolean"}`},
		{"oneof and pattern", ArgInfo{Type: "string", OneOf: []string{"a", "b"}, Pattern: "^[ab]$"}, false,
			`{"enum":["a","b"],"pattern":"^[ab]$","type":"string"}`},
		{"pointer in a query", ArgInfo{Type: "boolean", Nullable: true}, false, `{"type":"boolean"}`},
		{"pointer in a body", ArgInfo{Type: "uuid", Nullable: true}, true, `{"format":"uuid","type":["string","null"]}`},
		{"pointer enum in a body", ArgInfo{Type: "string", Nullable: true, OneOf: []string{"a"}}, true, `{"enum":["a",null],"type":["string","null"]}`},
		{"documented rule", ArgInfo{Type: "string", Format: "password"}, false, `{"description":"strong enough","format":"password","minLength":12,"type":"string"}`},
		{"undocumented rule", ArgInfo{Type: "string", Format: "locale"}, false, `{"description":"must pass the \"locale\" rule","type":"string"}`},
		{"lenient", ArgInfo{Type: "string", Lenient: true}, false, `{"description":"a value that is not usable counts as absent","type":"string"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newOpenAPIGen(New(Config{}), OpenAPIInfo{Rules: rules})
			if got := asJSON(t, g.argSchema(tc.arg, tc.inBody)); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}
