package framework

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// mergeCases are bodies whose reading by mergeJSON must equal the
// json.Decoder's reading of them (mergeJSONStream): objects of every value
// kind, escapes, repeated names, and texts that are not one object.
var mergeCases = []string{
	`{}`, ` { } `, "\t{\"a\":1}\r\n", `{"a":"b"}`, `{"a":"b\"c\\d\/e\u00e9\ud83d\ude00"}`,
	`{"a\u0062":1,"ab":2}`, `{"a":1,"a":2}`, `{"a":1,"b":{"a":1,"a":2}}`,
	`{"n":-0,"m":1.5e300,"o":1e400,"p":0.000001,"q":12345678901234567890}`,
	`{"t":true,"f":false,"z":null}`, `{"x":[1,"]",{"y":"}"},[[]],null]}`,
	`{"s":"{[,:]}","k":{"\"}":"\\"}}`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `{"a":1} x`, `{"a":1}{}`,
	`[1,2]`, `[1,2`, `123 456`, `123 x`, `"abc"`, `"abc`, `null`, `{"a":1,"a":2,`, `{"a":"x"`,
	`{"a":"\ud800"}`, "{\"a\":\"\xff\"}", "\ufeff{}", `{"` + strings.Repeat("k", 40) + `":"v"}`,
	manyMembers(16), manyMembers(17), manyMembers(40) + `x`, `{"a":1,"b":2,"c":3,"b":4}`,
	`{"deep":{"a":[{"b":[{"c":{}}]}]},"e":""}`, `{"a":"\u0000"}`, `{"":1}`, `{"":1,"":2}`,
}

func manyMembers(n int) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + strings.Repeat("x", i) + `":` + `"v"`)
	}
	b.WriteByte('}')
	return b.String()
}

// TestMergeJSONMatchesDecoder checks that mergeJSON reads every body as
// the member-by-member json.Decoder does: the same members, or the same
// refusal.
func TestMergeJSONMatchesDecoder(t *testing.T) {
	for _, body := range mergeCases {
		checkMergeJSON(t, body)
	}
}

func checkMergeJSON(t *testing.T, body string) {
	t.Helper()
	got, want := map[string]any{"q": "query"}, map[string]any{"q": "query"}
	gotErr := mergeJSON(got, []byte(body))
	wantErr := badJSON()
	if utf8.ValidString(body) && validSurrogates([]byte(body)) {
		wantErr = mergeJSONStream(want, []byte(body))
	}
	if (gotErr == nil) != (wantErr == nil) || gotErr != nil && !reflect.DeepEqual(gotErr.Fields, wantErr.Fields) {
		t.Fatalf("body %q: refusal %v, want %v", body, gotErr, wantErr)
	}
	if wantErr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("body %q: members %#v, want %#v", body, got, want)
	}
}

// FuzzMergeJSON compares mergeJSON with the json.Decoder's reading of
// random bodies.
func FuzzMergeJSON(f *testing.F) {
	for _, body := range mergeCases {
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, body string) { checkMergeJSON(t, body) })
}

// TestValidPlatform checks that validPlatform agrees with platformRe.
func TestValidPlatform(t *testing.T) {
	for _, p := range []string{"", "web", "ios", "a_b-c9", strings.Repeat("a", 32), strings.Repeat("a", 33),
		"Web", "we b", "web\n", "\nweb", "wéb", "a.b", "-", "_", "0", "a/b", "web\x00"} {
		if got, want := validPlatform(p), platformRe.MatchString(p); got != want {
			t.Errorf("validPlatform(%q) = %v, want %v", p, got, want)
		}
	}
}
