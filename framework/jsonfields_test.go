package framework

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
)

type jfInner struct {
	A string
	B string `json:"b"`
	C string `json:"shared"`
}

type jfOther struct {
	C string // untagged "C" beside jfInner.C's tag: no clash, both kept
	E string
	A string // untagged, conflicts with jfInner.A: both dropped
}

type jfTagWins struct {
	Y string `json:"X"` // tagged: wins over jfTagLoses.X at the same depth
}

type jfTagLoses struct {
	X string
}

type jfDeep struct {
	jfInner
	Z string `json:"z"`
}

type jfOuter struct {
	jfInner
	jfOther
	Top   string `json:"b"` // hides jfInner.B
	skip  string
	Dash  string  `json:"-"`
	Named jfInner `json:"named"`
}

type jfPointer struct {
	*jfDeep
	jfTagWins
	jfTagLoses
	N int `json:"n,string"`
}

// jsonFields agrees with encoding/json, key for key and in order, on
// structs that exercise promotion, hiding, conflicts and tags.
func TestJSONFieldsMatchEncodingJSON(t *testing.T) {
	for _, v := range []any{
		jfInner{},
		jfOuter{skip: "x"},
		jfDeep{},
		jfPointer{jfDeep: &jfDeep{}},
		struct {
			jfDeep
			jfInner
		}{}, // jfInner's fields at depth 1 hide jfDeep's promoted ones at depth 2
	} {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		want := topLevelKeys(t, raw)
		var got []string
		for _, f := range jsonFields(reflect.TypeOf(v)) {
			got = append(got, f.name)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%T: jsonFields %v, encoding/json %v", v, got, want)
		}
	}
}

// topLevelKeys lists the keys of a JSON object in document order.
func topLevelKeys(t *testing.T, raw []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}
